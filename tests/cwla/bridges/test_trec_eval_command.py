"""trec_eval's habits on cwla's command line and in Python: the measure selection (nicknames, defaults, the
bare-measure rule), name normalisation, the 9.0 / 10 conventions, z-scores, -N, the geometric means, and what
the peers do with empty inputs."""

from __future__ import annotations

import io
import math
import re
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest

import cwla
from cwla.bridges.cli import main
from cwla.bridges.trec_eval import NICKNAMES, trec_measures
from cwla.metrics.text import expand_trec_names, parse_metric


def _run(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exit_:
            code = exit_.code
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 2\n1 0 b 1\n1 0 c 0\n1 0 d -1\n2 0 a 1\n2 0 e 0\n3 0 x 1\n")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 5 tagA\n1 Q0 z 2 4 tagA\n1 Q0 c 3 3 tagA\n1 Q0 b 4 2 tagA\n1 Q0 d 5 1 tagA\n"
                   "2 Q0 e 1 2 tagA\n2 Q0 a 2 1 tagA\n")
    return qrels, run


@pytest.mark.parametrize("text, names", [
    ("recall.1000", ["recall_1000"]), ("recall_1000", ["recall_1000"]), ("P.10", ["P_10"]), ("P_10", ["P_10"]),
    ("P.5,10", ["P_5", "P_10"]), ("unj", ["unj_5", "unj_10", "unj_20"]), ("ndcg_cut.23.4", ["ndcg_cut_23"]),
    ("Rprec_mult.0.2", ["Rprec_mult_0.20"]), ("iprec_at_recall..5", ["iprec_at_recall_0.50"]),
    ("utility.2,-1,0,0", ["utility_2,-1,0,0"]), ("11pt_avg..25,.5", ["11pt_avg_.25,.5"]),
    ("ndcg.1=3,2=9", ["ndcg_1=3,2=9"]), ("map", ["map"]), ("nDCG@10", ["nDCG@10"]),
])
def test_expand_trec_names_gives_trec_evals_printed_name_for_every_spelling(text, names):
    assert expand_trec_names(text) == names


def test_a_bare_measure_beside_the_same_measure_with_parameters_gives_only_those_as_pytrec_eval():
    names, _ = trec_measures(["ndcg_cut", "ndcg_cut.10"])
    assert list(names) == ["ndcg_cut_10"]
    names, _ = trec_measures(["P.5", "P.10", "map"])
    assert list(names) == ["map", "P_5", "P_10"]  # trec_eval's order, cutoffs ascending


def test_nicknames_and_the_default_set(files):
    qrels, run = files
    names, length = trec_measures(None)
    assert list(names)[:2] == ["runid", "num_q"] and "P_1000" in names and "relstring" not in names
    assert length is None
    names10, _ = trec_measures(["all_trec"], convention=10)
    names9, _ = trec_measures(["all_trec"], convention=9)
    assert {"rbp", "rbp_resid", "unj_10"} <= set(names10) and not {"rbp", "unj_10"} & set(names9)
    assert set(NICKNAMES[9]["official"]) <= set(NICKNAMES[9]["all_trec"])
    code, out, _ = _run("eval", "--format", "trec", qrels, run)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "runid                 \tall\ttagA" and lines[1] == "num_q                 \tall\t2"
    assert [line.split("\t")[0].strip() for line in lines][-1] == "P_1000"


def test_a_trec_eval_10_measure_under_convention_9_is_refused_with_the_way_out():
    with pytest.raises(ValueError, match="rbp is a trec_eval 10 measure .* add --trec-eval 10"):
        trec_measures(["rbp"], convention=9)


def test_convention_10_moves_interpolated_precision_and_only_there(files):
    qrels, run = files
    # topic 1: R = 2 (grades >= 1: a, b); at x = 0.25, 9.0 cuts at floor(0.5 + 0.9) = 1, 10 at round(0.5) = 1;
    # at x = 0.75: 9.0 floor(1.5 + 0.9) = 2, 10 round(1.5) = 2; at x = 0.2: 9.0 floor(0.4 + 0.9) = 1, 10 round(.4) = 0
    ev9 = cwla.evaluate(qrels, run, ["IPrec@0.2", "11pt_avg", "map"])
    ev10 = cwla.evaluate(qrels, run, ["IPrec@0.2", "11pt_avg", "map"], trec_eval=10)
    assert ev9.values[2].tolist() == ev10.values[2].tolist()
    assert ev10.metrics[0].convention == 10 and ev9.metrics[0].convention == 9
    assert str(parse_metric("IPrec(convention=10)@0.2")) == "IPrec(convention=10)@0.2"
    # topic 1's ranking a, z, c, b, d: precision 1 at rank 1, 2/4 at rank 4: both cut at the first relevant
    assert ev9.values[0, 0, 0] == ev10.values[0, 0, 0] == 1.0
    with pytest.raises(cwla.CwlaError, match="The .trec_eval. parameter of evaluate must be 9 .* or 10 .*Got 11 instead"):
        cwla.evaluate(qrels, run, ["map"], trec_eval=11)
    # a measure's own convention wins over the evaluation's
    own = cwla.evaluate(qrels, run, ["IPrec(convention=10)@0.2"], trec_eval=9)
    assert own.metrics[0].convention == 10


def test_geometric_mean_is_trec_evals_gm_map(files):
    qrels, run = files
    ev = cwla.evaluate(qrels, run, ["map", "gm_map", "GM(nDCG@10)", "nDCG@10"])
    ap = ev.values[0, 0]
    assert ev.values[1, 0].tolist() == ap.tolist()  # per topic the measure's own values
    assert ev.aggregated()[1, 0] == pytest.approx(math.exp(np.mean(np.log(np.maximum(ap, 1e-5)))), rel=1e-15)
    assert ev.values[3, 0, 2] == 0.0 and ev.aggregated()[2, 0] < ev.aggregated()[3, 0]  # a 0 pulls it down
    assert parse_metric(str(parse_metric("GM(nDCG@10, floor=0.001)"))).floor == 0.001


def test_z_scores_and_their_errors(files, tmp_path):
    qrels, run = files
    z = tmp_path / "z.txt"
    z.write_text("1 map 0.5 0.25\n2 map 0.3 0\n1 num_ret 3 1\n")
    code, out, _ = _run("eval", "--format", "trec", "-q", "-m", "map", "-m", "num_ret", "-Z", z, qrels, run)
    assert code == 0
    ev = cwla.evaluate(qrels, run, ["map"])
    z1 = (ev.values[0, 0, 0] - 0.5) / 0.25
    lines = out.splitlines()
    assert f"Z{'map':<22}\t1\t{z1:6.4f}" in lines
    assert f"Z{'map':<22}\t2\t-1000000.0000" in lines  # sd 0, value != mean
    assert f"Z{'num_ret':<22}\t1\t2.0000" in lines  # (5 - 3) / 1
    assert f"Z{'num_ret':<22}\t2\t-1000000.0000" in lines  # not in the file
    assert f"Z{'num_ret':<22}\tall\t-999998.0000" in lines  # the counts' z values are summed, as trec_eval
    z.write_text("1 map 0.5\n")
    code, _, err = _run("eval", "--format", "trec", "-m", "map", "-Z", z, qrels, run)
    assert code == 2 and re.search(r"z.txt, line 1: expected 4 columns \(topic measure mean sd\), found 3", err)
    code, _, err = _run("eval", "-m", "map", "-Z", z, qrels, run)
    assert code == 2 and "-Z is trec_eval's: it applies with --format trec" in err


def test_minus_n_is_utilitys_collection_size(files):
    qrels, run = files
    code, out, _ = _run("eval", "--format", "trec", "-q", "-m", "utility.0,0,0,1", "-N", "100", qrels, run)
    assert code == 0
    # topic 1: d x (N + rel_ret - ret - R) = 100 + 2 - 5 - 2
    assert "utility_0,0,0,1       \t1\t95.0000" in out.splitlines()
    code, _, err = _run("eval", "--format", "trec", "-m", "utility", "-N", "-3", qrels, run)
    assert code == 2 and "-N must be a number of documents >= 0" in err


def test_relstring_and_minus_c(files):
    qrels, run = files
    code, out, _ = _run("eval", "--format", "trec", "-q", "-m", "relstring", "-m", "num_ret", qrels, run)
    assert code == 0
    assert "relstring             \t1\t'2-01.'" in out.splitlines()  # grades, '-' not in the qrels, '.' < 0
    assert "num_q" not in out and not any(line.split("\t")[1] == "3" for line in out.splitlines())
    code, out9, _ = _run("eval", "--format", "trec", "-q", "-c", "-m", "num_q", "-m", "map", qrels, run)
    code, out10, _ = _run("eval", "--format", "trec", "--trec-eval", "10", "-q", "-c", "-m", "num_q", "-m", "map",
                          qrels, run)
    assert "num_q                 \tall\t3" in out9.splitlines()  # -c: every qrels topic is averaged
    assert "map                   \t3\t0.0000" in out10.splitlines() and "\t3\t" not in out9  # 10 prints it


def test_an_empty_run_scores_zero_everywhere_with_a_warning(files, tmp_path):
    qrels, _ = files
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    code, out, err = _run("eval", "--format", "trec", "-m", "map", "-m", "num_ret", "-c", qrels, empty)
    assert code == 0 and "every topic scores 0" in err
    assert out.splitlines() == ["num_ret               \tall\t0", "map                   \tall\t0.0000"]


def test_an_empty_cwl_metrics_file_measures_nothing_as_cwl_eval():
    from conftest import shared_path

    root = shared_path("reference-fixtures", "cwl_eval-test")
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".txt") as fh:
        code, out, err = _run("cwl", root / "qrel_file", root / "result_file", "-m", fh.name, "-n")
    assert code == 0 and out == "Topic\tMetric\tEU\tETU\tEC\tETC\tED\n"
    assert "no metric in the metrics file; nothing is measured" in err


@pytest.mark.parametrize("fmt", ["tsv", "wide", "jsonl", "markdown", "trec"])
def test_a_nickname_names_the_same_measures_in_every_format(files, fmt):
    qrels, run = files
    code, out, err = _run("eval", "-m", "all_trec", "--format", fmt, qrels, run)
    assert code == 0, err
    measures = [name for name, text in trec_measures(["all_trec"])[0].items() if text is not None]
    if fmt == "trec":
        printed = list(dict.fromkeys(line.split()[0] for line in out.splitlines()))
        assert printed == ["runid", *measures]
    elif fmt == "jsonl":
        assert list(dict.fromkeys(re.findall(r'"metric": "([^"]+)"', out))) == measures
    elif fmt == "tsv":
        rows = [line.split("\t") for line in out.splitlines() if line and not line.startswith("#")]
        assert [row[2] for row in rows[1:]] == measures
    else:
        assert all(name in out for name in ("num_q", "map", "gm_map", "iprec_at_recall_0.50", "P_1000"))
    assert f"{len(measures)} metrics x 1 run x 3 topics" in out or fmt == "trec"


def test_minus_n_leaves_out_the_summary_as_trec_eval(files):
    qrels, run = files
    code, out, _ = _run("eval", "-m", "map", "-m", "P.5", "-q", "-n", "--format", "trec", qrels, run)
    assert code == 0 and out and "\tall\t" not in out
    code, full, _ = _run("eval", "-m", "map", "-m", "P.5", "-q", "--format", "trec", qrels, run)
    assert [line for line in full.splitlines() if "\tall\t" not in line] == out.splitlines()
    code, out, _ = _run("eval", "-m", "map", "-q", "--nosummary", qrels, run)
    rows = [line.split("\t") for line in out.splitlines() if line and not line.startswith("#")]
    assert code == 0 and [row[1] for row in rows[1:]] == ["1", "2", "3"]
    code, _, err = _run("eval", "-m", "map", "-n", "--format", "wide", qrels, run)
    assert code == 2 and "use -q -n with --format tsv, jsonl or trec" in err


def test_what_a_trec_eval_user_writes_gets_trec_evals_answer(files):
    qrels, run = files
    with pytest.raises(cwla.MetricSyntaxError, match=r"'all_trec' is trec_eval's name for a set of measures"):
        parse_metric("all_trec")
    code, _, err = _run("eval", "-m", "map@10", qrels, run)
    assert code == 2 and "did you mean 'AP@10' or 'map_cut_10'?" in err
    code, out, _ = _run("eval", "-m", "map", "-l", "2", "-J", "-M", "100", qrels, run)
    assert code == 0 and "# options: -l 2, -J, -M 100\n" in out
