"""cwla.testing: the strategies generate what they promise and the invariant checks hold on
generated metrics, and fail when an invariant is broken."""

import warnings

import attrs
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

import cwla
from cwla.testing import (
    check_bounds,
    check_invariants,
    check_order_invariance,
    check_swap_monotone,
    check_unjudged_as_nonrelevant,
    collections,
    metrics,
    rankings,
)


@pytest.mark.slow
@settings(max_examples=40)
@given(collections(), metrics())
def test_invariants_hold_for_generated_metrics(data, metric):
    qrels, runs = data
    check_invariants(metric, qrels, runs)


@pytest.mark.slow
@settings(max_examples=30)
@given(collections(), st.sampled_from(cwla.chen_sakai_metrics(cutoff=10, depth=10, stop=True)))
def test_invariants_hold_for_the_chen_sakai_grid(data, metric):
    qrels, runs = data
    check_bounds(metric, qrels, runs)
    check_order_invariance(metric, qrels, runs)
    check_unjudged_as_nonrelevant(metric, qrels, runs)


def test_swap_check_finds_a_counterexample():
    # DCG@3 with the fin aggregation: L(3) = 1/log2(4) > L(2), so moving the relevant document
    # from rank 3 to rank 2 lowers the score -- the check must say so
    qrels = pd.DataFrame({"topic": "t", "docno": ["a", "b", "c"], "grade": [0.0, 0.0, 1.0]})
    run = pd.DataFrame({"topic": "t", "docno": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    with pytest.raises(AssertionError, match="swapping ranks 2 and 3 upward lowered the score"):
        check_swap_monotone(cwla.parse_metric("DCG(k=3)+fin"), qrels, {"r": run})
    assert check_swap_monotone(cwla.parse_metric("DCG(k=3)+ERG"), qrels, {"r": run})


def test_bounds_check_fails_on_an_out_of_range_value(monkeypatch):
    import cwla.testing.invariants as inv

    qrels = pd.DataFrame({"topic": "t", "docno": ["a"], "grade": [1.0]})
    run = pd.DataFrame({"topic": "t", "docno": ["a"], "score": [1.0]})
    real = inv._evaluate

    def inflated(*args, **kwargs):
        ev = real(*args, **kwargs)
        return attrs.evolve(ev, values=ev.values + 2.0)

    monkeypatch.setattr(inv, "_evaluate", inflated)
    with pytest.raises(AssertionError, match="value above its bound"):
        check_bounds(cwla.parse_metric("RBP_ERG"), qrels, {"r": run})


@settings(max_examples=50)
@given(collections())
def test_collections_cover_the_hard_cases_over_many_draws(data):
    qrels, runs = data
    assert set(qrels.columns) == {"topic", "docno", "grade"}
    for run in runs.values():
        assert set(run.columns) == {"topic", "docno", "score"}
        assert not run.duplicated(["topic", "docno"]).any()


@pytest.mark.slow
def test_collections_do_generate_ties_unjudged_missing_topics_and_no_relevant():
    seen = {"tie": False, "unjudged": False, "missing": False, "no_relevant": False, "graded": False}

    @settings(max_examples=200, database=None)
    @given(collections())
    def look(data):
        qrels, runs = data
        judged = set(zip(qrels.topic, qrels.docno))
        for run in runs.values():
            seen["tie"] |= run.duplicated(["topic", "score"]).any()
            seen["unjudged"] |= any((t, d) not in judged for t, d in zip(run.topic, run.docno))
            seen["missing"] |= bool(set(qrels.topic) - set(run.topic))
        seen["no_relevant"] |= (qrels.groupby("topic")["grade"].max() == 0).any()
        seen["graded"] |= qrels.grade.nunique() > 2

    look()
    assert all(seen.values()), seen


@given(rankings())
def test_rankings_are_consistent(data):
    ranking, judged = data
    assert all(g is None or g in judged for g in ranking)


def test_strategies_reject_bad_arguments():
    @given(collections(max_topics=0))
    def draw(data):
        pass

    with pytest.raises(InvalidArgument, match="max_topics must be an integer >= 1"):
        draw()


@settings(max_examples=40)
@given(collections())
def test_a_users_own_property_over_the_collections_meets_no_warning(data):
    qrels, runs = data
    assert (qrels["grade"] >= 1).any()  # some document is relevant in every collection
    with warnings.catch_warnings():
        warnings.simplefilter("error", cwla.CwlaWarning)  # what a user's property sees: nothing to say
        cwla.evaluate(qrels, runs, ["INST_PE", "nDCG@10", "RBP_ERG"])
