"""Topic set size design (Sakai 2016): how many topics a test collection needs.

Given the variance of the scores (from an existing collection: :func:`residual_variance`), a significance
level alpha, a Type II error rate beta and a minimum difference worth detecting, :func:`topic_set_size`
returns the smallest number of topics n at which

* ``"paired_t"`` -- the two-sided paired t-test of two systems whose true mean difference is ``min_diff``
  has power >= 1 - beta. ``variance`` = sigma_d^2, the variance of the per-topic differences. The
  statistic is noncentral t with df n - 1 and noncentrality min_diff sqrt(n / sigma_d^2)::

      power(n) = P(T' >= t_c) + P(T' <= -t_c),   T' ~ t'(n - 1, min_diff sqrt(n / sigma_d^2)),
      t_c = the upper alpha / 2 point of t(n - 1);

  the lower tail is computed as P(-T' >= t_c), -T' ~ t'(n - 1, -min_diff sqrt(n / sigma_d^2)) (finite
  where the direct lower-tail form underflows to NaN); a power that is not finite is refused;

* ``"anova"`` -- the one-way ANOVA F test of ``n_systems`` = m systems whose best and worst true means
  are ``min_diff`` = D apart (the others at their midpoint: the least favourable configuration for a
  range D) has power >= 1 - beta. ``variance`` = sigma^2, the residual variance. F is noncentral with
  df m - 1 and m (n - 1) and noncentrality lambda = n D^2 / (2 sigma^2)::

      power(n) = P(F' >= F_c),   F' ~ F'(m - 1, m (n - 1), n D^2 / (2 sigma^2)),
      F_c = the upper alpha point of F(m - 1, m (n - 1));

* ``"ci"`` -- the expected width of the 100 (1 - alpha)% confidence interval of a paired difference is at
  most ``ci_width``. ``variance`` = sigma_d^2. The interval is dbar +- t_c s_d / sqrt(n) with t_c the
  upper alpha / 2 point of t(n - 1), and E[s_d] = c4(n) sigma_d, c4(n) = sqrt(2 / (n - 1))
  Gamma(n / 2) / Gamma((n - 1) / 2), so::

      E[width](n) = 2 t_c c4(n) sqrt(sigma_d^2 / n) <= ci_width.

``beta`` is unused by ``"ci"``; ``n_systems`` only by ``"anova"``. The search is over n >= 2, power
and expected width being monotone in n: doubling to a bracket, then bisection.

References
----------
Sakai, "Topic set size design", Information Retrieval Journal 19(3), 2016; Sakai, *Laboratory Experiments
in Information Retrieval*, Springer 2018, ch. 6; Nagata, *How to Design the Sample Size* (in Japanese),
Asakura Shoten 2003 (the formulas Sakai's tools follow).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from cwla._shared import NONE, Interval, Options, check, scoped

from .._params import ALPHA, TRIALS, count, validated
from .._progress import reporter
from ..errors import DiscpowerError
from ..typing import Matrix, Progress, Seed
from .matrix import finite_sums, score_matrix
from .memory import NULL_BYTES, check_memory
from .nulls import at_grand_mean
from .registry import check_test, resamples, run_test
from .rng import SEED, child_seeds, stream
from .significance import residual_squares
from .trials import counts_its_own

__all__ = ["topic_set_size", "design_power", "ci_expected_width", "residual_variance", "simulated_power", "typical_pair", "DESIGNS",
           "MAX_TOPICS", "VARIANCE_KINDS"]

#: the designs :func:`topic_set_size` knows
DESIGNS = ("paired_t", "anova", "ci")
#: the largest number of topics the search considers (a design that needs more is refused, not truncated)
MAX_TOPICS = 10**9
_POSITIVE = Interval("real", 0, None, closed="neither")
_KEY = 0x5453535A  # "TSSZ": the streams of simulated_power, one per size


def _stats():
    import scipy.stats  # here, not at import time: scipy.stats costs about 0.5 s to import

    return scipy.stats


@validated({"design": Options(("paired_t", "anova")), "n": Interval("int", 2, None), "min_diff": _POSITIVE,
            "variance": _POSITIVE, "alpha": ALPHA})
def design_power(design: str, n: int, *, min_diff: float, variance: float, alpha: float = 0.05,
                 n_systems: int | None = None) -> float:
    """The power at n topics of the ``"paired_t"`` or ``"anova"`` design (the module docstring's formulas)."""
    m = _systems(design, n_systems)
    return _power(design, n, min_diff, variance, alpha, m)


def _systems(design: str, n_systems) -> int | None:
    if design != "anova":
        return None
    if n_systems is None:
        raise DiscpowerError("design='anova' needs n_systems, the number of systems m compared (>= 2)")
    return check(n_systems, "n_systems", Interval("int", 2, None), error=DiscpowerError)


def _power(design: str, n: int, min_diff: float, variance: float, alpha: float, m: int | None) -> float:
    stats = _stats()
    if design == "paired_t":
        df = n - 1
        nc = min_diff * math.sqrt(n / variance)
        crit = stats.t.isf(alpha / 2, df)
        # P(T' <= -t_c) = P(-T' >= t_c) with -T' ~ t'(df, -nc): scipy's nct.cdf(-t_c, df, nc) is NaN where
        # that lower tail is tiny (large nc), and a NaN power would make the search skip a valid n
        power = stats.nct.sf(crit, df, nc) + stats.nct.sf(crit, df, -nc)
    else:
        df1, df2 = m - 1, m * (n - 1)
        crit = stats.f.isf(alpha, df1, df2)
        power = stats.ncf.sf(crit, df1, df2, n * min_diff**2 / (2 * variance))
    if not math.isfinite(power):
        raise DiscpowerError(f"the {design} power at n = {n} is not finite (scipy returned {power!r}); "
                             f"the design cannot be computed at min_diff {min_diff:g}, variance {variance:g}, "
                             f"alpha {alpha:g}")
    return float(power)


@validated({"n": Interval("int", 2, None), "variance": _POSITIVE, "alpha": ALPHA})
def ci_expected_width(n: int, *, variance: float, alpha: float = 0.05) -> float:
    """E[width] of the 100 (1 - alpha)% CI of a paired difference at n topics:
    2 t_{alpha/2, n-1} c4(n) sqrt(variance / n) (the module docstring)."""
    return _width(n, variance, alpha)


def _width(n: int, variance: float, alpha: float) -> float:
    c4 = math.exp(0.5 * math.log(2.0 / (n - 1)) + math.lgamma(n / 2) - math.lgamma((n - 1) / 2))
    return float(2 * _stats().t.isf(alpha / 2, n - 1) * c4 * math.sqrt(variance / n))


def _smallest(good, what: str) -> int:
    """The smallest n >= 2 with good(n), good monotone (False ... False True ... True)."""
    if good(2):
        return 2
    lo, hi = 2, 4
    while not good(hi):
        lo, hi = hi, hi * 2
        if hi > MAX_TOPICS:
            raise DiscpowerError(f"{what} needs more than {MAX_TOPICS:,} topics; ask for a larger difference "
                                 f"or a smaller variance")
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if good(mid) else (mid, hi)
    return hi


@validated({"design": Options(DESIGNS), "min_diff": (_POSITIVE, NONE), "variance": _POSITIVE, "alpha": ALPHA,
            "beta": ALPHA, "ci_width": (_POSITIVE, NONE)})
def topic_set_size(design: str, *, min_diff: float | None = None, variance: float, alpha: float = 0.05,
                   beta: float = 0.2, n_systems: int | None = None, ci_width: float | None = None) -> int:
    """The number of topics a test collection needs (Sakai's topic set size design).

    Parameters
    ----------
    design : {"paired_t", "anova", "ci"}
        ``"paired_t"``: the smallest n >= 2 at which the two-sided paired t-test detects a true mean
        difference of ``min_diff`` with power >= 1 - beta (noncentral t, df n - 1, noncentrality
        min_diff sqrt(n / variance)). ``"anova"``: the smallest n at which the one-way ANOVA F test of
        ``n_systems`` = m systems detects a range of true means ``min_diff`` = D with power >= 1 - beta
        (df m - 1 and m (n - 1), noncentrality n D^2 / (2 variance)). ``"ci"``: the smallest n at which
        the expected width of the 100 (1 - alpha)% CI of a paired difference, 2 t_{alpha/2, n-1} c4(n)
        sqrt(variance / n), is at most ``ci_width``. The module docstring gives each formula.
    min_diff : float
        The minimum detectable difference (``"paired_t"``: of two means; ``"anova"``: the range D of the
        m means); not used by ``"ci"``.
    variance : float
        ``"paired_t"`` and ``"ci"``: the variance of the per-topic differences of two systems;
        ``"anova"``: the residual variance sigma^2. From an existing collection: :func:`residual_variance`
        (sigma^2; twice it for the variance of a difference).
    alpha : float
        Significance level (two-sided for ``"paired_t"``; the CI's level is 1 - alpha).
    beta : float
        Type II error rate: the power asked for is 1 - beta (not used by ``"ci"``).
    n_systems : int
        m, for ``"anova"`` only.
    ci_width : float
        The largest expected CI width, for ``"ci"`` only.

    Returns
    -------
    int
        The number of topics.

    Examples
    --------
    >>> topic_set_size("paired_t", min_diff=0.05, variance=0.02)
    65
    >>> topic_set_size("anova", min_diff=0.1, variance=0.02, n_systems=10)
    64
    >>> topic_set_size("ci", variance=0.02, ci_width=0.1)
    33
    """
    if design == "ci":
        for name, value in (("min_diff", min_diff), ("n_systems", n_systems)):
            if value is not None:
                raise DiscpowerError(f"design='ci' takes ci_width, not {name}")
        if ci_width is None:
            raise DiscpowerError("design='ci' needs ci_width, the largest expected width of the CI (> 0)")
        return _smallest(lambda n: _width(n, variance, alpha) <= ci_width, f"a CI of expected width {ci_width:g}")
    if ci_width is not None:
        raise DiscpowerError(f"design={design!r} takes min_diff, not ci_width (that is design='ci')")
    if min_diff is None:
        raise DiscpowerError(f"design={design!r} needs min_diff, the minimum detectable difference (> 0)")
    m = _systems(design, n_systems)
    if design != "anova" and n_systems is not None:
        raise DiscpowerError(f"design={design!r} compares two systems: n_systems is for design='anova'")
    target = 1.0 - beta
    return _smallest(lambda n: _power(design, n, min_diff, variance, alpha, m) >= target,
                     f"power {target:g} at min_diff {min_diff:g}")


#: the variances :func:`residual_variance` estimates
VARIANCE_KINDS = ("two-way", "one-way")


@validated({"kind": Options(VARIANCE_KINDS)})
def residual_variance(*matrices: Matrix, kind: str = "two-way") -> float:
    """sigma^2 for the designs, pooled over one or more score matrices (topics x systems) by their degrees of
    freedom (Sakai 2016, section 6: the pooled estimate from several test collections)::

        "two-way" (default): V_E = sum_k SS_E,k / sum_k (n_k - 1)(m_k - 1),
                             SS_E = sum_{t,j} (x_tj - xbar_t. - xbar_.j + xbar..)^2
        "one-way":           V_W = sum_k SS_W,k / sum_k m_k (n_k - 1),
                             SS_W = sum_{t,j} (x_tj - xbar_.j)^2

    ``"one-way"`` is the within-system variance, the residual of a one-way ANOVA with the systems as the
    factor: each system's variance over the topics, pooled. It is the estimate Sakai's topic set size
    design uses (Sakai, "Topic set size design", IRJ 19(3), 2016: the designs "require topic-by-run score
    matrices from past test collections for the purpose of estimating the within-system population
    variance", from the abstract; his tables were not checked against it here).
    It keeps the topics' own variation (some topics are hard for every system).

    ``"two-way"`` removes the topic effect too: the residual of the two-way ANOVA without replication,
    the V_E of the parametric Tukey HSD. Under the additive model x_tj = mu + topic_t + system_j + e_tj,
    the per-topic difference of two systems cancels the topic effect, so 2 V_E is the variance of a
    paired difference (``"paired_t"`` and ``"ci"``'s sigma_d^2) and V_E the error variance the paired
    designs face. Topic effects are large in IR (one-way exceeds two-way several times on TREC DL), so
    ``"one-way"`` gives the larger, more conservative topic counts: docs/discpower.md gives both on DL19
    and DL20.

    Parameters
    ----------
    *matrices : array-like or DataFrame of shape (n_topics, n_systems)
        Score matrices (each at least 2 x 2), e.g. ``evaluation.scores("nDCG@10")``.
    kind : {"two-way", "one-way"}
        Which residual (above).

    Returns
    -------
    float
    """
    if not matrices:
        raise DiscpowerError("residual_variance needs at least one score matrix")
    ss, df = 0.0, 0
    for k, X in enumerate(matrices):
        X, _ = score_matrix(X)
        finite_sums(X, f"residual variance (matrix {k})", squares=True)
        if X.shape[1] < 2:
            raise DiscpowerError(f"matrix {k} has {X.shape[1]} system; the residual variance needs at least 2")
        if kind == "two-way":
            squares, dof = residual_squares(X)
        else:
            deviation = X - X.mean(axis=0)
            squares, dof = float(np.sum(deviation * deviation)), X.shape[1] * (X.shape[0] - 1)
        ss += squares
        df += dof
    return ss / df


def typical_pair(X: np.ndarray) -> tuple[int, int]:
    """The pair (j, k), j < k, of a checked topics x systems matrix whose per-topic score differences
    have the median variance over all pairs (the lower median; ties to the first in row order)."""
    m = X.shape[1]
    j, k = np.triu_indices(m, 1)
    variances = np.var(X[:, j] - X[:, k], axis=0, ddof=1)
    chosen = np.argsort(variances, kind="stable")[(len(variances) - 1) // 2]
    return int(j[chosen]), int(k[chosen])


@scoped
@counts_its_own
@validated({"min_diff": _POSITIVE, "alpha": ALPHA, "n_sim": Interval("int", 2, None), "n_trials": TRIALS, "seed": SEED})
def simulated_power(X: Matrix, sizes: Sequence[int], *, min_diff: float, test: str = "tukey", alpha: float = 0.05,
                    n_sim: int = 200, n_trials: int = 1000, seed: Seed = 0, pair: tuple[int, int] | None = None,
                    systems: Sequence[str] | None = None, progress: Progress = None) -> pd.DataFrame:
    """The power of a pairwise test at each number of topics, on topic sets resampled from a real matrix:
    the check of :func:`topic_set_size` with the library's own tests.

    The population is X's topics with every system moved to the grand mean (column-centred), then the two
    systems of ``pair`` moved to +min_diff / 2 and -min_diff / 2: one pair differs by min_diff, every other
    system sits at their midpoint (the ANOVA design's least favourable configuration for a range D =
    min_diff). For each n in ``sizes``, ``n_sim`` topic sets of n topics are drawn with replacement, the
    test is run on all m systems, and the power is the share of topic sets in which the pair is significant
    (p < alpha) in the direction of its difference.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_topics, n_systems)
        Real scores, e.g. ``evaluation.scores("nDCG@10")``.
    sizes : sequence of int
        Numbers of topics to simulate (each >= 2).
    min_diff : float
        The difference given to the pair (> 0).
    test : str
        A test's name (:mod:`discpower.stats.registry`; default the randomised Tukey HSD).
    alpha : float
        Significance level.
    n_sim : int
        Topic sets per size (>= 2).
    n_trials : int
        B of a resampling test.
    seed : int
        Same seed, same numbers (each size and topic set has its own derived stream).
    pair : (int, int), optional
        The two systems given the difference (column indices; default :func:`typical_pair`, the pair whose
        per-topic differences have the median variance, as the designs' sigma_d^2 = 2 V_E describes a
        typical pair).
    systems : sequence of str, optional
        System names (default: the DataFrame's columns, or S1..Sm).
    progress : bool, None or callable
        A bar over the topic sets (:mod:`cwla.progress`).

    Returns
    -------
    pandas.DataFrame
        One row per size: ``n_topics, power, power_se`` (the Monte-Carlo SE sqrt(p (1 - p) / n_sim)), and
        ``frame.attrs`` with the test, alpha, min_diff, the pair's names and n_sim.
    """
    X, names = score_matrix(X, systems=systems)
    finite_sums(X, "simulated power", squares=True)
    n, m = X.shape
    sizes = [count(v, "sizes", 2) for v in sizes]
    if not sizes:
        raise DiscpowerError("simulated_power needs at least one size in sizes")
    test = check_test(test)
    if pair is None:
        pair = typical_pair(X)
    a, b = (check(k, "pair", Interval("int", 0, m - 1), error=DiscpowerError) for k in pair)
    if a == b:
        raise DiscpowerError(f"pair must name two different systems, got ({a}, {b})")
    population = at_grand_mean(X)
    population[:, a] += min_diff / 2
    population[:, b] -= min_diff / 2
    trials = None
    if resamples(test):
        trials = n_trials
        check_memory(NULL_BYTES * trials, f"n_trials={trials:,} (a null distribution of {NULL_BYTES} bytes a "
                     f"trial)", "use fewer trials")
    rows = []
    tick = reporter(progress, len(sizes) * n_sim, "simulated power")
    for k, size in enumerate(sizes):
        rng = stream(seed, _KEY, k)
        seeds = child_seeds(seed, _KEY, k, n=n_sim)
        hits = 0
        for r in range(n_sim):
            Y = np.ascontiguousarray(population[rng.integers(0, n, size=size)])
            res = run_test(Y, names, test, trials, seeds[r] if trials else None)
            hits += bool(res.pvalue[a, b] < alpha and res.diff[a, b] > 0)
            tick(k * n_sim + r + 1, len(sizes) * n_sim)
        p = hits / n_sim
        rows.append({"n_topics": size, "power": p, "power_se": math.sqrt(p * (1 - p) / n_sim)})
    frame = pd.DataFrame(rows)
    frame.attrs.update(test=test, alpha=alpha, min_diff=min_diff, pair=(names[a], names[b]), n_sim=n_sim)
    return frame
