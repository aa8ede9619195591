"""The null populations built from a real matrix (discpower.stats.nulls): what each one keeps, and equal means."""

import numpy as np
import pytest
import scipy.special
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import discpower
from discpower import DiscpowerError
from discpower.stats.nulls import NULLS, copula_factor, null_model


@pytest.fixture(scope="module")
def X():
    """Three runs with unequal means, spreads and a correlation, ties and a floor at 0, and a constant run."""
    rng = np.random.default_rng(7)
    n = 40
    topic = rng.random(n)
    cols = [np.clip(topic + rng.normal(0, s, n) + m, 0, None).round(2) for s, m in ((0.05, 0.0), (0.3, 0.2),
                                                                                    (0.1, -0.1))]
    return np.column_stack(cols + [np.full(n, 0.4)])


def test_every_null_draws_the_shape_of_x_with_equal_expected_means(X):
    grand = X.mean()
    for name in NULLS:
        draw = null_model(name, X)
        Ys = np.stack([draw(np.random.default_rng(s)) for s in range(3000)])
        assert Ys.shape == (3000,) + X.shape
        means = Ys.mean(axis=(0, 1))
        assert np.abs(means - grand).max() < 0.01, name  # the real means differ by up to 0.3


def test_the_bootstrap_null_resamples_whole_rows_of_the_centred_matrix(X):
    centred = X - X.mean(axis=0) + X.mean()
    Y = null_model("bootstrap", X)(np.random.default_rng(1))
    rows = {tuple(r) for r in centred}
    assert all(tuple(r) in rows for r in Y)
    assert len({tuple(r) for r in Y}) < len(X)  # with replacement: 40 draws of 40 repeat some


def test_the_copula_keeps_each_runs_marginal_and_the_rank_correlation(X):
    draw = null_model("copula", X)
    shifted = X - X.mean(axis=0) + X.mean()
    Y = draw(np.random.default_rng(2))
    for j in range(X.shape[1]):  # every value is one of the run's own scores, shifted
        assert set(Y[:, j]) <= set(shifted[:, j])
    assert np.all(Y[:, 3] == shifted[0, 3])  # a constant run stays constant
    # the expectation of a draw is each run's mean exactly: the quantile index is uniform on 0..n-1
    n = X.shape[0]
    u = (np.arange(n) + 0.5) / n
    k = np.minimum((u * n).astype(int), n - 1)
    np.testing.assert_allclose(np.sort(shifted, axis=0)[k].mean(axis=0), X.mean(), atol=1e-12)
    # the normal-score rank correlation is kept (over many draws; the ties blur it a little)
    Ys = np.concatenate([draw(np.random.default_rng(s)) for s in range(300)])

    def normal_scores(A):
        return np.corrcoef(scipy.special.ndtri((scipy.stats.rankdata(A, axis=0) - 0.5) / len(A)), rowvar=False)

    np.testing.assert_allclose(normal_scores(Ys[:, :3]), normal_scores(X[:, :3]), atol=0.03)


@settings(max_examples=40)
@given(arrays(np.float64, st.tuples(st.integers(3, 12), st.integers(2, 6)),
              elements=st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0])))
def test_the_copula_factor_is_a_correlation_factor(X):
    L = copula_factor(X)
    R = L @ L.T
    assert np.all(np.isfinite(L))
    np.testing.assert_allclose(np.diag(R), 1.0, atol=1e-12)
    assert np.all(np.linalg.eigvalsh(R) > -1e-9)
    Y = null_model("copula", X)(np.random.default_rng(0))
    assert Y.shape == X.shape and np.all(np.isfinite(Y))


def test_the_copula_of_normal_scores_is_their_correlation():
    """With no ties, the copula's R is the Pearson correlation of the normal scores Phi^-1((rank - 1/2) / n)."""
    X = np.random.default_rng(3).random((30, 4))
    Z = scipy.special.ndtri((scipy.stats.rankdata(X, axis=0) - 0.5) / 30)
    L = copula_factor(X)
    np.testing.assert_allclose(L @ L.T, np.corrcoef(Z, rowvar=False), atol=1e-12)


def test_calibrate_takes_the_nulls_by_name(X):
    for null in NULLS:
        cal = discpower.calibrate(X, "t-test", n_sim=20, deltas=[], null=null, seed=3, progress=False)
        assert cal.null == null and 0.0 <= cal.type_i().fwer.iloc[0] <= 1.0
    a = discpower.calibrate(X, "tukey", n_sim=20, n_trials=50, null="copula", seed=3, deltas=[0.1])
    b = discpower.calibrate(X, "tukey", n_sim=20, n_trials=50, null="copula", seed=3, deltas=[0.1])
    assert a.frame.equals(b.frame)
    with pytest.raises(DiscpowerError, match="'null' parameter must be one of 'copula', 'common-marginal', "
                                             "'exchangeable', 'bootstrap'"):
        discpower.calibrate(X, "tukey", null="gaussian")


def test_calibrate_judges_under_the_copula_null_by_default(X):
    default = discpower.calibrate(X, "t-test", n_sim=10, deltas=[], seed=3, progress=False)
    copula = discpower.calibrate(X, "t-test", n_sim=10, deltas=[], seed=3, null="copula", progress=False)
    assert default.null == "copula" and default.frame.equals(copula.frame)


def test_the_common_marginal_null_draws_every_run_through_the_pooled_scores(X):
    """Urbano, Lima & Hanjalic's design: one marginal (the n m pooled scores) for every run, the copula's
    dependence: every value is one of X's scores, every run has the pooled distribution (so equal means and
    variances), and the normal-score rank correlation of the runs is kept."""
    draw = null_model("common-marginal", X)
    pooled = np.sort(X, axis=None)
    Ys = np.concatenate([draw(np.random.default_rng(s)) for s in range(400)])
    assert set(np.unique(Ys)) <= set(pooled)
    # the quantile index is uniform on 0..nm-1: each run's expected score is the pooled mean exactly
    N = pooled.size
    k = np.minimum((((np.arange(N) + 0.5) / N) * N).astype(int), N - 1)
    assert pooled[k].mean() == pytest.approx(X.mean(), abs=1e-12)
    np.testing.assert_allclose(Ys.mean(axis=0), X.mean(), atol=0.01)
    np.testing.assert_allclose(Ys.std(axis=0), pooled.std(), rtol=0.03)  # one spread for every run
    assert np.ptp(X.mean(axis=0)) > 0.2  # unlike X's runs, whose means differ
    # the constant run of X is drawn through the pooled marginal too (its dependence: none)
    assert Ys[:, 3].std() == pytest.approx(pooled.std(), rel=0.03)

    def normal_scores(A):
        return np.corrcoef(scipy.special.ndtri((scipy.stats.rankdata(A, axis=0) - 0.5) / len(A)), rowvar=False)

    np.testing.assert_allclose(normal_scores(Ys[:, :3]), normal_scores(X[:, :3]), atol=0.04)
