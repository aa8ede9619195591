"""Paired randomised Tukey HSD (Carterette 2012, TOIS; Sakai 2018, Laboratory Experiments in IR).

On an n topics x m systems matrix X::

    S_j = sum_t X[t, j];   d_ij = |S_i - S_j| / n
    for b in 1..B: permute each row of X independently; r_b = (max_j S*_j - min_j S*_j) / n
    p_ij = (#{b : r_b >= d_ij - 1e-10} + 1) / (B + 1)     (plus_one=False: count / B)

The observed labelling is counted by default (Phipson & Smyth 2010: a randomised p-value is never 0,
as scipy's permutation tests do); ``plus_one=False`` gives Sakai's Discpower tool's count / B. The tolerance
1e-10 matters: scores sit on grids (P@10 in steps of 0.1), so exact ties between
d_ij and r_b are common and floating-point sums must not break them.

Each trial b draws from its own counter-based stream (:mod:`discpower.stats.rng`),
so the p-values are bit-identical for a seed whatever the number of threads.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import prange

from cwla._shared import FLAG, jit

from .._params import TRIALS, validated
from ..typing import Matrix, Seed
from .matrix import finite_sums, score_matrix
from .memory import null_memory
from .result import PairwiseTest
from .rng import SEED, n_tasks, shuffle, task_span, trial_state
from .trials import in_slices

__all__ = ["randomised_tukey_hsd", "tukey_test", "TIE_TOLERANCE"]

#: d_ij and r_b closer than this count as a tie (scores sit on grids)
TIE_TOLERANCE = 1e-10


@jit()
def column_sums(X):
    """S_j = sum_t X[t, j], summed in topic order (the order every trial uses)."""
    n, m = X.shape
    S = np.zeros(m)
    for t in range(n):
        for j in range(m):
            S[j] += X[t, j]
    return S


@jit(inline=True)
def relabelled_sums(X, seed, b, perm, S, Y):
    """Trial b of the relabelling: each topic's row of X permuted across the systems, topic by topic in topic
    order, the permutation ``perm`` shuffled further from trial b's stream for each (from the identity);
    ``S[j] = sum_t X[t, perm_t[j]]``, summed in topic order, and, where Y has rows, ``Y[t, j] = X[t, perm_t[j]]``."""
    n, m = X.shape
    keep = Y.shape[0] > 0
    for j in range(m):
        perm[j] = j
        S[j] = 0.0
    state = trial_state(seed, b)
    for t in range(n):
        state = shuffle(perm, state)
        for j in range(m):
            y = X[t, perm[j]]
            S[j] += y
            if keep:
                Y[t, j] = y


@jit(parallel=True)
def null_ranges_into(X, seed, b0, out):
    """out[k] = r_b = (max_j S*_j - min_j S*_j) / n for trial b = b0 + k, each row of X permuted."""
    n, m = X.shape
    for c in prange(n_tasks(out.shape[0])):
        perm = np.empty(m, dtype=np.int64)
        S = np.empty(m)
        none = np.empty((0, m))
        first, end = task_span(c, out.shape[0])
        for k in range(first, end):
            relabelled_sums(X, seed, b0 + k, perm, S, none)
            lo = S[0]
            hi = S[0]
            for j in range(1, m):
                if S[j] < lo:
                    lo = S[j]
                if S[j] > hi:
                    hi = S[j]
            out[k] = (hi - lo) / n


def null_ranges(X, n_trials, seed, label="tukey"):
    """r_b = (max_j S*_j - min_j S*_j) / n for b = 0..n_trials-1, each row of X permuted (in slices:
    :func:`~discpower.stats.trials.in_slices`; ``label`` names the test in the progress line)."""
    return in_slices(null_ranges_into, (X,), seed, n_trials, label)


def exceedance_pvalues(observed, null, plus_one=False, tolerance=TIE_TOLERANCE):
    """#{b : null_b >= observed - tolerance} / B (or (count + 1) / (B + 1)), elementwise."""
    null = np.sort(np.asarray(null, dtype=np.float64))
    count = len(null) - np.searchsorted(null, np.asarray(observed) - tolerance, side="left")
    if plus_one:
        return (count + 1.0) / (len(null) + 1.0)
    return count / float(len(null))


@validated({"n_trials": TRIALS, "seed": SEED, "plus_one": FLAG})
def randomised_tukey_hsd(X: Matrix, n_trials: int = 10_000, seed: Seed = None, *, systems: Sequence[str] | None = None,
                         plus_one: bool = True) -> PairwiseTest:
    """Paired randomised Tukey HSD test of every pair of systems.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_topics, n_systems)
        Scores, one row per topic, one column per system (a DataFrame's columns
        name the systems).
    n_trials : int
        B, the number of random relabellings (100,000 is practical).
    seed : int, numpy Generator or None
        Same seed, same p-values, whatever the number of threads. None draws a
        seed and records it in the result.
    systems : sequence of str, optional
        System names (default: the DataFrame's columns, or S1..Sm).
    plus_one : bool
        p = (count + 1) / (B + 1) (default; Phipson & Smyth 2010: never 0); False: count / B.

    Returns
    -------
    PairwiseTest
        ``statistic`` = d_ij, ``pvalue`` = p_ij, ``null_distribution`` = the r_b.

    Raises
    ------
    DiscpowerError
        A bad matrix or parameter; scores whose sums overflow; ``n_trials`` whose null
        distribution (16 bytes a trial) does not fit in the available memory.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.7, 0.5, 0.0], [0.3, 0.1, 0.0], [0.2, 0.0, 0.2], [0.6, 0.2, 0.1]])
    >>> res = randomised_tukey_hsd(X, n_trials=1000, seed=1)
    >>> res.pvalue.shape
    (3, 3)
    """
    X, names = score_matrix(X, systems=systems)
    finite_sums(X, "randomised Tukey HSD")
    null_memory(n_trials)  # the trials themselves are checked at the entry
    return tukey_test(X, names, n_trials, seed, plus_one=plus_one)


def tukey_test(X: np.ndarray, systems: tuple, n_trials: int, seed: int, *, plus_one: bool = True) -> PairwiseTest:
    """:func:`randomised_tukey_hsd` on a checked matrix (:func:`~discpower.stats.matrix.score_matrix`,
    :func:`~discpower.stats.matrix.finite_sums`) and checked trials and seed: what the entry points that
    planned their resampling (and checked its memory once) call for each test."""
    B, names = n_trials, systems
    n = X.shape[0]
    S = column_sums(X)
    d = np.abs(S[:, None] - S[None, :]) / n
    null = null_ranges(X, B, seed)
    p = exceedance_pvalues(d, null, plus_one=plus_one)
    np.fill_diagonal(p, np.nan)
    return PairwiseTest(
        method="randomised Tukey HSD", systems=names, diff=(S[:, None] - S[None, :]) / n, statistic=d,
        pvalue=p, n_topics=n, null_distribution=null, n_resamples=B, seed=seed, means=S / n, plus_one=plus_one,
    )
