"""Tests of the ``cwla`` command (cwla.bridges.cli.main and ``python -m cwla``)."""

from __future__ import annotations

import gzip
import io
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from report_text import without_header

import cwla
from cwla import synthetic
from cwla.bridges.cli import main
from contextlib import redirect_stdout
import re
from conftest import SHARED

HEADER = "run\ttopic\tmetric\tvalue\tresidual"
SHARED_DATA = SHARED
DL19 = SHARED_DATA / "trec-dl-2019-passage-mini"
N_TOPICS, N_RUNS = 8, 4


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A small synthetic collection written as TREC files: (qrels path, run paths)."""
    qrels, runs = synthetic.collection(n_topics=N_TOPICS, n_runs=N_RUNS, depth=30, seed=5)
    return synthetic.write_trec(qrels, runs, tmp_path_factory.mktemp("trec"))


def run_cli(capsys, *argv):
    """(exit code, stdout, stderr) of ``cwla argv``."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, without_header(out), err


def table(out: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(out), sep="\t", dtype={"run": str, "topic": str, "metric": str},
                       keep_default_na=False)


def assert_matches(frame: pd.DataFrame, ev, per_topic: bool):
    """The printed table equals ``ev.to_frame`` row for row, to 6 decimals."""
    expected = ev.to_frame(per_topic=per_topic, means=True)
    assert frame[["run", "topic", "metric"]].values.tolist() == expected[["run", "topic", "metric"]].values.tolist()
    np.testing.assert_allclose(frame["value"], expected["value"], rtol=0, atol=5.1e-7)
    np.testing.assert_allclose(frame["residual"], expected["residual"], rtol=0, atol=5.1e-7)


# ---------------------------------------------------------------------------
# cwla eval: the table
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_header_and_means(capsys, files):
    qrels, runs = files
    code, out, _ = run_cli(capsys, "eval", qrels, *runs, "-m", "nDCG@10", "-m", "INST_PE")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == HEADER
    assert len(lines) == 1 + N_RUNS * 2
    frame = table(out)
    assert set(frame["topic"]) == {"all"}
    assert frame["run"].tolist() == [f"run0{i}" for i in range(1, N_RUNS + 1) for _ in range(2)]
    assert frame["metric"].tolist() == ["nDCG@10", "INST_PE"] * N_RUNS
    assert all(len(v.split(".")[1]) == 6 for line in lines[1:] for v in line.split("\t")[3:])
    assert_matches(frame, cwla.evaluate(qrels, runs, ["nDCG@10", "INST_PE"]), per_topic=False)


def test_per_topic_rows_come_before_means(capsys, files):
    qrels, runs = files
    metrics = ["nDCG@10", "AP", "RBP(p=0.8)+ERG"]
    code, out, _ = run_cli(capsys, "eval", qrels, *runs, *[x for m in metrics for x in ("-m", m)], "--per-topic")
    assert code == 0
    frame = table(out)
    assert len(frame) == N_RUNS * len(metrics) * (N_TOPICS + 1)
    topics = [f"T{i:03d}" for i in range(1, N_TOPICS + 1)]
    for _, group in frame.groupby(["run", "metric"], sort=False):  # each (run, metric): its topics, then all
        assert group["topic"].tolist() == topics + ["all"]
    assert frame["run"].tolist() == sorted(frame["run"])
    assert_matches(frame, cwla.evaluate(qrels, runs, metrics), per_topic=True)


def test_default_metric_is_ndcg10(capsys, files):
    qrels, runs = files
    code, out, _ = run_cli(capsys, "eval", qrels, runs[0])
    assert code == 0
    frame = table(out)
    assert frame["metric"].tolist() == ["nDCG@10"]
    assert_matches(frame, cwla.evaluate(qrels, runs[0], "nDCG@10"), per_topic=False)


def test_metric_column_is_the_text_as_typed(capsys, files):
    qrels, runs = files
    text = "RBP( p = 0.8 ) + ERG"
    code, out, _ = run_cli(capsys, "eval", qrels, runs[0], "-m", text)
    assert code == 0
    assert out.splitlines()[1].split("\t")[2] == text


# ---------------------------------------------------------------------------
# cwla eval: options
# ---------------------------------------------------------------------------


def test_options_apply_only_to_metrics_without_their_own(capsys, files):
    qrels, runs = files
    own, bare = "RBP(p=0.8)+ERG[cutoff=5]", "RBP(p=0.8)+ERG"
    code, out, err = run_cli(capsys, "eval", qrels, *runs, "-m", own, "-m", bare, "--cutoff", "10")
    assert code == 0
    frame = table(out)
    ev = cwla.evaluate(qrels, runs, [own, bare], cutoff=10)
    assert_matches(frame, ev, per_topic=False)
    assert ev.metrics[0].cutoff == 5 and ev.metrics[1].cutoff == 10
    # the own cutoff matters: at cutoff 10 the first metric would score differently
    at10 = cwla.evaluate(qrels, runs, "RBP(p=0.8)+ERG[cutoff=10]").values[0].mean(axis=1)
    printed = frame[frame["metric"] == own]["value"].to_numpy()
    assert not np.allclose(printed, at10, atol=1e-6)
    assert "cwla: note: --cutoff 10 not applied to 'RBP(p=0.8)+ERG[cutoff=5]' (sets cutoff itself)" in err


def test_gain_option_changes_values(capsys, files):
    qrels, runs = files
    metrics = ["INST_PE", "RBP(p=0.8)+ERG"]
    args = ["eval", qrels, *runs, "-m", metrics[0], "-m", metrics[1]]
    _, linear, _ = run_cli(capsys, *args)
    code, binary, _ = run_cli(capsys, *args, "--gain", "binary:2")
    assert code == 0
    assert not np.allclose(table(linear)["value"], table(binary)["value"])
    assert_matches(table(binary), cwla.evaluate(qrels, runs, metrics, gain="binary:2"), per_topic=False)


@pytest.mark.parametrize("gain", ["linear:3", "exponential:4", "binary(threshold=2)", "table(0:0, 1:0.2, 2:0.5, 3:1)"])
def test_gain_texts(capsys, files, gain):
    qrels, runs = files
    code, out, _ = run_cli(capsys, "eval", qrels, runs[0], "-m", "INST_PE", "--gain", gain)
    assert code == 0
    assert_matches(table(out), cwla.evaluate(qrels, runs[0], "INST_PE", gain=cwla.parse_gain(gain)), per_topic=False)


def test_stop_and_depth(capsys, files):
    qrels, runs = files
    args = ["eval", qrels, *runs, "-m", "RBP(p=0.8)+ERG", "-m", "INST_avg", "--depth", "5"]
    _, plain, _ = run_cli(capsys, *args)
    code, stopped, _ = run_cli(capsys, *args, "--stop")
    assert code == 0
    assert not np.allclose(table(plain)["value"], table(stopped)["value"])
    ev = cwla.evaluate(qrels, runs, ["RBP(p=0.8)+ERG", "INST_avg"], depth=5, stop=True)
    assert all(m.stop and m.depth == 5 for m in ev.metrics)
    assert_matches(table(stopped), ev, per_topic=False)
    assert_matches(table(plain), cwla.evaluate(qrels, runs, ["RBP(p=0.8)+ERG", "INST_avg"], depth=5),
                   per_topic=False)


def test_stop_false_in_metric_is_kept(capsys, files):
    qrels, runs = files
    metric = "RBP(p=0.8)+ERG[depth=5, stop=false]"
    code, out, err = run_cli(capsys, "eval", qrels, runs[0], "-m", metric, "--stop")
    assert code == 0
    assert_matches(table(out), cwla.evaluate(qrels, runs[0], metric), per_topic=False)
    assert "--stop not applied" in err


@pytest.mark.parametrize("order", ["trec_eval", "file"])
def test_order(capsys, files, order):
    qrels, runs = files
    code, out, _ = run_cli(capsys, "eval", qrels, *runs, "-m", "RBP(p=0.8)+ERG", "--per-topic", "--order", order)
    assert code == 0
    assert_matches(table(out), cwla.evaluate(qrels, runs, "RBP(p=0.8)+ERG", order=order), per_topic=True)


@pytest.mark.slow
def test_trec_eval_flags(capsys, files):
    qrels, runs = files
    # -l is the level of every binary measure without its own, as is a binary --gain; -q is --per-topic
    _, by_level, _ = run_cli(capsys, "eval", qrels, *runs, "-m", "P@10", "-m", "map", "-m", "R@20", "-q", "-l", "2")
    _, by_gain, err = run_cli(capsys, "eval", qrels, *runs, "-m", "P@10", "-m", "map", "-m", "R@20", "-q",
                              "--gain", "binary:2")
    assert by_level == by_gain and "not applied" not in err
    ev = cwla.evaluate(qrels, runs, {"P@10": "P(rel=2)@10", "map": "AP(rel=2)", "R@20": "R(rel=2)@20"})
    assert_matches(table(by_level), ev, per_topic=True)
    # -M keeps the first N documents of every ranking; -J the judged ones; -c is accepted
    _, out, _ = run_cli(capsys, "eval", qrels, *runs, "-m", "num_ret", "-m", "map", "-M", "5", "-J", "-c")
    assert_matches(table(out), cwla.evaluate(qrels, runs, ["num_ret", "map"], max_docs=5, judged_only=True),
                   per_topic=False)
    # -m P.5,10 is two measures, as in trec_eval
    _, out, _ = run_cli(capsys, "eval", qrels, runs[0], "-m", "P.5,10")
    assert table(out)["metric"].tolist() == ["P_5", "P_10"]


def test_trec_format_with_several_runs(capsys, files):
    qrels, runs = files
    code, out, _ = run_cli(capsys, "eval", qrels, *runs[:2], "-m", "map", "-m", "num_ret", "-m", "nDCG@10",
                           "--format", "trec")
    assert code == 0
    ev = cwla.evaluate(qrels, runs[:2], ["map", "num_ret", "nDCG@10"])
    expected = []
    for r, run in enumerate(ev.runs):
        expected += [f"{'runid':<22}\tall\t{run}", f"{'num_ret':<22}\tall\t{int(ev.values[1, r].sum())}",
                     f"{'map':<22}\tall\t{ev.values[0, r].mean():6.4f}",
                     f"{'nDCG@10':<22}\tall\t{ev.values[2, r].mean():6.4f}"]
    assert out.splitlines() == expected


def test_notes_for_options_a_measure_does_not_take(capsys, files):
    qrels, runs = files
    code, _, err = run_cli(capsys, "eval", qrels, runs[0], "-m", "Rprec", "-m", "P@10", "--cutoff", "5",
                           "--gain", "linear:3")
    assert code == 0
    assert "--cutoff 5 not applied to 'P@10' (sets cutoff itself)" in err
    assert "--cutoff 5 not applied to 'Rprec' (not C/W/L/A metrics: they have no cutoff)" in err
    assert "--gain linear:3 not applied to 'P@10' (sets gain itself)" in err


def test_notes_for_the_level_and_judged_only(capsys, files):
    qrels, runs = files
    code, _, err = run_cli(capsys, "eval", qrels, runs[0], "-l", "2", "-J", "-m", "P(rel=1)@10", "-m", "map",
                           "-m", "nDCG@10", "-m", "Rprec(rel=1)", "-m", "RR(judged_only=False)")
    assert code == 0
    assert "-l 2 not applied to 'P(rel=1)@10', 'Rprec(rel=1)' (set rel itself)" in err
    assert "-l 2 not applied to 'nDCG@10' (graded gains: no relevance level)" in err
    assert "-J not applied to 'RR(judged_only=False)' (sets judged_only itself)" in err
    assert "'map'" not in err


@pytest.mark.parametrize("flags, message", [
    (["-l", "0"], "--rel-level must be a number > 0 (the lowest relevant grade). Got 0.0 instead."),
    (["-l", "inf"], "--rel-level must be a number > 0 (the lowest relevant grade). Got inf instead."),
    (["-M", "0"], "--max-docs must be an integer >= 1. Got 0 instead."),
    (["--depth", "0"], "--depth must be an integer >= 1 (at most 1,000,000) or 'all'. Got 0 instead."),
    (["-l", "2", "--gain", "binary:3"], "-l 2 contradicts --gain binary:3: give one of them"),
    (["-m", "P"], None),  # a bare -m P is trec_eval's default cutoffs, not an error
])
def test_trec_eval_flag_errors(capsys, files, flags, message):
    qrels, runs = files
    result = run_cli(capsys, "eval", qrels, runs[0], *flags)
    if message is None:
        assert result[0] == 0 and table(result[1])["metric"].tolist()[:2] == ["P_5", "P_10"]
    else:
        assert_error(*result, message)


def test_gz_run_name_drops_suffix(capsys, files, tmp_path):
    qrels, runs = files
    gz = tmp_path / "myrun.gz"
    gz.write_bytes(gzip.compress(runs[0].read_bytes()))
    code, out, _ = run_cli(capsys, "eval", qrels, gz)
    assert code == 0
    frame = table(out)
    assert frame["run"].tolist() == ["myrun"]
    assert_matches(frame, cwla.evaluate(qrels, {"myrun": runs[0]}, "nDCG@10"), per_topic=False)


def test_missing_and_ignored_topics_reported(capsys, files):
    qrels, runs = files
    code, _, err = run_cli(capsys, "eval", qrels, *runs)
    assert code == 0
    ev = cwla.evaluate(qrels, runs, "nDCG@10")
    expected = []
    for run in ev.runs:
        m, i = len(ev.missing_topics[run]), len(ev.ignored_topics[run])
        parts = []
        if m:
            parts.append(f"{m} qrels topic{'s' if m > 1 else ''} missing (scored 0)")
        if i:
            parts.append(f"{i} run topic{'s' if i > 1 else ''} not in qrels (ignored)")
        if parts:
            expected.append(f"cwla: run {run!r}: " + ", ".join(parts))
    assert expected  # the synthetic data has both kinds
    assert "cwla: run 'run01': 1 run topic not in qrels (ignored)" in expected
    assert err.splitlines() == expected


def test_report_counts_both_kinds(capsys, tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n2 0 a 1\n3 0 a 1\n")
    (tmp_path / "x").write_text("1 Q0 a 1 1.0 x\n8 Q0 a 1 1.0 x\n")
    code, _, err = run_cli(capsys, "eval", tmp_path / "q", tmp_path / "x")
    assert code == 0
    assert err == "cwla: run 'x': 2 qrels topics missing (scored 0), 1 run topic not in qrels (ignored)\n"


def test_constant_metric_warns_without_traceback(capsys, files):
    qrels, runs = files
    code, out, err = run_cli(capsys, "eval", qrels, runs[1], "-m", "Precision+ERR")
    assert code == 0
    assert out.startswith(HEADER)
    assert err.startswith("cwla: warning: ") and "is constant" in err


# ---------------------------------------------------------------------------
# cwla eval: errors
# ---------------------------------------------------------------------------


def assert_error(code, out, err, *fragments):
    assert code == 2
    assert out == ""
    assert err.startswith("cwla: error: ")
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err


def test_missing_run_file(capsys, files, tmp_path):
    qrels, _ = files
    missing = tmp_path / "nope"
    assert_error(*run_cli(capsys, "eval", qrels, missing), f"cwla: error: {missing}: ")


def test_missing_qrels_file(capsys, files, tmp_path):
    _, runs = files
    missing = tmp_path / "qrels-nope"
    assert_error(*run_cli(capsys, "eval", missing, runs[0]), f"cwla: error: {missing}: qrels file does not exist")


def test_malformed_metric_points_at_position(capsys, files):
    qrels, runs = files
    code, out, err = run_cli(capsys, "eval", qrels, runs[0], "-m", "RBP(p=0.8)+ERG[cutof=5]")
    assert_error(code, out, err, "cannot parse metric 'RBP(p=0.8)+ERG[cutof=5]'", "unknown option 'cutof'",
                 "(did you mean 'cutoff'?)")
    assert "\n    RBP(p=0.8)+ERG[cutof=5]\n" + " " * 19 + "^ accepted options: gain, cutoff," in err


def test_bad_gain_text(capsys, files):
    qrels, runs = files
    assert_error(*run_cli(capsys, "eval", qrels, runs[0], "-m", "INST_PE", "--gain", "quadratic:3"),
                 "cannot parse gain map 'quadratic:3'", "unknown gain map 'quadratic'")


def test_gain_out_of_range(capsys, files):
    qrels, runs = files
    assert_error(*run_cli(capsys, "eval", qrels, runs[0], "-m", "INST_PE", "--gain", "linear:1"),
                 "outside [0, 1]")


def test_malformed_run_line(capsys, files, tmp_path):
    qrels, runs = files
    lines = runs[0].read_text().splitlines(keepends=True)
    bad = tmp_path / "badrun"
    bad.write_text(lines[0] + lines[1] + "T001 Q0 D00001 3 1.5\n" + "".join(lines[3:]))
    assert_error(*run_cli(capsys, "eval", qrels, bad),
                 f"cwla: error: {bad}, line 3: expected 6 columns (qid Q0 docno rank score tag), found 5")


def test_bad_cutoff(capsys, files):
    qrels, runs = files
    assert_error(*run_cli(capsys, "eval", qrels, runs[0], "--cutoff", "0"), "--cutoff must be an integer >= 1. Got 0 instead.")


def test_a_metric_asked_twice_is_evaluated_once(capsys, files):
    # as trec_eval does with -m map -m map
    qrels, runs = files
    _, out, _ = run_cli(capsys, "eval", qrels, runs[0], "-m", "AP", "-m", "AP", "-m", "P.5,10", "-m", "P_10")
    assert table(out)["metric"].tolist() == ["AP", "P_5", "P_10"]


def test_usage_errors_exit_2(capsys):
    code, out, err = run_cli(capsys)
    assert code == 2 and out == "" and "usage: cwla" in err
    code, _, err = run_cli(capsys, "eval", "qrels-only")
    assert code == 2 and "usage: cwla eval" in err


def test_version(capsys):
    code, out, _ = run_cli(capsys, "--version")
    assert code == 0
    assert out.strip() == f"cwla {cwla.__version__}"


# ---------------------------------------------------------------------------
# cwla demo
# ---------------------------------------------------------------------------


def test_demo_prints_the_39_metrics(capsys):
    code, out, err = run_cli(capsys, "demo")
    assert code == 0
    assert err == ""
    names = cwla.chen_sakai_names()
    assert len(names) == 39
    for name in names:
        assert f" {name}" in out
    for name in ("Precision_ERR", "DCG_ERR", "RBP_ERR"):  # the constant ones are left out
        assert name not in out
    lines = out.rstrip("\n").splitlines()
    assert lines[0].startswith("Data: the built-in synthetic TREC collection")
    assert lines[-1].startswith("time: prepare ") and "kernel compile/load" in lines[-1]
    assert sum(line.startswith("run01 ") for line in lines) >= 6
    assert max(len(line) for line in lines[:-1]) <= 120


def test_demo_orients_a_newcomer(capsys):

    code, out, _ = run_cli(capsys, "demo")
    assert code == 0
    text = " ".join(out.split())
    assert "How to read it: each row is a run, each column a metric MODEL_AGGREGATION" in text
    m = re.search(r"run01's Precision_ETG (\d\.\d+) = 10 x its Precision_ERG (\d\.\d+)", text)
    assert m and float(m.group(1)) == pytest.approx(10 * float(m.group(2)), abs=6e-3)
    rows = [line.split() for line in out.splitlines() if line.startswith("run01 ")]
    headers = [line.split() for line in out.splitlines() if line.startswith("run ")]
    printed = {name: v for header, row in zip(headers, rows) for name, v in zip(header[1:], row[1:])}
    assert float(printed["Precision_ETG"]) == pytest.approx(float(m.group(1)), abs=6e-4)
    assert "Next:" in out and "--format trec" in out and "discpower meta" in out


def test_demo_values_are_the_means(capsys):
    code, out, _ = run_cli(capsys, "demo", "--topics", "6", "--runs", "3", "--seed", "4")
    assert code == 0
    qrels, runs = synthetic.collection(n_topics=6, n_runs=3, seed=4)
    ev = cwla.evaluate(qrels, runs, cwla.chen_sakai_metrics(cutoff=10, depth=10, stop=True))
    means = ev.means()
    rows = [line.split() for line in out.splitlines() if line.startswith("run01 ")]
    headers = [line.split() for line in out.splitlines() if line.startswith("run ")]
    printed = {name: float(v) for header, row in zip(headers, rows) for name, v in zip(header[1:], row[1:])}
    assert sorted(printed) == sorted(cwla.chen_sakai_names())
    for name, metric in zip(cwla.chen_sakai_names(), means.columns):
        assert printed[name] == pytest.approx(means.at["run01", metric], abs=5e-4)


def test_chen_sakai_names_match_metrics():
    """The demo labels the metrics with chen_sakai_names(): both lists must align."""
    metrics = cwla.chen_sakai_metrics(cutoff=10, depth=10, stop=True)
    names = cwla.chen_sakai_names()
    assert [cwla.parse_metric(n).with_options(cutoff=10, depth=10, stop=True) for n in names] == metrics


def test_demo_bad_parameters(capsys):
    assert_error(*run_cli(capsys, "demo", "--topics", "1"), "'n_topics' parameter of collection must be >= 2")


# ---------------------------------------------------------------------------
# the installed command
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_python_dash_m_cwla(files):
    qrels, runs = files
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run([sys.executable, "-m", "cwla", "eval", str(qrels), str(runs[0]), "-m", "nDCG@10"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    out = without_header(done.stdout)
    assert out.splitlines()[0] == HEADER
    value = float(out.splitlines()[1].split("\t")[3])
    assert value == pytest.approx(cwla.evaluate(qrels, runs[0], "nDCG@10").values.mean(), abs=5.1e-7)
    bad = subprocess.run([sys.executable, "-m", "cwla", "eval", str(qrels), str(runs[0]), "-m", "nDCG@"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert bad.returncode == 2
    assert bad.stderr.startswith("cwla: error: cannot parse metric 'nDCG@'") and "Traceback" not in bad.stderr


# ---------------------------------------------------------------------------
# real data: TREC DL 2019 passage (mini), against trec_eval
# ---------------------------------------------------------------------------


@pytest.mark.skipif(not DL19.is_dir(), reason="shared TREC DL 2019 data not available")
def test_dl19_matches_trec_eval(capsys):
    reference = pd.read_csv(DL19 / "reference-outputs" / "trec_eval.summary.tsv", sep="\t", index_col="run")
    names = ["p_bert", "ICT-CKNRM_B"]
    runs = [DL19 / "runs" / name for name in names]
    code, out, _ = run_cli(capsys, "eval", DL19 / "qrels" / "qrels.dl19-passage.txt", *runs,
                           "-m", "P(rel=2)@10", "-m", "nDCG@10")
    assert code == 0
    frame = table(out).set_index(["run", "metric"])["value"]
    for name in names:
        assert abs(frame[name, "P(rel=2)@10"] - reference.at[name, "P_10"]) <= 5e-5 + 1e-9
        assert abs(frame[name, "nDCG@10"] - reference.at[name, "ndcg_cut_10"]) <= 5e-5 + 1e-9


def test_cli_ties_flag(tmp_path):
    # a and b differ beyond float32 precision: a tie in float32 (docno descending puts b first), not in float64
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text("t 0 a 1\nt 0 b 0\nt 0 c 0\n")
    r.write_text("t Q0 a 1 1.0000000001 x\nt Q0 b 2 1.0 x\nt Q0 c 3 0.5 x\n")
    for flag, expected in (([], "0.5000"), (["--ties", "float64"], "1.0000")):
        out = io.StringIO()
        with redirect_stdout(out):
            assert main(["eval", str(q), str(r), "-m", "recip_rank", "--format", "trec", *flag]) == 0
        assert out.getvalue() == f"recip_rank            \tall\t{expected}\n"


def test_memory_error_without_a_size(monkeypatch, capsys, tmp_path):
    import cwla.scoring.evaluator

    def fail(*args, **kwargs):
        raise MemoryError("Allocation failed (probably too large).")

    qrels, runs = synthetic.collection(n_topics=3, n_runs=1, depth=5, seed=0)
    qrels_path, run_paths = synthetic.write_trec(qrels, runs, tmp_path)
    monkeypatch.setattr(cwla.scoring.evaluator, "evaluate", fail)
    code = main(["eval", str(qrels_path), str(run_paths[0])])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "cwla: error: out of memory while running 'cwla eval' (Allocation failed (probably too large).); ask for " \
           "less at a time" in err


def test_ctrl_c_in_a_command_returns_130_and_says_interrupted(capsys):
    """An interrupted command returns 130 (the program then ends within a second of the signal:
    tests/discpower/test_interrupt.py)."""
    import argparse

    from cwla.bridges.cli import run_command

    def interrupted(args):
        raise KeyboardInterrupt

    parser = argparse.ArgumentParser(prog="cwla")
    parser.set_defaults(func=interrupted)
    assert run_command(parser, [], "cwla") == 130
    assert capsys.readouterr().err.strip().endswith("cwla: interrupted")


def test_the_programs_freeze_their_objects_at_the_exit_and_keep_main_s_exit_code():
    """``cwla`` and ``discpower`` (console scripts, ``python -m``) run :func:`main`, and at the interpreter's exit
    freeze what it created so that the exit does not collect it: not before (a caller of :func:`program` or of
    ``runpy`` that goes on keeps its collector); ``main()`` called from Python leaves the collector alone."""
    import subprocess
    import sys

    import re

    from conftest import ROOT

    scripts = re.search(r"\[project\.scripts\]\n(.*?)\n\n", (ROOT / "pyproject.toml").read_text(), re.S).group(1)
    assert scripts.splitlines() == ['cwla = "cwla.bridges.cli:program"', 'discpower = "discpower.reports.cli:program"']
    # registered before the program's own handler, so run after it (atexit runs the last registered first)
    at_exit = "atexit.register(lambda: print('at exit', gc.isenabled(), gc.get_freeze_count() > 0)); "
    probe = ("import atexit, gc, sys; from {module} import {name}; " + at_exit +
             "sys.argv = ['x', '--version']; code = {name}(); print(code, gc.isenabled(), gc.get_freeze_count() > 0)")
    for module in ("cwla.bridges.cli", "discpower.reports.cli"):
        for name, expected in (("program", ["0 True False", "at exit False True"]),
                               ("main", ["0 True False", "at exit True False"])):
            done = subprocess.run([sys.executable, "-c", probe.format(module=module, name=name)],
                                  capture_output=True, text=True, timeout=120)
            assert done.stdout.strip().splitlines()[-2:] == expected, (module, name, done.stderr[-2000:])
    # python -m cwla / discpower: their __main__ modules run program()
    runs = ("import atexit, gc, runpy, sys; " + at_exit + "sys.argv = ['{package}', '--version']\n"
            "try:\n    runpy.run_module('{package}', run_name='__main__', alter_sys=True)\n"
            "except SystemExit as end:\n    print('exit', end.code, gc.isenabled())")
    for package in ("cwla", "discpower"):
        done = subprocess.run([sys.executable, "-c", runs.format(package=package)], capture_output=True, text=True,
                              timeout=120)
        assert done.stdout.strip().splitlines()[-2:] == ["exit 0 True", "at exit False True"], (package, done.stderr)

@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt: Linux")
def test_the_programs_return_freed_memory_to_the_system(monkeypatch):
    """Issue 36: both programs fix glibc's mmap threshold before they run (a reader's blocks, a group's runs and
    pairs go back to the system when freed); on glibc the call succeeds."""
    import platform

    import cwla.bridges.cli as cli
    import discpower.reports.cli as dcli

    calls = []
    monkeypatch.setattr(cli, "return_freed_memory", lambda: calls.append(1) or True)
    monkeypatch.setattr(sys, "argv", ["x", "--version"])
    assert [module.program() for module in (cli, dcli)] == [0, 0] and len(calls) == 2
    monkeypatch.undo()
    if platform.libc_ver()[0] == "glibc":
        assert cli.return_freed_memory() is True
