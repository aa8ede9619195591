"""Calibration of a pairwise test on a real score matrix: its family-wise Type I error and its power.

:func:`calibrate` takes a topics x systems matrix X (e.g. DL19 nDCG@10) and simulates data
sets that keep X's topics and score distribution but whose truth is known:

* **Type I error (null).** Each simulated data set is drawn from a population built from X in
  which every system has the same true mean (:mod:`discpower.stats.nulls`): ``"copula"`` (the
  default: each run's empirical marginal, the runs' rank correlation, new topics),
  ``"common-marginal"`` (the same copula, every run through the pooled scores), ``"exchangeable"``
  (each topic's scores permuted across the systems: the randomisation tests' own null) or
  ``"bootstrap"`` (the topics of the column-centred matrix resampled: a stress test). Any significant pair is a false
  discovery; the family-wise error rate (FWER) is the share of simulations with at least one pair at
  p < alpha. ``null`` may instead be a callable that draws a data set from a population of the
  user's choice with equal means -- e.g. unequal variances, where the systems are *not*
  exchangeable and the Tukey HSD's FWER exceeds alpha (docs/calibration.md shows it).
* **Power.** One system's scores in the null draw are raised by ``delta`` on every topic (an
  injected effect; scores may leave [0, 1]). Per simulation, the share of that system's m - 1
  pairs found significant in the right direction; ``power`` is its mean over the simulations,
  ``any_power`` the share of simulations finding at least one of them, and ``fwer`` (for m > 2)
  the family-wise error among the other, still null, pairs.

Standard errors (Monte Carlo, n = n_sim simulations): sqrt(r (1 - r) / n) for a rate r (the
plug-in binomial SE: 0 when r is 0 or 1); for ``power``, sd(shares, ddof=1) / sqrt(n).

Simulation s draws its null data set from its own stream (seed, s), and every delta and every
test is applied to that same data set with the same test seed (common random numbers: the
rows of one call differ by the delta and the test, not by resampling noise). The result is the
same for a seed whatever the thread count, and a delta's row does not depend on the other deltas.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import attrs
import numpy as np
import pandas as pd

from cwla._shared import Displayed, Interval, Shown, check, count_text, tabular
from cwla._shared import scoped

from .._params import ALPHA, TRIALS, validated
from .._params import digits as digits_value
from .._progress import reporter
from ..errors import DiscpowerError
from ..typing import Matrix, Progress, Seed
from .matrix import finite_sums, score_matrix
from .memory import NULL_BYTES, check_memory
from .rng import SEED, stream
from .nulls import null_model
from .registry import TESTS, check_reachable, check_test, lookup, resamples, run_test
from .ptukey import studentized_range_isf
from .significance import studentized_ranges
from .trials import counts_its_own

__all__ = ["Calibration", "calibrate", "CALIBRATION_TESTS"]

#: the tests :func:`calibrate` takes by name: every test of the registry (and its corrected forms)
CALIBRATION_TESTS = TESTS


@attrs.frozen(eq=False, repr=False)
class Calibration(Displayed):
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

    def _shown(self) -> Shown:
        """Per test and delta: the family-wise error and, for delta > 0, the power."""
        columns = [c for c in ("fwer", "power", "any_power") if c in self.frame]
        table = self.frame.set_index(["test", "delta"])[columns].rename_axis(columns="rate")
        tests, deltas = self.frame["test"].nunique(), self.frame["delta"].nunique()
        return Shown("Calibration", f"{count_text(tests, 'test')} x {count_text(deltas, 'delta')}, "
                     f"{count_text(self.n_sim, 'simulation')} of {count_text(self.n_topics, 'topic')} x "
                     f"{count_text(self.n_systems, 'system')}", table,
                     (f"alpha={self.alpha:g}", f"null={self.null}", f"B={self.n_trials:,}"))

    def type_i(self, test: str | None = None) -> pd.DataFrame:
        """The null rows: ``test, fwer, fwer_se`` (one test, or all)."""
        rows = self.frame[self.frame.delta == 0.0]
        if test is not None:
            rows = rows[rows.test == test]
        return rows[["test", "fwer", "fwer_se"]].reset_index(drop=True)

    def power(self, test: str | None = None) -> pd.DataFrame:
        """The rows with an injected effect: ``test, delta, power, power_se, any_power, any_power_se, fwer``."""
        rows = self.frame[self.frame.delta > 0.0]
        if test is not None:
            rows = rows[rows.test == test]
        return rows[["test", "delta", "power", "power_se", "any_power", "any_power_se", "fwer"]].reset_index(drop=True)

    def to_frame(self) -> pd.DataFrame:
        return self.frame.copy()

    def to_latex(self, digits: int = 3) -> str:
        return tabular(self.frame, digits_value(digits))


def _tests(test) -> list:
    if isinstance(test, str) or callable(test):
        names = [test]
    elif isinstance(test, (list, tuple)):
        names = list(test)
    else:
        names = None
    if not names:
        raise DiscpowerError(f"The 'test' parameter must be a test name, a callable (X, systems) -> PairwiseTest "
                             f"or a non-empty list of them; accepted names: {', '.join(TESTS)} (and "
                             f"'<test>-<correction>', e.g. 't-test-holm'). Got {test!r} instead.")
    return [check_test(t) for t in names]


_DELTA = Interval("real", 0, None, closed="neither")


def _deltas(deltas) -> list:
    rule = "a list of positive finite numbers (empty: Type I error only)"
    items = [deltas] if isinstance(deltas, numbers.Number) else deltas
    if isinstance(items, (str, bytes)) or not isinstance(items, (list, tuple, np.ndarray)) or \
            not all(_DELTA.accepts(d) for d in items):
        check(deltas, "deltas", error=DiscpowerError, rule=rule)
    return [float(d) for d in items]


def _decide(test, X, systems, n_trials, seed, alpha, q_crit):
    """(significant (m, m) bool, diff (m, m)) of one test on one simulated matrix.

    The parametric Tukey HSD decides by its critical value (p < alpha exactly when q exceeds
    the studentized range's (1 - alpha) quantile, computed once): scipy's p-value integral
    costs about a second per DL19-sized matrix, the comparison nothing."""
    if test == "parametric-tukey":
        diff, q, _ = studentized_ranges(X)
        return q > q_crit, diff
    res = run_test(X, systems, test, n_trials, seed, alpha=alpha)  # checked: calibrate checks the memory once
    if tuple(res.systems) != tuple(systems):
        raise DiscpowerError(f"the test callable returned a result for other systems ({len(res.systems)}: "
                             f"{list(res.systems)[:3]} ...) than the {len(systems)} columns it was given")
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


@scoped
@counts_its_own
@validated({"alpha": ALPHA, "n_sim": Interval("int", 2, None, text="an integer >= 2 (a standard error needs two simulations)"),
            "n_trials": TRIALS, "seed": SEED})
def calibrate(X: Matrix, test: str | Sequence[str] = "tukey", *, alpha: float = 0.05, n_sim: int = 500,
              n_trials: int = 1000, seed: Seed = 0, deltas: Sequence[float] = (0.01, 0.02, 0.05, 0.1),
              system: int | str = 0, null: str = "copula", systems: Sequence[str] | None = None,
              progress: Progress = None) -> Calibration:
    """Family-wise Type I error and power of pairwise tests on a real topics x systems matrix.

    Parameters
    ----------
    X : array-like of shape (n_topics, n_systems), or labelled DataFrame
        Real scores, e.g. ``evaluation.scores(metric)`` (its ``run`` / ``topic`` labels give the
        orientation, see :mod:`discpower.stats.matrix`); the simulations keep its topics.
    test : str, callable or list of them
        A test's name (:mod:`discpower.stats.registry`): ``"tukey"`` (randomised Tukey HSD),
        ``"parametric-tukey"``, ``"t-test"`` (uncorrected) and ``"t-test-holm"``, ``"t-test-bonferroni"``,
        ... (any correction), and the per-pair tests ``"fisher"`` (randomisation), ``"bootstrap"`` (Sakai's
        paired bootstrap), ``"wilcoxon"``, ``"sign"`` (each pair, optionally corrected: ``"fisher-holm"``);
        or a callable ``(X, systems) -> PairwiseTest``. A list calibrates each on the same simulated data sets.
    alpha : float
        Significance level (p < alpha).
    n_sim : int
        Simulated data sets (>= 2, for the standard errors); each serves the null row and every delta.
        Each keeps 8 bytes per test and effect level, and the randomisation tests' null distribution is kept
        while a test runs: a plan that would not fit in memory is refused before the first simulation.
    n_trials : int
        B of the randomisation tests in each simulation.
    seed : int
        Same seed, same numbers.
    deltas : sequence of float
        Injected effects for the power rows (empty: Type I error only).
    system : int or str
        The system whose scores are shifted (index or name).
    null : "copula", "common-marginal", "exchangeable", "bootstrap" or callable
        A population built from X in which every system has the same true mean
        (:mod:`discpower.stats.nulls` gives the formulas and which null judges what): ``"copula"``
        (default) draws new topics from each run's empirical marginal joined by the runs' normal-score
        rank correlation (keeps variances, ties and correlations, repeats nothing: a null that judges a
        test); ``"common-marginal"`` the same copula with every run drawn through the pooled scores of
        all runs (Urbano, Lima & Hanjalic's design: equal marginals, the runs' dependence);
        ``"exchangeable"`` permutes each topic's scores across the systems (the randomisation tests' own
        null: they hold alpha there by construction, a check of the code, not of the test);
        ``"bootstrap"`` resamples the topics of the column-centred matrix (a stress test: centring makes
        the differences of near-duplicate runs skewed). A callable ``null(rng) -> matrix`` draws one
        data set of X's shape from a population in which every system has the same mean (``rng``: a
        numpy Generator); X then only gives the shape and the system names.
    progress : bool, None or callable
        None (default): a progress bar on stderr when it is a terminal; True: always; False: none (nor
        for the reading and compiling it starts); a callable gets ``(done, total)`` (:mod:`cwla.progress`).

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
    deltas = _deltas(deltas)
    for name in tests:
        check_reachable(name, X.shape[1], n_trials, alpha)  # a correction its smallest p-value cannot pass: refused
        if not callable(null):  # the null's grand mean and shifts and the tests' sums: finite, or said now
            entry = None if callable(name) else lookup(name)[0]
            finite_sums(X, entry.finite if entry else "calibrate", squares=entry.squares if entry else True)
    draw = null if callable(null) else null_model(null, X)
    n, m = X.shape
    if isinstance(system, str):
        if system not in names:
            raise DiscpowerError(f"unknown system {system!r}; the systems are {list(names)[:5]} ...")
        shifted = names.index(system)
    else:
        shifted = check(system, "system", Interval("int", 0, m, closed="left"), error=DiscpowerError,
                        rule=f"a system name or an index in [0, {m})")
    levels = [0.0] + deltas
    # the plan's one memory check: every simulation's row of ``shares``, and a resampling test's null distribution
    share_bytes = 8 * len(levels) * len(tests)
    plan = f"{len(tests)} test(s) x {len(levels)} effect levels: {share_bytes} bytes a simulation"
    if any(resamples(t) for t in tests):
        check_memory(share_bytes * n_sim + NULL_BYTES * n_trials, f"n_sim={n_sim:,} with n_trials={n_trials:,} "
                     f"({plan}, and a null distribution of {NULL_BYTES} bytes a trial)",
                     "use fewer simulations or trials")
    else:
        check_memory(share_bytes * n_sim, f"n_sim={n_sim:,} ({plan})", "use fewer simulations")
    q_crit = None
    if "parametric-tukey" in tests:
        q_crit = studentized_range_isf(alpha, m, (m - 1) * (n - 1))
    others = np.array([k for k in range(m) if k != shifted])
    null_pairs = np.ix_(others, others)  # the pairs that stay null when the shifted system moves
    shape = (len(levels), len(tests))
    null_hits, any_hits = np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=np.int64)
    shares = np.zeros((n_sim,) + shape)  # per simulation: share of the shifted system's pairs found
    tick = reporter(progress, n_sim, "calibration")
    for s in range(n_sim):
        rng = stream(seed, s)
        Y0 = _simulated(null, rng, X.shape) if callable(null) else draw(rng)
        test_seed = int(rng.integers(0, 2**63))
        for k, delta in enumerate(levels):
            Y = Y0
            if delta:
                Y = Y0.copy()
                Y[:, shifted] += delta
            for t, name in enumerate(tests):
                sig, diff = _decide(name, Y, names, n_trials, test_seed, alpha, q_crit)
                if delta:
                    null_hits[k, t] += bool(sig[null_pairs].any())
                    found = sig[shifted, others] & (diff[shifted, others] > 0)
                    shares[s, k, t] = float(found.mean())
                    any_hits[k, t] += bool(found.any())
                else:
                    null_hits[k, t] += bool(sig.any())
        tick(s + 1, n_sim)
    rows = []
    for k, delta in enumerate(levels):
        for t, name in enumerate(tests):
            label = name if isinstance(name, str) else getattr(name, "__name__", "callable")
            fwer = null_hits[k, t] / n_sim if (delta == 0.0 or m > 2) else math.nan
            row = {"test": label, "delta": delta, "fwer": fwer, "fwer_se": _se(fwer, n_sim)}
            if delta:
                anyp = any_hits[k, t] / n_sim
                row.update({"power": float(shares[:, k, t].mean()),
                            "power_se": float(shares[:, k, t].std(ddof=1) / math.sqrt(n_sim)),
                            "any_power": anyp, "any_power_se": _se(anyp, n_sim)})
            rows.append(row)
    frame = pd.DataFrame(rows, columns=["test", "delta", "fwer", "fwer_se", "power", "power_se", "any_power",
                                        "any_power_se"])
    null_name = null if isinstance(null, str) else getattr(null, "__name__", "callable")
    return Calibration(frame=frame, alpha=alpha, n_sim=n_sim, n_trials=n_trials, null=null_name, n_topics=n,
                       n_systems=m, seed=seed)
