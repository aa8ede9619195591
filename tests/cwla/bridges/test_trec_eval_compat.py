"""trec_eval on the command line: its own test files give its expected outputs, and on the shared TREC DL runs
``cwla eval --format trec`` prints what trec_eval prints (trec_eval's C code through pytrec_eval)."""

from __future__ import annotations

import gzip
import io
import re
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pytest

import cwla
from cwla.bridges.cli import main
from cwla.metrics.text import trec_name
from conftest import shared_path

FIXTURES = ("reference-fixtures", "trec_eval-test")


def _lines(text: str) -> list[tuple[str, str, str]]:
    return [tuple(part.strip() for part in line.split("\t")) for line in text.splitlines() if line.strip()]


def _cwla(*argv) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        code = main([str(a) for a in argv])
    assert code == 0
    return out.getvalue()


# trec_eval's own test files, every command of both versions: test_trec_eval_quicktest.py


def test_a_bare_trec_measure_expands_to_its_default_cutoffs():
    assert cwla.metrics.text.expand_trec_names("P") == [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    assert cwla.metrics.text.expand_trec_names("success") == ["success_1", "success_5", "success_10"]
    assert cwla.metrics.text.expand_trec_names("P.5,10") == ["P_5", "P_10"]
    assert cwla.metrics.text.expand_trec_names("iprec_at_recall..1,.5") == ["iprec_at_recall_0.10", "iprec_at_recall_0.50"]
    assert cwla.metrics.text.expand_trec_names("nDCG@10") == ["nDCG@10"]
    assert [trec_name(t) for t in ("P.10", "map", "ndcg_cut.23.4", "RR@10")] == ["P_10", "map", "ndcg_cut_23", None]


# ---------------------------------------------------------------------------
# the shared TREC DL runs: trec_eval's output through pytrec_eval (trec_eval 9.0.8's C code)
# ---------------------------------------------------------------------------

ACCEPTANCE = ["map", "P.10", "ndcg_cut.10", "recip_rank", "Rprec", "bpref"]
#: trec_eval's output order of those measures, and pytrec_eval's names for them
TREC_ORDER = ["map", "Rprec", "bpref", "recip_rank", "P_10", "ndcg_cut_10"]


def _trec_eval_output(pytrec_eval, qrels: dict, run_path: Path) -> str:
    """What ``trec_eval -q -l 2 -m map -m P.10 -m ndcg_cut.10 -m recip_rank -m Rprec -m bpref`` prints."""
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_ORDER), relevance_level=2)
    with gzip.open(run_path, "rt") as fh:
        run = pytrec_eval.parse_run(fh)
    per_topic = evaluator.evaluate(run)
    topics = sorted(per_topic)  # trec_eval: strcmp order
    lines = [f"{m:<22}\t{t}\t{per_topic[t][m]:6.4f}" for t in topics for m in TREC_ORDER]
    for m in TREC_ORDER:
        total = 0.0
        for t in topics:
            total += per_topic[t][m]
        lines.append(f"{m:<22}\tall\t{total / len(qrels):6.4f}")
    return "\n".join(lines) + "\n"


@pytest.mark.slow
@pytest.mark.parametrize("collection", ["trec-dl-2019-passage", "trec-dl-2020-passage"])
def test_cli_prints_what_trec_eval_prints_on_the_dl_runs(collection):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    root = shared_path(collection)
    qrels_path = next((root / "qrels").glob("*.txt"))
    with open(qrels_path) as fh:
        qrels = pytrec_eval.parse_qrel(fh)
    runs = sorted((root / "runs").glob("*.gz"))
    assert len(runs) >= 37
    for run_path in runs:
        flags = [x for m in ACCEPTANCE for x in ("-m", m)]
        got = _cwla("eval", "-q", "-l", "2", *flags, "--format", "trec", qrels_path, run_path)
        want = _trec_eval_output(pytrec_eval, qrels, run_path)
        if got != want:  # a value on a rounding boundary may print either way: then it must agree to 1e-12
            for g, w in zip(_lines(got), _lines(want)):
                assert g[:2] == w[:2], (run_path.name, g, w)
                assert abs(float(g[2]) - float(w[2])) <= 1.01e-4, (run_path.name, g, w)
            assert len(_lines(got)) == len(_lines(want))
            ev = cwla.evaluate(qrels_path, run_path, ACCEPTANCE, rel=2)
            evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_ORDER), relevance_level=2)
            with gzip.open(run_path, "rt") as fh:
                ref = evaluator.evaluate(pytrec_eval.parse_run(fh))
            for i, m in enumerate(["map", "P_10", "ndcg_cut_10", "recip_rank", "Rprec", "bpref"]):
                for t, topic in enumerate(ev.topics):
                    assert abs(ev.values[i, 0, t] - ref[topic][m]) < 1e-12


def test_judged_only_is_trec_evals_minus_j_for_every_measure():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    root = shared_path(*FIXTURES)
    names = ["num_ret", "num_rel_ret", "map", "P_10", "Rprec", "recall_100", "set_P", "set_F", "recip_rank",
             "ndcg_cut_10", "success_5", "iprec_at_recall_0.50"]
    with open(root / "qrels.test") as fh:
        qrels = pytrec_eval.parse_qrel(fh)
    with open(root / "results.test") as fh:
        run = pytrec_eval.parse_run(fh)
    ref = pytrec_eval.RelevanceEvaluator(qrels, set(names), judged_docs_only_flag=True).evaluate(run)
    ev = cwla.evaluate(root / "qrels.test", root / "results.test", names, judged_only=True)
    for i, name in enumerate(names):
        for t, topic in enumerate(ev.topics):
            assert ev.values[i, 0, t] == pytest.approx(ref[topic][name], abs=1e-12), (name, topic)
    assert ev.values[0, 0].tolist() == [259, 264, 215]  # num_ret counts the judged documents


# ---------------------------------------------------------------------------
# every trec_eval 9.0 measure against pytrec_eval (trec_eval 9.0.8's C code) on the DL runs
# ---------------------------------------------------------------------------

#: pytrec_eval's names of trec_eval 9.0's measures (all_trec but relstring, runid, num_q), as the DL tests ask
PYTREC_MEASURES = ["num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
                   "iprec_at_recall_0.30", "P_10", "recall_100", "infAP", "gm_bpref", "Rprec_mult_0.20",
                   "Rprec_mult_1.60", "utility", "11pt_avg", "ndcg", "relative_P_10", "success_5", "map_cut_100",
                   "ndcg_cut_10", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P",
                   "set_map", "set_F", "num_nonrel_judged_ret"]


@pytest.mark.slow
@pytest.mark.parametrize("collection", ["trec-dl-2019-passage", "trec-dl-2020-passage"])
def test_every_trec_eval_9_measure_equals_pytrec_eval_per_topic(collection):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    root = shared_path(collection)
    qrels_path = next((root / "qrels").glob("*.txt"))
    with open(qrels_path) as fh:
        qrels = pytrec_eval.parse_qrel(fh)
    wanted = {re.sub(r"_[0-9.]+$", "", m) for m in PYTREC_MEASURES}  # the measures, all their cutoffs
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, wanted, relevance_level=2)
    for run_path in sorted((root / "runs").glob("*.gz"))[:8]:
        with gzip.open(run_path, "rt") as fh:
            ref = evaluator.evaluate(pytrec_eval.parse_run(fh))
        ev = cwla.evaluate(qrels_path, run_path, PYTREC_MEASURES, rel=2)
        for i, name in enumerate(PYTREC_MEASURES):
            for t, topic in enumerate(ev.topics):
                if topic not in ref:  # pytrec_eval leaves out the topics a run misses (cwla scores them 0)
                    continue
                got, want = ev.values[i, 0, t], ref[topic][name]
                if name.startswith("gm_"):  # pytrec_eval's per-topic gm value is log max(v, 1e-5)
                    got = np.log(max(got, 1e-5))
                assert got == pytest.approx(want, abs=1e-12), (run_path.name, name, topic)
        assert {"gm_map", "infAP", "G", "ndcg_rel", "Rndcg", "utility"} <= set(ref[topic])
