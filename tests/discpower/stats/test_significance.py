"""discpower.stats.significance: paired t-test (+ Holm / Bonferroni), Sakai's parametric (two-way ANOVA)
Tukey HSD, the two-system Fisher randomisation test and Sakai's paired bootstrap test."""

import warnings

from threads import at_thread_counts
import numpy as np
import pandas as pd
import pytest
import scipy.stats
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import naive_discpower as naive
from discpower import DiscpowerError, PairwiseTest
from discpower.stats.significance import (
    MAX_EXACT_TOPICS,
    adjust_pvalues,
    fisher_randomisation,
    paired_bootstrap,
    paired_t_test,
    parametric_tukey_hsd,
)

X51 = naive.table_5_1()
NAMES = ["A", "B", "C"]

# ----------------------------------------------------------------------------- parametric Tukey HSD


def test_parametric_tukey_table_5_1():
    res = parametric_tukey_hsd(X51, systems=NAMES)
    assert res.method == "parametric Tukey HSD" and res.systems == ("A", "B", "C")
    np.testing.assert_allclose(res.pair_pvalues(), [0.2567, 0.0957, 0.8550], atol=5e-5)
    assert np.array_equal(res.pvalue, res.pvalue.T, equal_nan=True) and np.isnan(np.diag(res.pvalue)).all()


def test_parametric_tukey_is_not_scipys_unpaired_tukey():
    """scipy.stats.tukey_hsd is the one-way (unpaired) test: .3941 / .1958 / .9001 on Table 5.1."""
    unpaired = scipy.stats.tukey_hsd(*X51.T).pvalue[np.triu_indices(3, 1)]
    np.testing.assert_allclose(unpaired, [0.3941, 0.1958, 0.9001], atol=5e-5)
    paired = parametric_tukey_hsd(X51).pair_pvalues()
    assert np.all(paired < unpaired - 0.04)  # blocking on topics removes the topic variance


def test_parametric_tukey_statistic_by_hand():
    n, m = X51.shape
    xbar = X51.mean(axis=0)
    topic = X51.mean(axis=1)
    grand = X51.mean()
    ss = sum((X51[t, j] - topic[t] - xbar[j] + grand) ** 2 for t in range(n) for j in range(m))
    v_e = ss / ((m - 1) * (n - 1))
    res = parametric_tukey_hsd(X51)
    for i, j in [(0, 1), (0, 2), (1, 2)]:
        q = abs(xbar[i] - xbar[j]) / np.sqrt(v_e / n)
        assert res.statistic[i, j] == pytest.approx(q, rel=1e-12)
        assert res.pvalue[i, j] == pytest.approx(scipy.stats.studentized_range.sf(q, m, (m - 1) * (n - 1)),
                                                 rel=1e-12)


def test_parametric_tukey_additive_scores():
    """V_E = 0: equal means give p = 1, different means p = 0 (no NaN)."""
    X = np.array([[0.0, 3.0, 0.0], [2.0, 5.0, 2.0], [4.0, 7.0, 4.0]])  # residuals exactly 0
    res = parametric_tukey_hsd(X)
    assert res.pvalue[0, 2] == 1.0 and res.pvalue[0, 1] == 0.0 and res.pvalue[1, 2] == 0.0
    assert res.statistic[0, 1] == np.inf and res.statistic[0, 2] == 0.0
    # additive up to rounding: V_E ~ 1e-32, p ~ 0 (scipy's floor), still no NaN
    res = parametric_tukey_hsd(np.array([[0.1, 0.2, 0.1], [0.3, 0.4, 0.3], [0.7, 0.8, 0.7]]))
    assert res.pvalue[0, 2] == 1.0 and res.pvalue[0, 1] < 1e-12
    assert not np.isnan(res.pair_pvalues()).any()


# ----------------------------------------------------------------------------- paired t-test


def test_t_test_table_5_1():
    res = paired_t_test(X51, systems=NAMES)
    for i, j in [(0, 1), (0, 2), (1, 2)]:
        ref = scipy.stats.ttest_rel(X51[:, i], X51[:, j])
        assert res.pvalue[i, j] == pytest.approx(ref.pvalue, rel=1e-12)
        assert res.statistic[i, j] == pytest.approx(ref.statistic, rel=1e-12)
        assert res.statistic[j, i] == -res.statistic[i, j]
    np.testing.assert_allclose(res.pair_pvalues(), [0.0478, 0.1232, 0.5218], atol=5e-5)


@given(hnp.arrays(np.float64, st.tuples(st.integers(2, 12), st.integers(2, 5)),
                  elements=st.integers(0, 10).map(lambda v: v / 10)))
@example(np.array([[0.1, 0.0, 0.0]] * 3))  # d = 0.1 exactly: t = inf, p = 0 here; scipy's one pair p = 9.6e-33
def test_t_test_equals_scipy_per_pair(X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # scipy: precision loss for near-constant d
        res = paired_t_test(X)
    m = X.shape[1]
    for i in range(m):
        for j in range(i + 1, m):
            d = X[:, i] - X[:, j]
            if np.all(d == 0):
                assert res.pvalue[i, j] == 1.0 and res.statistic[i, j] == 0.0
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # scipy: precision loss, near-constant d
                ref = scipy.stats.ttest_rel(X[:, i], X[:, j])
            if np.std(d) <= 1e-12 * np.max(np.abs(d)):
                # constant up to rounding: s_d is rounding noise, so t and p depend on the
                # summation order (vectorised over pairs here, one pair in scipy's call);
                # both must still say "a huge |t| of the same sign, p near 0"
                assert np.sign(res.statistic[i, j]) == np.sign(ref.statistic)
                assert abs(res.statistic[i, j]) > 1e6 and abs(ref.statistic) > 1e6
                assert res.pvalue[i, j] < 1e-10 and ref.pvalue < 1e-10
                continue
            np.testing.assert_allclose(res.pvalue[i, j], ref.pvalue, rtol=1e-10, atol=1e-300)
            np.testing.assert_allclose(res.statistic[i, j], ref.statistic, rtol=1e-10)
    assert not np.isnan(res.pair_pvalues()).any()


def test_t_test_zero_variance():
    X = np.array([[1.0, 1.0, 3.0], [2.0, 2.0, 4.0], [4.0, 4.0, 6.0]])  # A == B; C = A + 2 exactly
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # decided without scipy: no precision-loss warning
        res = paired_t_test(X)
    assert res.pvalue[0, 1] == 1.0 and res.statistic[0, 1] == 0.0  # scipy: NaN
    assert res.pvalue[0, 2] == 0.0 and res.statistic[0, 2] == -np.inf  # scipy: -inf, 0
    assert res.pvalue[1, 2] == 0.0


def test_adjustments_hand_example():
    p = [0.01, 0.04, 0.03, 0.5]
    np.testing.assert_allclose(adjust_pvalues(p, "bonferroni"), [0.04, 0.16, 0.12, 1.0])
    # Holm: sorted .01 .03 .04 .5 times 4 3 2 1 = .04 .09 .08 .5; running max .04 .09 .09 .5
    np.testing.assert_allclose(adjust_pvalues(p, "holm"), [0.04, 0.09, 0.09, 0.5])
    np.testing.assert_allclose(adjust_pvalues(p, "holm"), naive.holm(p))
    np.testing.assert_allclose(adjust_pvalues([0.3, 0.4, 0.9], "holm"), [0.9, 0.9, 0.9])  # capped, monotone
    np.testing.assert_allclose(adjust_pvalues([0.6, 0.6], "bonferroni"), [1.0, 1.0])
    assert np.array_equal(adjust_pvalues(p, None), p)


def test_t_test_corrections_table_5_1():
    raw = paired_t_test(X51).pair_pvalues()
    holm = paired_t_test(X51, correction="holm")
    bonf = paired_t_test(X51, correction="bonferroni")
    assert holm.method == "paired t-test (holm)" and bonf.method == "paired t-test (bonferroni)"
    np.testing.assert_allclose(holm.pair_pvalues(), naive.holm(list(raw)), rtol=1e-14)
    np.testing.assert_allclose(holm.pair_pvalues(), [3 * raw[0], 2 * raw[1], raw[2]], rtol=1e-14)
    np.testing.assert_allclose(bonf.pair_pvalues(), np.minimum(1, 3 * raw), rtol=1e-14)
    assert np.array_equal(holm.statistic, paired_t_test(X51).statistic)


@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_holm_properties(p):
    holm, bonf = adjust_pvalues(p, "holm"), adjust_pvalues(p, "bonferroni")
    np.testing.assert_allclose(holm, naive.holm(p), rtol=1e-15)
    assert np.all(np.asarray(p) <= holm + 1e-15) and np.all(holm <= bonf + 1e-15) and np.all(holm <= 1)
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(holm[order]) >= 0)


@pytest.mark.parametrize("bad", ["Holm", "bh", 1, True])
def test_bad_correction(bad):
    with pytest.raises(DiscpowerError, match=r"The 'correction' parameter must be one of None, 'holm' or "
                                             r"'bonferroni'\. Got .* instead"):
        paired_t_test(X51, correction=bad)


# ----------------------------------------------------------------------------- Fisher randomisation


@pytest.mark.parametrize("seed", range(4))
def test_exact_fisher_equals_oracle(seed):
    rng = np.random.default_rng(seed)
    x, y = rng.integers(0, 11, 12) / 10, rng.integers(0, 11, 12) / 10
    exact = naive.exact_sign_flip_pvalue(x, y)
    res = fisher_randomisation(x, y, exact=True)
    assert res.pvalue[0, 1] == float(exact)
    assert res.method == "exact Fisher randomisation" and res.null_distribution is None


def test_fisher_table_5_1():
    res = fisher_randomisation(X51[:, 0], X51[:, 1], exact=True, systems=["A", "B"])
    assert res.pvalue[0, 1] == 69120 / 1048576 and res.systems == ("A", "B")
    assert res.statistic[0, 1] == pytest.approx(abs(X51[:, 0].mean() - X51[:, 1].mean()), abs=1e-15)
    rand = fisher_randomisation(X51[:, :2], n_trials=100_000, seed=1)
    assert rand.method == "Fisher randomisation" and rand.n_resamples == 100_000 and rand.seed == 1
    assert abs(rand.pvalue[0, 1] - 69120 / 1048576) < 3 * np.sqrt(0.066 * 0.934 / 100_000)


def test_fisher_input_forms():
    frame = pd.DataFrame({"bm25": X51[:, 0], "dense": X51[:, 1]})
    a = fisher_randomisation(frame, n_trials=1000, seed=2, plus_one=False)
    b = fisher_randomisation(frame["bm25"], frame["dense"], n_trials=1000, seed=2, plus_one=False)
    c = fisher_randomisation(list(X51[:, 0]), list(X51[:, 1]), n_trials=1000, seed=2, plus_one=False)
    assert a.systems == b.systems == ("bm25", "dense") and c.systems == ("S1", "S2")
    assert a.pvalue[0, 1] == b.pvalue[0, 1] == c.pvalue[0, 1]
    plus = fisher_randomisation(frame, n_trials=1000, seed=2, plus_one=True)
    assert plus.pvalue[0, 1] == (a.pvalue[0, 1] * 1000 + 1) / 1001


@pytest.mark.parametrize("func", [fisher_randomisation, paired_bootstrap])
def test_two_system_input_errors(func):
    name = func.__name__
    with pytest.raises(DiscpowerError, match=name + r" compares exactly two systems, X has 3 columns"):
        func(X51, n_trials=10, seed=1)
    with pytest.raises(DiscpowerError, match=name + r" compares two systems: pass two score vectors"):
        func(X51[:, 0], n_trials=10, seed=1)
    with pytest.raises(DiscpowerError, match=r"x and y must score the same topics: x has 20 scores, y has 19"):
        func(X51[:, 0], X51[1:, 1], n_trials=10, seed=1)
    with pytest.raises(DiscpowerError, match=r"x and y must be 1-dimensional score vectors; y has shape"):
        func(X51[:, 0], X51[:, :2], n_trials=10, seed=1)
    with pytest.raises(DiscpowerError, match=r"\(x, y\) has a non-finite score \(nan\) at topic row 2, "
                                             r"system column 1"):
        func([0.1, 0.2, 0.3], [0.1, 0.2, np.nan], n_trials=10, seed=1)
    with pytest.raises(DiscpowerError, match=r"has 1 topic\(s\)"):
        func([0.1], [0.2], n_trials=10, seed=1)
    with pytest.raises(DiscpowerError, match=r"The 'n_trials' parameter must be an integer >= 1( or None)?\. Got 0"):
        func(X51[:, 0], X51[:, 1], n_trials=0, seed=1)


def test_exact_fisher_topic_limit():
    x = np.linspace(0, 1, MAX_EXACT_TOPICS + 1)
    with pytest.raises(DiscpowerError, match=r"exact=True enumerates 2\^n sign flips and allows n <= 24 "
                                             r"topics; got n = 25"):
        fisher_randomisation(x, x[::-1], exact=True)


def test_exact_fisher_identical_systems():
    res = fisher_randomisation(X51[:, 0], X51[:, 0], exact=True)
    assert res.pvalue[0, 1] == 1.0


# ----------------------------------------------------------------------------- paired bootstrap


def test_bootstrap_statistic_and_contract():
    res = paired_bootstrap(X51[:, 0], X51[:, 1], n_trials=10_000, seed=3, systems=["A", "B"], plus_one=False)
    assert res.method == "paired bootstrap" and res.systems == ("A", "B")
    assert res.statistic[0, 1] == pytest.approx(naive.bootstrap_z(X51[:, 0] - X51[:, 1]), rel=1e-12)
    assert res.statistic[1, 0] == -res.statistic[0, 1]
    assert res.null_distribution.shape == (10_000,) and np.all(res.null_distribution >= 0)
    # z equals the paired t statistic; the two-sided bootstrap ASL is close to the t-test's p
    assert res.statistic[0, 1] == pytest.approx(scipy.stats.ttest_rel(X51[:, 0], X51[:, 1]).statistic)
    count = np.sum(res.null_distribution >= abs(res.statistic[0, 1]) - 1e-10)
    assert res.pvalue[0, 1] == count / 10_000


def test_bootstrap_null_by_hand():
    """Replay trial b's stream (seed, b) in Python: the kernel's |z*_b| is the z of the sample it drew."""
    from discpower.stats.rng import below, next_u64, trial_state
    x, y = X51[:, 0], X51[:, 2]
    seed = 5
    res = paired_bootstrap(x, y, n_trials=300, seed=seed)
    d = x - y
    n = d.size
    w = d - d.sum() / n
    for b in [0, 1, 63, 64, 299]:
        state = np.uint64(trial_state(np.uint64(seed), b))  # numba returns Python ints: keep uint64
        idx = []
        while len(idx) < n:
            state, bits = map(np.uint64, next_u64(state))
            idx.append(int(below(bits & np.uint64(0xFFFFFFFF), n)))
            idx.append(int(below(bits >> np.uint64(32), n)))
        sample = w[idx[:n]]
        if sample.min() == sample.max():
            expected = 0.0
        else:
            expected = abs(naive.bootstrap_z(sample))
        assert res.null_distribution[b] == pytest.approx(expected, rel=1e-12, abs=1e-300)


def test_bootstrap_deterministic_and_thread_independent():
    a = paired_bootstrap(X51[:, 0], X51[:, 1], n_trials=30_000, seed=12)
    b = paired_bootstrap(X51[:, 0], X51[:, 1], n_trials=30_000, seed=12)
    assert np.array_equal(a.null_distribution, b.null_distribution) and a.pvalue[0, 1] == b.pvalue[0, 1]
    one, two = at_thread_counts(lambda: paired_bootstrap(X51[:, 0], X51[:, 1], n_trials=30_000, seed=12))
    assert np.array_equal(one.null_distribution, two.null_distribution)
    assert np.array_equal(one.null_distribution, a.null_distribution)


def test_bootstrap_close_to_t_test_on_large_normal_sample():
    rng = np.random.default_rng(2006)
    n = 200
    y = rng.normal(0.5, 0.2, n)
    x = y + rng.normal(0.03, 0.2, n)
    t_p = scipy.stats.ttest_rel(x, y).pvalue
    boot_p = paired_bootstrap(x, y, n_trials=100_000, seed=1).pvalue[0, 1]
    assert 0.005 < t_p < 0.2
    assert abs(boot_p - t_p) < 0.25 * t_p + 0.005


def test_bootstrap_big_and_no_effect():
    rng = np.random.default_rng(7)
    y = rng.random(50)
    big = paired_bootstrap(y + 0.3 + rng.normal(0, 0.05, 50), y, n_trials=10_000, seed=1)
    assert big.pvalue[0, 1] < 0.001
    none = paired_bootstrap(y + rng.normal(0, 0.05, 50), y + rng.normal(0, 0.05, 50), n_trials=10_000, seed=1)
    assert none.pvalue[0, 1] > 0.1


def test_bootstrap_degenerate_differences():
    x = np.array([0.1, 0.5, 0.3, 0.9])
    same = paired_bootstrap(x, x, n_trials=500, seed=1)
    assert same.statistic[0, 1] == 0.0 and same.pvalue[0, 1] == 1.0
    shifted = paired_bootstrap(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 2.0]), n_trials=500, seed=1,
                               plus_one=False)
    assert shifted.statistic[0, 1] == np.inf and shifted.pvalue[0, 1] == 0.0
    assert np.all(shifted.null_distribution == 0.0)  # every resample of w = 0 has sd 0: z* = 0


def test_bootstrap_plus_one():
    a = paired_bootstrap(X51[:, 0], X51[:, 1], n_trials=999, seed=4, plus_one=False)
    b = paired_bootstrap(X51[:, 0], X51[:, 1], n_trials=999, seed=4, plus_one=True)
    assert b.pvalue[0, 1] == pytest.approx((a.pvalue[0, 1] * 999 + 1) / 1000, abs=1e-15)


# ----------------------------------------------------------------------------- common contract


@pytest.mark.parametrize("test", [paired_t_test, parametric_tukey_hsd])
def test_all_pairs_tests_share_the_contract(test):
    rng = np.random.default_rng(3)
    X = rng.random((25, 6))
    res = test(X, systems=list("abcdef"))
    assert isinstance(res, PairwiseTest)
    assert res.pvalue.shape == (6, 6) and np.isnan(np.diag(res.pvalue)).all()
    assert np.array_equal(res.pvalue, res.pvalue.T, equal_nan=True)
    p = res.pair_pvalues()
    assert np.all((0 <= p) & (p <= 1))
    np.testing.assert_allclose(res.diff, X.mean(0)[:, None] - X.mean(0)[None, :], atol=1e-15)
    assert res.n_topics == 25 and res.null_distribution is None and res.seed is None
    assert len(res.to_frame()) == 15
    with pytest.raises(ValueError, match="has no null distribution"):
        res.delta(0.05)


@pytest.mark.parametrize("test", [paired_t_test, parametric_tukey_hsd])
@pytest.mark.parametrize("X, match", [
    ([[0.1], [0.2]], r"has 1 system\(s\)"),
    ([[0.1, 0.2]], r"has 1 topic\(s\)"),
    ([[0.1, np.nan], [0.2, 0.3]], r"non-finite score"),
    ([0.1, 0.2], r"must be 2-dimensional"),
    ([[0.1, 0.2], [0.3]], r"ragged"),
])
def test_all_pairs_tests_bad_input(test, X, match):
    with pytest.raises(DiscpowerError, match=match):
        test(X)


def test_print_table_5_1_values(capsys):
    """Not an assertion of new values: prints every test's p-values on Table 5.1 (run with -s)."""
    rows = {
        "randomised Tukey HSD (B=1e5)": None,
        "paired t-test": paired_t_test(X51).pair_pvalues(),
        "paired t-test (holm)": paired_t_test(X51, correction="holm").pair_pvalues(),
        "parametric Tukey HSD": parametric_tukey_hsd(X51).pair_pvalues(),
        "exact Fisher randomisation": [fisher_randomisation(X51[:, i], X51[:, j], exact=True).pvalue[0, 1]
                                       for i, j in [(0, 1), (0, 2), (1, 2)]],
        "paired bootstrap (B=1e5)": [paired_bootstrap(X51[:, i], X51[:, j], n_trials=100_000, seed=1).pvalue[0, 1]
                                     for i, j in [(0, 1), (0, 2), (1, 2)]],
    }
    from discpower import randomised_tukey_hsd
    rows["randomised Tukey HSD (B=1e5)"] = randomised_tukey_hsd(X51, 100_000, seed=1).pair_pvalues()
    for name, p in rows.items():
        print(f"{name:32s} " + " ".join(f"{v:.4f}" for v in p))
    assert all(len(p) == 3 for p in rows.values())


def test_bootstrap_counts_a_constant_nonzero_resample_as_infinitely_significant():
    # with 2 topics, resamples that repeat one topic have spread 0: their |z*| is infinite, not 0
    x = np.array([0.5, 0.9])
    y = np.array([0.2, 0.75])
    p = paired_bootstrap(x, y, n_trials=20_000, seed=1).pvalue[0, 1]
    assert p == pytest.approx(0.5, abs=0.02)
