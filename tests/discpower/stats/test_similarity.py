"""discpower.stats.similarity: Kendall tau-b (vs scipy), tau_AP (vs a naive definition), the Fisher-z CI,
and the metric x metric ranking-similarity matrix."""

import math
import subprocess
import sys
from itertools import permutations
from statistics import NormalDist

import numba
import numpy as np
import pytest
import scipy.stats
from hypothesis import given
from hypothesis import strategies as st

import cwla
from discpower import DiscpowerError
from discpower.stats.similarity import (RankingSimilarity, tau_b, kendall_tau_b, ranking_similarity, tau_ap,
                                  tau_confidence_interval)


def scipy_tau_b(a, b):
    return scipy.stats.kendalltau(a, b, variant="b").statistic


def same(x, y):
    """Equal, or both NaN."""
    return (math.isnan(x) and math.isnan(y)) or x == y


# --------------------------------------------------------------------------- tau-b

# scores on a coarse grid (many ties) or anywhere in [0, 1]
_grid = st.integers(0, 4).map(lambda k: k / 4)
_real = st.floats(0, 1, allow_nan=False, allow_subnormal=False)


@st.composite
def score_pairs(draw, element):
    n = draw(st.integers(2, 40))
    a = draw(st.lists(element, min_size=n, max_size=n))
    b = draw(st.lists(element, min_size=n, max_size=n))
    return a, b


@given(score_pairs(_grid))
def test_tau_b_equals_scipy_with_ties(pair):
    a, b = pair
    assert same(kendall_tau_b(a, b), scipy_tau_b(a, b))


@given(score_pairs(st.one_of(_grid, _real)))
def test_tau_b_equals_scipy_mixed(pair):
    a, b = pair
    assert same(kendall_tau_b(a, b), scipy_tau_b(a, b))


def test_tau_b_hand_values():
    assert kendall_tau_b([1, 2, 3, 4], [1, 2, 3, 4]) == 1.0
    assert kendall_tau_b([1, 2, 3, 4], [4, 3, 2, 1]) == -1.0
    # one discordant pair of 6: (5 - 1) / 6
    assert kendall_tau_b([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(2 / 3, abs=1e-15)
    # ties in x: S = 4 (pairs: 12 tied, 13 +, 14 +, 23 +, 24 +, 34 +... computed by scipy)
    assert kendall_tau_b([1, 1, 2, 3], [1, 2, 3, 4]) == scipy_tau_b([1, 1, 2, 3], [1, 2, 3, 4])
    assert math.isnan(kendall_tau_b([1, 1, 1], [1, 2, 3]))  # undefined, as scipy


def test_tau_b_tie_tolerance_merges_floating_point_near_ties():
    x = [(0.1 + 0.2) + 0.3, (0.3 + 0.2) + 0.1, 1.0]   # equal in exact arithmetic, not in floats
    y = [1.0, 2.0, 3.0]
    assert x[0] != x[1]
    assert kendall_tau_b(x, y) == scipy_tau_b(x, y) == pytest.approx(1 / 3, abs=1e-15)  # a spurious discordance
    tied = kendall_tau_b(x, y, tie_tolerance=1e-10)
    assert tied == pytest.approx(scipy_tau_b([0.6, 0.6, 1.0], y), abs=1e-15)


def test_tau_b_kernel_is_callable_from_numba():
    @numba.njit
    def twice(x, y):
        return 2.0 * tau_b(x, y, 0.0)

    x = np.array([0.1, 0.4, 0.2, 0.9])
    y = np.array([0.2, 0.3, 0.1, 0.8])
    assert twice(x, y) == pytest.approx(2 * scipy_tau_b(x, y), abs=1e-15)


@pytest.mark.parametrize("a, b, match", [
    ([1, 2, 3], [1, 2], "same systems: a has 3 scores, b has 2"),
    ([1], [1], "at least 2 systems"),
    ([1, np.nan, 3], [1, 2, 3], r"a has a non-finite score \(nan\) at position 1"),
    ([1, 2, 3], [1, 2, np.inf], r"b has a non-finite score \(inf\) at position 2"),
    ([[1, 2], [3, 4]], [1, 2], "a must be 1-dimensional"),
    (["x", "y"], [1, 2], "a must be a vector of numbers"),
])
def test_tau_b_bad_input(a, b, match):
    with pytest.raises(DiscpowerError, match=match):
        kendall_tau_b(a, b)


@pytest.mark.parametrize("tol", [-1e-10, float("nan"), "0", True])
def test_tau_b_bad_tolerance(tol):
    with pytest.raises(DiscpowerError, match="'tie_tolerance' parameter must be a finite number >= 0"):
        kendall_tau_b([1, 2, 3], [1, 2, 3], tie_tolerance=tol)


# --------------------------------------------------------------------------- tau_AP

def naive_tau_ap(reference, candidate):
    """Yilmaz et al. 2008 straight from the definition; ties broken by the order given."""
    n = len(reference)
    ref_order = sorted(range(n), key=lambda i: (-reference[i], i))
    ref_rank = {item: r for r, item in enumerate(ref_order)}
    cand_order = sorted(range(n), key=lambda i: (-candidate[i], i))
    total = 0.0
    for i in range(1, n):
        item = cand_order[i]
        correct = sum(1 for j in range(i) if ref_rank[cand_order[j]] < ref_rank[item])
        total += correct / i
    return 2.0 / (n - 1) * total - 1.0


def test_tau_ap_hand_example():
    ref = [4, 3, 2, 1]                          # systems ranked 0 > 1 > 2 > 3
    # candidate order 0, 2, 1, 3: C = 1/1 + 1/2 + 3/3 = 2.5 -> 2/3 * 2.5 - 1 = 2/3
    assert tau_ap(ref, [4, 2, 3, 1]) == pytest.approx(2 / 3, abs=1e-15)
    # candidate order 1, 0, 2, 3: C = 0/1 + 2/2 + 3/3 = 2 -> 2/3 * 2 - 1 = 1/3 (a top swap costs more)
    assert tau_ap(ref, [3, 4, 2, 1]) == pytest.approx(1 / 3, abs=1e-15)
    # the bottom swap (order 0, 1, 3, 2): C = 1 + 1 + 2/3 -> 2/3 * 8/3 - 1 = 7/9
    assert tau_ap(ref, [4, 3, 1, 2]) == pytest.approx(7 / 9, abs=1e-15)
    # Kendall's tau gives all three 2/3
    assert tau_ap(ref, ref) == 1.0 and tau_ap(ref, ref[::-1]) == pytest.approx(-1.0, abs=1e-15)


def test_tau_ap_is_not_symmetric_and_symmetric_option_averages():
    a, b = [5, 4, 3, 2, 1], [4, 5, 1, 3, 2]
    ab, ba = tau_ap(a, b), tau_ap(b, a)
    assert ab != pytest.approx(ba)
    assert tau_ap(a, b, symmetric=True) == pytest.approx((ab + ba) / 2, abs=1e-15)
    assert tau_ap(a, b, symmetric=True) == pytest.approx(tau_ap(b, a, symmetric=True), abs=1e-15)


def test_tau_ap_two_systems_and_all_permutations_of_five_match_naive():
    assert tau_ap([1, 2], [1, 2]) == 1.0 and tau_ap([1, 2], [2, 1]) == -1.0
    ref = [5.0, 4.0, 3.0, 2.0, 1.0]
    for perm in permutations(range(5)):
        cand = [float(p) for p in perm]
        assert tau_ap(ref, cand) == pytest.approx(naive_tau_ap(ref, cand), abs=1e-12)


@given(st.integers(2, 60).flatmap(lambda n: st.tuples(st.permutations(range(n)), st.permutations(range(n)))))
def test_tau_ap_matches_naive_on_random_rankings(pair):
    a, b = (np.array(p, dtype=float) for p in pair)
    assert tau_ap(a, b) == pytest.approx(naive_tau_ap(a, b), abs=1e-12)
    # no ties: on two elements-at-a-time it stays in [-1, 1]
    assert -1.0 - 1e-12 <= tau_ap(a, b) <= 1.0 + 1e-12


@given(score_pairs(_grid))
def test_tau_ap_ties_broken_by_the_order_given(pair):
    a, b = pair
    assert tau_ap(a, b) == pytest.approx(naive_tau_ap(a, b), abs=1e-12)


def test_tau_ap_ties_raise_option():
    assert tau_ap([3, 2, 1], [1, 2, 3], ties="raise") == pytest.approx(-1.0, abs=1e-15)
    with pytest.raises(DiscpowerError, match=r"systems 0 and 2 have the same score in a \(the reference\) "
                                             r"\(3.0\).*ties='order'"):
        tau_ap([3, 1, 3], [2, 1, 2], ties="raise")
    with pytest.raises(DiscpowerError, match=r"systems 1 and 2 have the same score in b \(2.0\)"):
        tau_ap([3, 1, 2], [3, 2, 2], ties="raise")
    with pytest.raises(DiscpowerError, match="'ties' parameter of tau_ap must be 'order' or 'raise'"):
        tau_ap([1, 2], [1, 2], ties="average")
    with pytest.raises(DiscpowerError, match="same systems"):
        tau_ap([1, 2, 3], [1, 2])


# --------------------------------------------------------------------------- confidence interval

def test_ci_hand_example():
    # tau = 0.8, n = 40: z = atanh(0.8) = 1.098612, se = sqrt(0.437 / 36) = 0.110177, q = 1.959964
    z, se, q = math.atanh(0.8), math.sqrt(0.437 / 36), NormalDist().inv_cdf(0.975)
    low, high = tau_confidence_interval(0.8, 40)
    assert low == pytest.approx(math.tanh(z - q * se), abs=1e-14)
    assert high == pytest.approx(math.tanh(z + q * se), abs=1e-14)
    assert (round(low, 4), round(high, 4)) == (0.7078, 0.8654)
    low90, high90 = tau_confidence_interval(0.8, 40, level=0.90)
    assert low < low90 < 0.8 < high90 < high


def test_ci_vectorised_and_degenerate_at_plus_minus_one():
    low, high = tau_confidence_interval(np.array([[1.0, -1.0], [0.0, np.nan]]), 10)
    assert low.shape == (2, 2)
    assert high[0, 0] == 1.0 and low[0, 1] == -1.0
    assert np.isfinite(low[:, 0]).all() and np.isfinite(high[0]).all()
    assert 0.99 < low[0, 0] <= 1.0 and -1.0 <= high[0, 1] < -0.99
    assert low[1, 0] == pytest.approx(-high[1, 0], abs=1e-15)      # symmetric around 0
    assert np.isnan(low[1, 1]) and np.isnan(high[1, 1])            # undefined tau: undefined CI
    lo, hi = tau_confidence_interval(1.0, 5)
    assert hi == 1.0 and not math.isnan(lo) and lo <= hi


@pytest.mark.parametrize("tau, n, level, match", [
    (0.5, 4, 0.95, r"The 'n' parameter must be an integer > 4 \(the number of systems: se = sqrt\(0.437 / \(n - 4\)\)\)\. "
                   r"Got 4 instead"),
    (0.5, 2, 0.95, "Got 2 instead"),
    (0.5, 10.0, 0.95, r"The 'n' parameter must be an integer > 4 .* Got 10.0 instead"),
    (0.5, 10, 1.0, "'level' parameter must be a confidence level in the open interval"),
    (0.5, 10, 0, "'level' parameter"),
    (1.5, 10, 0.95, r"tau must lie in \[-1, 1\]; got 1.5"),
    ("x", 10, 0.95, "tau must be a number"),
])
def test_ci_bad_input(tau, n, level, match):
    with pytest.raises(DiscpowerError, match=match):
        tau_confidence_interval(tau, n, level)


# --------------------------------------------------------------------------- the matrix

def _values(seed=0, n_runs=12, n_topics=25):
    rng = np.random.default_rng(seed)
    quality = rng.random(n_runs)
    return np.stack([quality[:, None] + rng.normal(0, s, (n_runs, n_topics)) for s in (0.05, 0.2, 0.5, 2.0)])


LABELS = ["m_a", "m_b", "m_c", "m_d"]


def test_matrix_symmetric_unit_diagonal_and_equal_to_pairwise_tau():
    V = _values()
    sim = ranking_similarity(V, LABELS)
    assert isinstance(sim, RankingSimilarity)
    assert sim.labels == tuple(LABELS) and sim.n_systems == 12 and sim.method == "tau_b"
    np.testing.assert_array_equal(sim.tau, sim.tau.T)
    np.testing.assert_array_equal(np.diag(sim.tau), 1.0)
    means = V.mean(axis=2)
    for i in range(4):
        for j in range(4):
            if i != j:
                assert sim.tau[i, j] == pytest.approx(scipy_tau_b(means[i], means[j]), abs=1e-15)
    assert (sim.ci_low <= sim.tau + 1e-15).all() and (sim.tau <= sim.ci_high + 1e-15).all()
    low, high = tau_confidence_interval(sim.tau[0, 1], 12)
    assert (sim.ci_low[0, 1], sim.ci_high[0, 1]) == pytest.approx((low, high), abs=1e-15)
    # the less noisy metrics agree more
    assert sim.tau[0, 1] > sim.tau[0, 3]


def test_matrix_from_means_runs_subset_and_evaluation():
    V = _values()
    full = ranking_similarity(V, LABELS)
    np.testing.assert_array_equal(ranking_similarity(V.mean(axis=2), LABELS).tau, full.tau)
    keep = [0, 2, 3, 5, 7, 8, 11]
    sub = ranking_similarity(V, LABELS, runs=keep)
    np.testing.assert_array_equal(sub.tau, ranking_similarity(V[:, keep], LABELS).tau)
    mask = np.zeros(12, dtype=bool)
    mask[keep] = True
    np.testing.assert_array_equal(ranking_similarity(V, LABELS, runs=mask).tau, sub.tau)
    assert sub.n_systems == 7

    qrels, runs = cwla.synthetic.collection(seed=0)
    ev = cwla.evaluate(qrels, runs, ["P(rel=1)@10", "nDCG@10", "AP"])
    sim = ranking_similarity(ev)
    assert sim.labels == ev.labels and sim.runs == ev.runs
    named = ranking_similarity(ev, runs=list(ev.runs[:6]))
    np.testing.assert_array_equal(named.tau, ranking_similarity(ev.values[:, :6], ev.labels).tau)


def test_tau_ap_matrix_is_asymmetric_with_row_as_reference():
    V = _values()
    sim = ranking_similarity(V, LABELS, method="tau_ap")
    means = V.mean(axis=2)
    assert sim.tau[1, 3] == pytest.approx(tau_ap(means[1], means[3]), abs=1e-15)
    assert not np.allclose(sim.tau, sim.tau.T)
    assert np.isnan(sim.ci_low).all() and sim.level is None
    sym = ranking_similarity(V, LABELS, method="tau_ap_symmetric")
    np.testing.assert_allclose(sym.tau, (sim.tau + sim.tau.T) / 2, atol=1e-15)
    assert len(sim.to_frame()) == 12 and len(sym.to_frame()) == 6


def test_tie_tolerance_in_the_matrix():
    # two runs whose means tie in exact arithmetic but not in floating point
    a = np.array([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1], [0.9, 0.9, 0.9], [0.0, 0.0, 0.1], [0.5, 0.4, 0.4]])
    assert a[0].mean() != a[1].mean()
    b = np.array([[1.0], [2.0], [3.0], [4.0], [5.0]]) * np.ones(3)
    V = np.stack([a, b])
    sim = ranking_similarity(V, ["a", "b"])
    exact = scipy_tau_b([0.2, 0.2, 0.9, 0.1 / 3, 13 / 30], [1, 2, 3, 4, 5])
    assert sim.tau[0, 1] == pytest.approx(exact, abs=1e-15)
    assert ranking_similarity(V, ["a", "b"], tie_tolerance=0).tau[0, 1] != pytest.approx(exact)


def test_to_frame_latex_and_plot():
    sim = ranking_similarity(_values(), ["P@10", "nDCG_10", "AP&x", "ERR"])
    frame = sim.to_frame()
    assert list(frame.columns) == ["metric_a", "metric_b", "tau", "ci_low", "ci_high"]
    assert len(frame) == 6 and frame.iloc[0][["metric_a", "metric_b"]].tolist() == ["P@10", "nDCG_10"]
    tex = sim.to_latex()
    assert "nDCG\\_10" in tex and "AP\\&x" in tex and tex.count("\\\\") == 5
    assert f"{sim.tau[1, 0]:.2f}" in tex

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = sim.plot()
    assert len(ax.texts) == 16
    assert [t.get_text() for t in ax.get_xticklabels()] == list(sim.labels)
    assert ax.get_xticklabels()[0].get_rotation() == 90
    ax2 = sim.plot(ax=plt.subplots()[1], annotate=False, colorbar=False)
    assert len(ax2.texts) == 0
    plt.close("all")


@pytest.mark.slow
def test_package_imports_without_matplotlib():
    code = ("import sys; import discpower.stats.similarity, discpower.metrics.consistency; "
            "assert 'matplotlib' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_level_none_allows_few_runs():
    V = _values(n_runs=3)
    sim = ranking_similarity(V, LABELS, level=None)
    assert np.isnan(sim.ci_low).all() and sim.tau.shape == (4, 4)
    with pytest.raises(DiscpowerError, match=r"has 3 run\(s\) \(systems\); this needs at least 5"):
        ranking_similarity(V, LABELS)


@pytest.mark.parametrize("kwargs, match", [
    (dict(values=np.zeros((2, 5, 3, 1)), labels=["a", "b"]), "must be 3-dimensional .* or 2-dimensional"),
    (dict(values=np.zeros(5), labels=["a"]), "got 1 dimension"),
    (dict(values=np.ones((2, 6, 3)), labels=["a"]), "1 labels for 2 metrics"),
    (dict(values=np.ones((2, 6, 3)), labels=["a", "a"]), r"labels must be unique; repeated: \['a'\]"),
    (dict(values=np.ones((2, 6, 3)), labels=None), "labels are required"),
    (dict(values=np.ones((2, 6, 3)), labels="ab"), "not one string"),
    (dict(values=np.full((2, 6, 3), np.nan), labels=["a", "b"]),
     r"non-finite score \(nan\) at index \(0, 0, 0\) \(metric 'a'\)"),
    (dict(values=[["x"]], labels=["a"]), "must be an array of numbers"),
    (dict(values=np.ones((2, 6, 3)), labels=["a", "b"], method="pearson"),
     "'method' parameter must be 'tau_b', 'tau_ap' or 'tau_ap_symmetric'. Got 'pearson'"),
    (dict(values=np.ones((2, 6, 3)), labels=["a", "b"], level=95), "'level' parameter"),
    (dict(values=np.ones((2, 6, 3)), labels=["a", "b"], runs=[0, 9]), "run index out of range: the array has 6"),
    (dict(values=np.ones((2, 6, 3)), labels=["a", "b"], runs=["r1"]), "runs given by name need an Evaluation"),
    (dict(values=np.ones((2, 6, 3)), labels=["a", "b"], runs=[True, False]), "needs one entry per run \\(6\\)"),
    (dict(values=np.ones((2, 6, 3)), labels=["a", "b"], runs=[1, 1, 2]), "selects a run more than once"),
    (dict(values=np.ones((2, 6, 3)), labels=["a", "b"], runs="r1"), "runs must be a boolean mask"),
    (dict(values=np.ones((2, 6, 3)), labels=["a", "b"], runs=[0.5]), "got dtype float64"),
])
def test_ranking_similarity_bad_input(kwargs, match):
    with pytest.raises(DiscpowerError, match=match):
        ranking_similarity(**kwargs)


def test_unknown_run_name_with_evaluation():
    qrels, runs = cwla.synthetic.collection(seed=0)
    ev = cwla.evaluate(qrels, runs, ["nDCG@10", "AP"])
    with pytest.raises(DiscpowerError, match=r"unknown run\(s\) \['nope'\]"):
        ranking_similarity(ev, runs=["run01", "nope"])


def test_constant_metric_gives_nan_and_a_warning_not_an_error():
    V = _values()
    V[2] = 0.5
    with pytest.warns(UserWarning, match=r"tau is undefined \(NaN\) for \['m_c'\]"):
        sim = ranking_similarity(V, LABELS)
    assert np.isnan(sim.tau[2]).all() and np.isnan(sim.ci_low[2, 0])
    assert sim.tau[0, 1] == ranking_similarity(_values(), LABELS).tau[0, 1]
