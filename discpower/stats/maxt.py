"""The randomised max-t test: every pair's paired t, the maximum over pairs as the statistic (sign flips).

Westfall & Young's single-step max-T procedure with the paired t statistic and the topic-wise sign
flip as the randomisation. For systems i and j with per-topic differences ``d_t = x_ti - x_tj``::

    u_ij   = |sum_t d_t| / sqrt(Q_ij),        Q_ij = sum_t d_t^2       (u_ij = 0 when Q_ij = 0)
    t_ij   = u_ij sqrt(n - 1) / sqrt(n - u_ij^2)                        (the paired t statistic's |t|)
    for b in 1..B: flip the sign of every topic's row with probability 1/2 (s_t = +-1), S*_j = sum_t s_t x_tj;
                   T*_b = max_{i<j} t(|S*_i - S*_j| / sqrt(Q_ij))
    p_ij   = (#{b : T*_b >= t_ij - 1e-10} + 1) / (B + 1)                (plus_one=False: count / B)

Flipping a topic's row flips the sign of all its differences at once (the pairs' dependence is
kept) and leaves every Q_ij unchanged, so each trial costs O(n m) for the sums and O(m^2) for the
maximum -- no per-trial variance. ``t`` is increasing in ``u``, so the maximum is taken over the u
and transformed once.

Why it holds alpha where the randomised Tukey HSD does not: the Tukey HSD's statistic is the range
of the raw means, so a pair of high-variance runs dominates its null maximum and a pair of
low-variance, correlated runs is judged against it; each pair's own standard error puts every pair
on one scale. The sign flip assumes only that each topic's vector of differences is symmetric about
0 under the null, not that the systems are exchangeable. ``docs/calibration.md`` gives its
family-wise error under the nulls built from DL19 and DL20 (:mod:`discpower.stats.nulls`).

References
----------
Westfall & Young, *Resampling-Based Multiple Testing*, Wiley 1993 (single-step max-T, ch. 2);
Boos & Zhang, "Monte Carlo evaluation of resampling-based hypothesis tests", JASA 2000; Carterette,
"Multiple testing in statistical analysis of systems-based information retrieval experiments",
TOIS 2012 (the randomised Tukey HSD it is compared with).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numba import prange

from cwla._shared import FLAG, jit

from .._params import TRIALS, validated
from ..typing import Matrix, Seed
from .matrix import finite_sums, score_matrix
from .memory import null_memory
from .result import PairwiseTest
from .rng import SEED, n_tasks, next_u64, task_span, trial_stream
from .trials import in_slices
from .tukey import column_sums, exceedance_pvalues, relabelled_sums

__all__ = ["randomised_max_t", "max_t_test", "permutation_max_t", "perm_max_t_test"]


@jit()
def pair_weights(X):
    """W[i, j] = 1 / sqrt(sum_t (x_ti - x_tj)^2) (0 where the two columns are identical), symmetric."""
    n, m = X.shape
    W = np.zeros((m, m))
    for i in range(m):
        for j in range(i + 1, m):
            q = 0.0
            for t in range(n):
                d = X[t, i] - X[t, j]
                q += d * d
            if q > 0.0:
                W[i, j] = 1.0 / math.sqrt(q)
                W[j, i] = W[i, j]
    return W


@jit(parallel=True)
def null_maxima_into(X, W, seed, b0, out):
    """out[k] = max_{i<j} |S*_i - S*_j| W[i, j] for trial b = b0 + k, each topic's row sign-flipped with
    probability 1/2 (one bit of trial b's stream per topic)."""
    n, m = X.shape
    for c in prange(n_tasks(out.shape[0])):
        S = np.empty(m)
        first, end = task_span(c, out.shape[0])
        for k in range(first, end):
            state, bits, have = trial_stream(seed, b0 + k)
            for j in range(m):
                S[j] = 0.0
            for t in range(n):
                if have == 0:
                    state, bits = next_u64(state)
                    have = 64
                if bits & np.uint64(1):
                    for j in range(m):
                        S[j] -= X[t, j]
                else:
                    for j in range(m):
                        S[j] += X[t, j]
                bits = bits >> np.uint64(1)
                have -= 1
            best = 0.0
            for i in range(m):
                si = S[i]
                for j in range(i + 1, m):
                    v = abs(si - S[j]) * W[i, j]
                    if v > best:
                        best = v
            out[k] = best


def null_maxima(X, W, n_trials, seed):
    """max_{i<j} |S*_i - S*_j| W[i, j] for b = 0..n_trials-1 (:func:`null_maxima_into`, in slices)."""
    return in_slices(null_maxima_into, (X, W), seed, n_trials, "max-t")


def _t(u: np.ndarray, n: int) -> np.ndarray:
    """|t| of the paired t-test from u = |sum d| / sqrt(sum d^2): u sqrt(n - 1) / sqrt(n - u^2) (inf at
    u^2 >= n, a constant non-zero difference)."""
    u = np.asarray(u, dtype=np.float64)
    rest = n - u * u
    with np.errstate(divide="ignore", invalid="ignore"):
        t = u * math.sqrt(n - 1) / np.sqrt(np.where(rest > 0.0, rest, 0.0))
    return np.where(rest > 0.0, t, np.where(u > 0.0, np.inf, 0.0))


@validated({"n_trials": TRIALS, "seed": SEED, "plus_one": FLAG})
def randomised_max_t(X: Matrix, n_trials: int = 10_000, seed: Seed = None, *, systems: Sequence[str] | None = None,
                     plus_one: bool = True) -> PairwiseTest:
    """Randomised max-t test of every pair of systems (Westfall & Young's single-step max-T, paired t
    statistics, topic-wise sign flips); the module docstring gives the formulas.

    It controls the family-wise error over all C(m, 2) pairs, as the randomised Tukey HSD does, and
    keeps it near alpha where the runs' variances and correlations differ (the Tukey HSD's
    exchangeability assumption does not hold there): see ``docs/calibration.md``.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_topics, n_systems)
        Scores, one row per topic (at least 2), one column per system.
    n_trials : int
        B, the number of random sign flips.
    seed : int, numpy Generator or None
        Same seed, same p-values, whatever the number of threads (None draws one and records it).
    systems : sequence of str, optional
        System names (default: the DataFrame's columns, or S1..Sm).
    plus_one : bool
        p = (count + 1) / (B + 1) (default; Phipson & Smyth 2010: never p = 0); False: count / B.

    Returns
    -------
    PairwiseTest
        ``statistic[i, j]`` = |t_ij| (symmetric), ``pvalue`` = p_ij, ``null_distribution`` = the T*_b
        (so ``delta(alpha)`` is the critical |t|).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).random((20, 4))
    >>> X[:, 0] += 0.3
    >>> res = randomised_max_t(X, n_trials=2000, seed=1)
    >>> bool(res.pvalue[0, 1] < 0.05), res.pvalue.shape
    (True, (4, 4))
    """
    X, names = score_matrix(X, systems=systems)
    finite_sums(X, "randomised max-t test", squares=True)
    null_memory(n_trials)  # the trials themselves are checked at the entry
    return max_t_test(X, names, n_trials, seed, plus_one=plus_one)


def _observed(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(S, W, t) of a checked matrix: the column sums, :func:`pair_weights` and every pair's paired |t|."""
    S = column_sums(X)
    W = pair_weights(X)
    return S, W, _t(np.abs(S[:, None] - S[None, :]) * W, X.shape[0])


def _result(method: str, systems: tuple, S: np.ndarray, t: np.ndarray, null: np.ndarray, n: int, n_trials: int,
            seed: int, plus_one: bool) -> PairwiseTest:
    """A max-t test's PairwiseTest: p_ij from the null maxima of |t| (the module docstring)."""
    p = exceedance_pvalues(t, null, plus_one=plus_one)
    np.fill_diagonal(p, np.nan)
    np.fill_diagonal(t, 0.0)
    return PairwiseTest(method=method, systems=systems, diff=(S[:, None] - S[None, :]) / n, statistic=t, pvalue=p,
                        n_topics=n, null_distribution=null, n_resamples=n_trials, seed=seed, means=S / n,
                        plus_one=plus_one)


def max_t_test(X: np.ndarray, systems: tuple, n_trials: int, seed: int, *, plus_one: bool = True) -> PairwiseTest:
    """:func:`randomised_max_t` on a checked matrix and checked trials and seed."""
    n = X.shape[0]  # >= 2: score_matrix refuses fewer topics
    S, W, t = _observed(X)
    null = _t(null_maxima(X, W, n_trials, seed), n)
    return _result("randomised max-t", systems, S, t, null, n, n_trials, seed, plus_one)


@jit(parallel=True)
def permutation_maxima_into(X, seed, b0, out):
    """out[k] = max_{i<j} u*_ij^2 for trial b = b0 + k, where trial b permutes each topic's row of X across the m
    systems exactly as the randomised Tukey HSD's trial b does (the same stream, the same shuffles) and
    u*_ij = |sum_t d*_t| / sqrt(sum_t d*_t^2), d*_t = y_ti - y_tj on the permuted rows y (0 where the sum
    of squares is 0). O(n m) for the permuted sums, O(n m^2 / 2) for the pairs' sums of squares: unlike a
    sign flip, a permutation changes every pair's variance."""
    n, m = X.shape
    for c in prange(n_tasks(out.shape[0])):
        perm = np.empty(m, dtype=np.int64)
        Y = np.empty((n, m))
        S = np.empty(m)
        Q = np.empty(m)
        first, end = task_span(c, out.shape[0])
        for k in range(first, end):
            relabelled_sums(X, seed, b0 + k, perm, S, Y)
            best = 0.0
            for i in range(m - 1):
                for j in range(i + 1, m):
                    Q[j] = 0.0
                for t in range(n):
                    yi = Y[t, i]
                    for j in range(i + 1, m):
                        d = yi - Y[t, j]
                        Q[j] += d * d
                si = S[i]
                for j in range(i + 1, m):
                    if Q[j] > 0.0:
                        e = si - S[j]
                        v = (e * e) / Q[j]
                        if v > best:
                            best = v
            out[k] = best


def permutation_maxima(X, n_trials, seed):
    """max_{i<j} u*_ij^2 for b = 0..n_trials-1 (:func:`permutation_maxima_into`, in slices)."""
    return in_slices(permutation_maxima_into, (X,), seed, n_trials, "perm-max-t")


@validated({"n_trials": TRIALS, "seed": SEED, "plus_one": FLAG})
def permutation_max_t(X: Matrix, n_trials: int = 10_000, seed: Seed = None, *, systems: Sequence[str] | None = None,
                      plus_one: bool = True) -> PairwiseTest:
    """Studentised-permutation max-t test of every pair of systems: the randomised Tukey HSD's relabelling
    (each topic's m scores permuted across the systems) with the largest paired |t| over the pairs as the
    statistic instead of the range of the means.

    For systems i and j with per-topic differences d_t = x_ti - x_tj::

        u_ij = |sum_t d_t| / sqrt(sum_t d_t^2),   t_ij = u_ij sqrt(n - 1) / sqrt(n - u_ij^2)   (the paired |t|)
        for b in 1..B: permute each topic's row of X across the m systems (trial b of the Tukey HSD);
                       T*_b = max_{i<j} |t*_ij| on the permuted matrix
        p_ij = (#{b : T*_b >= t_ij - 1e-10} + 1) / (B + 1)          (plus_one=False: count / B)

    Single-step max-T (Westfall & Young 1993) over all C(m, 2) pairs. The Tukey HSD's range of raw means
    is exact only when the systems are exchangeable (equal variances and correlations), so a pair of
    high-variance runs dominates its null. Studentising puts every pair on one scale: for one pair, a
    studentised permutation statistic is asymptotically valid without exchangeability (Janssen 1997;
    Chung & Romano 2013). For the maximum over pairs that theory does not carry over (the relabelled
    pairs' correlations are not the data's), so its family-wise error is checked empirically, under nulls
    built from real runs (``docs/calibration.md``). A permutation changes each pair's variance, so a trial
    costs O(n m^2) where the Tukey HSD's costs O(n m).

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_topics, n_systems)
        Scores, one row per topic (at least 2), one column per system.
    n_trials : int
        B, the number of random relabellings.
    seed : int, numpy Generator or None
        Same seed, same p-values, whatever the number of threads (None draws one and records it); the
        same seed gives the randomised Tukey HSD's relabellings.
    systems : sequence of str, optional
        System names (default: the DataFrame's columns, or S1..Sm).
    plus_one : bool
        p = (count + 1) / (B + 1) (default; Phipson & Smyth 2010: never p = 0); False: count / B.

    Returns
    -------
    PairwiseTest
        ``statistic[i, j]`` = |t_ij| (symmetric), ``pvalue`` = p_ij, ``null_distribution`` = the T*_b
        (so ``delta(alpha)`` is the critical |t|).

    References
    ----------
    Westfall & Young, *Resampling-Based Multiple Testing*, Wiley 1993; Janssen, "Studentized permutation
    tests for non-i.i.d. hypotheses and the generalized Behrens-Fisher problem", Statistics & Probability
    Letters 36, 1997; Chung & Romano, "Exact and asymptotically robust permutation tests", Annals of
    Statistics 41(2), 2013; Carterette, TOIS 2012 (the randomised Tukey HSD's relabelling).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).random((20, 4))
    >>> X[:, 0] += 0.3
    >>> res = permutation_max_t(X, n_trials=2000, seed=1)
    >>> bool(res.pvalue[0, 1] < 0.05), res.pvalue.shape
    (True, (4, 4))
    """
    X, names = score_matrix(X, systems=systems)
    finite_sums(X, "studentised-permutation max-t test", squares=True)
    null_memory(n_trials)  # the trials themselves are checked at the entry
    return perm_max_t_test(X, names, n_trials, seed, plus_one=plus_one)


def perm_max_t_test(X: np.ndarray, systems: tuple, n_trials: int, seed: int, *, plus_one: bool = True) -> PairwiseTest:
    """:func:`permutation_max_t` on a checked matrix and checked trials and seed."""
    n = X.shape[0]
    S, _, t = _observed(X)
    null = _t(np.sqrt(permutation_maxima(X, n_trials, seed)), n)
    return _result("studentised-permutation max-t", systems, S, t, null, n, n_trials, seed, plus_one)
