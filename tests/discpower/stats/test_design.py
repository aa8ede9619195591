"""Topic set size design: topic_set_size is the smallest n by statsmodels' power functions (to the integer,
on a grid), the CI design's expected width is the simulated one, and residual_variance is the two-way
ANOVA's residual mean square, pooled."""

import itertools
import math

import numpy as np
import pytest
import scipy.stats

import discpower
from discpower import DiscpowerError
from discpower.stats.design import ci_expected_width, design_power


def statsmodels_power():
    """statsmodels' power module, or skip (only the two tests that compare with it need it)."""
    return pytest.importorskip("statsmodels.stats.power")

ALPHAS, BETAS = (0.01, 0.05, 0.1), (0.1, 0.2, 0.3)
DIFFS, VARIANCES = (0.02, 0.05, 0.1), (0.005, 0.02, 0.05)


@pytest.mark.parametrize("alpha, beta", list(itertools.product(ALPHAS, BETAS)))
def test_paired_t_is_the_smallest_n_by_statsmodels(alpha, beta):
    sm = statsmodels_power().TTestPower()
    for d, v in itertools.product(DIFFS, VARIANCES):
        n = discpower.topic_set_size("paired_t", min_diff=d, variance=v, alpha=alpha, beta=beta)
        at = sm.power(effect_size=d / math.sqrt(v), nobs=n, alpha=alpha, alternative="two-sided")
        assert at >= 1 - beta, (d, v, n)
        if n > 2:
            below = sm.power(effect_size=d / math.sqrt(v), nobs=n - 1, alpha=alpha, alternative="two-sided")
            assert below < 1 - beta, (d, v, n)


@pytest.mark.parametrize("alpha, beta", list(itertools.product(ALPHAS, BETAS)))
def test_anova_is_the_smallest_n_by_statsmodels(alpha, beta):
    sm = statsmodels_power().FTestAnovaPower()
    for d, v, m in itertools.product(DIFFS, VARIANCES, (2, 5, 20, 60)):
        n = discpower.topic_set_size("anova", min_diff=d, variance=v, alpha=alpha, beta=beta, n_systems=m)
        effect = math.sqrt(d**2 / (2 * m * v))
        assert sm.power(effect_size=effect, nobs=n * m, alpha=alpha, k_groups=m) >= 1 - beta, (d, v, m, n)
        if n > 2:
            assert sm.power(effect_size=effect, nobs=(n - 1) * m, alpha=alpha, k_groups=m) < 1 - beta, (d, v, m, n)


def test_power_is_the_noncentral_t_and_f():
    p = design_power("paired_t", 30, min_diff=0.05, variance=0.02)
    nc, crit = 0.05 * math.sqrt(30 / 0.02), scipy.stats.t.isf(0.025, 29)
    assert p == pytest.approx(scipy.stats.nct.sf(crit, 29, nc) + scipy.stats.nct.cdf(-crit, 29, nc), abs=1e-14)
    assert p == pytest.approx(scipy.stats.nct.sf(crit, 29, nc) + scipy.stats.nct.sf(crit, 29, -nc), abs=1e-14)
    f = design_power("anova", 30, min_diff=0.1, variance=0.02, n_systems=5)
    crit = scipy.stats.f.isf(0.05, 4, 5 * 29)
    assert f == pytest.approx(scipy.stats.ncf.sf(crit, 4, 145, 30 * 0.01 / 0.04), abs=1e-14)


def test_ci_design_is_the_smallest_n_whose_expected_width_fits():
    for v, w, alpha in itertools.product(VARIANCES, (0.05, 0.1, 0.2), ALPHAS):
        n = discpower.topic_set_size("ci", variance=v, ci_width=w, alpha=alpha)
        assert ci_expected_width(n, variance=v, alpha=alpha) <= w
        if n > 2:
            assert ci_expected_width(n - 1, variance=v, alpha=alpha) > w


def test_the_expected_width_is_the_simulated_mean_width():
    """E[2 t s / sqrt(n)] over 200,000 normal samples of n = 8 equals the c4 formula (within 4 SE)."""
    rng = np.random.default_rng(5)
    n, v = 8, 0.03
    s = rng.normal(0, math.sqrt(v), size=(200_000, n)).std(axis=1, ddof=1)
    widths = 2 * scipy.stats.t.isf(0.025, n - 1) * s / math.sqrt(n)
    assert abs(widths.mean() - ci_expected_width(n, variance=v)) < 4 * widths.std() / math.sqrt(len(widths))


def test_more_topics_for_smaller_differences_and_more_systems():
    sizes = [discpower.topic_set_size("paired_t", min_diff=d, variance=0.02) for d in (0.2, 0.1, 0.05, 0.02)]
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1]
    by_m = [discpower.topic_set_size("anova", min_diff=0.1, variance=0.02, n_systems=m) for m in (2, 10, 50)]
    assert by_m == sorted(by_m) and by_m[0] < by_m[-1]


def test_residual_variance_is_the_anova_residual_mean_square_pooled():
    rng = np.random.default_rng(2)
    A, B = rng.random((10, 4)), rng.random((7, 6))

    def ss_e(X):
        """SS_E from the ANOVA identity SS_total = SS_topics + SS_systems + SS_E."""
        g = X.mean()
        total = ((X - g) ** 2).sum()
        topics = X.shape[1] * ((X.mean(axis=1) - g) ** 2).sum()
        systems = X.shape[0] * ((X.mean(axis=0) - g) ** 2).sum()
        return total - topics - systems

    assert discpower.residual_variance(A) == pytest.approx(ss_e(A) / (9 * 3), rel=1e-12)
    assert discpower.residual_variance(A, B) == pytest.approx((ss_e(A) + ss_e(B)) / (27 + 30), rel=1e-12)
    # for two systems, 2 V_E is the variance of the per-topic differences
    two = A[:, :2]
    assert 2 * discpower.residual_variance(two) == pytest.approx(np.var(two[:, 0] - two[:, 1], ddof=1), rel=1e-12)


@pytest.mark.parametrize("kwargs, message", [
    (dict(design="z"), "'design' parameter must be 'paired_t', 'anova' or 'ci'"),
    (dict(design="paired_t", variance=0.02), "needs min_diff"),
    (dict(design="paired_t", min_diff=-0.1, variance=0.02), "'min_diff' parameter must be a finite number > 0"),
    (dict(design="paired_t", min_diff=0.1, variance=0.0), "'variance' parameter must be a finite number > 0"),
    (dict(design="paired_t", min_diff=0.1, variance=float("nan")), "'variance' parameter"),
    (dict(design="paired_t", min_diff=0.1, variance=0.02, beta=1.0), "'beta' parameter"),
    (dict(design="paired_t", min_diff=0.1, variance=0.02, alpha=0), "'alpha' parameter"),
    (dict(design="paired_t", min_diff=0.1, variance=0.02, n_systems=5), "n_systems is for design='anova'"),
    (dict(design="paired_t", min_diff=0.1, variance=0.02, ci_width=0.1), "takes min_diff, not ci_width"),
    (dict(design="anova", min_diff=0.1, variance=0.02), "needs n_systems"),
    (dict(design="anova", min_diff=0.1, variance=0.02, n_systems=1), "'n_systems' parameter must be an integer >= 2"),
    (dict(design="ci", variance=0.02), "needs ci_width"),
    (dict(design="ci", variance=0.02, ci_width=0.1, min_diff=0.1), "takes ci_width, not min_diff"),
    (dict(design="paired_t", min_diff=1e-9, variance=10.0), "needs more than 1,000,000,000 topics"),
])
def test_bad_arguments_are_refused(kwargs, message):
    design = kwargs.pop("design")
    kwargs.setdefault("variance", 0.02)
    with pytest.raises(DiscpowerError, match=message):
        discpower.topic_set_size(design, **kwargs)


def test_residual_variance_refuses_what_it_cannot_use():
    with pytest.raises(DiscpowerError, match="at least one score matrix"):
        discpower.residual_variance()
    with pytest.raises(DiscpowerError, match="at least 2"):
        discpower.residual_variance(np.ones((5, 1)))


def _population(n=2000, m=4, seed=3):
    """Normal scores around 0.5, each system with its own spread (a known population)."""
    rng = np.random.default_rng(seed)
    topic = rng.normal(0.5, 0.15, size=(n, 1))
    return topic + rng.normal(0.0, 1.0, size=(n, m)) * np.array([0.08, 0.1, 0.12, 0.09])[:m]


def test_simulated_t_test_power_meets_the_design_at_its_topic_count():
    X = _population(m=2)
    centred = X - X.mean(axis=0)
    variance = float(np.var(centred[:, 0] - centred[:, 1], ddof=0))
    n = discpower.topic_set_size("paired_t", min_diff=0.05, variance=variance, alpha=0.05, beta=0.2)
    frame = discpower.simulated_power(X, [n], min_diff=0.05, test="t-test", n_sim=600, seed=5, progress=False)
    power, se = float(frame["power"].iloc[0]), float(frame["power_se"].iloc[0])
    assert abs(power - 0.8) < 3.5 * se + 0.01, (n, power, se)


def test_simulated_power_is_seeded_and_grows_with_the_topics():
    X = _population()
    args = dict(min_diff=0.08, test="tukey", n_sim=40, n_trials=200, progress=False)
    first = discpower.simulated_power(X, [5, 80], seed=11, **args)
    again = discpower.simulated_power(X, [5, 80], seed=11, **args)
    assert first.equals(again)
    assert list(first["n_topics"]) == [5, 80]
    assert first["power"].iloc[0] < first["power"].iloc[1]
    assert first.attrs["test"] == "tukey" and first.attrs["n_sim"] == 40
    assert first.attrs["pair"][0] != first.attrs["pair"][1]
    # a size's row is its own stream: it does not depend on the other sizes asked for
    alone = discpower.simulated_power(X, [80], seed=11, **args)
    assert alone["power"].iloc[0] == first["power"].iloc[1]


def test_simulated_power_gives_the_pair_its_difference():
    X = _population()
    frame = discpower.simulated_power(X, [60], min_diff=0.3, pair=(1, 2), test="t-test", n_sim=20, seed=0,
                                      progress=False)
    assert frame.attrs["pair"] == ("S2", "S3") and frame["power"].iloc[0] == 1.0


@pytest.mark.parametrize("kwargs, message", [
    (dict(sizes=[]), "at least one size"),
    (dict(sizes=[1]), "sizes"),
    (dict(sizes=[10], min_diff=-0.1), "min_diff"),
    (dict(sizes=[10], pair=(1, 1)), "two different systems"),
    (dict(sizes=[10], pair=(0, 9)), "pair"),
    (dict(sizes=[10], test="no-such-test"), "test"),
    (dict(sizes=[10], n_sim=1), "n_sim"),
])
def test_simulated_power_refuses_bad_arguments(kwargs, message):
    kwargs = {"min_diff": 0.05, "n_sim": 4, "progress": False, **kwargs}
    with pytest.raises(DiscpowerError, match=message):
        discpower.simulated_power(_population(), **kwargs)


def test_the_default_pair_is_the_pair_of_median_difference_variance():
    from discpower.stats.design import typical_pair

    X = _population(n=300, m=4)
    j, k = typical_pair(X)
    variances = {(a, b): np.var(X[:, a] - X[:, b], ddof=1) for a in range(4) for b in range(a + 1, 4)}
    ordered = sorted(variances.values())
    assert j < k and variances[(j, k)] == ordered[(len(ordered) - 1) // 2]
    frame = discpower.simulated_power(X, [10], min_diff=0.05, test="t-test", n_sim=4, seed=0, progress=False)
    assert frame.attrs["pair"] == (f"S{j + 1}", f"S{k + 1}")


def brute_force_paired_t(min_diff, variance, alpha, beta, limit=20_000):
    """The smallest n >= 2 with exact noncentral-t power >= 1 - beta, by scanning every n: the lower tail
    P(T' <= -t_c) as P(-T' >= t_c), -T' ~ t'(n - 1, -nc), finite where nct.cdf(-t_c, df, nc) is NaN."""
    n = np.arange(2, limit)
    df, nc = n - 1, min_diff * np.sqrt(n / variance)
    crit = scipy.stats.t.isf(alpha / 2, df)
    power = scipy.stats.nct.sf(crit, df, nc) + scipy.stats.nct.sf(crit, df, -nc)
    assert np.isfinite(power).all()
    return int(n[np.argmax(power >= 1 - beta)])


def test_paired_t_at_small_alpha_is_the_brute_force_smallest_n():
    """Sakai's example regime where scipy's nct.cdf lower tail is NaN: alpha .001, D .02, sigma_d^2 .02,
    beta .1 needs 1,051 topics (a NaN power had skipped valid n and given 2,553)."""
    assert brute_force_paired_t(0.02, 0.02, 0.001, 0.1) == 1051
    assert discpower.topic_set_size("paired_t", min_diff=0.02, variance=0.02, alpha=0.001, beta=0.1) == 1051


@pytest.mark.slow
@pytest.mark.parametrize("alpha", (0.001, 0.01, 0.05))
def test_paired_t_is_the_brute_force_smallest_n_up_to_six_sigma(alpha):
    variance = 0.02
    for effect, beta in itertools.product((0.1, 0.2, 0.5, 1.0, 2.0, 4.0, 6.0), (0.05, 0.1, 0.2, 0.5)):
        d = effect * math.sqrt(variance)
        expected = brute_force_paired_t(d, variance, alpha, beta, limit=2_000 if effect >= 0.2 else 6_000)
        assert discpower.topic_set_size("paired_t", min_diff=d, variance=variance, alpha=alpha,
                                        beta=beta) == expected, (alpha, effect, beta)


def test_a_power_that_is_not_finite_is_refused(monkeypatch):
    from discpower.stats import design

    class NaNStats:
        t = scipy.stats.t

        class nct:
            @staticmethod
            def sf(*args):
                return float("nan")

    monkeypatch.setattr(design, "_stats", lambda: NaNStats)
    with pytest.raises(DiscpowerError, match="not finite"):
        design_power("paired_t", 30, min_diff=0.05, variance=0.02)


def test_residual_variance_two_way_and_one_way_by_their_formulas():
    """kind='two-way': the two-way ANOVA residual (topic and system effects removed), pooled by
    sum (n-1)(m-1); kind='one-way': Sakai 2016's within-system variance (each system's variance over the
    topics), pooled by sum m(n-1). A topic effect raises the one-way variance only."""
    rng = np.random.default_rng(8)
    A = rng.random((12, 4)) * 0.1 + rng.random((12, 1))  # a strong topic effect
    B = rng.random((9, 3))

    def one_way(X):
        return sum(((X[:, j] - X[:, j].mean()) ** 2).sum() for j in range(X.shape[1])), X.shape[1] * (X.shape[0] - 1)

    def two_way(X):
        n, m = X.shape
        r = X - X.mean(axis=1, keepdims=True) - X.mean(axis=0) + X.mean()
        return (r ** 2).sum(), (n - 1) * (m - 1)

    for kind, f in (("one-way", one_way), ("two-way", two_way)):
        (sa, da), (sb, db) = f(A), f(B)
        assert discpower.residual_variance(A, B, kind=kind) == pytest.approx((sa + sb) / (da + db), rel=1e-12)
    # one way: the pooled per-system sample variance (ddof=1) when the topic counts are equal
    assert discpower.residual_variance(A, kind="one-way") == pytest.approx(np.var(A, axis=0, ddof=1).mean())
    assert discpower.residual_variance(A) == discpower.residual_variance(A, kind="two-way")
    assert discpower.residual_variance(A, kind="one-way") > 5 * discpower.residual_variance(A)
    with pytest.raises(DiscpowerError, match="'kind' parameter"):
        discpower.residual_variance(A, kind="anova")
