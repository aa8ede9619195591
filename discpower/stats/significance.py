"""Pairwise significance tests beside the randomised Tukey HSD, all returning :class:`PairwiseTest`.

* :func:`paired_t_test` -- Student's paired t-test of every pair, optionally with a
  Holm or Bonferroni correction over the C(m, 2) pairs.
* :func:`parametric_tukey_hsd` -- Sakai's paired Tukey HSD: the residual variance of
  a two-way ANOVA without replication (systems x topics) and the studentized range
  distribution (Sakai 2018, *Laboratory Experiments in Information Retrieval*, ch. 4).
* :func:`fisher_randomisation` -- the two-system randomisation (sign-flip) test of
  the mean difference, randomised or exact (Smucker, Allan & Carterette, CIKM 2007).
* :func:`paired_bootstrap` -- Sakai's paired bootstrap test of the mean difference
  (Sakai, SIGIR 2006, "Evaluating evaluation metrics based on the bootstrap").
* :func:`wilcoxon_signed_rank` -- Wilcoxon's signed-rank test of two systems (scipy's
  :func:`scipy.stats.wilcoxon` with its defaults).
* :func:`paired_sign_test` -- the sign test of two systems: the exact binomial test of the
  number of topics the first system wins (:func:`scipy.stats.binomtest`).
* :func:`adjust_pvalues` -- the multiple-comparison corrections of statsmodels'
  ``multipletests``, in numpy (declared in :mod:`discpower.stats.corrections`).

In every result ``diff[i, j]`` is mean(system i) - mean(system j) over the topics,
``pvalue`` is symmetric with NaN on the diagonal, and the resampling tests record
``null_distribution``, ``n_resamples`` and ``seed``. The resampling kernels draw
each trial's numbers from a stream seeded by (seed, trial) (:mod:`discpower.stats.rng`),
so a seed gives bit-identical p-values whatever the number of numba threads.
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Sequence

import numpy as np
from numba import prange

from cwla._shared import FLAG, NONE, jit

from .._params import TRIALS, validated
from ..errors import DiscpowerError
from ..typing import ArrayLike, Matrix, Seed
from .matrix import finite_sums, float_array, score_matrix
from .corrections import CORRECTION_NAMES, CORRECTIONS, adjust_pvalues, check_correction
from .memory import null_memory, null_trials
from .ptukey import studentized_range_sf
from .result import PairwiseTest
from .rng import SEED, SEED_AS_GIVEN, n_tasks, next_below, seed_value, task_span, trial_stream
from .trials import in_slices
from .tukey import TIE_TOLERANCE, column_sums, exceedance_pvalues, null_ranges

__all__ = ["fisher_test", "mean_diff", "bootstrap_test", "paired_t_test", "parametric_tukey_hsd", "fisher_randomisation", "paired_bootstrap",
           "MAX_EXACT_TOPICS", "adjust_pvalues", "check_correction", "CORRECTIONS", "CORRECTION_NAMES",
           "wilcoxon_signed_rank", "wilcoxon_test", "paired_sign_test", "sign_test", "checked_pvalue"]

#: the largest number of topics for which ``fisher_randomisation(exact=True)`` enumerates the 2^n sign flips
MAX_EXACT_TOPICS = 24
_MASKS_PER_TASK = 4096  # sign-flip masks per parallel task of the exact test
_CORRECTIONS = (None, "holm", "bonferroni")  # those of paired_t_test


# ----------------------------------------------------------------------------- helpers

def _square(values, i, j, m, *, antisymmetric=False, diagonal=np.nan):
    """An (m, m) matrix with ``values`` at (i, j) and mirrored at (j, i)."""
    out = np.zeros((m, m))
    out[i, j] = values
    out[j, i] = -values if antisymmetric else values
    np.fill_diagonal(out, diagonal)
    return out


def mean_diff(X):
    """(means, diff) with means = column sums / n (topic order, as the randomised tests)."""
    means = column_sums(X) / X.shape[0]
    return means, means[:, None] - means[None, :]


# ----------------------------------------------------------------------------- paired t-test

def paired_t_test(X: Matrix, *, systems: Sequence[str] | None = None, correction: str | None = None) -> PairwiseTest:
    """Two-sided paired t-test of every pair of systems (Student 1908).

    For systems i and j with per-topic differences ``d_t = X[t, i] - X[t, j]``::

        t_ij = dbar / (s_d / sqrt(n)),   s_d^2 = sum (d_t - dbar)^2 / (n - 1)
        p_ij = 2 P(T_{n-1} >= |t_ij|)

    computed by :func:`scipy.stats.ttest_rel` (vectorised over the pairs), so the
    values are scipy's.

    Zero variance of the differences (all d_t exactly equal): scipy gives
    t = +-inf, p = 0 when the common difference is non-zero -- kept -- and
    t = NaN, p = NaN when the two systems have identical scores on every topic.
    So that NaN never leaks, identical pairs get ``statistic = 0`` and
    ``pvalue = 1`` (no evidence of a difference). These pairs are decided without
    calling scipy, so its "precision loss" warning does not fire for them.
    Differences that are equal only up to rounding (e.g. ``x`` and ``x - 0.1``)
    are not constant: scipy warns about precision loss and returns a huge |t| and a
    p-value near 0.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_topics, n_systems)
        Scores, one row per topic, one column per system.
    systems : sequence of str, optional
        System names (default: the DataFrame's columns, or S1..Sm).
    correction : {None, "holm", "bonferroni"}
        Multiple-comparison adjustment of the C(m, 2) p-values (see
        :func:`adjust_pvalues`); None reports the per-pair p-values.

    Returns
    -------
    PairwiseTest
        ``statistic[i, j]`` = t_ij (antisymmetric: t_ji = -t_ij), ``pvalue`` the
        (adjusted) two-sided p-values.

    References
    ----------
    Sakai, *Laboratory Experiments in Information Retrieval*, Springer 2018, ch. 2.
    Holm, "A simple sequentially rejective multiple test procedure", Scand. J. Stat. 1979.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.7, 0.5, 0.0], [0.3, 0.1, 0.0], [0.2, 0.0, 0.2], [0.6, 0.2, 0.1]])
    >>> res = paired_t_test(X, correction="holm")
    >>> res.pvalue.shape, res.method
    ((3, 3), 'paired t-test (holm)')
    """
    if correction not in _CORRECTIONS:
        raise DiscpowerError(f"The 'correction' parameter must be one of None, 'holm' or 'bonferroni'. "
                             f"Got {correction!r} instead.")
    X, names = score_matrix(X, systems=systems)
    finite_sums(X, "paired t-test", squares=True)
    n, m = X.shape
    i, j = np.triu_indices(m, k=1)
    D = X[:, i] - X[:, j]
    constant = np.all(D == D[:1], axis=0)  # zero variance: scipy's answer without its precision warning
    t = np.where(D[0] == 0.0, 0.0, np.copysign(np.inf, D[0]))
    p = np.where(D[0] == 0.0, 1.0, 0.0)
    varying = ~constant
    if varying.any():
        import scipy.stats  # here, not at import time: scipy.stats costs about 0.5 s to import

        res = scipy.stats.ttest_rel(X[:, i[varying]], X[:, j[varying]], axis=0)
        t[varying] = res.statistic
        p[varying] = res.pvalue
    if np.isnan(p).any():  # cannot happen for finite scores; never let it pass silently
        k = int(np.flatnonzero(np.isnan(p))[0])
        raise DiscpowerError(f"the t-test of {names[i[k]]} vs {names[j[k]]} gave a NaN p-value")
    p = adjust_pvalues(p, correction)
    _, diff = mean_diff(X)
    method = "paired t-test" if correction is None else f"paired t-test ({correction})"
    return PairwiseTest(method=method, systems=names, diff=diff,
                        statistic=_square(t, i, j, m, antisymmetric=True, diagonal=0.0),
                        pvalue=_square(p, i, j, m), n_topics=n, means=X.mean(axis=0))


# ----------------------------------------------------------------------------- parametric Tukey HSD

def residual_squares(X: np.ndarray) -> tuple[float, int]:
    """SS_E and its degrees of freedom of the two-way ANOVA without replication of a checked n x m matrix:
    sum (x_tj - xbar_t. - xbar_.j + xbar..)^2 and (n - 1)(m - 1)."""
    n, m = X.shape
    residual = X - X.mean(axis=1, keepdims=True) - X.mean(axis=0) + X.mean()
    return float(np.sum(residual * residual)), (n - 1) * (m - 1)


def studentized_ranges(X: Matrix) -> tuple[np.ndarray, np.ndarray, int]:
    """The paired Tukey HSD's statistics of a checked matrix: (diff, q, dof) with ``diff[i, j]`` =
    mean i - mean j, ``q[i, j]`` = |diff| / sqrt(V_E / n) (0 on the diagonal; inf where V_E = 0 and
    the means differ) and dof = (m - 1)(n - 1). See :func:`parametric_tukey_hsd`."""
    n, m = X.shape
    _, diff = mean_diff(X)
    ss, dof = residual_squares(X)
    v_e = ss / dof
    absdiff = np.abs(diff)
    if v_e > 0.0:
        q = absdiff / math.sqrt(v_e / n)
    else:
        q = np.where(absdiff == 0.0, 0.0, np.inf)
    np.fill_diagonal(q, 0.0)
    return diff, q, dof


def parametric_tukey_hsd(X: Matrix, *, systems: Sequence[str] | None = None) -> PairwiseTest:
    """Sakai's paired (two-way ANOVA) Tukey HSD test of every pair of systems.

    The topics are a blocking factor: with system means ``xbar_.j``, topic means
    ``xbar_t.`` and grand mean ``xbar..`` of the n x m matrix,

    ::

        V_E  = sum_{t,j} (x_tj - xbar_t. - xbar_.j + xbar..)^2 / ((m - 1)(n - 1))
        q_ij = |xbar_.i - xbar_.j| / sqrt(V_E / n)
        p_ij = P(Q_{m, (m-1)(n-1)} >= q_ij)     (the studentised range distribution)

    V_E is the residual mean square of the two-way ANOVA without replication, so
    the test is paired; the unpaired :func:`scipy.stats.tukey_hsd` (one-way ANOVA,
    df m(n - 1)) is a different, less powerful test. On Sakai's Table 5.1 this
    test gives p(A,B) = .2567, p(A,C) = .0957, p(B,C) = .8550 where the unpaired
    one gives .3941 / .1958 / .9001.

    If V_E = 0 (the scores are exactly additive in system and topic) a pair with
    equal means gets q = 0, p = 1 and any other pair q = inf, p = 0.

    The studentised range distribution is :func:`discpower.stats.ptukey.studentized_range_sf`
    (compiled, within 1e-8 of ``scipy.stats.studentized_range.sf``, which integrates each q
    numerically for about 10 ms): a few milliseconds a call on 59 systems.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_topics, n_systems)
        Scores, one row per topic, one column per system.
    systems : sequence of str, optional
        System names (default: the DataFrame's columns, or S1..Sm).

    Returns
    -------
    PairwiseTest
        ``statistic[i, j]`` = q_ij (symmetric, 0 on the diagonal).

    References
    ----------
    Sakai, *Laboratory Experiments in Information Retrieval*, Springer 2018, ch. 4
    (Tukey HSD with paired observations); Tukey 1949.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.7, 0.5, 0.0], [0.3, 0.1, 0.0], [0.2, 0.0, 0.2], [0.6, 0.2, 0.1]])
    >>> res = parametric_tukey_hsd(X, systems=["A", "B", "C"])
    >>> res.to_frame()[["system_a", "system_b"]].values.tolist()
    [['A', 'B'], ['A', 'C'], ['B', 'C']]
    """
    X, names = score_matrix(X, systems=systems)
    finite_sums(X, "parametric Tukey HSD", squares=True)
    n, m = X.shape
    diff, q, dof = studentized_ranges(X)
    i, j = np.triu_indices(m, k=1)
    p = studentized_range_sf(q[i, j], m, dof)
    np.fill_diagonal(q, 0.0)
    return PairwiseTest(method="parametric Tukey HSD", systems=names, diff=diff, statistic=q,
                        pvalue=_square(p, i, j, m), n_topics=n, means=X.mean(axis=0))


# ----------------------------------------------------------------------------- two systems

def _two_systems(x, y, systems, func):
    """Validate (x, y) or a 2-column x: an (n, 2) float matrix and two names."""
    if y is None:
        if not (hasattr(x, "to_numpy") and hasattr(x, "columns")) and np.ndim(x) == 1:
            raise DiscpowerError(f"{func} compares two systems: pass two score vectors x and y, or one "
                                 f"topics x 2 matrix; got a single vector and y=None")
        X, names = score_matrix(x, systems=systems, min_systems=2)
        if X.shape[1] != 2:
            raise DiscpowerError(f"{func} compares exactly two systems, X has {X.shape[1]} columns; "
                                 f"use randomised_tukey_hsd for more than two")
        return X, names
    cols = []
    for label, v in (("x", x), ("y", y)):
        cols.append(float_array(v, 1, f"{label} must be a vector of scores (one per topic)",
                                lambda a, label=label: f"with y given, x and y must be 1-dimensional score vectors; "
                                                       f"{label} has shape {a.shape}"))
    if cols[0].shape != cols[1].shape:
        raise DiscpowerError(f"x and y must score the same topics: x has {cols[0].size} scores, "
                             f"y has {cols[1].size}")
    if systems is None:
        systems = [getattr(v, "name", None) for v in (x, y)]
        if not all(isinstance(s, str) and s for s in systems) or systems[0] == systems[1]:
            systems = None
    return score_matrix(np.column_stack(cols), name="(x, y)", systems=systems)


def _pair_result(method: str, X: np.ndarray, systems: tuple, statistic: np.ndarray, p: float, *,
                 diff: np.ndarray | None = None, **fields) -> PairwiseTest:
    """The 2 x 2 :class:`PairwiseTest` of a test of two systems (the columns of ``X``): ``statistic`` its
    2 x 2 matrix, ``p`` the pair's p-value; ``diff`` (default: the mean differences of ``X``) and the
    resampling ``fields`` as the test has them."""
    if diff is None:
        _, diff = mean_diff(X)
    return PairwiseTest(method=method, systems=systems, diff=diff, statistic=statistic,
                        pvalue=np.array([[np.nan, p], [p, np.nan]]), n_topics=X.shape[0], means=X.mean(axis=0),
                        **fields)


@jit(parallel=True)
def _exact_flip_count(X, threshold):
    """#{masks in [0, 2^n) : |S0 - S1| / n >= threshold}, topic t's scores swapped where bit t is set."""
    n = X.shape[0]
    total = np.int64(1) << np.int64(n)
    counts = np.zeros(n_tasks(total, _MASKS_PER_TASK), dtype=np.int64)
    for c in prange(counts.shape[0]):
        k = np.int64(0)
        first, end = task_span(c, total, _MASKS_PER_TASK)
        for mask in range(first, end):
            s0 = 0.0
            s1 = 0.0
            for t in range(n):
                if (mask >> t) & 1:
                    s0 += X[t, 1]
                    s1 += X[t, 0]
                else:
                    s0 += X[t, 0]
                    s1 += X[t, 1]
            if abs(s0 - s1) / n >= threshold:
                k += 1
        counts[c] = k
    return counts.sum()


@validated({"n_trials": (TRIALS, NONE), "seed": SEED_AS_GIVEN, "exact": FLAG, "plus_one": FLAG})
def fisher_randomisation(x: ArrayLike, y: ArrayLike | None = None, *, n_trials: int = 10_000, seed: Seed = None,
                         systems: Sequence[str] | None = None, exact: bool = False,
                         plus_one: bool = True) -> PairwiseTest:
    """Fisher's randomisation (permutation) test of the mean difference of two systems.

    Under the null hypothesis the labels of each topic's two scores are
    exchangeable, so relabelling a topic flips the sign of its difference. With
    column sums S_1, S_2 over the n topics::

        d = |S_1 - S_2| / n
        for b in 1..B: swap each topic's two scores with probability 1/2;
                       r_b = |S*_1 - S*_2| / n
        p = (#{b : r_b >= d - 1e-10} + 1) / (B + 1)        (plus_one=False: count / B)

    This is the randomised Tukey HSD with m = 2 (the same kernel,
    :func:`discpower.stats.tukey.null_ranges`, and the same 1e-10 tie tolerance: scores
    sit on grids, so ties between d and r_b are exact and must not be broken by
    rounding).

    ``exact=True`` enumerates all 2^n relabellings instead (n <= 24) and counts the
    observed one, as exact tests do::

        p = #{flips : r >= d - 1e-10} / 2^n

    Parameters
    ----------
    x : array-like of shape (n_topics,), or (n_topics, 2) matrix / DataFrame
        Scores of the first system, or both systems as two columns (then y is None).
    y : array-like of shape (n_topics,), optional
        Scores of the second system on the same topics.
    n_trials : int
        B, the number of random relabellings (unused when ``exact``, where it may be None; checked all the same).
    seed : int, numpy Generator or None
        Same seed, same p-value, whatever the number of threads (None draws one
        and records it in the result).
    systems : sequence of two str, optional
        Names (default: the DataFrame's columns or the Series' names, else S1, S2).
    exact : bool
        Enumerate the 2^n sign flips (n <= 24) instead of sampling.
    plus_one : bool
        p = (count + 1) / (B + 1) (default; Phipson & Smyth 2010: never 0); False: count / B (randomised
        test only).

    Returns
    -------
    PairwiseTest
        2 x 2; ``statistic`` = d. The randomised test records the r_b as
        ``null_distribution``; the exact test records no null distribution, seed or
        ``n_resamples`` (its p-value is a multiple of 1 / 2^n).

    References
    ----------
    Fisher, *The Design of Experiments*, 1935; Smucker, Allan & Carterette, "A
    comparison of statistical significance tests for information retrieval
    evaluation", CIKM 2007; Sakai, *Laboratory Experiments in IR*, 2018, ch. 4.

    Examples
    --------
    >>> x = [0.7, 0.3, 0.2, 0.6, 0.4]
    >>> y = [0.5, 0.1, 0.0, 0.2, 0.4]
    >>> float(fisher_randomisation(x, y, exact=True).pvalue[0, 1])  # all signs equal: 4 of 2^5 flips
    0.125
    """
    X, names = _two_systems(x, y, systems, "fisher_randomisation")
    finite_sums(X, "Fisher randomisation")
    B = seed_ = None
    if not exact:
        B = null_trials(n_trials)
        seed_ = seed_value(seed)
    return fisher_test(X, names, B, seed_, plus_one=plus_one, exact=exact)


def fisher_test(X: np.ndarray, systems: tuple, n_trials: int | None, seed: int | None, *, plus_one: bool = True,
                exact: bool = False) -> PairwiseTest:
    """:func:`fisher_randomisation` on a checked (n, 2) matrix and checked trials and seed (None if exact)."""
    names, B = systems, n_trials
    n = X.shape[0]
    S = column_sums(X)
    d = abs(S[0] - S[1]) / n
    means = S / n
    diff = means[:, None] - means[None, :]
    stat = np.array([[0.0, d], [d, 0.0]])
    if exact:
        if n > MAX_EXACT_TOPICS:
            raise DiscpowerError(f"exact=True enumerates 2^n sign flips and allows n <= {MAX_EXACT_TOPICS} "
                                 f"topics; got n = {n} (use the randomised test, exact=False)")
        count = int(_exact_flip_count(X, d - TIE_TOLERANCE))
        p = count / float(2**n)
        return _pair_result("exact Fisher randomisation", X, names, stat, p, diff=diff)
    null = null_ranges(X, B, seed, "fisher")
    p = float(exceedance_pvalues(d, null, plus_one=plus_one))
    return _pair_result("Fisher randomisation", X, names, stat, p, diff=diff, null_distribution=null,
                        n_resamples=B, seed=seed)


# ----------------------------------------------------------------------------- paired bootstrap

@jit(parallel=True)
def bootstrap_null_into(w, seed, b0, out):
    """out[b] = |z*| of trial b0 + b: z of a with-replacement sample of w (0 if the sample is constant)."""
    n = w.shape[0]
    root_n = math.sqrt(n)
    for c in prange(n_tasks(out.shape[0])):
        sample = np.empty(n)
        first, end = task_span(c, out.shape[0])
        for b in range(first, end):
            state, bits, have = trial_stream(seed, b0 + b)
            total = 0.0
            for k in range(n):
                state, bits, have, j = next_below(state, bits, have, n)
                v = w[j]
                sample[k] = v
                total += v
            mean = total / n
            ss = 0.0
            lo = sample[0]
            hi = sample[0]
            for k in range(n):
                e = sample[k] - mean
                ss += e * e
                if sample[k] < lo:
                    lo = sample[k]
                if sample[k] > hi:
                    hi = sample[k]
            if lo == hi:
                # a constant resample: z* is 0 for all zeros and infinite otherwise (its spread is 0)
                out[b] = 0.0 if lo == 0.0 else np.inf
            else:
                out[b] = abs(mean / (math.sqrt(ss / (n - 1)) / root_n))


def bootstrap_null(w, n_trials, seed):
    """|z*_b| for b = 0..n_trials-1 (:func:`bootstrap_null_into`, in slices)."""
    return in_slices(bootstrap_null_into, (w,), seed, n_trials, "bootstrap")


def _z(d):
    """dbar / (s_d / sqrt(n)), summed in topic order; 0 for d all 0, +-inf for a constant non-zero d."""
    n = d.shape[0]
    mean = float(np.sum(d)) / n
    if d.min() == d.max():
        return 0.0 if d[0] == 0.0 else math.copysign(math.inf, d[0])
    sd = math.sqrt(float(np.sum((d - mean) ** 2)) / (n - 1))
    return mean / (sd / math.sqrt(n))


@validated({"n_trials": TRIALS, "seed": SEED, "plus_one": FLAG})
def paired_bootstrap(x: ArrayLike, y: ArrayLike | None = None, *, n_trials: int = 10_000, seed: Seed = None,
                     systems: Sequence[str] | None = None, plus_one: bool = True) -> PairwiseTest:
    """Sakai's paired bootstrap hypothesis test of the mean difference of two systems.

    With per-topic differences ``d_t = x_t - y_t`` (t = 1..n)::

        z    = dbar / (s_d / sqrt(n)),      s_d^2 = sum (d_t - dbar)^2 / (n - 1)
        w_t  = d_t - dbar                   (the differences shifted to obey the null)
        for b in 1..B: w*_b = n draws from w with replacement;
                       z*_b = mean(w*_b) / (s(w*_b) / sqrt(n))   (0 when w*_b is constant)
        p    = (#{b : |z*_b| >= |z| - 1e-10} + 1) / (B + 1)      (two-sided ASL; plus_one=False: count / B)

    (Sakai's paper counts |z*_b| >= |z|; the 1e-10 tolerance is the package's tie
    rule, as in the randomisation tests.) Identical systems (d = 0 everywhere) get
    z = 0 and p = 1; a constant non-zero difference gives |z| = inf and p = 0.

    Each trial b draws its indices from the counter-based stream seeded by
    (seed, b), so a seed gives bit-identical p-values whatever the number of threads.

    Parameters
    ----------
    x : array-like of shape (n_topics,), or (n_topics, 2) matrix / DataFrame
        Scores of the first system, or both systems as two columns (then y is None).
    y : array-like of shape (n_topics,), optional
        Scores of the second system on the same topics.
    n_trials : int
        B, the number of bootstrap samples (Sakai used B = 1000).
    seed : int, numpy Generator or None
        The seed of the resampling (None draws one and records it).
    systems : sequence of two str, optional
        Names (default: the DataFrame's columns or the Series' names, else S1, S2).
    plus_one : bool
        p = (count + 1) / (B + 1) (default; Phipson & Smyth 2010: never 0); False: count / B.

    Returns
    -------
    PairwiseTest
        2 x 2; ``statistic[0, 1]`` = z (antisymmetric: ``statistic[1, 0]`` = -z);
        ``null_distribution`` = the |z*_b|, so ``delta(alpha)`` is the critical |z|.

    References
    ----------
    Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006
    (Figure 1, the paired bootstrap test); Efron & Tibshirani, *An Introduction to
    the Bootstrap*, 1993, section 16.

    Examples
    --------
    >>> x = [0.7, 0.3, 0.2, 0.6, 0.4, 0.4, 0.0, 0.7]
    >>> y = [0.5, 0.1, 0.0, 0.2, 0.4, 0.3, 0.0, 0.5]
    >>> res = paired_bootstrap(x, y, n_trials=1000, seed=1)
    >>> res.n_resamples, res.null_distribution.shape
    (1000, (1000,))
    """
    X, names = _two_systems(x, y, systems, "paired_bootstrap")
    finite_sums(X, "paired bootstrap", squares=True)
    null_memory(n_trials)  # the trials themselves are checked at the entry
    return bootstrap_test(X, names, n_trials, seed, plus_one=plus_one)


def bootstrap_test(X: np.ndarray, systems: tuple, n_trials: int, seed: int, *, plus_one: bool = True) -> PairwiseTest:
    """:func:`paired_bootstrap` on a checked (n, 2) matrix and checked trials and seed."""
    names, B = systems, n_trials
    n = X.shape[0]
    d = X[:, 0] - X[:, 1]
    z = _z(d)
    dbar = float(np.sum(d)) / n
    w = np.ascontiguousarray(d - dbar)
    null = bootstrap_null(w, B, seed)
    p = float(exceedance_pvalues(abs(z), null, plus_one=plus_one))
    return _pair_result("paired bootstrap", X, names, np.array([[0.0, z], [-z, 0.0]]), p, null_distribution=null,
                        n_resamples=B, seed=seed)


# ----------------------------------------------------------------------------- rank and sign tests

def wilcoxon_signed_rank(x: ArrayLike, y: ArrayLike | None = None, *,
                         systems: Sequence[str] | None = None) -> PairwiseTest:
    """Wilcoxon's signed-rank test of two systems: :func:`scipy.stats.wilcoxon` with scipy's defaults.

    With the per-topic differences ``d_t = x_t - y_t``:

    * **zero differences** are dropped (scipy's default ``zero_method="wilcox"``, Wilcoxon 1945): the
      test is on the n' topics where the systems differ;
    * the |d_t| are ranked 1..n', **ties** getting the average of their ranks;
      ``R+ = sum of the ranks of the positive d_t``, ``R- = n'(n' + 1)/2 - R+``; the statistic is
      ``min(R+, R-)`` (two-sided);
    * the p-value is two-sided and computed as scipy decides (``method="auto"``; scipy >= 1.13):
      the exact null distribution of R+ when there are at most 50 topics and no ties or zero
      differences; with ties or zeros, the exact permutation distribution (all 2^n sign flips) when
      n <= 13, else the normal approximation, ``z = (R+ - n'(n' + 1)/4) / sigma`` with the tie-corrected
      ``sigma^2 = (n'(n' + 1)(2n' + 1) - sum_ties (t^3 - t)/2) / 24`` and no continuity correction
      (scipy's default ``correction=False``); the normal approximation above 50 topics. Older scipy
      versions decide a little differently; the p-value is always the installed scipy's.

    Two systems with the same score on every topic (no non-zero difference) get statistic 0 and
    p = 1 without calling scipy (which warns there).

    Parameters
    ----------
    x : array-like of shape (n_topics,), or (n_topics, 2) matrix / DataFrame
        Scores of the first system, or both systems as two columns (then y is None).
    y : array-like of shape (n_topics,), optional
        Scores of the second system on the same topics.
    systems : sequence of two str, optional
        Names (default: the DataFrame's columns or the Series' names, else S1, S2).

    Returns
    -------
    PairwiseTest
        2 x 2; ``statistic`` = min(R+, R-) (symmetric), ``pvalue`` the two-sided p-value.

    References
    ----------
    Wilcoxon, "Individual comparisons by ranking methods", Biometrics Bulletin 1, 1945; Pratt, "Remarks on
    zeros and ties in the Wilcoxon signed rank procedures", JASA 54, 1959; Smucker, Allan & Carterette,
    CIKM 2007 (the test in IR evaluation).

    Examples
    --------
    >>> x = [0.7, 0.3, 0.2, 0.6, 0.4, 0.5]
    >>> y = [0.5, 0.1, 0.0, 0.2, 0.4, 0.6]
    >>> res = wilcoxon_signed_rank(x, y)
    >>> import scipy.stats
    >>> bool(res.pvalue[0, 1] == scipy.stats.wilcoxon(x, y).pvalue)
    True
    """
    X, names = _two_systems(x, y, systems, "wilcoxon_signed_rank")
    return wilcoxon_test(X, names)


def wilcoxon_test(X: np.ndarray, systems: tuple) -> PairwiseTest:
    """:func:`wilcoxon_signed_rank` on a checked (n, 2) matrix."""
    x, y = X[:, 0], X[:, 1]
    if np.all(x == y):
        statistic, p = 0.0, 1.0
    else:
        import scipy.stats  # here, not at import time: scipy.stats costs about 0.5 s to import

        res = scipy.stats.wilcoxon(x, y)
        statistic, p = float(res.statistic), float(res.pvalue)
    p = checked_pvalue(p, "scipy.stats.wilcoxon")
    return _pair_result("Wilcoxon signed-rank test", X, systems, np.array([[0.0, statistic], [statistic, 0.0]]), p)


def paired_sign_test(x: ArrayLike, y: ArrayLike | None = None, *,
                     systems: Sequence[str] | None = None) -> PairwiseTest:
    """The sign test of two systems: the exact two-sided binomial test of the topics each one wins.

    With the per-topic differences ``d_t = x_t - y_t``, the zero differences (ties) are dropped; of the
    n' topics left, k have ``d_t > 0``. Under the null hypothesis k ~ Binomial(n', 1/2), and the p-value
    is ``scipy.stats.binomtest(k, n', 0.5).pvalue``: the probability of an outcome no more likely than
    k, which for p = 1/2 is ``min(1, 2 P(K <= min(k, n' - k)))``. No non-zero difference (n' = 0) gives
    p = 1.

    Parameters
    ----------
    x : array-like of shape (n_topics,), or (n_topics, 2) matrix / DataFrame
        Scores of the first system, or both systems as two columns (then y is None).
    y : array-like of shape (n_topics,), optional
        Scores of the second system on the same topics.
    systems : sequence of two str, optional
        Names (default: the DataFrame's columns or the Series' names, else S1, S2).

    Returns
    -------
    PairwiseTest
        2 x 2; ``statistic[0, 1]`` = k (the topics the first system wins), ``statistic[1, 0]`` = n' - k.

    References
    ----------
    Arbuthnott, 1710; Conover, *Practical Nonparametric Statistics*, 3rd ed., 1999, section 3.4; Smucker,
    Allan & Carterette, CIKM 2007.

    Examples
    --------
    >>> x = [0.7, 0.3, 0.2, 0.6, 0.4, 0.5]
    >>> y = [0.5, 0.1, 0.0, 0.2, 0.4, 0.6]
    >>> res = paired_sign_test(x, y)  # 4 wins, 1 loss, 1 tie: binomtest(4, 5)
    >>> float(res.statistic[0, 1]), float(res.pvalue[0, 1])
    (4.0, 0.375)
    """
    X, names = _two_systems(x, y, systems, "paired_sign_test")
    return sign_test(X, names)


def sign_test(X: np.ndarray, systems: tuple) -> PairwiseTest:
    """:func:`paired_sign_test` on a checked (n, 2) matrix."""
    d = X[:, 0] - X[:, 1]
    wins, losses = int(np.count_nonzero(d > 0)), int(np.count_nonzero(d < 0))
    p = _binomial_pvalue(wins, wins + losses)
    return _pair_result("sign test", X, systems, np.array([[0.0, float(wins)], [float(losses), 0.0]]), p)


@functools.lru_cache(maxsize=4096)
def _binomial_pvalue(k: int, n: int) -> float:
    """``scipy.stats.binomtest(k, n, 0.5).pvalue`` (1 for n = 0), once per (k, n)."""
    if n == 0:
        return 1.0
    import scipy.stats  # here, not at import time: scipy.stats costs about 0.5 s to import

    return checked_pvalue(scipy.stats.binomtest(k, n, 0.5).pvalue, "scipy.stats.binomtest")


def checked_pvalue(value: object, what: str) -> float:
    """The p-value a test returned -- a real number, or an object with a ``.pvalue`` (scipy's results) --
    as a float in [0, 1]; else a DiscpowerError naming ``what`` returned it."""
    p = getattr(value, "pvalue", value)
    real = isinstance(p, numbers.Real) or (isinstance(p, np.ndarray) and p.ndim == 0 and p.dtype.kind in "fiu")
    if not real or isinstance(p, (bool, np.bool_)):
        shown = repr(value)
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        raise DiscpowerError(f"{what} returned {shown} ({type(value).__name__}); a test must return its p-value, a "
                             f"float in [0, 1], or an object with a .pvalue float (as scipy.stats' tests do)")
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise DiscpowerError(f"{what} returned the p-value {p!r}; a p-value must be a float in [0, 1]")
    return p
