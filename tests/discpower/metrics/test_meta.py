"""discpower.meta_evaluate: the one entry point, on synthetic and real data."""

import re

import matplotlib

matplotlib.use("Agg")
import numpy as np
import pytest

import cwla
import discpower
from conftest import shared_path
from discpower import DiscpowerError

METRICS = ["nDCG@10", "RBP_ERG", "INST_PE", "Precision_max", "ERR_ERR"]


@pytest.fixture(scope="module")
def synthetic():
    return cwla.synthetic.collection(n_topics=24, n_runs=10, seed=5)


@pytest.fixture(scope="module")
def report(synthetic):
    qrels, runs = synthetic
    return discpower.meta_evaluate(qrels, runs, METRICS, n_trials=500, n_splits=100, seed=7)


def test_report_holds_every_analysis(report):
    assert report.labels == tuple(METRICS)
    assert set(report.tests) == set(METRICS)
    frame = report.to_frame()
    assert list(frame.columns) == ["metric", "dp", "significant_pairs", "pairs", "delta", "mean_tau", "outperforms",
                                   "family", "family_dp_rank", "family_tau_rank", "family_outperforms"]
    assert report.families == {"all": tuple(METRICS)}  # nDCG@10 is not a paper name: one family
    assert frame["pairs"].eq(45).all() and frame["dp"].between(0, 1).all()
    assert report.similarity.tau.shape == (5, 5)
    np.testing.assert_allclose(np.diag(report.similarity.tau), 1.0)
    assert report.consistency.taus.shape == (100, 5)
    assert "\\begin{tabular}" in report.to_latex()
    curves = report.asl_curves()
    assert len(curves) == 5 * 45 and curves.groupby("metric")["pvalue"].apply(lambda p: p.is_monotonic_increasing).all()


def test_discriminative_power_is_the_tests_share_of_significant_pairs(report):
    dp = report.discriminative_power(0.1).set_index("metric")["discriminative_power"]
    for label, test in report.tests.items():
        assert dp[label] == pytest.approx(np.mean(test.pair_pvalues() < 0.1))


def test_same_seed_same_numbers_and_evaluation_input(synthetic, report):
    qrels, runs = synthetic
    ev = cwla.evaluate(qrels, runs, METRICS)
    again = discpower.meta_evaluate(ev, n_trials=500, n_splits=100, seed=7)
    for label in METRICS:
        np.testing.assert_array_equal(again.tests[label].pvalue, report.tests[label].pvalue)
    np.testing.assert_array_equal(again.consistency.taus, report.consistency.taus)
    other = discpower.meta_evaluate(ev, n_trials=500, n_splits=100, seed=8)
    assert not np.array_equal(other.consistency.taus, report.consistency.taus)


def test_no_splits_skips_consistency_and_progress_is_reported(synthetic):
    qrels, runs = synthetic
    calls = []
    rep = discpower.meta_evaluate(qrels, runs, METRICS[:2], n_trials=100, n_splits=0,
                                  progress=lambda done, total: calls.append((done, total)))
    assert rep.consistency is None and "mean_tau" not in rep.to_frame()
    assert calls[0] == (0, 200) and (100, 200) in calls and calls[-1] == (200, 200)  # the Tukey HSD's trials
    assert all(a <= b for (a, _), (b, _) in zip(calls, calls[1:])) and {t for _, t in calls} == {200}


def test_one_metric_without_splits_is_a_report_without_families(synthetic):
    qrels, runs = synthetic
    rep = discpower.meta_evaluate(qrels, runs, ["AP"], n_trials=100, n_splits=0, seed=3)
    assert rep.families == {} and rep.consistency is None and rep.family_consistency is None
    frame = rep.to_frame()
    assert list(frame.columns) == ["metric", "dp", "significant_pairs", "pairs", "delta"]
    assert frame["metric"].tolist() == ["AP"] and frame["pairs"].tolist() == [45]
    assert "\\begin{tabular}" in rep.to_latex()
    # the same test as the metric's own: the one-metric report is no different from the others' AP column
    two = discpower.meta_evaluate(qrels, runs, ["AP", "P@5"], n_trials=100, n_splits=0, seed=3)
    np.testing.assert_array_equal(rep.tests["AP"].pvalue, two.tests["AP"].pvalue)
    with pytest.raises(DiscpowerError, match=re.escape("no test families: this meta-evaluation has one metric, and "
                                                       "a family compares at least 2")):
        rep.family_power()
    with pytest.raises(DiscpowerError, match=re.escape("no split-half analysis was run (n_splits=0)")):
        rep.table3()


def test_plots(report):
    ax = report.plot_asl()
    assert ax.get_ylim() == (0.0, 0.1) and len(ax.get_lines()) == 5 + 1  # curves + the alpha line
    ax = report.plot_asl(ylim=None)
    assert ax.get_ylim()[1] > 0.1
    assert report.plot_similarity() is not None


@pytest.mark.parametrize("kwargs, message", [
    (dict(alpha=1.5), "The 'alpha' parameter must be a number in the open interval (0, 1). Got 1.5 instead."),
    (dict(n_trials=0), "The 'n_trials' parameter must be an integer >= 1. Got 0 instead."),
    (dict(n_splits=-1), "The 'n_splits' parameter must be 0 (no split-half analysis) or an integer >= 2. Got -1"),
    (dict(n_splits=1), "The 'n_splits' parameter must be 0 (no split-half analysis) or an integer >= 2. Got 1"),
    (dict(n_splits=2.5), "The 'n_splits' parameter must be 0 (no split-half analysis) or an integer >= 2. Got 2.5 "
                         "instead."),
    (dict(n_splits=True), "The 'n_splits' parameter must be 0 (no split-half analysis) or an integer >= 2. Got True "
                          "instead."),
    (dict(n_splits=False), "The 'n_splits' parameter must be 0 (no split-half analysis) or an integer >= 2. Got "
                           "False instead."),
    (dict(metrics=["nDCG@10"], n_splits=0, families="all"), "family 'all' has 1 metric(s); a family compares at "
                                                            "least 2"),
    (dict(progress="yes"), "The 'progress' parameter must be True, False, None or a callable progress(done, total). "
                           "Got 'yes' instead."),
    (dict(metrics=["nDCG@10"]), "split-half consistency compares metrics: give at least 2 metrics"),
    (dict(metrics=None), "meta_evaluate: no metrics given"),
])
def test_bad_arguments(synthetic, kwargs, message):
    qrels, runs = synthetic
    kwargs = {"metrics": METRICS, **kwargs}
    with pytest.raises(DiscpowerError, match=re.escape(message)):
        discpower.meta_evaluate(qrels, runs, **kwargs)


def test_too_few_runs_and_mixed_inputs(synthetic):
    qrels, runs = synthetic
    few = dict(list(runs.items())[:4])
    with pytest.raises(DiscpowerError, match="needs at least 5 runs"):
        discpower.meta_evaluate(qrels, few, METRICS)
    ev = cwla.evaluate(qrels, runs, METRICS)
    with pytest.raises(DiscpowerError, match="an Evaluation holds its runs and its scoring options"):
        discpower.meta_evaluate(ev, runs)


def test_dl19_ndcg10_discriminative_power_is_stable_across_seeds():
    root = shared_path("trec-dl-2019-passage")
    runs = sorted((root / "runs").glob("*.gz"))
    ev = cwla.evaluate(root / "qrels" / "qrels.dl19-passage.txt", runs, ["nDCG@10"])
    assert len(ev.runs) == 37
    X = ev.values[0].T
    dps = [discpower.randomised_tukey_hsd(X, 10_000, seed=s).discriminative_power(0.05) for s in range(1, 6)]
    assert max(dps) - min(dps) <= 0.02, dps  # each within +-0.01 of the middle
    assert 0.2 < np.mean(dps) < 0.6


@pytest.mark.slow
def test_warmup_compiles_every_kernel_and_reports_seconds():
    assert discpower.warmup() >= 0.0


def test_meta_evaluate_takes_a_test_of_the_registry_and_keeps_the_tukey_hsd_by_default():
    """The per-metric test by name: the default is the papers' randomised Tukey HSD (its p-values as
    randomised_tukey_hsd gives them, with the analysis' seed), perm-max-t or a corrected t-test on request."""
    qrels, runs = cwla.synthetic.collection(seed=2, n_topics=20, n_runs=6)
    default = discpower.meta_evaluate(qrels, runs, ["nDCG@10", "P@10"], n_trials=300, n_splits=0, seed=3)
    assert all(t.method == "randomised Tukey HSD" for t in default.tests.values())
    perm = discpower.meta_evaluate(qrels, runs, ["nDCG@10", "P@10"], n_trials=300, n_splits=0, seed=3,
                                   test="perm-max-t")
    assert all(t.method == "studentised-permutation max-t" for t in perm.tests.values())
    X = perm.evaluation.scores("nDCG@10").T.to_numpy()
    direct = discpower.permutation_max_t(X, 300, seed=perm.tests["nDCG@10"].seed)
    np.testing.assert_array_equal(perm.tests["nDCG@10"].pvalue, direct.pvalue)
    holm = discpower.meta_evaluate(qrels, runs, ["nDCG@10", "P@10"], n_splits=0, test="t-test-holm")
    assert holm.tests["P@10"].method == "paired t-test (holm)"
    with pytest.raises(discpower.DiscpowerError, match="unknown test 'anova'"):
        discpower.meta_evaluate(qrels, runs, ["nDCG@10"], n_splits=0, test="anova")
    with pytest.raises(discpower.DiscpowerError, match="B >= 300 can"):
        discpower.meta_evaluate(qrels, runs, ["nDCG@10"], n_splits=0, test="fisher-bonferroni", n_trials=100)
