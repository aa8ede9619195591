"""The commands' reports say what was computed and what their measures mean, in tsv, jsonl and markdown."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest
from report_text import header_facts, split_report, without_header

import cwla
from cwla import synthetic
from cwla.bridges.cli import main as cwla_main
from cwla.bridges.report import Report, render
from discpower.qrels.compare import MEANINGS, compare_qrels
from discpower.reports.cli import main


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """Synthetic TREC files, a candidate judging 4 of the 10 topics, and a matrix file."""
    root = tmp_path_factory.mktemp("reports")
    qrels, runs = synthetic.collection(n_topics=10, n_runs=6, depth=20, seed=3)
    qrels_path, run_paths = synthetic.write_trec(qrels, runs, root / "data")
    topics = sorted(qrels["topic"].unique())[:4]
    part = qrels[qrels["topic"].isin(topics)]
    candidate = root / "cand.txt"
    candidate.write_text("".join(f"{t} 0 {d} {int(g)}\n" for t, d, g in part.itertuples(index=False)))
    return qrels_path, run_paths, candidate, qrels, runs


def _out(capsys, func, *argv):
    code = func([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, err


def test_compare_qrels_header_names_what_was_computed_and_the_errors(data, capsys):
    qrels_path, run_paths, candidate, _, _ = data
    out, err = _out(capsys, main, "compare-qrels", "--truth", qrels_path, "--candidate", candidate, *run_paths,
                    "-m", "nDCG@10", "--trials", 200, "--seed", 7, "--alpha", 0.1)
    head, table = split_report(out)
    assert head[0].startswith("discpower compare-qrels")
    facts = header_facts(out)
    assert facts["metric"].startswith("nDCG@10 = DCG(k=10)+ETG")
    assert facts["test"] == "randomised Tukey HSD, B = 200 trials, seed 7"
    assert facts["alpha"].startswith("0.1")
    assert facts["runs"] == "6 (15 pairs)"
    # the candidate judges 4 of the 10 topics: said in the header, not only in the last line of the table
    assert facts["topics"].startswith("G judges 10, C 4: both tested on C's 4")
    assert "candidate judges 4 of the ground truth's 10 topics" in err
    assert facts["FP"].startswith("Type I errors of C") and facts["FN"].startswith("Type II errors of C")
    # every measure printed is explained once, in the header
    printed = [line.split("\t")[0] for line in table.splitlines()[1:]]
    assert table.splitlines()[0] == "measure\tvalue"
    assert set(printed) <= set(facts) and len(printed) == len(set(printed))
    expected = compare_qrels(qrels_path, candidate, run_paths, "nDCG@10", n_trials=200, seed=7, alpha=0.1)
    values = dict(line.split("\t") for line in table.splitlines()[1:])
    assert int(values["FP"]) == expected.measures["FP"] and int(values["topics_candidate"]) == 4


def test_compare_qrels_jsonl_and_markdown_hold_the_same_numbers(data, capsys):
    qrels_path, run_paths, candidate, _, _ = data
    argv = ["compare-qrels", "--truth", qrels_path, "--candidate", candidate, *run_paths, "--trials", 200]
    tsv, _ = _out(capsys, main, *argv)
    jsonl, _ = _out(capsys, main, *argv, "--format", "jsonl")
    markdown, _ = _out(capsys, main, *argv, "--format", "markdown")
    records = [json.loads(line) for line in jsonl.splitlines()]
    assert records[0]["record"] == "header" and records[0]["test"].startswith("randomised Tukey HSD, B = 200")
    assert "Type I" in records[0]["glossary"]["FP"]
    rows = {r["measure"]: r["value"] for r in records[1:]}
    values = dict(line.split("\t") for line in without_header(tsv).splitlines()[1:])
    assert set(rows) == set(values)
    for measure, value in rows.items():
        assert (value is None and values[measure] == "nan") or float(values[measure]) == pytest.approx(value, abs=5e-7)
    assert "| measure | value |" in markdown and "- **FP**: Type I errors of C" in markdown


def test_cwla_eval_header_wide_and_markdown_agree_with_evaluate(data, capsys):
    qrels_path, run_paths, _, _, _ = data
    argv = ["eval", qrels_path, *run_paths, "-m", "nDCG@10", "-m", "RBP_ERG", "--cutoff", 5]
    out, _ = _out(capsys, cwla_main, *argv)
    facts = header_facts(out)
    assert facts["topics"].startswith("10 (the qrels topics")
    assert facts["metric RBP_ERG"].startswith("RBP(p=0.8)+ERG")
    assert facts["options"] == "--cutoff 5"
    assert "residual" in facts and "value" in facts
    ev = cwla.evaluate(qrels_path, run_paths, {"nDCG@10": "nDCG@10", "RBP_ERG": "RBP_ERG"}, cutoff=5)
    wide, _ = _out(capsys, cwla_main, *argv, "--format", "wide")
    frame = pd.read_csv(io.StringIO(without_header(wide)), sep="\t", index_col="run")
    np.testing.assert_allclose(frame.to_numpy(), ev.means().to_numpy(), atol=5.1e-7, rtol=0)
    assert list(frame.columns) == ["nDCG@10", "RBP_ERG"]
    bare, _ = _out(capsys, cwla_main, *argv, "--format", "wide", "--no-header")
    assert bare == without_header(wide) and not bare.startswith("#")
    markdown, _ = _out(capsys, cwla_main, *argv, "--format", "markdown")
    assert "| run | nDCG@10 | RBP_ERG |" in markdown and markdown.count("\n| ") == 2 + len(ev.runs) - 1
    jsonl, _ = _out(capsys, cwla_main, *argv, "--format", "jsonl", "-q")
    rows = [json.loads(line) for line in jsonl.splitlines()[1:]]
    assert len(rows) == len(ev.to_frame(per_topic=True, means=True))


def test_cwla_eval_refuses_per_topic_in_the_wide_table(data, capsys):
    qrels_path, run_paths, _, _, _ = data
    code = cwla_main(["eval", str(qrels_path), str(run_paths[0]), "-q", "--format", "wide"])
    err = capsys.readouterr().err
    assert code == 2 and "--format wide prints the runs x metrics table" in err and "Traceback" not in err


def test_tukey_and_meta_headers(data, tmp_path, capsys):
    qrels_path, run_paths, _, _, _ = data
    X = np.random.default_rng(1).random((12, 4))
    path = tmp_path / "m.tsv"
    path.write_text("a\tb\tc\td\n" + "".join("\t".join(f"{v:.4f}" for v in row) + "\n" for row in X))
    out, _ = _out(capsys, main, "tukey", path, "--trials", 500, "--seed", 3)
    facts = header_facts(out)
    assert facts["test"] == "randomised Tukey HSD, B = 500 trials, seed 3"
    assert facts["topics"] == "12" and facts["systems"] == "4"
    assert "count / B" in facts["pvalue"]
    assert without_header(out).splitlines()[0] == "system_a\tsystem_b\tdiff\tpvalue"
    out, _ = _out(capsys, main, "meta", qrels_path, *run_paths, "-m", "nDCG@10", "-m", "RBP_ERG",
                  "--trials", 200, "--splits", 20)
    facts = header_facts(out)
    assert facts["test"] == ("paired randomised Tukey HSD, B = 200 trials per metric; the published "
                             "meta-evaluations' test, kept for comparability (--test perm-max-t holds the family-wise "
                             "error under the data-based nulls: docs/calibration.md)")
    assert "not inference about other topics" in facts["outperforms"]
    assert facts["runs"] == "6" and facts["topics"] == "10"


def test_render_is_plain_text_in_each_format():
    frame = pd.DataFrame({"run": ["a|b", "c"], "n": [1, 2], "v": [0.5, np.nan]})
    r = Report("t", facts=[("k", "v")], glossary=[("n", "a count")], tables=[("x", frame)])
    assert render(r, "tsv").splitlines() == ["# t", "# k: v", "# n: a count", "run\tn\tv", "a|b\t1\t0.500000",
                                             "c\t2\tnan"]
    assert render(r, "tsv", header=False).splitlines()[0] == "run\tn\tv"
    md = render(r, "markdown")
    assert "| a\\|b | 1 | 0.500000 |" in md and "|:---|---:|---:|" in md
    records = [json.loads(line) for line in render(r, "jsonl").splitlines()]
    assert records[0] == {"record": "header", "report": "t", "k": "v", "glossary": {"n": "a count"}}
    assert records[2] == {"record": "row", "table": "x", "run": "c", "n": 2, "v": None}
    with pytest.raises(cwla.CwlaError, match="accepted are tsv, jsonl, markdown"):
        render(r, "csv")


def test_every_compare_qrels_measure_has_a_meaning(data):
    qrels_path, run_paths, candidate, _, _ = data
    result = compare_qrels(qrels_path, candidate, run_paths, "nDCG@10", n_trials=100)
    assert set(result.measures) == set(MEANINGS)
