"""adjust_pvalues: every statsmodels multipletests method, in numpy; the rank and sign tests of two systems.

The corrections are checked against statsmodels itself (skipped where it is not installed) on generated
p-value vectors with ties, zeros and ones, and against hand-computed values; the two-system tests against
scipy and against an enumeration of the null distribution written here.
"""

import itertools
import math
import warnings
from unittest import mock

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from discpower import DiscpowerError
from discpower.stats.significance import (CORRECTIONS, adjust_pvalues, check_correction, paired_sign_test,
                                          wilcoxon_signed_rank)

#: statsmodels' names of the methods adjust_pvalues implements (all of CORRECTIONS but None and "bh")
STATSMODELS = ("bonferroni", "sidak", "holm-sidak", "holm", "simes-hochberg", "hommel", "fdr_bh", "fdr_by",
               "fdr_tsbh", "fdr_tsbky")

#: p-values with ties, exact zeros and ones: a few fixed values mixed with arbitrary ones
P_VALUE = st.one_of(st.sampled_from([0.0, 1.0, 0.001, 0.01, 0.02, 0.04, 0.05, 0.3, 0.5]),
                    st.floats(0.0, 1.0, allow_nan=False))
P_VECTOR = st.lists(P_VALUE, min_size=1, max_size=40)


def _multipletests():
    return pytest.importorskip("statsmodels.stats.multitest").multipletests


def _statsmodels(p, method, alpha):
    multipletests = _multipletests()
    # statsmodels warns of log1p(-1) for a p-value of 1, and its Holm runs gc.collect() (a second a call here)
    with warnings.catch_warnings(), np.errstate(divide="ignore"), mock.patch("gc.collect", return_value=0):
        warnings.simplefilter("ignore")
        return multipletests(np.asarray(p, dtype=float), alpha=alpha, method=method)[1]


def test_every_statsmodels_name_is_accepted():
    assert set(STATSMODELS) | {None, "bh"} == set(CORRECTIONS)
    assert len(CORRECTIONS) == len(set(CORRECTIONS))


@pytest.mark.parametrize("method", STATSMODELS)
@given(p=P_VECTOR, alpha=st.sampled_from([0.01, 0.05, 0.1, 0.25]))
def test_each_correction_equals_statsmodels(method, p, alpha):
    expected = _statsmodels(p, method, alpha)
    got = adjust_pvalues(p, method, alpha=alpha)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    assert got.shape == (len(p),) and np.all((got >= 0) & (got <= 1))


@pytest.mark.parametrize("method", STATSMODELS)
def test_each_correction_equals_statsmodels_on_many_ties(method):
    rng = np.random.default_rng(3)
    for k in (1, 2, 5, 37, 666):
        p = np.round(rng.random(k) ** 4, 2)  # many ties, several zeros
        p[rng.random(k) < 0.05] = 1.0
        for alpha in (0.05, 0.2):
            np.testing.assert_allclose(adjust_pvalues(p, method, alpha=alpha), _statsmodels(p, method, alpha),
                                       rtol=0, atol=1e-12)


@pytest.mark.parametrize("method", STATSMODELS)
@given(p=P_VECTOR, seed=st.integers(0, 2**16))
def test_order_and_ties(method, p, seed):
    """The adjusted values follow the input order, tied p-values get equal values, and the raw order is kept."""
    p = np.asarray(p)
    perm = np.random.default_rng(seed).permutation(p.size)
    adjusted = adjust_pvalues(p, method)
    np.testing.assert_allclose(adjust_pvalues(p[perm], method), adjusted[perm], rtol=0, atol=1e-15)
    for value in np.unique(p):
        same = adjusted[p == value]
        assert np.all(same == same[0])
    if method not in ("fdr_tsbh", "fdr_tsbky"):  # monotone in the raw p-values, never below them
        order = np.argsort(p, kind="stable")
        assert np.all(np.diff(adjusted[order]) >= -1e-15)
        assert np.all(adjusted >= p - 1e-15)


def test_hand_values():
    p = [0.01, 0.04, 0.03, 0.5]
    k = 4
    np.testing.assert_allclose(adjust_pvalues(p, "sidak"), [1 - (1 - x) ** k for x in p], rtol=1e-12)
    # sorted .01 .03 .04 .5; Holm-Sidak: 1-(1-p)^(4,3,2,1), running max
    steps = [1 - 0.99**4, 1 - 0.97**3, 1 - 0.96**2, 0.5]
    running = np.maximum.accumulate(steps)
    np.testing.assert_allclose(adjust_pvalues(p, "holm-sidak"), running[[0, 2, 1, 3]], rtol=1e-12)
    # Hochberg: (4,3,2,1) * sorted = .04 .09 .08 .5, running min from the top = .04 .08 .08 .5
    np.testing.assert_allclose(adjust_pvalues(p, "simes-hochberg"), [0.04, 0.08, 0.08, 0.5], rtol=1e-12)
    # BH: 4p/r of the sorted = .04 .06 .0533 .5, running min from the top = .04 .0533 .0533 .5
    bh = np.array([0.04, 0.16 / 3, 0.16 / 3, 0.5])
    np.testing.assert_allclose(adjust_pvalues(p, "bh"), bh, rtol=1e-12)
    # Benjamini-Yekutieli: BH times 1 + 1/2 + 1/3 + 1/4, capped at 1
    np.testing.assert_allclose(adjust_pvalues(p, "fdr_by"), np.minimum(1, bh * 25 / 12), rtol=1e-12)
    np.testing.assert_array_equal(adjust_pvalues(p, "bh"), adjust_pvalues(p, "fdr_bh"))


def test_hommel_is_the_closed_simes_test():
    """Hommel's adjusted p-value of H_i: the largest Simes p-value of the intersections containing H_i."""
    rng = np.random.default_rng(5)
    for _ in range(30):
        p = np.round(rng.random(6) ** 2, 3)
        k = p.size
        closed = np.zeros(k)
        for size in range(1, k + 1):
            for subset in itertools.combinations(range(k), size):
                sub = np.sort(p[list(subset)])
                simes = min(1.0, float(np.min(size * sub / np.arange(1, size + 1))))
                for i in subset:
                    closed[i] = max(closed[i], simes)
        np.testing.assert_allclose(adjust_pvalues(p, "hommel"), closed, rtol=1e-12, atol=1e-15)


def test_two_stage_by_hand():
    p = np.array([0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205, 0.212, 0.216])
    k, alpha = 10, 0.05
    bh = adjust_pvalues(p, "bh")
    # stage 1 at alpha / (1 + alpha): p_(r) <= r alpha' / k holds up to r1 = 2 (0.008 <= 2 * 0.004762)
    r1 = max(r for r in range(1, k + 1) if p[r - 1] <= r * (alpha / (1 + alpha)) / k)
    assert r1 == 2
    np.testing.assert_allclose(adjust_pvalues(p, "fdr_tsbky", alpha=alpha),
                               np.minimum(1, bh * (k - r1) / k * (1 + alpha)), rtol=1e-12)
    r1 = max(r for r in range(1, k + 1) if p[r - 1] <= r * alpha / k)  # tsbh: stage 1 at alpha
    np.testing.assert_allclose(adjust_pvalues(p, "fdr_tsbh", alpha=alpha), np.minimum(1, bh * (k - r1) / k),
                               rtol=1e-12)
    # no stage-1 rejection (or all): the BH values (times 1 + alpha for tsbky)
    high = np.array([0.3, 0.5, 0.9])
    np.testing.assert_allclose(adjust_pvalues(high, "fdr_tsbky", alpha=0.1),
                               np.minimum(1, adjust_pvalues(high, "bh") * 1.1), rtol=1e-12)
    assert not np.array_equal(adjust_pvalues(p, "fdr_tsbh", alpha=0.05), adjust_pvalues(p, "fdr_tsbh", alpha=0.2))


def test_empty_family_and_none():
    for method in CORRECTIONS:
        assert adjust_pvalues([], method).shape == (0,)
    p = [0.2, 0.01]
    assert adjust_pvalues(p, None).tolist() == p


@pytest.mark.parametrize("spelling, name", [
    ("BH", "bh"), ("holm_sidak", "holm-sidak"), ("fdr-bh", "fdr_bh"), ("Hommel", "hommel"), ("hs", "holm-sidak"),
    ("fdr_2sbky", "fdr_tsbky"), ("FDR_BY", "fdr_by"), ("simes_hochberg", "simes-hochberg"), ("b", "bonferroni"),
    ("fdr_i", "fdr_bh"), ("fdrcorr", "fdr_by"), ("sh", "simes-hochberg"),
])
def test_statsmodels_aliases_and_other_cases_are_the_same_correction(spelling, name):
    p = [0.01, 0.04, 0.03, 0.2]
    assert check_correction(spelling) == name
    np.testing.assert_array_equal(adjust_pvalues(p, spelling), adjust_pvalues(p, name))


@pytest.mark.parametrize("bad, suggestion", [
    ("bonferoni", "'bonferroni'"), ("benjamini-hochberg", "'bh'"), ("hochberg", "'simes-hochberg'"),
    ("fdr", "'fdr_bh' or 'fdr_by'"), ("holmsidac", "'holm-sidak'"),
])
def test_a_near_name_gets_a_suggestion(bad, suggestion):
    with pytest.raises(DiscpowerError) as info:
        adjust_pvalues([0.1, 0.2], bad)
    message = str(info.value)
    assert "\n" not in message and f"Got {bad!r} instead; did you mean {suggestion}" in message
    for name in CORRECTIONS[1:]:  # every accepted name, on that one line
        assert repr(name) in message


@pytest.mark.parametrize("bad", ["nonsense", 3, True, ["holm"]])
def test_an_unknown_correction_lists_the_accepted_names(bad):
    with pytest.raises(DiscpowerError, match=r"None, 'holm', 'bonferroni' or 'bh' .*'fdr_tsbky'\. Got .* instead\.$"):
        check_correction(bad)


@pytest.mark.parametrize("p, match", [
    ([0.1, np.nan], r"p\[1\] = nan"), ([0.1, 1.5], r"p\[1\] = 1\.5"), ([-0.1], r"p\[0\] = -0\.1"),
    ([[0.1, 0.2]], "1-dimensional"), (["x"], "vector of p-values"),
])
def test_bad_pvalues(p, match):
    with pytest.raises(DiscpowerError, match=match):
        adjust_pvalues(p, "holm")


def test_two_stage_alpha_is_checked():
    with pytest.raises(DiscpowerError, match="The 'alpha' parameter"):
        adjust_pvalues([0.1], "fdr_tsbh", alpha=1.5)


# ----------------------------------------------------------------------------- Wilcoxon and sign tests


def _sign_oracle(x, y):
    """Two-sided exact sign test by hand: min(1, 2 P(K <= min(k, n - k))), K ~ Bin(n, 1/2), ties dropped."""
    d = np.asarray(x) - np.asarray(y)
    k, n = int(np.sum(d > 0)), int(np.sum(d != 0))
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(k, n - k) + 1)) / 2**n
    return 1.0 if 2 * k == n else min(1.0, 2 * tail)


def _wilcoxon_oracle(x, y):
    """Two-sided exact signed-rank test by hand (no ties, no zeros): all 2^n sign assignments of ranks 1..n."""
    d = np.asarray(x) - np.asarray(y)
    ranks = scipy.stats.rankdata(np.abs(d))
    r_plus = ranks[d > 0].sum()
    null = [sum(r for r, s in zip(ranks, signs) if s) for signs in itertools.product([0, 1], repeat=d.size)]
    null = np.array(null)
    return min(1.0, 2 * min(np.mean(null <= r_plus), np.mean(null >= r_plus)))


def test_sign_test_by_hand():
    x = [0.7, 0.3, 0.2, 0.6, 0.4, 0.5, 0.9, 0.1]
    y = [0.5, 0.1, 0.0, 0.2, 0.4, 0.6, 0.3, 0.1]
    res = paired_sign_test(x, y, systems=["A", "B"])
    assert res.statistic[0, 1] == 5 and res.statistic[1, 0] == 1  # 5 wins, 1 loss, 2 ties dropped
    assert res.pvalue[0, 1] == pytest.approx(_sign_oracle(x, y), abs=1e-15) == pytest.approx(14 / 64)
    assert res.pvalue[0, 1] == scipy.stats.binomtest(5, 6, 0.5).pvalue and res.systems == ("A", "B")
    assert paired_sign_test(x, x).pvalue[0, 1] == 1.0


def test_wilcoxon_by_hand():
    x = [0.71, 0.32, 0.23, 0.64, 0.45, 0.56, 0.97]
    y = [0.5, 0.1, 0.0, 0.2, 0.4, 0.6, 0.3]  # differences all distinct and non-zero: the exact test
    res = wilcoxon_signed_rank(x, y)
    assert res.pvalue[0, 1] == pytest.approx(_wilcoxon_oracle(x, y), abs=1e-12)
    assert res.statistic[0, 1] == scipy.stats.wilcoxon(x, y).statistic
    assert wilcoxon_signed_rank(x, x).pvalue[0, 1] == 1.0


@settings(max_examples=40)  # scipy's 2^n sign flips (n <= 13 with ties) take 0.1-1 s a call at n = 11-13
@given(st.one_of(st.integers(2, 10), st.integers(14, 30)).flatmap(
    lambda n: st.lists(st.tuples(st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.5, 1.0]),
                                 st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.5, 1.0])), min_size=n, max_size=n)))
def test_two_system_tests_equal_scipy(pairs):
    x, y = (np.array(v) for v in zip(*pairs))
    assert paired_sign_test(x, y).pvalue[0, 1] == pytest.approx(_sign_oracle(x, y), abs=1e-12)
    if np.all(x == y):
        assert wilcoxon_signed_rank(x, y).pvalue[0, 1] == 1.0
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = scipy.stats.wilcoxon(x, y).pvalue
        assert wilcoxon_signed_rank(x, y).pvalue[0, 1] == expected


def test_two_system_input_errors():
    with pytest.raises(DiscpowerError, match="same topics"):
        wilcoxon_signed_rank([0.1, 0.2], [0.1])
    with pytest.raises(DiscpowerError, match="paired_sign_test compares exactly two systems"):
        paired_sign_test(np.ones((4, 3)))
    with pytest.raises(DiscpowerError, match="non-finite"):
        paired_sign_test([0.1, np.inf], [0.1, 0.2])
