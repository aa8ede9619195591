"""Every ir_measures and trec_eval name cwla parses gives ir_measures' / pytrec_eval's value, per topic, on every
official TREC DL 2019 and 2020 run (within 1e-9; cwl_eval's names on every DL19 run and every fourth DL20 run).

Two checks: (1) the trec_eval names against pytrec_eval on the run files as they are (float32 score ties broken
by docno, as trec_eval 9.x does); (2) the ir_measures names through ``ir_measures.iter_calc`` (its providers:
pytrec_eval, cwl_eval, its own Judged) on the same rankings, given to ir_measures as distinct scores in trec_eval's
order, so that ir_measures' providers, which break ties their own ways, all see the ranking trec_eval sees.
"""

from __future__ import annotations

import gzip
import logging

import numpy as np
import pytest

import cwla
from conftest import shared_path

COLLECTIONS = ["trec-dl-2019-passage", "trec-dl-2020-passage"]

#: (cwla's trec_eval name, pytrec_eval's measure, relevance level)
TREC_NAMES = [
    ("map", "map", 2), ("map_cut_100", "map_cut_100", 2), ("map_cut.1000", "map_cut_1000", 1),
    ("P_10", "P_10", 2), ("P.20", "P_20", 1), ("recall_100", "recall_100", 2), ("recall.1000", "recall_1000", 2),
    ("ndcg", "ndcg", 2), ("ndcg_cut_10", "ndcg_cut_10", 2), ("ndcg_cut.20", "ndcg_cut_20", 1),
    ("recip_rank", "recip_rank", 2), ("recip_rank", "recip_rank", 1), ("success_10", "success_10", 2),
    ("success.1", "success_1", 2), ("Rprec", "Rprec", 2), ("bpref", "bpref", 2), ("bpref", "bpref", 1),
    ("num_rel", "num_rel", 2), ("num_ret", "num_ret", 2), ("num_rel_ret", "num_rel_ret", 2), ("num_q", "num_q", 2),
    ("set_P", "set_P", 2), ("set_relative_P", "set_relative_P", 2), ("set_recall", "set_recall", 2),
    ("set_F", "set_F", 2), ("set_map", "set_map", 2), ("iprec_at_recall_0.00", "iprec_at_recall_0.00", 2),
    ("iprec_at_recall_0.10", "iprec_at_recall_0.10", 2), ("iprec_at_recall.0.60", "iprec_at_recall_0.60", 2),
]

#: ir_measures' names (those computed by cwl_eval need the cwl-eval package)
IRM_NAMES = [
    "P(rel=2)@10", "P@5", "P(rel=2, judged_only=True)@10", "R(rel=2)@1000", "R@100", "RR", "RR(rel=2)@10",
    "AP(rel=2)", "AP(rel=2)@100", "nDCG", "nDCG@10", "nDCG(judged_only=True)@10",
    "nDCG(gains={0:0,1:0,2:1,3:3})@10", "Success(rel=2)@10", "Judged@10", "Judged@100", "Rprec(rel=2)",
    "Bpref(rel=2)", "NumRel(rel=1)", "NumRet", "NumRet(rel=2)", "NumRelRet", "SetP(rel=2)", "SetR(rel=2)",
    "SetF(rel=2)", "SetAP(rel=2)", "IPrec(rel=2)@0.3",
]
CWL_NAMES = ["SDCG(max_rel=3)@10", "INST(max_rel=3)", "INST(T=2.0, min_rel=1, max_rel=3)", "RBP(rel=2, p=0.8)",
             "RBP(rel=1, p=0.95)"]
#: the runs each name is checked on, as every k-th in file-name order (ranks 1, 1 + k, ...): ir_measures' names on
#: every run of DL19 and every second of DL20 (30 of 59); cwl_eval's on every fourth (10 of 37, 15 of 59, among
#: those), ir_measures computing them with cwl_eval's pure-Python provider. Reading a run into ir_measures and its
#: pytrec_eval calls take 0.3 s a DL20 run, cwl_eval's 0.4 s more: on every run the test took 55 s. The same kernels
#: and the same names on 37 + 30 runs keep the assertion (cwl_eval's measures themselves: tests/cwla/bridges/
#: test_cwl.py).
EVERY = {"trec-dl-2019-passage": 1, "trec-dl-2020-passage": 2}
CWL_EVERY = {"trec-dl-2019-passage": 4, "trec-dl-2020-passage": 4}


def _files(collection):
    root = shared_path(collection)
    return next((root / "qrels").glob("*.txt")), sorted((root / "runs").glob("*.gz"))


@pytest.mark.slow
@pytest.mark.parametrize("collection", COLLECTIONS)
def test_trec_eval_names_match_pytrec_eval_per_topic(collection):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels_path, runs = _files(collection)
    with open(qrels_path) as fh:
        qrels = pytrec_eval.parse_qrel(fh)
    col = cwla.prepare(qrels_path, runs)
    worst = 0.0
    levels = {}  # relevance level -> (the names at it, cwla's evaluation, pytrec_eval's evaluator)
    for level in (1, 2):
        chosen = [(i, name, measure) for i, (name, measure, lv) in enumerate(TREC_NAMES) if lv == level]
        ev = cwla.evaluate(col, metrics={f"{name}#{i}": name for i, name, _ in chosen}, rel=level)
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, {m for _, _, m in chosen}, relevance_level=level)
        levels[level] = chosen, ev, evaluator
    for r, path in enumerate(runs):
        with gzip.open(path, "rt") as fh:
            run = pytrec_eval.parse_run(fh)  # once for both levels
        for chosen, ev, evaluator in levels.values():
            ref = evaluator.evaluate(run)
            for j, (_, name, measure) in enumerate(chosen):
                expected = np.array([ref[t][measure] for t in ev.topics])
                diff = np.abs(ev.values[j, r] - expected)
                assert diff.max() < 1e-9, (collection, path.name, name, ev.topics[int(diff.argmax())])
                worst = max(worst, diff.max())
    assert worst < 1e-9


def _trec_ordered_run(path, ir_measures):
    """The run's rankings in trec_eval's order (float32 scores descending, docno descending), as
    ScoredDocs with distinct decreasing scores."""
    frame = cwla.read_run(path)
    frame["s32"] = frame["score"].astype(np.float32)
    frame = frame.sort_values(["topic", "s32", "docno"], ascending=[True, False, False], kind="stable")
    position = frame.groupby("topic").cumcount().to_numpy()
    scores = (100_000.0 - position).tolist()  # lists, not the columns: iterating pandas' strings is 10x slower
    return [ir_measures.ScoredDoc(t, d, s) for t, d, s in zip(frame["topic"].tolist(), frame["docno"].tolist(),
                                                               scores)]


@pytest.mark.slow
@pytest.mark.parametrize("collection", COLLECTIONS)
def test_ir_measures_names_match_ir_measures_per_topic(collection):
    ir_measures = pytest.importorskip("ir_measures")
    names = list(IRM_NAMES)
    try:
        import cwl  # noqa: F401  -- ir_measures' cwl_eval provider
        names += CWL_NAMES
    except ImportError:
        pass
    logging.getLogger("ir_measures").setLevel(logging.ERROR)  # its min_rel/max_rel notes about negative grades
    qrels_path, runs = _files(collection)
    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    ev = cwla.evaluate(qrels_path, runs, names)
    measures = [ir_measures.parse_measure(n) for n in names]
    # ir_measures' pytrec_eval provider files nDCG and NumRet under whichever invocation it met first (an
    # iteration over a set): with gains= or judged_only= among them they may be computed with those, so
    # those measures go in calls of their own
    groups = [[m for m in measures if "gains" in str(m)], [m for m in measures if "judged_only" in str(m)]]
    # cwl_eval's names in a call of their own: beside other measures ir_measures' fallback provider hands the
    # whole call to cwl_eval's (pure Python) provider, four times slower, for the same values
    cwl = [m for name, m in zip(names, measures) if name in CWL_NAMES]
    groups.append([m for m in measures if m not in cwl and not any(m in g for g in groups)])
    for r, path in enumerate(runs):
        if r % EVERY[collection]:
            continue
        run = _trec_ordered_run(path, ir_measures)
        with_cwl = bool(cwl) and r % CWL_EVERY[collection] == 0
        got = {(str(m.measure), m.query_id): m.value
               for group in groups + [cwl] * with_cwl for m in ir_measures.iter_calc(group, qrels, run)}
        for i, (name, measure) in enumerate(zip(names, measures)):
            if name in CWL_NAMES and not with_cwl:
                continue
            expected = np.array([got[(str(measure), t)] for t in ev.topics])
            diff = np.abs(ev.values[i, r] - expected)
            assert diff.max() < 1e-9, (collection, path.name, name, ev.topics[int(diff.argmax())])


@pytest.mark.slow
@pytest.mark.parametrize("collection", COLLECTIONS)
def test_rr_at_10_is_recip_rank_of_the_runs_cut_at_10_in_trec_eval_order(collection):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels_path, runs = _files(collection)
    with open(qrels_path) as fh:
        qrels = pytrec_eval.parse_qrel(fh)
    ev = cwla.evaluate(qrels_path, runs, ["RR(rel=2)@10"])
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}, relevance_level=2)
    for r, path in enumerate(runs):
        frame = cwla.read_run(path)
        frame["s32"] = frame["score"].astype(np.float32)
        frame = frame.sort_values(["topic", "s32", "docno"], ascending=[True, False, False], kind="stable")
        top10 = frame.groupby("topic").head(10)
        cut = {t: dict(zip(g["docno"], g["score"])) for t, g in top10.groupby("topic")}
        ref = evaluator.evaluate(cut)
        np.testing.assert_allclose(ev.values[0, r], [ref[t]["recip_rank"] for t in ev.topics], rtol=0, atol=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("collection", COLLECTIONS)
def test_every_trec_eval_name_through_the_cli_to_the_printed_decimals(collection):
    import io
    from contextlib import redirect_stdout

    from cwla.bridges.cli import main

    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels_path, runs = _files(collection)
    with open(qrels_path) as fh:
        qrels = pytrec_eval.parse_qrel(fh)
    chosen = [(name, measure) for name, measure, level in TREC_NAMES if level == 2]
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["eval", "-q", "-l", "2", "--format", "trec", *[x for n, _ in chosen for x in ("-m", n)],
                     str(qrels_path), *map(str, runs)]) == 0
    printed, run = {}, None
    for line in out.getvalue().splitlines():
        name, topic, value = (part.strip() for part in line.split("\t"))
        if name == "runid":
            run = value
        else:
            printed[(run, name, topic)] = value
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {m for _, m in chosen}, relevance_level=2)
    counts = {"num_rel", "num_ret", "num_rel_ret"}
    for path in runs:
        with gzip.open(path, "rt") as fh:
            ref = evaluator.evaluate(pytrec_eval.parse_run(fh))
        for name, measure in chosen:
            if measure == "num_q":
                continue  # trec_eval prints num_q in its summary only
            for topic in ref:
                value = ref[topic][measure]
                got = printed[(cwla.run_name(path), measure, topic)]
                if measure in counts:
                    assert got == str(int(value)), (path.name, name, topic)
                elif got != f"{value:6.4f}".strip():
                    # a value on a rounding boundary (x.xxxx5 within 1e-12) may print either way
                    assert abs(float(got) - value) <= 0.5e-4 + 1e-12, (path.name, name, topic, got, value)
