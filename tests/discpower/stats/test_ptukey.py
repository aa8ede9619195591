"""The compiled studentised range distribution (discpower.stats.ptukey): equal to scipy's adaptive
quadrature within 1e-8 on a grid of q, k and df, exact where a closed form exists (k = 2), and the
critical values its inverse gives."""

import math
import time

import numpy as np
import pytest
import scipy.stats

import discpower
from discpower import DiscpowerError
from discpower.stats.ptukey import studentized_range_isf, studentized_range_sf

KS = (2, 3, 5, 10, 37, 59, 120, 200)
DFS = (2, 3, 7, 30, 120, 1000, 3074, 10_000, math.inf)
QS = np.array([0.05, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 7.0, 9.0, 12.0])


@pytest.mark.slow
@pytest.mark.parametrize("k", KS)
def test_equal_to_scipy_on_the_grid(k):
    """scipy.stats.studentized_range.sf integrates each q adaptively; ours uses fixed rules. Every point of
    the grid within 1e-8 (measured: 2.3e-12 at most)."""
    for df in DFS:
        ours = studentized_range_sf(QS, k, df)
        ref = scipy.stats.studentized_range.sf(QS, k, df)
        assert np.max(np.abs(ours - ref)) < 1e-8, (k, df, ours, ref)


@pytest.mark.parametrize("df", [1.5, 2, 9, 40, 500, 20_000, math.inf])
def test_two_means_are_a_t_test(df):
    """Q_{2, df} = sqrt(2) |t_df|: P(Q >= q) = 2 P(t_df >= q / sqrt 2) (at df = inf, 2 (1 - Phi(q / sqrt 2)))."""
    q = np.linspace(0.0, 15.0, 61)
    exact = 2 * (scipy.stats.norm.sf(q / math.sqrt(2)) if math.isinf(df) else scipy.stats.t.sf(q / math.sqrt(2), df))
    assert np.max(np.abs(studentized_range_sf(q, 2, df) - exact)) < 1e-10


def test_limits_shape_and_monotone():
    q = np.array([[0.0, 1.0], [4.0, np.inf]])
    p = studentized_range_sf(q, 10, 50)
    assert p.shape == (2, 2) and p[0, 0] == 1.0 and p[1, 1] == 0.0
    fine = studentized_range_sf(np.linspace(0, 12, 500), 10, 50)
    assert np.all(np.diff(fine) <= 0) and np.all((fine >= 0) & (fine <= 1))
    far = float(studentized_range_sf(40.0, 200, 3))  # the heavy tail of a 3-df variance estimate
    assert far == pytest.approx(scipy.stats.studentized_range.sf(40.0, 200, 3), abs=1e-8) and far > 1e-3


@pytest.mark.parametrize("k, df", [(3, 20), (59, 3074), (2, 2), (200, math.inf), (37, 1512)])
def test_the_critical_value_inverts_the_tail(k, df):
    q = studentized_range_isf(0.05, k, df)
    assert q == pytest.approx(scipy.stats.studentized_range.isf(0.05, k, df), abs=1e-8)
    assert float(studentized_range_sf(q, k, df)) == pytest.approx(0.05, abs=1e-12)


@pytest.mark.parametrize("call, message", [
    (lambda: studentized_range_sf(1.0, 1, 10), "k .* integer >= 2"),
    (lambda: studentized_range_sf(1.0, 2.5, 10), "k .* integer >= 2"),
    (lambda: studentized_range_sf(1.0, 3, 0), "df .* > 0"),
    (lambda: studentized_range_sf(1.0, 3, float("nan")), "df .* > 0"),
    (lambda: studentized_range_sf(-1.0, 3, 10), "q .* >= 0"),
    (lambda: studentized_range_sf([1.0, float("nan")], 3, 10), "q .* not NaN"),
    (lambda: studentized_range_isf(1.5, 3, 10), r"p must be in \(0, 1\)"),
])
def test_bad_arguments_are_refused(call, message):
    with pytest.raises(DiscpowerError, match=message):
        call()


@pytest.mark.slow
def test_the_parametric_tukey_hsd_uses_it():
    """On 12 topics x 40 systems: the p-values equal scipy's within 1e-8, and a call is far below scipy's
    second (this is not a benchmark: benchmarks/bench_tukey.py times it)."""
    rng = np.random.default_rng(3)
    X = rng.random((12, 40)) + np.linspace(0, 0.3, 40)
    discpower.parametric_tukey_hsd(X)  # compiles
    t0 = time.perf_counter()
    res = discpower.parametric_tukey_hsd(X)
    elapsed = time.perf_counter() - t0
    i, j = np.triu_indices(40, 1)
    ref = scipy.stats.studentized_range.sf(res.statistic[i, j], 40, 39 * 11)
    assert np.max(np.abs(res.pvalue[i, j] - ref)) < 1e-8
    assert elapsed < 1.0
