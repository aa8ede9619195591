"""The measures outside C/W/L/A (cwla.counting) against the plain-Python oracle of tests/naive.py,
and the evaluation options they share with the metrics (rel, judged_only, max_docs)."""

import math
import warnings

import attrs
import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import cwla
import naive
from cwla import counting
from cwla.errors import CwlaError
from cwla.testing import rankings

MEASURES = {
    "Recall": lambda k, rel, p: counting.Recall(k, rel=rel),
    "RPrec": lambda k, rel, p: counting.RPrec(rel=rel),
    "Bpref": lambda k, rel, p: counting.Bpref(rel=rel),
    "Judged": lambda k, rel, p: counting.Judged(k),
    "SetP": lambda k, rel, p: counting.SetP(rel=rel),
    "SetRelP": lambda k, rel, p: counting.SetP(rel=rel, relative=True),
    "SetF": lambda k, rel, p: counting.SetF(beta=p, rel=rel),
    "SetAP": lambda k, rel, p: counting.SetAP(rel=rel),
    "IPrec": lambda k, rel, p: counting.IPrec(min(p, 1.0), rel=rel),
    "NumRel": lambda k, rel, p: counting.NumRel(rel=rel),
    "NumRet": lambda k, rel, p: counting.NumRet(),
    "NumRelRet": lambda k, rel, p: counting.NumRelRet(rel=rel),
    "NumQ": lambda k, rel, p: counting.NumQ(),
}


def topics():
    """(ranking, judged): grades -1..3 (a negative grade is judged, never relevant), None = unjudged."""
    return rankings(max_depth=25, max_grade=3, max_pool=25, min_grade=-1)


def _evaluate(measure, ranking, judged, **kw):
    qrels, run = naive.frames(ranking, judged)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cwla.CwlaWarning)
        return cwla.evaluate(qrels, {"r": run}, [measure], order="file", **kw)


def _upper_world(ranking, judged, level):
    """Every unjudged document of the ranking relevant and judged (the residual's upper bound)."""
    unjudged = sum(g is None for g in ranking)
    return [level if g is None else g for g in ranking], judged + [level] * unjudged


@pytest.mark.slow
@pytest.mark.parametrize("name", list(MEASURES))
def test_counting_measures_match_the_oracle(name):
    @given(topics(), st.none() | st.integers(1, 12), st.none() | st.integers(1, 3),
           st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.6, 1.0, 2.0]), st.none() | st.integers(1, 3))
    def check(topic, k, level, param, eval_rel):
        ranking, judged = topic
        if name == "SetF" and param == 0.0:
            param = 0.5
        measure = MEASURES[name](k, level, param)
        ev = _evaluate(measure, ranking, judged, rel=eval_rel)
        resolved = ev.metrics[0]
        lv = resolved.level
        oracle_name = "SetRelP" if name == "SetRelP" else name
        kk = k if name in ("Recall", "Judged") else None
        expected = naive.counting(oracle_name, ranking, judged, lv, kk, getattr(resolved, "beta", None)
                                  if name == "SetF" else getattr(resolved, "recall", None))
        assert ev.values[0, 0, 0] == pytest.approx(expected, rel=1e-12, abs=1e-12)
        up_rank, up_judged = _upper_world(ranking, judged, lv)
        upper = naive.counting(oracle_name, up_rank, up_judged, lv, kk, getattr(resolved, "beta", None)
                               if name == "SetF" else getattr(resolved, "recall", None))
        assert ev.values[0, 0, 0] + ev.residuals[0, 0, 0] == pytest.approx(upper, rel=1e-12, abs=1e-12)

    check()


@pytest.mark.slow
@given(topics(), st.integers(1, 3))
def test_judged_only_drops_unjudged_and_negative_documents(topic, level):
    ranking, judged = topic
    kept = [g for g in ranking if g is not None and g >= 0]
    for name in ("Recall", "RPrec", "SetP", "SetF", "SetAP", "IPrec"):
        measure = attrs.evolve(MEASURES[name](5, level, 1.0 if name == "SetF" else 0.5), judged_only=True)
        got = _evaluate(measure, ranking, judged).values[0, 0, 0]
        expected = naive.counting(name, kept, judged, level, 5 if name == "Recall" else None,
                                  1.0 if name == "SetF" else 0.5)
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-12), name
    # and for a C/W/L/A metric: P@5 over the judged documents only
    got = _evaluate("P(judged_only=True)@5", ranking, judged, rel=level).values[0, 0, 0]
    assert got == pytest.approx(sum(g >= level for g in kept[:5]) / 5)


def test_a_relevance_level_reaches_every_binary_measure_that_does_not_set_one():
    qrels = pd.DataFrame({"topic": "t", "docno": ["a", "b", "c", "d"], "grade": [1, 2, 3, 0]})
    run = pd.DataFrame({"topic": "t", "docno": ["a", "b", "c", "d"], "score": [4.0, 3.0, 2.0, 1.0]})
    names = ["P@4", "map", "R@4", "Rprec", "NumRel", "P(rel=3)@4", "nDCG@4"]
    level1 = cwla.evaluate(qrels, {"r": run}, names).values[:, 0, 0]
    level2 = cwla.evaluate(qrels, {"r": run}, names, rel=2).values[:, 0, 0]
    by_gain = cwla.evaluate(qrels, {"r": run}, names, gain="binary:2").values[:, 0, 0]
    np.testing.assert_allclose(level1[:5], [0.75, 1.0, 1.0, 1.0, 3])
    np.testing.assert_allclose(level2[:5], [0.5, (1 / 2 + 2 / 3) / 2, 1.0, 0.5, 2])
    np.testing.assert_allclose(by_gain, level2)  # --gain binary:2 is the level 2 of the binary measures
    assert level1[5] == level2[5] == 0.25  # rel=3 is its own
    assert level1[6] == level2[6]  # nDCG is graded: the level does not touch it (trec_eval's ndcg ignores -l)


def test_counts_are_summed_over_topics_in_the_means():
    qrels = pd.DataFrame({"topic": ["t1", "t1", "t2"], "docno": ["a", "b", "c"], "grade": [1, 0, 1]})
    run = pd.DataFrame({"topic": ["t1", "t1", "t2"], "docno": ["a", "x", "c"], "score": [2.0, 1.0, 1.0]})
    ev = cwla.evaluate(qrels, {"r": run}, ["NumRel", "NumRet", "NumRelRet", "NumQ", "SetP"])
    assert ev.means().loc["r"].tolist() == [2, 3, 2, 2, pytest.approx(0.75)]
    frame = ev.to_frame()
    assert frame[(frame.topic == "all") & (frame.metric == "NumRet")]["value"].item() == 3


def test_max_docs_cuts_every_ranking_before_anything_is_measured():
    qrels = pd.DataFrame({"topic": "t", "docno": list("abcdef"), "grade": [1, 0, 1, 1, 0, 1]})
    run = pd.DataFrame({"topic": "t", "docno": list("abcdef"), "score": [6.0, 5, 4, 3, 2, 1]})
    names = ["NumRet", "map", "P@10", "Rprec", "bpref", "R@1000"]
    cut = cwla.evaluate(qrels, {"r": run}, names, max_docs=3).values[:, 0, 0]
    top3 = cwla.evaluate(qrels, {"r": run.iloc[:3]}, names).values[:, 0, 0]
    np.testing.assert_allclose(cut, top3)
    assert cut[0] == 3
    # a -M past every ranking changes nothing, however large
    np.testing.assert_array_equal(cwla.evaluate(qrels, {"r": run}, names, max_docs=10**30).values,
                                  cwla.evaluate(qrels, {"r": run}, names).values)
    huge = cwla.evaluate(qrels, {"r": run}, ["R@100000000000000000000", "AP@100000000000000000000"]).values
    np.testing.assert_array_equal(huge, cwla.evaluate(qrels, {"r": run}, ["SetR", "map"]).values)
    # not a cutoff: map with -M 3 is map_cut_3 here, but P@10 keeps its denominator 10
    assert cut[2] == pytest.approx(2 / 10)


def test_counting_measures_print_and_parse_back():
    from cwla.testing import counting_measures

    @given(counting_measures())
    def check(measure):
        assert cwla.parse_metric(str(measure)) == measure

    check()


def test_counting_measures_validate_their_fields():
    with pytest.raises(ValueError, match="'k' of Recall must be an integer >= 1 or None: 0"):
        counting.Recall(0)
    with pytest.raises(ValueError, match="'rel' of RPrec must be a finite number > 0 or None: -1"):
        counting.RPrec(rel=-1)
    with pytest.raises(TypeError, match="'judged_only' of SetP must be True, False or None: 'yes'"):
        counting.SetP(judged_only="yes")
    with pytest.raises(ValueError, match=r"'recall' of IPrec must be a finite number in \[0, 1\]: 2"):
        counting.IPrec(2)
    with pytest.raises(ValueError, match=r"'points' of IPrecMean: expected recall levels in \[0, 1\]"):
        counting.IPrecMean((0.5, 1.5))
    with pytest.raises(TypeError, match="'k' of Recall must be an integer >= 1 or None: '3'"):  # the wrong kind
        counting.Recall("3")


CLASSES = [getattr(counting, name) for name in counting.__all__
            if isinstance(getattr(counting, name), type) and issubclass(getattr(counting, name), counting.CountingMeasure)
            and getattr(counting, name) is not counting.CountingMeasure]


def _bad_values(p):
    """Values a declared parameter refuses, generated from its declaration."""
    out = [object()]
    if p.kind in ("int", "float"):
        out += ["1", True, "None"]
        if p.lo > -math.inf:
            out.append(p.lo if p.lo_open else p.lo - 1)
        if p.hi < math.inf:
            out.append(p.hi if p.hi_open else p.hi + 1)
        if p.kind == "int":
            out.append(2.5)
        else:
            out.append(math.inf)
    elif p.kind == "flag":
        out += ["yes", 1]
    return out


def test_every_counting_measure_is_declared():
    assert len(CLASSES) == 30 and all(m.declared == tuple(m.declared) for m in CLASSES)
    for m in CLASSES:
        assert [f.name for f in attrs.fields(m) if f.init] == [p.name for p in m.declared], m


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_declared_parameter_refuses_what_it_declares_bad(cls):
    required = {p.name: (1 if p.kind == "int" else 0.5) for p in cls.declared if p.default is attrs.NOTHING}
    for p in cls.declared:
        for bad in _bad_values(p):
            with pytest.raises(CwlaError, match=rf"'{p.name}' of {cls.__name__}"):
                cls(**{**required, p.name: bad})


def test_a_level_above_every_grade_is_said():
    qrels = pd.DataFrame({"topic": "t", "docno": ["a", "b"], "grade": [1, 0]})
    run = pd.DataFrame({"topic": "t", "docno": ["a", "b"], "score": [2.0, 1.0]})
    with pytest.warns(cwla.CwlaWarning, match=r"Rprec: no qrels grade is >= its relevance level 3 \(grades 0, 1\)"):
        ev = cwla.evaluate(qrels, {"r": run}, ["Rprec", "NumRet"], rel=3)
    assert ev.values[:, 0, 0].tolist() == [0.0, 2.0]


#: trec_eval 9.0's measures outside ir_measures' set, by trec_eval's names (pytrec_eval computes them all)
TREC_9_MEASURES = ["infAP", "gm_bpref", "Rprec_mult_0.20", "Rprec_mult_1.40", "utility", "11pt_avg", "binG", "G",
                   "ndcg_rel", "Rndcg", "relative_P_5", "relative_P_30", "num_nonrel_judged_ret", "ndcg",
                   "iprec_at_recall_0.30"]


@given(topics(), st.integers(1, 3))
def test_trec_evals_other_measures_equal_pytrec_eval_on_generated_topics(topic, level):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    import re as _re

    ranking, judged = topic
    qrels, run = naive.frames(ranking, judged)
    if not len(qrels) or (qrels["grade"] < 0).all():
        # pytrec_eval's trec_eval reads past its arrays when no grade is >= 0: it crashes or never returns
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cwla.CwlaWarning)
        ev = cwla.evaluate(qrels, {"r": run}, TREC_9_MEASURES, order="file", rel=level)
    q = {"t": {d: int(g) for d, g in zip(qrels["docno"], qrels["grade"])}}
    r = {}
    for t, d, s in zip(run["topic"], run["docno"], run["score"]):
        r.setdefault(t, {})[d] = float(s)
    wanted = {_re.sub(r"_[0-9.]+$", "", m) for m in TREC_9_MEASURES}
    ref = pytrec_eval.RelevanceEvaluator(q, wanted, relevance_level=level).evaluate(r).get("t")
    if ref is None:  # pytrec_eval skips a topic the run misses; cwla scores it as an empty ranking
        return
    for i, name in enumerate(TREC_9_MEASURES):
        got = ev.values[i, 0, 0]
        if name.startswith("gm_"):
            got = np.log(max(got, 1e-5))
        assert got == pytest.approx(ref[name], rel=1e-12, abs=1e-12), (name, ranking, judged, level)
