"""One orientation for bare matrices (topics x systems), labels read for labelled ones: scores from cwla give
the right systems in every test, with or without .T, and labels that contradict a call are refused."""

import numpy as np
import pandas as pd
import pytest

import cwla
import discpower
from conftest import shared_path
from discpower.stats.matrix import labelled_axes, score_matrix
import re
from discpower import DiscpowerError


@pytest.fixture(scope="module")
def ev():
    qrels, runs = cwla.synthetic.collection(n_topics=12, n_runs=5, seed=8)
    return cwla.evaluate(qrels, runs, ["nDCG@10", "RBP_ERG"])


def bare(ev, label="nDCG@10"):
    """The same scores as a bare topics x systems matrix (the documented orientation)."""
    return ev.values[ev.labels.index(label)].T


TESTS = {
    "tukey": lambda X, **kw: discpower.randomised_tukey_hsd(X, 300, seed=2, **kw),
    "perm-max-t": lambda X, **kw: discpower.permutation_max_t(X, 300, seed=2, **kw),
    "t-test": lambda X, **kw: discpower.paired_t_test(X, **kw),
    "t-test-holm": lambda X, **kw: discpower.paired_t_test(X, correction="holm", **kw),
    "parametric-tukey": lambda X, **kw: discpower.parametric_tukey_hsd(X, **kw),
}


@pytest.mark.parametrize("name", list(TESTS))
def test_scores_from_cwla_give_the_right_systems_with_or_without_T(ev, name):
    test = TESTS[name]
    reference = test(bare(ev), systems=ev.runs)
    for scores in (ev.scores("nDCG@10"), ev.scores("nDCG@10").T):
        result = test(scores)
        assert result.systems == ev.runs and result.n_topics == len(ev.topics)
        np.testing.assert_array_equal(result.pvalue, reference.pvalue)
        np.testing.assert_array_equal(result.diff, reference.diff)


def test_the_two_system_tests_read_the_labels(ev):
    two = ev.scores("nDCG@10").iloc[:2]  # 2 runs x topics
    for func, kwargs in ((discpower.fisher_randomisation, dict(n_trials=300, seed=1)),
                         (discpower.paired_bootstrap, dict(n_trials=300, seed=1))):
        reference = func(bare(ev)[:, :2], systems=ev.runs[:2], **kwargs)
        for scores in (two, two.T):
            result = func(scores, **kwargs)
            assert result.systems == ev.runs[:2]
            np.testing.assert_array_equal(result.pvalue, reference.pvalue)


def test_calibrate_and_compare_scores_read_the_labels(ev):
    reference = discpower.calibrate(bare(ev), "t-test", n_sim=5, deltas=[0.1], seed=3, systems=ev.runs)
    for scores in (ev.scores("nDCG@10"), ev.scores("nDCG@10").T):
        result = discpower.calibrate(scores, "t-test", n_sim=5, deltas=[0.1], seed=3)
        pd.testing.assert_frame_equal(result.frame, reference.frame)
        table = discpower.compare_scores({"nDCG@10": scores}, n_trials=300, seed=1)
        assert table.systems == ev.runs and table.topics == ev.topics
    np.testing.assert_array_equal(discpower.compare_systems(ev, n_trials=300, seed=1).pvalue[0],
                                  discpower.compare_scores({"x": bare(ev, "nDCG@10")}, systems=ev.runs, n_trials=300,
                                                           seed=1).pvalue[0])


def test_dl19_scores_without_T_test_the_37_runs():
    root = shared_path("trec-dl-2019-passage")
    ev = cwla.evaluate(root / "qrels" / "qrels.dl19-passage.txt", sorted((root / "runs").glob("*.gz")), ["nDCG@10"])
    result = discpower.randomised_tukey_hsd(ev.scores("nDCG@10"), 200, seed=1)
    assert len(result.systems) == len(ev.runs) == 37 and result.n_topics == len(ev.topics) == 43
    assert result.systems == ev.runs


def test_an_unnamed_frame_is_topics_by_systems(ev):
    frame = pd.DataFrame(bare(ev), columns=list(ev.runs))
    X, systems = score_matrix(frame)
    assert systems == ev.runs and X.shape == (len(ev.topics), len(ev.runs))


@pytest.mark.parametrize("index, columns, message", [
    ("metric", "run", "an axis of metrics"),
    ("run", "metric", "an axis of metrics"),
    ("topic", "qid", "both axes hold topics"),
    ("run", "system", "both axes hold systems"),
])
def test_labels_that_contradict_a_test_are_refused(index, columns, message):
    frame = pd.DataFrame(np.random.default_rng(0).random((4, 3)), index=pd.Index(list("abcd"), name=index),
                         columns=pd.Index(list("xyz"), name=columns))
    with pytest.raises(discpower.DiscpowerError, match=message):
        discpower.randomised_tukey_hsd(frame, 100, seed=1)


def test_names_beside_labels_must_be_the_labels(ev):
    scores = ev.scores("nDCG@10")
    discpower.paired_t_test(scores, systems=ev.runs)  # the same names: fine
    with pytest.raises(discpower.DiscpowerError, match="systems= names others"):
        discpower.paired_t_test(scores, systems=[f"x{k}" for k in range(len(ev.runs))])
    with pytest.raises(discpower.DiscpowerError, match="topics= names others"):
        discpower.compare_scores({"m": scores}, topics=[f"t{k}" for k in range(len(ev.topics))], n_trials=100)


def test_means_of_an_evaluation_are_no_score_matrix(ev):
    with pytest.raises(discpower.DiscpowerError, match="an axis of metrics"):
        discpower.paired_t_test(ev.means())
    assert labelled_axes(ev.scores("map" if "map" in ev.labels else "RBP_ERG")).index.name == "topic"


HUGE = np.array([[1e308, 0.1, 0.2], [1e308, 0.3, 0.1], [0.5, 0.2, 0.4]])


LARGE = np.array([[1e200, 0.1, 0.2], [3e200, 0.3, 0.1], [0.5, 0.2, 0.4]])


@pytest.mark.parametrize("test, call", [
    ("randomised Tukey HSD", lambda X: discpower.randomised_tukey_hsd(X, 100, seed=1)),
    ("paired t-test", discpower.paired_t_test),
    ("parametric Tukey HSD", discpower.parametric_tukey_hsd),
    ("Fisher randomisation", lambda X: discpower.fisher_randomisation(X[:, :2], n_trials=100, seed=1)),
    ("Fisher randomisation", lambda X: discpower.fisher_randomisation(X[:, :2], exact=True)),
    ("paired bootstrap", lambda X: discpower.paired_bootstrap(X[:, :2], n_trials=100, seed=1)),
])
def test_overflowing_sums_are_refused(test, call):
    with pytest.raises(DiscpowerError, match=re.escape(
            f"{test}: the scores are too large: their sums over the topics can overflow to infinity (the largest "
            f"|score| is 1e+308), and p-values computed from infinity mean nothing; rescale the scores (e.g. "
            f"divide them all by 1e+308)")):
        call(HUGE)


@pytest.mark.parametrize("test, call", [
    ("paired t-test", discpower.paired_t_test),
    ("parametric Tukey HSD", discpower.parametric_tukey_hsd),
    ("paired bootstrap", lambda X: discpower.paired_bootstrap(X[:, :2], n_trials=100, seed=1)),
])
def test_overflowing_sums_of_squares_are_refused(test, call):
    with pytest.raises(DiscpowerError, match=re.escape(
            f"{test}: the scores are too large: their sums of squares over the topics can overflow to infinity "
            f"(the largest |score| is 3e+200)")):
        call(LARGE)


def test_large_scores_without_squares_still_test():
    res = discpower.randomised_tukey_hsd(LARGE, 200, seed=1)
    assert np.isfinite(res.null_distribution).all() and np.isfinite(res.pvalue[0, 1])
    assert np.isfinite(discpower.fisher_randomisation(LARGE[:, :2], exact=True).pvalue[0, 1])
