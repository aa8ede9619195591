"""cwla.ir_measures: cwla's metrics inside ir_measures (calc_aggregate, iter_calc, calc, evaluator) and PyTerrier
(pt.Experiment), mixed with ir_measures' own measures, giving cwla.evaluate's values per topic; the gain scale of the
default linear gain fixed from the full qrels (the measured problem: INST_PE on bm25base_p, DL19, 0.5608 on the whole
qrels but 0.5963 with each query's own qrels); clear errors for bad input.

The synthetic tests need only ir_measures (and pytrec_eval for its own measures); the DL19 tests need ../shared
(they skip without it); the PyTerrier tests need pyterrier (PyTerrier 1.x evaluates DataFrame runs without Java).
"""

from __future__ import annotations

import math
import pickle
import re
import subprocess
import sys
import traceback
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ir_measures = pytest.importorskip("ir_measures")

import cwla  # noqa: E402
import cwla.ir_measures as bridge  # noqa: E402
from conftest import ROOT, shared_path  # noqa: E402

MEASURES = ["RBP_PE", "INST(T=2.5)+PE(beta=0.5)", "INST_ERG", "nDCG@10", "P(rel=2)@10", "map", "RR", "R@20",
            "NumRel", "NumRet", "ERR@10", "SDCG@10", "nDCG(gains={0:0,1:1,2:3,3:7})@10"]


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def synthetic():
    """Qrels (topics with different largest grades: 3, 2, 0) and three runs: the first misses a topic and retrieves
    for two that are not in the qrels, the second retrieves for every topic, the third misses T004."""
    qrels, runs = cwla.synthetic.collection(n_topics=12, n_runs=3, depth=30, seed=3)
    topics = sorted(qrels.topic.unique())
    qrels = qrels.copy()
    capped = qrels.topic.isin(topics[1:5])
    qrels.loc[capped, "grade"] = qrels.loc[capped, "grade"].clip(upper=2)  # their largest grade is 2 (or less)
    qrels.loc[qrels.topic == topics[5], "grade"] = 0  # a topic with nothing relevant
    qrels["grade"] = qrels["grade"].astype(int)
    runs = {name: frame[["topic", "docno", "score"]].copy() for name, frame in runs.items()}
    first = next(iter(runs))
    extra = pd.DataFrame({"topic": "T999", "docno": ["X1", "X2"], "score": [2.0, 1.0]})
    runs[first] = pd.concat([runs[first][runs[first].topic != topics[2]], extra], ignore_index=True)
    return qrels, runs


def _irm_qrels(qrels: pd.DataFrame) -> pd.DataFrame:
    return qrels.rename(columns={"topic": "query_id", "docno": "doc_id", "grade": "relevance"})


def _irm_run(run: pd.DataFrame) -> pd.DataFrame:
    return run.rename(columns={"topic": "query_id", "docno": "doc_id"})


def _dict_of_dict(frame: pd.DataFrame, value: str) -> dict:
    out: dict = {}
    for t, d, v in zip(frame.topic, frame.docno, frame[value]):
        out.setdefault(t, {})[d] = v
    return out


def _expected(qrels, run, texts):
    """What ir_measures' convention asks for, from cwla.evaluate: per (text, topic) cwla's value for the qrels
    topics the run retrieves for, 0 for the other qrels topics; and the run's value: the mean over the qrels
    topics (the sum for the counts)."""
    ev = cwla.evaluate(qrels, {"run": run}, texts)
    missing = set(ev.missing_topics["run"])
    per_topic = {}
    for i, text in enumerate(texts):
        for t, topic in enumerate(ev.topics):
            per_topic[(text, topic)] = 0.0 if topic in missing else float(ev.values[i, 0, t])
    agg = {}
    for i, text in enumerate(texts):
        values = [per_topic[(text, topic)] for topic in ev.topics]
        agg[text] = float(np.sum(values)) if ev.metrics[i].aggregate == "sum" else float(np.mean(values))
    return per_topic, agg


def _by_text(results) -> dict:
    return {m.text if isinstance(m, bridge.CwlaMeasure) else repr(m): v for m, v in results.items()}


# ---------------------------------------------------------------------------
# the module
# ---------------------------------------------------------------------------


def test_import_cwla_never_imports_ir_measures():
    code = "import sys, cwla; cwla.evaluate; assert 'ir_measures' not in sys.modules, 'imported'; print('ok')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_the_bridge_uses_the_top_level_ir_measures_package():
    assert bridge._irm is sys.modules["ir_measures"]
    assert Path(bridge._irm.__file__).resolve().parent.name == "ir_measures"
    assert Path(bridge._irm.__file__).resolve() != Path(bridge.__file__).resolve()
    assert isinstance(ir_measures.providers.registry["cwla"], bridge.CwlaProvider)
    assert ir_measures.DefaultPipeline.providers[0] is bridge.provider
    assert sum(getattr(p, "NAME", None) == "cwla" for p in ir_measures.DefaultPipeline.providers) == 1


def test_registering_again_keeps_one_provider():
    bridge._register()
    bridge._register()
    assert sum(getattr(p, "NAME", None) == "cwla" for p in ir_measures.DefaultPipeline.providers) == 1


# ---------------------------------------------------------------------------
# values, on synthetic data
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["frame", "dict", "records", "generator", "pyterrier"])
def test_calc_aggregate_equals_cwla_evaluate_in_every_input_form(synthetic, form):
    qrels, runs = synthetic
    run = next(iter(runs.values()))  # misses a topic, retrieves for one not in the qrels
    if form == "frame":
        q, r = _irm_qrels(qrels), _irm_run(run)
    elif form == "dict":
        q, r = _dict_of_dict(qrels, "grade"), _dict_of_dict(run, "score")
    elif form == "records":
        q = [ir_measures.Qrel(t, d, int(g)) for t, d, g in zip(qrels.topic, qrels.docno, qrels.grade)]
        r = [ir_measures.ScoredDoc(t, d, float(s)) for t, d, s in zip(run.topic, run.docno, run.score)]
    elif form == "generator":
        q = (ir_measures.Qrel(t, d, int(g)) for t, d, g in zip(qrels.topic, qrels.docno, qrels.grade))
        r = (ir_measures.ScoredDoc(t, d, float(s)) for t, d, s in zip(run.topic, run.docno, run.score))
    else:
        q = qrels.rename(columns={"topic": "qid", "grade": "label"})
        r = run.rename(columns={"topic": "qid"}).assign(rank=lambda f: f.groupby("qid").cumcount(), docid=0)
    got = ir_measures.calc_aggregate(bridge.measures(MEASURES), q, r)
    _, expected = _expected(qrels, run, MEASURES)
    assert set(_by_text(got)) == set(MEASURES)
    for text, value in _by_text(got).items():
        assert value == pytest.approx(expected[text], abs=1e-12), text


def test_mixed_with_ir_measures_own_measures(synthetic):
    pytest.importorskip("pytrec_eval")
    qrels, runs = synthetic
    q = _irm_qrels(qrels)
    own = [ir_measures.nDCG @ 10, ir_measures.P(rel=2) @ 10, ir_measures.AP(rel=1), ir_measures.NumRel]
    ours = bridge.measures(["RBP_PE", "nDCG@10", "P(rel=2)@10", "AP", "NumRel"])
    for run in runs.values():
        got = ir_measures.calc_aggregate(own + ours, q, _irm_run(run))
        assert len(got) == len(own) + len(ours)  # cwla's nDCG@10 and ir_measures' are two measures
        _, expected = _expected(qrels, run, ["RBP_PE", "nDCG@10", "P(rel=2)@10", "AP", "NumRel"])
        for m in ours:
            assert got[m] == pytest.approx(expected[m.text], abs=1e-12), m
        # the same names, computed by ir_measures' providers (pytrec_eval), give the same numbers
        for theirs, mine in zip(own, ours[1:]):
            assert got[theirs] == pytest.approx(got[mine], abs=1e-9), (theirs, mine)


def test_iter_calc_and_calc_give_the_per_topic_values(synthetic):
    qrels, runs = synthetic
    q = _irm_qrels(qrels)
    for run in runs.values():
        per_topic, agg = _expected(qrels, run, MEASURES)
        got = {(m.measure.text, m.query_id): m.value for m in ir_measures.iter_calc(bridge.measures(MEASURES), q,
                                                                                    _irm_run(run))}
        assert got.keys() == per_topic.keys()  # every qrels topic, no other
        for key, value in got.items():
            assert value == pytest.approx(per_topic[key], abs=1e-12), key
        aggregated, per_query = ir_measures.calc(bridge.measures(MEASURES), q, _irm_run(run))
        assert {m.text: v for m, v in aggregated.items()} == pytest.approx(agg, abs=1e-12)
        assert len(per_query) == len(per_topic)


def test_an_evaluator_scores_many_runs_from_one_reading_of_the_qrels(synthetic):
    qrels, runs = synthetic
    ms = bridge.measures(MEASURES)
    evaluator = ir_measures.evaluator(ms + [ir_measures.Judged @ 10], _irm_qrels(qrels))
    for run in runs.values():
        per_topic, agg = _expected(qrels, run, MEASURES)
        got = evaluator.calc_aggregate(_irm_run(run))
        assert {m.text: got[m] for m in ms} == pytest.approx(agg, abs=1e-12)
        values = {(m.measure.text, m.query_id): m.value for m in evaluator.iter_calc(_irm_run(run))
                  if isinstance(m.measure, bridge.CwlaMeasure)}
        assert values == pytest.approx(per_topic, abs=1e-12)
    # the provider on its own, without ir_measures' pipeline
    run = next(iter(runs.values()))
    alone = bridge.provider.calc_aggregate(ms, _irm_qrels(qrels), _irm_run(run))
    assert {m.text: v for m, v in alone.items()} == pytest.approx(_expected(qrels, run, MEASURES)[1], abs=1e-12)


def test_missing_and_unknown_topics_follow_ir_measures_convention(synthetic):
    pytest.importorskip("pytrec_eval")
    qrels, runs = synthetic
    run = next(iter(runs.values()))
    topics = sorted(qrels.topic.unique())
    missing = set(topics) - set(run.topic)
    assert len(missing) == 1 and "T999" in set(run.topic)
    own = [ir_measures.NumRel, ir_measures.P @ 10, ir_measures.NumRet]
    ours = bridge.measures(["NumRel", "P@10", "NumRet"])
    got = list(ir_measures.iter_calc(own + ours, _irm_qrels(qrels), _irm_run(run)))
    assert {m.query_id for m in got} == set(topics)  # T999 (not in the qrels) is left out, as by ir_measures
    values = {(repr(m.measure), m.query_id): m.value for m in got}
    for theirs, mine in zip(own, ours):
        for topic in topics:  # the missing topic included: ir_measures gives it DEFAULT (0), so does the bridge
            assert values[(repr(mine), topic)] == pytest.approx(values[(repr(theirs), topic)], abs=1e-12), topic
    (topic,) = missing
    assert values[("cwla(metric='NumRel')", topic)] == 0.0
    # cwla.evaluate's own convention differs for the counts: a missing topic keeps NumRel = R
    ev = cwla.evaluate(qrels, {"run": run}, ["NumRel"])
    assert ev.values[0, 0, ev.topics.index(topic)] == (qrels[qrels.topic == topic].grade >= 1).sum() > 0


def test_an_empty_run_or_empty_qrels_give_ir_measures_defaults(synthetic):
    qrels, _ = synthetic
    ms = bridge.measures(["RBP_PE", "NumRel"])
    empty_run = pd.DataFrame([], columns=["query_id", "doc_id", "score"])  # what PyTerrier hands for no results
    got = list(ir_measures.iter_calc(ms, _irm_qrels(qrels), empty_run))
    assert len(got) == 2 * qrels.topic.nunique() and all(m.value == 0.0 for m in got)
    assert list(ir_measures.iter_calc(ms, {}, {"q": {"d": 1.0}})) == []
    assert list(ir_measures.iter_calc(ms, _irm_qrels(qrels).iloc[:0], [])) == []
    agg = ir_measures.calc_aggregate(ms, {}, {"q": {"d": 1.0}})
    assert math.isnan(agg[ms[0]]) and agg[ms[1]] == 0  # a mean over no topic; a sum over none


# ---------------------------------------------------------------------------
# the gain scale: the measured problem, and what fixes it
# ---------------------------------------------------------------------------


def _naive_byquery(text):
    """The hand-written wrapper: cwla.evaluate on what ir_measures hands one query at a time."""
    return ir_measures.define_byquery(lambda q, r: float(cwla.evaluate(q, r, [text]).values[0, 0, 0]),
                                      name=f"naive_byquery_{text}", support_cutoff=False)


def _naive_define(text):
    """The hand-written wrapper that gets all queries at once: cwla.evaluate on the qrels it is handed."""
    def impl(q, r):
        ev = cwla.evaluate(q, r, [text])
        return [(t, float(v)) for t, v in zip(ev.topics, ev.values[0, 0])]
    return ir_measures.define(impl, name=f"naive_define_{text}", support_cutoff=False)


def _query_by_query(measure, qrels, run):
    """What PyTerrier's batch_size=1 does: each query's run with that query's qrels only."""
    out = {}
    for topic in sorted(set(qrels.query_id) & set(run.query_id)):
        for m in ir_measures.iter_calc([measure], qrels[qrels.query_id == topic], run[run.query_id == topic]):
            out[m.query_id] = m.value
    return out


def test_query_by_query_qrels_need_the_gain_scale_fixed(synthetic):
    qrels, runs = synthetic
    run = list(runs.values())[1]  # retrieves for every topic
    q, r = _irm_qrels(qrels), _irm_run(run)
    full, _ = _expected(qrels, run, ["INST_PE"])
    full = {topic: v for (_, topic), v in full.items()}
    pinned = bridge.measure("INST_PE", qrels=q)
    assert pinned.text == "INST_PE[gain=linear(gmax=3)]"
    assert _query_by_query(pinned, q, r) == pytest.approx(full, abs=1e-12)
    # without qrels=, each query's own largest grade divides: the capped topics change, as with the naive wrappers
    for m in (bridge.measure("INST_PE"), _naive_define("INST_PE")):
        got = _query_by_query(m, q, r)
        changed = {t for t in full if abs(got[t] - full[t]) > 1e-6}
        assert changed and changed <= set(sorted(full)[1:5]), m
    # handed the full qrels, the bridge needs nothing fixed, whichever subset of the run it is given
    evaluator = ir_measures.evaluator([bridge.measure("INST_PE")], q)
    for topic in sorted(full)[:6]:
        (m,) = [m for m in evaluator.iter_calc(r[r.query_id == topic]) if m.query_id == topic]
        assert m.value == pytest.approx(full[topic], abs=1e-12)


def test_the_naive_byquery_wrapper_changes_the_scores(synthetic):
    qrels, runs = synthetic
    run = list(runs.values())[1]
    q, r = _irm_qrels(qrels), _irm_run(run)
    _, expected = _expected(qrels, run, ["INST_PE"])
    naive = ir_measures.calc_aggregate([_naive_byquery("INST_PE")], q, r)
    ours = ir_measures.calc_aggregate([bridge.measure("INST_PE")], q, r)
    assert list(ours.values())[0] == pytest.approx(expected["INST_PE"], abs=1e-12)
    assert abs(list(naive.values())[0] - expected["INST_PE"]) > 1e-3


@pytest.mark.parametrize("text, gain", [
    ("INST_PE", "linear(gmax=3)"), ("RBP(p=0.8)+ERG", "linear(gmax=3)"), ("nDCG@10", "linear(gmax=3)"),
    ("ERR@10", None), ("nDCG(dcg='exp-log2')@10", "exponential(gmax=3)"), ("SDCG(min_rel=1)@10", "scaled"),
    ("nDCG(gains={0:0,1:1,2:3,3:7})@10", "table"), ("INST_PE[cutoff=10]", "canonical"), ("ndcg_cut_10", "canonical"),
    ("P(rel=2)@10", None), ("RBP(p=0.8)+ERG[gain=linear(gmax=4)]", None), ("NumRel", None), ("R@20", None),
])
@pytest.mark.slow
def test_fixed_measures_give_the_full_qrels_values_on_any_subset(synthetic, text, gain):
    qrels, runs = synthetic
    run = list(runs.values())[1]
    q, r = _irm_qrels(qrels), _irm_run(run)
    fixed = bridge.measure(text, qrels=q)
    if gain is None:
        assert fixed.text == text
    elif gain == "canonical":
        assert fixed.text == str(fixed.metric) and "gain=linear(gmax=3)" in fixed.text
    else:
        assert fixed.text.startswith(f"{text}[gain={gain}")
    # on the full qrels, the fixed measure is the measure
    whole = {(m.query_id): m.value for m in ir_measures.iter_calc([fixed], q, r)}
    full, _ = _expected(qrels, run, [text])
    assert whole == pytest.approx({t: v for (_, t), v in full.items()}, abs=1e-12)
    # on each query's own qrels too
    assert _query_by_query(fixed, q, r) == pytest.approx(whole, abs=1e-12)


# ---------------------------------------------------------------------------
# the measure as a value
# ---------------------------------------------------------------------------


def test_measures_print_compare_hash_and_parse_back():
    m = bridge.measure("RBP_PE")
    assert repr(m) == "cwla(metric='RBP_PE')" and str(m) == "RBP_PE"  # str: a results table's column name
    assert m == bridge.measure("RBP_PE") and hash(m) == hash(bridge.measure("RBP_PE"))
    assert len({m, bridge.measure("RBP_PE"), bridge.measure("INST_PE")}) == 2
    assert m != bridge.measure("RBP(p=0.8)+PE(beta=0.5)")  # measures are their texts, as ir_measures' are
    assert bridge.measure("nDCG@10") != ir_measures.nDCG @ 10
    assert len({bridge.measure("nDCG@10"), ir_measures.nDCG @ 10}) == 2
    assert ir_measures.parse_measure(repr(m)) == m
    quoted = bridge.measure("nDCG(dcg='exp-log2')@10")
    assert ir_measures.parse_measure(repr(quoted)) == quoted and quoted.text == "nDCG(dcg='exp-log2')@10"
    assert pickle.loads(pickle.dumps(m)) == m
    assert m.metric == cwla.parse_metric("RBP_PE") and m.text == "RBP_PE"
    assert m(metric="INST_PE") == bridge.measure("INST_PE")  # ir_measures' Measure.__call__
    assert bridge.measure(cwla.parse_metric("INST_PE")).text == "INST(T=2.5)+PE(beta=0.5)"
    assert bridge.measure(ir_measures.P(rel=2) @ 10) == bridge.measure("P(rel=2)@10")
    assert bridge.measure(m) is not None and bridge.measure(m) == m
    assert type(bridge.measure("NumRel").aggregator()).__name__ == "SumAgg"
    assert type(m.aggregator()).__name__ == "MeanAgg"


def test_measures_splits_a_text_of_several():
    got = bridge.measures("RBP_PE  INST(T=2.5) + PE(beta=0.5), nDCG@10 P(rel=2, judged_only=True)@10 "
                          "RBP(p=0.8)+ERG[cutoff=10, stop=true] nDCG(gains={0:0, 1:1})@5,map")
    assert [m.text for m in got] == ["RBP_PE", "INST(T=2.5) + PE(beta=0.5)", "nDCG@10",
                                     "P(rel=2, judged_only=True)@10", "RBP(p=0.8)+ERG[cutoff=10, stop=true]",
                                     "nDCG(gains={0:0, 1:1})@5", "map"]
    assert bridge.measures(["RBP_PE", cwla.parse_metric("INST_ERG")]) == [bridge.measure("RBP_PE"),
                                                                         bridge.measure("INST(T=2.5)+ERG")]
    assert bridge.measures("INST_PE RBP_PE", qrels={"q": {"d": 2}}) == [bridge.measure("INST_PE[gain=linear(gmax=2)]"),
                                                                       bridge.measure("RBP_PE[gain=linear(gmax=2)]")]


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------


def _raised_here(excinfo) -> None:
    """The error is raised by the bridge itself (no chained traceback from deep inside cwla)."""
    assert excinfo.value.__cause__ is None and excinfo.value.__suppress_context__
    assert Path(traceback.extract_tb(excinfo.tb)[-1].filename).resolve() == Path(bridge.__file__).resolve()


def test_bad_metric_texts_and_arguments():
    with pytest.raises(cwla.MetricSyntaxError, match=r"RBP_XYZ") as excinfo:
        bridge.measure("RBP_XYZ")
    _raised_here(excinfo)
    with pytest.raises(cwla.MetricSyntaxError, match="empty"):
        bridge.measure("")
    with pytest.raises(cwla.MetricSyntaxError, match="no metric text"):
        bridge.measures("  ")
    with pytest.raises(TypeError, match="takes a cwla metric text"):
        bridge.measure(3)
    with pytest.raises(TypeError, match="takes only metric=TEXT"):
        bridge.CwlaMeasure(metric="RBP_PE", cutoff=10)
    with pytest.raises(TypeError, match="needs a metric text"):
        ir_measures.parse_measure("cwla")
    with pytest.raises(TypeError, match="no @k"):
        bridge.measure("RBP_PE") @ 10
    # every ir_measures measure is one cwla computes (tests/cwla/bridges/test_ir_measures_catalogue.py)
    assert bridge.measure(ir_measures.alpha_nDCG @ 10).text == "alpha_nDCG@10"


@pytest.mark.parametrize("qrels, error, message", [
    (pd.DataFrame({"query_id": ["q"], "document": ["d"], "relevance": [1]}), cwla.InputError, "missing columns"),
    ({"q": {"d": "high"}}, cwla.InputError, "not a number"),
    (pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["d", "d"], "relevance": [1, 2]}), cwla.InputError, "d"),
    (42, TypeError, "got int"),
])
def test_bad_qrels_get_a_clear_error(qrels, error, message):
    run = {"q": {"d": 1.0}}
    with pytest.raises(error) as excinfo:
        ir_measures.calc_aggregate([bridge.measure("RBP_PE")], qrels, run)
    text = str(excinfo.value)
    assert "the qrels could not be read" in text and message in text and "accepted:" in text
    assert "query_id, doc_id, relevance" in text and "qid, docno, label" in text
    _raised_here(excinfo)


@pytest.mark.parametrize("run, error, message", [
    (pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "value": [1.0]}), cwla.InputError, "missing columns"),
    ({"q": {"d": "x"}}, cwla.InputError, "not a number"),
    ([ir_measures.ScoredDoc("q", "d", 1.0), ir_measures.ScoredDoc("q", "d", 2.0)], cwla.InputError, "'d'"),
    ([("q", "d", 1.0)], TypeError, "iterable"),
])
def test_bad_runs_get_a_clear_error(run, error, message):
    with pytest.raises(error) as excinfo:
        ir_measures.calc_aggregate([bridge.measure("RBP_PE")], {"q": {"d": 1}}, run)
    text = str(excinfo.value)
    assert "the run could not be read" in text and message in text and "accepted:" in text
    assert "cwla(metric='RBP_PE')" in text  # which evaluation
    _raised_here(excinfo)


def test_a_gain_that_does_not_fit_the_qrels_gets_a_clear_error():
    with pytest.raises(cwla.GainRangeError, match=r"grade 3 .*outside \[0, 1\]") as excinfo:
        ir_measures.calc_aggregate([bridge.measure("INST_PE[gain=linear(gmax=2)]")], {"q": {"d": 3}},
                                   {"q": {"d": 1.0}})
    assert "cwla(metric='INST_PE[gain=linear(gmax=2)]')" in str(excinfo.value)
    _raised_here(excinfo)


# ---------------------------------------------------------------------------
# TREC DL 2019 (../shared)
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dl19():
    root = shared_path("trec-dl-2019-passage")
    qrels_path = root / "qrels" / "qrels.dl19-passage.txt"
    return qrels_path, {name: root / "runs" / f"{name}.gz" for name in ("bm25base_p", "idst_bert_p1", "TUA1-1")}


@pytest.mark.slow
@pytest.mark.parametrize("name", ["bm25base_p", "idst_bert_p1", "TUA1-1"])
def test_dl19_calc_aggregate_and_iter_calc_equal_cwla_evaluate(dl19, name):
    pytest.importorskip("pytrec_eval")
    qrels_path, runs = dl19
    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    run = list(ir_measures.read_trec_run(str(runs[name])))
    rbp = bridge.measure("RBP_PE")
    ev = cwla.evaluate(qrels_path, {name: runs[name]}, ["RBP_PE", "nDCG@10"])
    assert ev.missing_topics[name] == ()  # the run covers every topic
    got = ir_measures.calc_aggregate([rbp, ir_measures.nDCG @ 10], qrels, run)
    assert abs(got[rbp] - ev.values[0, 0].mean()) < 1e-12
    assert abs(got[ir_measures.nDCG @ 10] - ev.values[1, 0].mean()) < 1e-9
    per_query = {(repr(m.measure), m.query_id): m.value
                 for m in ir_measures.iter_calc([rbp, ir_measures.nDCG @ 10], qrels, run)}
    for t, topic in enumerate(ev.topics):
        assert abs(per_query[(repr(rbp), topic)] - ev.values[0, 0, t]) < 1e-12, topic
        assert abs(per_query[("nDCG@10", topic)] - ev.values[1, 0, t]) < 1e-9, topic


@pytest.mark.slow
def test_dl19_the_measured_problem_and_its_fix(dl19):
    """INST_PE on bm25base_p: the whole qrels' gmax (3) gives 0.5608; each query's own largest grade (7 topics top
    at 2) gives 0.5963, which is what a per-query wrapper computes."""
    qrels_path, runs = dl19
    q = cwla.read_qrels(qrels_path).rename(columns={"topic": "query_id", "docno": "doc_id", "grade": "relevance"})
    r = cwla.read_run(runs["bm25base_p"]).rename(columns={"topic": "query_id", "docno": "doc_id"})
    ev = cwla.evaluate(qrels_path, {"bm25base_p": runs["bm25base_p"]}, ["INST_PE"])
    whole = ev.values[0, 0].mean()
    per_topic = dict(zip(ev.topics, ev.values[0, 0]))
    own_gmax = np.mean([cwla.evaluate(q[q.query_id == t], r[r.query_id == t], ["INST_PE"]).values[0, 0, 0]
                        for t in ev.topics])
    assert round(whole, 4) == 0.5608 and round(own_gmax, 4) == 0.5963
    naive = list(ir_measures.calc_aggregate([_naive_byquery("INST_PE")], q, r).values())[0]
    assert naive == pytest.approx(own_gmax, abs=1e-12)
    ours = bridge.measure("INST_PE")
    assert ir_measures.calc_aggregate([ours], q, r)[ours] == pytest.approx(whole, abs=1e-12)
    # one query's run at a time through one evaluator of the full qrels
    evaluator = ir_measures.evaluator([ours], q)
    for topic in ev.topics:
        values = {m.query_id: m.value for m in evaluator.iter_calc(r[r.query_id == topic])}
        assert values[topic] == pytest.approx(per_topic[topic], abs=1e-12)
        assert all(v == 0.0 for t, v in values.items() if t != topic)
    # each query with its own qrels (PyTerrier's batch_size=1): the fixed measure, not the naive define wrapper
    pinned = bridge.measure("INST_PE", qrels=q)
    assert pinned.text == "INST_PE[gain=linear(gmax=3)]"
    assert np.mean(list(_query_by_query(pinned, q, r).values())) == pytest.approx(whole, abs=1e-12)
    assert np.mean(list(_query_by_query(_naive_define("INST_PE"), q, r).values())) == pytest.approx(own_gmax,
                                                                                                  abs=1e-12)


# ---------------------------------------------------------------------------
# the docs
# ---------------------------------------------------------------------------


def test_the_docs_example_runs(tmp_path, monkeypatch):
    text = (ROOT / "docs" / "ecosystem.md").read_text()
    section = text.split("## ir_measures and PyTerrier: cwla's metrics inside them", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert blocks
    monkeypatch.chdir(tmp_path)
    for code in blocks:
        exec(compile(code, "docs/ecosystem.md (ir_measures section)", "exec"), {"__name__": "__docs__"})


# ---------------------------------------------------------------------------
# PyTerrier (no Java needed: DataFrame runs)
# ---------------------------------------------------------------------------


def _pt_frames(qrels, runs):
    pt_qrels = qrels.rename(columns={"topic": "qid", "grade": "label"}).astype({"label": int})  # pytrec_eval: ints
    pt_runs = {name: run.rename(columns={"topic": "qid"}) for name, run in runs.items()}
    topics = pd.DataFrame({"qid": sorted(qrels.topic.unique())}).assign(query="q")
    return pt_qrels, pt_runs, topics


def _check_experiment(pt, qrels, runs, pt_qrels, pt_runs, topics, texts, tolerance):
    names = list(pt_runs)
    ours = bridge.measures(texts)
    ev = cwla.evaluate(qrels, runs, texts)
    metrics = ours + [ir_measures.nDCG @ 10]
    table = pt.Experiment(list(pt_runs.values()), topics, pt_qrels, eval_metrics=metrics, names=names)
    for r, name in enumerate(names):
        row = table[table.name == name].iloc[0]
        for i, m in enumerate(ours):
            assert abs(row[str(m)] - ev.values[i, r].mean()) < tolerance, (name, m)
        assert abs(row["nDCG@10"] - ev.values[texts.index("nDCG@10"), r].mean()) < 1e-9, name
    long = pt.Experiment(list(pt_runs.values()), topics, pt_qrels, eval_metrics=metrics, names=names, perquery=True)
    for r, name in enumerate(names):
        for i, m in enumerate(ours):
            got = long[(long.name == name) & (long.measure == str(m))].set_index("qid")["value"]
            assert dict(got) == pytest.approx(dict(zip(ev.topics, ev.values[i, r])), abs=tolerance), (name, m)
    return ev


def test_pyterrier_experiment_with_dataframe_runs(synthetic):
    pt = pytest.importorskip("pyterrier")
    qrels, runs = synthetic
    runs = dict(list(runs.items())[1:])  # they retrieve for every topic
    pt_qrels, pt_runs, topics = _pt_frames(qrels, runs)
    assert set(runs["run03"].topic) != set(qrels.topic)  # a missing topic: 0 in cwla and in ir_measures
    _check_experiment(pt, qrels, runs, pt_qrels, pt_runs, topics, ["RBP_PE", "INST_PE", "nDCG@10", "map"], 1e-12)


def test_pyterrier_batches_need_the_gain_scale_fixed(synthetic):
    pt = pytest.importorskip("pyterrier")
    qrels, runs = synthetic
    runs = dict(list(runs.items())[1:])
    pt_qrels, pt_runs, topics = _pt_frames(qrels, runs)
    ev = cwla.evaluate(qrels, runs, ["INST_PE"])
    systems = [pt.Transformer.from_df(frame) for frame in pt_runs.values()]
    pinned, plain = bridge.measure("INST_PE", qrels=pt_qrels), bridge.measure("INST_PE")
    table = pt.Experiment(systems, topics, pt_qrels, eval_metrics=[pinned, plain], names=list(runs), batch_size=2)
    for r, name in enumerate(runs):
        row = table[table.name == name].iloc[0]
        assert abs(row[str(pinned)] - ev.values[0, r].mean()) < 1e-12, name
        assert abs(row[str(plain)] - ev.values[0, r].mean()) > 1e-4, name  # batch qrels: their own largest grade


@pytest.mark.slow
def test_pyterrier_experiment_on_dl19(dl19):
    pt = pytest.importorskip("pyterrier")
    qrels_path, paths = dl19
    qrels = cwla.read_qrels(qrels_path)
    runs = {name: cwla.read_run(path)[["topic", "docno", "score"]] for name, path in paths.items()}
    pt_qrels, pt_runs, topics = _pt_frames(qrels, runs)
    ev = _check_experiment(pt, qrels, runs, pt_qrels, pt_runs, topics, ["RBP_PE", "INST_PE", "nDCG@10"], 1e-12)
    assert round(ev.values[1, 0].mean(), 4) == 0.5608  # bm25base_p's INST_PE on the whole qrels


def test_the_bridge_is_an_attribute_of_cwla_loaded_on_first_use():
    import subprocess
    import sys

    code = ("import sys, cwla; assert 'ir_measures' not in sys.modules; "
            "m = cwla.ir_measures.measure('RBP_PE'); assert 'ir_measures' in sys.modules; print(repr(m))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "cwla(metric='RBP_PE')"
