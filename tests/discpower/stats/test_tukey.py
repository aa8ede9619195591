"""discpower.randomised_tukey_hsd (and the two-system randomisation test that shares its kernel)
against Sakai's Table 5.1, exact-enumeration oracles, and its contract: determinism across
threads, the tie tolerance, plus-one p-values, Delta_alpha, input errors and the result's views."""

from fractions import Fraction

from threads import at_thread_counts
import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import naive_discpower as naive
from discpower import DiscpowerError, PairwiseTest, randomised_tukey_hsd
from discpower.stats.significance import fisher_randomisation, paired_bootstrap
from discpower.stats.tukey import TIE_TOLERANCE, exceedance_pvalues, relabelled_sums

X51 = naive.table_5_1()
PAIRS = [(0, 1), (0, 2), (1, 2)]


def within_3se(p, exact, B):
    se = np.sqrt(float(exact) * (1 - float(exact)) / B)
    return abs(p - float(exact)) <= 3 * se


@pytest.fixture(scope="module")
def sakai_1e6():
    return randomised_tukey_hsd(X51, n_trials=10**6, seed=20180101, systems=["A", "B", "C"])


# ----------------------------------------------------------------------------- Table 5.1


def test_table_5_1_b_1e6(sakai_1e6):
    p = sakai_1e6.pvalue
    assert abs(p[0, 1] - 0.3036) <= 0.0015
    assert abs(p[0, 2] - 0.1069) <= 0.0015
    assert abs(p[1, 2] - 0.8918) <= 0.0015
    assert np.array_equal(p, p.T, equal_nan=True)
    assert np.isnan(np.diag(p)).all()
    assert sakai_1e6.n_resamples == 10**6 and sakai_1e6.null_distribution.shape == (10**6,)
    assert sakai_1e6.systems == ("A", "B", "C") and sakai_1e6.n_topics == 20
    np.testing.assert_allclose(sakai_1e6.diff[0], [0.0, X51[:, 0].mean() - X51[:, 1].mean(),
                                                   X51[:, 0].mean() - X51[:, 2].mean()], atol=1e-15)


def test_table_5_1_other_seed_agrees():
    p = randomised_tukey_hsd(X51, n_trials=10**6, seed=7).pair_pvalues()
    np.testing.assert_allclose(p, [0.3036, 0.1069, 0.8918], atol=0.0015)


# ----------------------------------------------------------------------------- exact oracles


def test_oracle_first_five_topics_exact():
    exact = naive.exact_tukey_pvalues(X51[:5])
    assert exact == {(0, 1): Fraction(47, 108), (0, 2): Fraction(11, 324), (1, 2): Fraction(235, 324)}


def test_randomised_approaches_exact_enumeration():
    B = 200_000
    exact = naive.exact_tukey_pvalues(X51[:5])
    res = randomised_tukey_hsd(X51[:5], n_trials=B, seed=11)
    for (i, j), p in exact.items():
        assert within_3se(res.pvalue[i, j], p, B), (i, j, res.pvalue[i, j], float(p))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_randomised_approaches_oracle_on_random_grid_matrices(seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 11, size=(4, 3)) / 10  # 6^4 = 1296 labellings, many exact ties
    exact = naive.exact_tukey_pvalues(X)
    B = 100_000
    res = randomised_tukey_hsd(X, n_trials=B, seed=seed)
    for (i, j), p in exact.items():
        assert within_3se(res.pvalue[i, j], p, B) or res.pvalue[i, j] == float(p), (X, i, j)


def test_two_system_oracle_all_sign_flips():
    assert naive.exact_sign_flip_pvalue(X51[:, 0], X51[:, 1]) == Fraction(69120, 1048576)


def test_fisher_randomised_and_exact_match_oracle():
    B = 200_000
    exact = Fraction(69120, 1048576)
    rand = fisher_randomisation(X51[:, 0], X51[:, 1], n_trials=B, seed=3)
    assert within_3se(rand.pvalue[0, 1], exact, B)
    assert fisher_randomisation(X51[:, 0], X51[:, 1], exact=True).pvalue[0, 1] == float(exact)
    # with two systems the randomised Tukey HSD is the randomisation test itself
    tukey = randomised_tukey_hsd(X51[:, :2], n_trials=B, seed=3)
    assert tukey.pvalue[0, 1] == rand.pvalue[0, 1]


# ----------------------------------------------------------------------------- the tie tolerance


def test_tie_tolerance_matters(sakai_1e6):
    """Scores on a 0.1 grid make r_b == d_ij exact ties; without the tolerance they are lost."""
    i, j = sakai_1e6.pairs()
    d, null = sakai_1e6.statistic, sakai_1e6.null_distribution
    with_tol = sakai_1e6.pvalue[i, j]
    no_tol = exceedance_pvalues(d, null, tolerance=0.0)[i, j]
    strict = np.array([(null > d[a, b] + TIE_TOLERANCE).mean() for a, b in zip(i, j)])
    assert no_tol[0] < 0.29 and no_tol[1] < with_tol[1] - 0.0015  # .26-.27 / .097-.104: wrong
    assert np.all(no_tol <= with_tol) and np.all(strict < with_tol)
    assert strict[0] < 0.27 and strict[1] < 0.09  # r > d strictly: every tie dropped
    # the exact oracle: ties counted (r >= d) vs broken (r > d) on the first five topics
    ge = naive.exact_tukey_pvalues(X51[:5])
    gt = naive.exact_tukey_pvalues(X51[:5], strict=True)
    assert all(gt[k] < ge[k] for k in ge)
    assert gt == {(0, 1): Fraction(113, 324), (0, 2): Fraction(1, 81), (1, 2): Fraction(215, 324)}


# ----------------------------------------------------------------------------- determinism


def _run(name, seed, B=20_000):
    if name == "tukey":
        return randomised_tukey_hsd(X51, n_trials=B, seed=seed)
    if name == "fisher":
        return fisher_randomisation(X51[:, 0], X51[:, 2], n_trials=B, seed=seed)
    return paired_bootstrap(X51[:, 0], X51[:, 2], n_trials=B, seed=seed)


@pytest.mark.parametrize("name", ["tukey", "fisher", "bootstrap"])
def test_same_seed_same_result_different_seed_different(name):
    a, b, c = _run(name, 5), _run(name, 5), _run(name, 6)
    assert np.array_equal(a.pvalue, b.pvalue, equal_nan=True)
    assert np.array_equal(a.null_distribution, b.null_distribution)
    assert not np.array_equal(a.null_distribution, c.null_distribution)
    assert not np.array_equal(a.pvalue, c.pvalue, equal_nan=True)


@pytest.mark.parametrize("name", ["tukey", "fisher", "bootstrap"])
def test_bit_identical_across_thread_counts(name):
    one, two = at_thread_counts(lambda: _run(name, 99, B=50_001))  # B: not a multiple of the trials per task
    assert np.array_equal(one.null_distribution, two.null_distribution)
    assert np.array_equal(one.pvalue, two.pvalue, equal_nan=True)


def test_seed_none_is_recorded_and_reproduces():
    a = randomised_tukey_hsd(X51, n_trials=2000)
    assert isinstance(a.seed, int)
    b = randomised_tukey_hsd(X51, n_trials=2000, seed=a.seed)
    assert np.array_equal(a.pvalue, b.pvalue, equal_nan=True)


def test_numpy_generator_seed_is_deterministic():
    a = randomised_tukey_hsd(X51, n_trials=2000, seed=np.random.default_rng(4))
    b = randomised_tukey_hsd(X51, n_trials=2000, seed=np.random.default_rng(4))
    assert a.seed == b.seed and np.array_equal(a.pvalue, b.pvalue, equal_nan=True)


# ----------------------------------------------------------------------------- p-value definitions


def test_plus_one_counts_the_observed_labelling():
    B = 5000
    base = randomised_tukey_hsd(X51, n_trials=B, seed=8, plus_one=False)
    plus = randomised_tukey_hsd(X51, n_trials=B, seed=8, plus_one=True)
    assert np.array_equal(base.null_distribution, plus.null_distribution)
    assert base.null_distribution.shape == (B,)
    for i, j in PAIRS:
        count = int(np.sum(base.null_distribution >= base.statistic[i, j] - TIE_TOLERANCE))
        assert base.pvalue[i, j] == count / B
        assert plus.pvalue[i, j] == (count + 1) / (B + 1)
        assert plus.pvalue[j, i] == plus.pvalue[i, j]


def test_statistic_is_absolute_mean_difference():
    res = randomised_tukey_hsd(X51, n_trials=100, seed=1)
    np.testing.assert_allclose(res.statistic, np.abs(res.diff), atol=1e-15)
    np.testing.assert_allclose(res.diff, -res.diff.T, atol=0)
    assert res.method == "randomised Tukey HSD"


grid_matrices = hnp.arrays(np.float64, st.tuples(st.integers(2, 8), st.integers(2, 5)),
                           elements=st.integers(0, 10).map(lambda v: v / 10))
real_matrices = hnp.arrays(np.float64, st.tuples(st.integers(2, 8), st.integers(2, 5)),
                           elements=st.floats(0, 1, allow_nan=False, width=64))


@given(X=st.one_of(grid_matrices, real_matrices), seed=st.integers(0, 2**32))
def test_delta_alpha_separates_significant_pairs(X, seed):
    """A pair whose |mean difference| exceeds Delta_0.05 by more than the tie tolerance has p < .05.

    (Within the tolerance the difference ties with Delta itself: see the next test.)"""
    res = randomised_tukey_hsd(X, n_trials=400, seed=seed)
    delta = res.delta(0.05)
    assert delta == np.quantile(res.null_distribution, 0.95, method="higher")
    i, j = res.pairs()
    for a, b in zip(i, j):
        if abs(res.diff[a, b]) > delta + 2 * TIE_TOLERANCE:
            assert res.pvalue[a, b] < 0.05
        if res.pvalue[a, b] < 0.05:
            assert res.statistic[a, b] > delta - TIE_TOLERANCE


def test_delta_alpha_boundary_is_a_tie():
    """Topic differences (0, .7, .1): r is 0.8/3 or 0.6/3, each with probability 1/2, so Delta_0.05 is
    0.8/3 -- the observed difference. Rounding can leave |diff| an ulp above Delta, yet the pair is a
    tie with Delta (p ~ .5), not significant: Delta_alpha separates only beyond the tolerance."""
    X = np.array([[0.2, 0.2], [0.9, 0.2], [0.2, 0.1]])
    res = randomised_tukey_hsd(X, n_trials=1000, seed=17)
    delta = res.delta(0.05)
    assert abs(delta - 0.8 / 3) < 1e-12 and abs(abs(res.diff[0, 1]) - delta) < TIE_TOLERANCE
    assert 0.4 < res.pvalue[0, 1] < 0.6


# ----------------------------------------------------------------------------- input errors


@pytest.mark.parametrize("X, match", [
    ([[0.1], [0.2], [0.3]], r"has 1 system\(s\) \(columns\); comparing systems needs at least 2"),
    ([[0.1, np.nan], [0.2, 0.3]], r"non-finite score \(nan\) at topic row 0, system column 1"),
    ([[0.1, np.inf], [0.2, 0.3]], r"non-finite score \(inf\) at topic row 0, system column 1"),
    ([[0.1, 0.2], [0.3], [0.4, 0.5]], r"ragged: topic row 1 has 1 scores, row 0 has 2"),
    ([0.1, 0.2, 0.3], r"must be 2-dimensional \(topics x systems\), got 1 dimension"),
    ([[0.1, 0.2, 0.3]], r"has 1 topic\(s\) \(rows\); a paired test needs at least 2"),
    ([["a", "b"], ["c", "d"]], r"must be a topics x systems matrix of numbers"),
])
def test_bad_matrices(X, match):
    with pytest.raises(DiscpowerError, match=match):
        randomised_tukey_hsd(X, n_trials=10, seed=1)


@pytest.mark.parametrize("B", [0, -5, 2.5, True, "100", None])
def test_bad_n_trials(B):
    with pytest.raises(DiscpowerError, match=r"The 'n_trials' parameter must be an integer >= 1\. Got "
                                             + repr(B).replace(".", r"\.") + " instead"):
        randomised_tukey_hsd(X51, n_trials=B, seed=1)


@pytest.mark.parametrize("seed", [-1, 1.5, "7", True, 2**64])
def test_bad_seed(seed):
    with pytest.raises(DiscpowerError, match=r"The 'seed' parameter must be an integer in \[0, 2\*\*64\)"):
        randomised_tukey_hsd(X51, n_trials=10, seed=seed)


def test_bad_system_names():
    with pytest.raises(DiscpowerError, match=r"2 system names for 3 columns"):
        randomised_tukey_hsd(X51, n_trials=10, seed=1, systems=["A", "B"])
    with pytest.raises(DiscpowerError, match=r"system names must be unique; repeated: \['A'\]"):
        randomised_tukey_hsd(X51, n_trials=10, seed=1, systems=["A", "A", "C"])


@pytest.mark.parametrize("alpha", [1.5, 0, 1, -0.1, True, "0.05"])
def test_bad_alpha(alpha):
    res = randomised_tukey_hsd(X51, n_trials=100, seed=1)
    msg = r"The 'alpha' parameter must be a number in the open interval \(0, 1\)"
    with pytest.raises(DiscpowerError, match=msg):
        res.significant(alpha)
    with pytest.raises(DiscpowerError, match=msg):
        res.discriminative_power(alpha)
    with pytest.raises(DiscpowerError, match=msg):
        res.delta(alpha)


# ----------------------------------------------------------------------------- views of the result


def test_dataframe_input_names_the_systems():
    frame = pd.DataFrame(X51, columns=["A", "B", "C"])
    res = randomised_tukey_hsd(frame, n_trials=1000, seed=2)
    assert res.systems == ("A", "B", "C")
    assert np.array_equal(res.pvalue, randomised_tukey_hsd(X51, n_trials=1000, seed=2).pvalue, equal_nan=True)


def test_to_frame_and_views():
    rng = np.random.default_rng(0)
    X = rng.random((15, 5))
    res = randomised_tukey_hsd(X, n_trials=500, seed=3)
    frame = res.to_frame()
    assert list(frame.columns) == ["system_a", "system_b", "diff", "statistic", "pvalue"]
    assert len(frame) == 5 * 4 // 2
    assert frame.iloc[0].system_a == "S1" and frame.iloc[0].system_b == "S2"
    assert np.array_equal(frame.pvalue.to_numpy(), res.pair_pvalues())
    assert np.array_equal(res.asl_curve(), np.sort(res.pair_pvalues()))
    assert res.discriminative_power(0.05) == np.mean(res.pair_pvalues() < 0.05)
    sig = res.significant(0.05)
    assert sig.dtype == bool and not sig.diagonal().any() and np.array_equal(sig, sig.T)


def test_to_latex_bold_and_floor():
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.random(30) * 0.1 + 0.9, rng.random(30) * 0.1, rng.random(30) * 0.1])
    res = randomised_tukey_hsd(X, n_trials=1000, seed=4, systems=["big_one", "b", "c"], plus_one=False)
    p = res.pair_pvalues()
    assert p[0] == 0 and p[1] == 0 and p[2] > 0.05
    tex = res.to_latex()
    assert "\\textbf{$<1/1{,}000$}" in tex
    assert "big\\_one" in tex
    assert tex.startswith("\\begin{tabular}") and tex.rstrip().endswith("\\end{tabular}")
    body = [line for line in tex.splitlines() if line.startswith("b &")]
    assert body and "\\textbf" not in body[0]


def test_result_is_the_pairwise_test_type():
    assert isinstance(randomised_tukey_hsd(X51, n_trials=10, seed=1), PairwiseTest)


def test_delta_agrees_with_the_pvalue_rule_for_both_definitions():
    from discpower.stats.tukey import exceedance_pvalues

    X = np.random.default_rng(0).random((30, 5))
    for B, plus_one, alpha in [(999, True, 0.05), (999, False, 0.05), (34, False, 0.03), (100, True, 0.01)]:
        r = randomised_tukey_hsd(X, B, seed=1, plus_one=plus_one)
        d = r.delta(alpha)
        if np.isinf(d):
            continue
        assert exceedance_pvalues(d + 1e-9, r.null_distribution, plus_one=plus_one) < alpha
        # and it is the smallest such null value: the next one down is not significant
        below = np.sort(r.null_distribution)
        smaller = below[below < d - 1e-9]
        if len(smaller):
            assert exceedance_pvalues(smaller[-1], r.null_distribution, plus_one=plus_one) >= alpha


def test_trials_beyond_the_limit_are_a_clear_error(monkeypatch):
    from discpower.stats import memory

    X = np.random.default_rng(0).random((5, 3))
    monkeypatch.setattr(memory, "available_memory", lambda: 2**30)  # within the limit: the memory, and advice
    with pytest.raises(DiscpowerError, match=r"The 'n_trials' parameter \(1,000,000,000 trials.*needs about "
                                             r"14.9 GiB of memory.*use fewer trials \(about [\d,]+ fit\)"):
        randomised_tukey_hsd(X, 10**9)
    monkeypatch.setattr(memory, "available_memory", lambda: 2**60)  # past it: the hard limit, whatever the memory
    with pytest.raises(DiscpowerError, match=r"The 'n_trials' parameter must be at most 1,000,000,000 \(the null "
                                             r"distribution is kept in memory\)\. Got 10000000000000 instead\."):
        randomised_tukey_hsd(X, 10**13)


@given(X=hnp.arrays(np.float64, st.tuples(st.integers(1, 12), st.integers(2, 6)), elements=st.floats(0, 1)),
       b=st.integers(0, 10**6))
def test_a_relabelling_trial_permutes_each_row_and_sums_in_topic_order(X, b):
    n, m = X.shape
    perm, S, Y = np.empty(m, dtype=np.int64), np.empty(m), np.empty((n, m))
    relabelled_sums(X, np.uint64(11), b, perm, S, Y)
    assert all(sorted(Y[t]) == sorted(X[t]) for t in range(n))
    sums = np.zeros(m)
    for t in range(n):
        sums += Y[t]
    assert np.array_equal(S, sums)
    S_only = np.empty(m)
    relabelled_sums(X, np.uint64(11), b, perm, S_only, np.empty((0, m)))  # no rows: the sums alone, the same
    assert np.array_equal(S_only, S)


def test_the_tukey_null_is_the_range_of_each_trials_relabelled_sums():
    X = np.random.default_rng(5).random((9, 4))
    res = randomised_tukey_hsd(X, n_trials=300, seed=21)
    perm, S = np.empty(4, dtype=np.int64), np.empty(4)
    for b in range(300):
        relabelled_sums(X, np.uint64(21), b, perm, S, np.empty((0, 4)))
        assert res.null_distribution[b] == (S.max() - S.min()) / 9
