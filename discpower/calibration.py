"""Calibration of a pairwise test on a real score matrix: its family-wise Type I error and its power.

:func:`calibrate` takes a topics x systems matrix X (e.g. DL19 nDCG@10) and simulates data
sets that keep X's topics and score distribution but whose truth is known:

* **Type I error (null).** ``null="exchangeable"``: each topic's scores are permuted across
  the systems, independently per topic (the randomisation tests' own null: the systems are
  exchangeable within a topic). Every system then has the same expected mean, so any
  significant pair is a false discovery; the family-wise error rate (FWER) is the share of
  simulations with at least one pair at p < alpha. ``null="centred"``: each system's column
  is shifted to the grand mean and the topics are resampled with replacement: equal means,
  but each system keeps its own spread, so the systems are *not* exchangeable. The randomised
  Tukey HSD assumes exchangeability; with unequal variances its FWER exceeds alpha.
* **Power.** After the null draw, one system's scores are raised by ``delta`` on every topic
  (an injected effect; scores may leave [0, 1]). Power = the share of that system's m - 1
  pairs found significant, in the right direction, averaged over the simulations; beside it
  ``any_power``, the share of simulations that find at least one of them, and the FWER among
  the other (still null) pairs.

Every rate comes with its Monte-Carlo standard error sqrt(r (1 - r) / n_sim) (for ``power``,
the standard deviation of the per-simulation shares over sqrt(n_sim)). Simulation s draws
from its own stream (seed, s) and its test uses its own seed, so the result is the same for
a seed whatever the thread count.
"""

from __future__ import annotations

import math

import attrs
import numpy as np
import pandas as pd

from cwla._latex import tabular

from ._progress import reporter
from ._validate import DiscpowerError, alpha_level, score_matrix, seed_value
from ._validate import n_trials as _count
from .qrels_compare import TESTS, significance_test
from .significance import fisher_randomisation, paired_bootstrap, studentized_ranges

__all__ = ["Calibration", "calibrate", "CALIBRATION_TESTS", "NULLS"]

#: tests :func:`calibrate` accepts by name (the last two compare exactly two systems)
CALIBRATION_TESTS = TESTS + ("fisher", "bootstrap")
#: the null models of :func:`calibrate`
NULLS = ("exchangeable", "centred")


@attrs.frozen(eq=False)
class Calibration:
    """Result of :func:`calibrate` (plain data).

    ``frame``: one row per test and delta (delta 0 = the null): ``test, delta, fwer, fwer_se``
    and, for delta > 0, ``power, power_se, any_power, any_power_se``; ``fwer`` at delta > 0 is
    the family-wise error among the pairs not involving the shifted system.
    """

    frame: pd.DataFrame
    alpha: float
    n_sim: int
    n_trials: int
    null: str
    n_topics: int
    n_systems: int
    seed: int

    def type_i(self, test=None) -> pd.DataFrame:
        """The null rows: ``test, fwer, fwer_se`` (one test, or all)."""
        rows = self.frame[self.frame.delta == 0.0]
        if test is not None:
            rows = rows[rows.test == test]
        return rows[["test", "fwer", "fwer_se"]].reset_index(drop=True)

    def power(self, test=None) -> pd.DataFrame:
        """The rows with an injected effect: ``test, delta, power, power_se, any_power, any_power_se, fwer``."""
        rows = self.frame[self.frame.delta > 0.0]
        if test is not None:
            rows = rows[rows.test == test]
        return rows[["test", "delta", "power", "power_se", "any_power", "any_power_se", "fwer"]].reset_index(drop=True)

    def to_frame(self) -> pd.DataFrame:
        return self.frame.copy()

    def to_latex(self, digits: int = 3) -> str:
        return tabular(self.frame, digits)


def _tests(test) -> list:
    names = [test] if isinstance(test, str) or callable(test) else list(test)
    if not names:
        raise DiscpowerError("no test given")
    for t in names:
        if not callable(t) and t not in CALIBRATION_TESTS:
            raise DiscpowerError(f"unknown test {t!r}; accepted: {', '.join(CALIBRATION_TESTS)} or a callable "
                                 f"(X, systems) -> PairwiseTest")
    return names


def _deltas(deltas) -> list:
    try:
        values = [float(d) for d in np.atleast_1d(np.asarray(deltas, dtype=np.float64))]
    except (TypeError, ValueError):
        raise DiscpowerError(f"The 'deltas' parameter must be a list of positive numbers. Got {deltas!r} instead.") from None
    if any(not math.isfinite(d) or d <= 0.0 for d in values):
        raise DiscpowerError(f"The 'deltas' parameter must hold positive finite numbers. Got {deltas!r} instead.")
    return values


def _decide(test, X, systems, n_trials, seed, alpha, q_crit):
    """(significant (m, m) bool, diff (m, m)) of one test on one simulated matrix.

    The parametric Tukey HSD decides by its critical value (p < alpha exactly when q exceeds
    the studentized range's (1 - alpha) quantile, computed once): scipy's p-value integral
    costs about a second per DL19-sized matrix, the comparison nothing."""
    if test == "parametric-tukey":
        diff, q, _ = studentized_ranges(X)
        return q > q_crit, diff
    if test == "fisher":
        res = fisher_randomisation(X, n_trials=n_trials, seed=seed, systems=systems)
    elif test == "bootstrap":
        res = paired_bootstrap(X, n_trials=n_trials, seed=seed, systems=systems)
    else:
        res = significance_test(X, systems, test, n_trials=n_trials, seed=seed)
    return res.significant(alpha), res.diff


def _simulated(null, rng, shape) -> np.ndarray:
    """A matrix drawn by a user's null model, checked (its shape must be X's, its scores finite)."""
    Y, _ = score_matrix(null(rng), name="the null model's matrix")
    if Y.shape != shape:
        raise DiscpowerError(f"the null model returned a {Y.shape[0]} x {Y.shape[1]} matrix; X is "
                             f"{shape[0]} x {shape[1]}")
    return Y.copy()


def _se(rate: float, n: int) -> float:
    return math.sqrt(rate * (1.0 - rate) / n)


def calibrate(X, test="tukey", *, alpha: float = 0.05, n_sim: int = 500, n_trials: int = 1000, seed=0,
              deltas=(0.01, 0.02, 0.05, 0.1), system=0, null: str = "exchangeable", systems=None,
              progress=False) -> Calibration:
    """Family-wise Type I error and power of pairwise tests on a real topics x systems matrix.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_topics, n_systems)
        Real scores (e.g. ``evaluation.values[k].T``); the simulations keep its topics.
    test : str, callable or list of them
        ``"tukey"`` (randomised Tukey HSD), ``"t-test"`` (uncorrected), ``"t-test-holm"``,
        ``"t-test-bonferroni"``, ``"parametric-tukey"``, or, for exactly two systems, ``"fisher"``
        (randomisation) and ``"bootstrap"`` (Sakai's paired bootstrap); a callable ``(X, systems)
        -> PairwiseTest``. A list calibrates each on the same simulated data sets.
    alpha : float
        Significance level (p < alpha).
    n_sim : int
        Simulated data sets per delta.
    n_trials : int
        B of the randomisation tests in each simulation.
    seed : int
        Same seed, same numbers.
    deltas : sequence of float
        Injected effects for the power rows (empty: Type I error only).
    system : int or str
        The system whose scores are shifted (index or name).
    null : {"exchangeable", "centred"} or callable
        See the module docstring: permute each topic's scores across systems, or centre each
        system on the grand mean and resample topics (equal means, unequal variances); or a
        callable ``null(rng) -> matrix`` that draws one data set of X's shape from a population
        in which every system has the same mean (``rng``: a numpy Generator; X then only gives
        the shape and the system names).

    Returns
    -------
    Calibration

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).random((30, 5))
    >>> cal = calibrate(X, "t-test", n_sim=200, deltas=[0.2], seed=1)
    >>> row = cal.type_i().iloc[0]
    >>> bool(row.fwer > 0.05)          # five systems, ten uncorrected tests at .05
    True
    """
    X, names = score_matrix(X, systems=systems)
    tests = _tests(test)
    alpha = alpha_level(alpha)
    n_sim = _count(n_sim, "n_sim")
    n_trials = _count(n_trials, "n_trials")
    seed = seed_value(seed)
    deltas = _deltas(deltas) if len(np.atleast_1d(deltas)) else []
    if not callable(null) and null not in NULLS:
        raise DiscpowerError(f"The 'null' parameter must be one of {', '.join(NULLS)} or a callable "
                             f"null(rng) -> matrix. Got {null!r} instead.")
    n, m = X.shape
    if any(t in ("fisher", "bootstrap") for t in tests) and m != 2:
        raise DiscpowerError(f"the 'fisher' and 'bootstrap' tests compare two systems; X has {m} (select two "
                             f"columns, or use 'tukey' / a t-test for a family)")
    if isinstance(system, str):
        if system not in names:
            raise DiscpowerError(f"unknown system {system!r}; the systems are {list(names)[:5]} ...")
        shifted = names.index(system)
    elif isinstance(system, (int, np.integer)) and not isinstance(system, bool) and 0 <= system < m:
        shifted = int(system)
    else:
        raise DiscpowerError(f"The 'system' parameter must be a system name or an index in [0, {m}). "
                             f"Got {system!r} instead.")
    centred = X - X.mean(axis=0) + X.mean() if (not callable(null) and null == "centred") else None
    q_crit = None
    if "parametric-tukey" in tests:
        import scipy.stats

        q_crit = float(scipy.stats.studentized_range.isf(alpha, m, (m - 1) * (n - 1)))
    others = np.array([k for k in range(m) if k != shifted])
    rows = []
    tick = reporter(progress, (1 + len(deltas)) * n_sim, "calibration")
    for k, delta in enumerate([0.0] + deltas):
        null_hits = {t: 0 for t in range(len(tests))}
        power_sum = {t: 0.0 for t in range(len(tests))}
        power_sq = {t: 0.0 for t in range(len(tests))}
        any_hits = {t: 0 for t in range(len(tests))}
        for s in range(n_sim):
            rng = np.random.default_rng(np.random.SeedSequence([seed, k, s]))
            if callable(null):
                Y = _simulated(null, rng, X.shape)
            elif null == "exchangeable":
                Y = rng.permuted(X, axis=1)
            else:
                Y = centred[rng.integers(0, n, size=n)]
            if delta:
                Y = Y.copy()
                Y[:, shifted] += delta
            test_seed = int(rng.integers(0, 2**63))
            for t, name in enumerate(tests):
                sig, diff = _decide(name, Y, names, n_trials, test_seed, alpha, q_crit)
                if delta:
                    null_hits[t] += bool(sig[np.ix_(others, others)].any())
                    found = sig[shifted, others] & (diff[shifted, others] > 0)
                    share = float(found.mean())
                    power_sum[t] += share
                    power_sq[t] += share * share
                    any_hits[t] += bool(found.any())
                else:
                    null_hits[t] += bool(sig.any())
            tick(k * n_sim + s + 1, (1 + len(deltas)) * n_sim)
        for t, name in enumerate(tests):
            label = name if isinstance(name, str) else getattr(name, "__name__", "callable")
            fwer = null_hits[t] / n_sim if (delta == 0.0 or m > 2) else math.nan
            row = {"test": label, "delta": delta, "fwer": fwer, "fwer_se": _se(fwer, n_sim)}
            if delta:
                mean = power_sum[t] / n_sim
                var = max(power_sq[t] / n_sim - mean * mean, 0.0) * n_sim / max(n_sim - 1, 1)
                anyp = any_hits[t] / n_sim
                row.update({"power": mean, "power_se": math.sqrt(var / n_sim), "any_power": anyp,
                            "any_power_se": _se(anyp, n_sim)})
            rows.append(row)
    frame = pd.DataFrame(rows, columns=["test", "delta", "fwer", "fwer_se", "power", "power_se", "any_power",
                                        "any_power_se"])
    null_name = null if isinstance(null, str) else getattr(null, "__name__", "callable")
    return Calibration(frame=frame, alpha=alpha, n_sim=n_sim, n_trials=n_trials, null=null_name, n_topics=n,
                       n_systems=m, seed=seed)
