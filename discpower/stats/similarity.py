"""Similarity of the system rankings that two metrics induce (Chen & Sakai 2023, Figure 2).

* :func:`kendall_tau_b` -- Kendall's tau-b, ties handled as tau-b: the same number as
  ``scipy.stats.kendalltau(a, b, variant="b").statistic`` (an O(n^2) numba kernel,
  :func:`tau_b`, that the split-half kernel calls too).
* :func:`tau_ap` -- Yilmaz, Aslam & Robertson's AP correlation (SIGIR 2008): swaps near
  the top of the ranking cost more than swaps near the bottom.
* :func:`tau_confidence_interval` -- a CI for tau by Fisher's z transform with
  se = sqrt(0.437 / (n - 4)) (Fieller, Hartley & Pearson 1957).
* :func:`ranking_similarity` -- the metric x metric matrix of these, from a
  (metric x run x topic) score array such as ``cwla.evaluate(...).values``.

Ties and floating point
-----------------------
A system's score is its mean over topics. Scores sit on grids (P@10 moves in steps of
0.1), so two runs often have the same mean in exact arithmetic, but floating-point sums
of different numbers can miss the tie by an ulp ((0.1 + 0.2) + 0.3 != (0.3 + 0.2) + 0.1).
:func:`ranking_similarity` (and the split-half consistency) therefore count two means
within ``tie_tolerance`` (default 1e-10, the tolerance of the randomised Tukey HSD) as
tied. :func:`kendall_tau_b` uses exact equality by default, as scipy does.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

import attrs
import numpy as np

from cwla._shared import FLAG, NONE, Displayed, Interval, Options, Shown, count_text, grid, jit, legend, short_labels
from cwla._shared import escape as _tex
from cwla.errors import CwlaWarning

from .._params import validated
from .._params import digits as digits_value
from .._plots import DIVERGING_CMAP, SEQUENTIAL_CMAP, pyplot
from ..errors import DiscpowerError
from ..typing import ArrayLike
from .matrix import float_array, score_array

__all__ = ["kendall_tau_b", "tau_ap", "tau_confidence_interval", "ranking_similarity", "RankingSimilarity",
           "tau_b", "tau_b_matrix", "TIE_TOLERANCE", "FIELLER_VARIANCE"]

#: Two mean scores closer than this count as tied in :func:`ranking_similarity` and the split-half consistency.
from .tukey import TIE_TOLERANCE  # noqa: E402  (one tie tolerance for the package)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

    from cwla import Evaluation
#: The numerator of Fieller, Hartley & Pearson's (1957) variance of Fisher's z of Kendall's tau: 0.437 / (n - 4).
FIELLER_VARIANCE = 0.437

_METHODS = ("tau_b", "tau_ap", "tau_ap_symmetric")


# --------------------------------------------------------------------------- kernels

@jit()
def tau_b(x, y, tol):
    """Kendall's tau-b of two equal-length float vectors (O(n^2)); NaN when either is all tied.

    Two values count as tied when they differ by at most ``tol`` (0: exact equality).
    With ``tol = 0`` the arithmetic is scipy's: (concordant - discordant) /
    sqrt(n0 - ties_x) / sqrt(n0 - ties_y), clipped to [-1, 1]."""
    n = x.shape[0]
    s = 0      # concordant minus discordant pairs
    tx = 0     # pairs tied in x
    ty = 0     # pairs tied in y
    for i in range(n - 1):
        xi = x[i]
        yi = y[i]
        for j in range(i + 1, n):
            dx = xi - x[j]
            dy = yi - y[j]
            if abs(dx) <= tol:
                tx += 1
                if abs(dy) <= tol:
                    ty += 1
            elif abs(dy) <= tol:
                ty += 1
            elif (dx > 0.0) == (dy > 0.0):
                s += 1
            else:
                s -= 1
    n0 = n * (n - 1) // 2
    if tx == n0 or ty == n0:
        return np.nan
    tau = s / np.sqrt(np.float64(n0 - tx)) / np.sqrt(np.float64(n0 - ty))
    if tau > 1.0:
        return 1.0
    if tau < -1.0:
        return -1.0
    return tau


@jit()
def tau_b_matrix(means, tol):
    """tau-b between every pair of rows of an (M x n) matrix: an (M x M) matrix, 1 on the
    diagonal (NaN there for a row whose values are all tied)."""
    m = means.shape[0]
    out = np.empty((m, m))
    for i in range(m):
        for j in range(i, m):
            t = tau_b(means[i], means[j], tol)
            if i == j and not np.isnan(t):
                t = 1.0  # exactly, not s / sqrt(n0) / sqrt(n0)
            out[i, j] = t
            out[j, i] = t
    return out


# --------------------------------------------------------------------------- validation helpers

def _vector(a, name):
    a = float_array(a, 1, f"{name} must be a vector of numbers",
                    lambda v: f"{name} must be 1-dimensional (one score per system), got shape {v.shape}")
    bad = ~np.isfinite(a)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise DiscpowerError(f"{name} has a non-finite score ({a[k]}) at position {k}; scores must be finite")
    return np.ascontiguousarray(a)


def _pair(a, b, min_n=2):
    a = _vector(a, "a")
    b = _vector(b, "b")
    if a.shape[0] != b.shape[0]:
        raise DiscpowerError(f"a and b must score the same systems: a has {a.shape[0]} scores, b has {b.shape[0]}")
    if a.shape[0] < min_n:
        raise DiscpowerError(f"a rank correlation needs at least {min_n} systems, got {a.shape[0]}")
    return a, b


#: the ``tie_tolerance`` parameter: a finite number >= 0
A_TIE_TOLERANCE = Interval("real", 0, None)
#: a confidence level
A_LEVEL = Interval("real", 0, 1, closed="neither", text="a confidence level in the open interval (0, 1)")


# --------------------------------------------------------------------------- public functions

@validated({"tie_tolerance": A_TIE_TOLERANCE})
def kendall_tau_b(a: ArrayLike, b: ArrayLike, *, tie_tolerance: float = 0.0) -> float:
    """Kendall's tau-b between two score vectors (one score per system).

    Ties are handled as tau-b; with the default ``tie_tolerance=0`` the value equals
    ``scipy.stats.kendalltau(a, b, variant="b").statistic``. NaN when every score of
    ``a`` (or of ``b``) is tied.

    Parameters
    ----------
    a, b : array-like of shape (n,)
        Scores of the same n >= 2 systems under two metrics (finite numbers).
    tie_tolerance : float
        Scores that differ by at most this much count as tied.

    Examples
    --------
    >>> kendall_tau_b([0.1, 0.2, 0.3, 0.4], [0.1, 0.3, 0.2, 0.4])
    0.6666666666666669
    """
    a, b = _pair(a, b)
    return float(tau_b(a, b, tie_tolerance))


def _strict_order(s, ties, name):
    """Positions of the items from best (highest score) to worst; ties by the given order or an error."""
    order = np.lexsort((np.arange(s.shape[0]), -s))  # descending score, then ascending index
    if ties == "raise":
        srt = s[order]
        tied = np.flatnonzero(srt[1:] == srt[:-1])
        if tied.size:
            i, j = sorted((int(order[tied[0]]), int(order[tied[0] + 1])))
            raise DiscpowerError(f"tau_ap with ties='raise': systems {i} and {j} have the same score in {name} "
                                 f"({srt[tied[0]]}); pass ties='order' to break ties by the order given")
    return order


def _tau_ap_one(reference, candidate, ties, names=("a (the reference)", "b")):
    n = reference.shape[0]
    ref_pos = np.empty(n, dtype=np.int64)
    ref_pos[_strict_order(reference, ties, names[0])] = np.arange(n)
    r = ref_pos[_strict_order(candidate, ties, names[1])]       # reference position of the candidate's i-th system
    above = r[None, :] < r[:, None]                   # [i, j]: the reference puts j above i
    correct = np.tril(above, k=-1).sum(axis=1)        # C(i): systems above i in both rankings
    i = np.arange(1, n)
    return float(2.0 / (n - 1) * np.sum(correct[1:] / i) - 1.0)


@validated({"symmetric": FLAG})
def tau_ap(a: ArrayLike, b: ArrayLike, *, symmetric: bool = False, ties: str = "order") -> float:
    """AP correlation of ranking ``b`` against the reference ranking ``a`` (Yilmaz, Aslam &
    Robertson, SIGIR 2008)::

        tau_AP = 2 / (n - 1) * sum_{i=2..n} C(i) / (i - 1)  -  1

    where the systems are taken in ``b``'s order (highest score first) and C(i) counts the
    systems above the i-th that the reference ``a`` also ranks above it. A swap near the
    top costs more than one near the bottom; it is not symmetric in a and b.

    Parameters
    ----------
    a : array-like of shape (n,)
        Reference scores (higher = better).
    b : array-like of shape (n,)
        Scores of the ranking being judged.
    symmetric : bool
        Return the mean of ``tau_ap(a, b)`` and ``tau_ap(b, a)``.
    ties : {"order", "raise"}
        Tie convention (in either vector): ``"order"`` breaks ties by the order given
        (the system that comes first ranks higher), so both rankings are strict;
        ``"raise"`` refuses tied scores (exact equality).

    Examples
    --------
    >>> round(tau_ap([4, 3, 2, 1], [4, 2, 3, 1]), 4)   # swap at ranks 2-3
    0.6667
    >>> round(tau_ap([4, 3, 2, 1], [3, 4, 2, 1]), 4)   # swap at the top costs more
    0.3333
    """
    if ties not in ("order", "raise"):
        raise DiscpowerError(f"The 'ties' parameter of tau_ap must be 'order' or 'raise'. Got {ties!r} instead.")
    a, b = _pair(a, b)
    if symmetric:
        return 0.5 * (_tau_ap_one(a, b, ties) + _tau_ap_one(b, a, ties))
    return _tau_ap_one(a, b, ties)


@validated({"n": Interval("int", 5, None, text="an integer > 4 (the number of systems: se = sqrt(0.437 / (n - 4)))"),
            "level": A_LEVEL})
def tau_confidence_interval(tau: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """Confidence interval of Kendall's tau by Fisher's z transform::

        z = arctanh(tau);  se = sqrt(0.437 / (n - 4));  (tanh(z - q se), tanh(z + q se))

    with q the 1 - (1 - level) / 2 standard normal quantile (Fieller, Hartley & Pearson,
    Biometrika 1957). tau = +-1 would give z = +-inf: z is clipped to the largest finite
    value, so the interval degenerates to (about) the point +-1 instead of NaN
    (its bound at tau is exactly +-1). A NaN
    tau (undefined) gives a NaN interval.

    Parameters
    ----------
    tau : float or array-like
        Kendall tau value(s) in [-1, 1].
    n : int
        Number of systems ranked (> 4).
    level : float
        Confidence level in (0, 1).

    Returns
    -------
    (low, high) : floats, or arrays shaped like ``tau``

    Examples
    --------
    >>> low, high = tau_confidence_interval(0.8, 40)
    >>> round(low, 4), round(high, 4)
    (0.7078, 0.8654)
    """
    from scipy.stats import norm

    scalar = np.ndim(tau) == 0
    try:
        t = np.asarray(tau, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise DiscpowerError(f"tau must be a number or an array of numbers: {err}") from None
    if np.any(np.abs(t[~np.isnan(t)]) > 1.0):
        raise DiscpowerError(f"tau must lie in [-1, 1]; got {t[np.abs(np.nan_to_num(t)) > 1.0].ravel()[0]}")
    edge = np.nextafter(1.0, 0.0)
    z = np.arctanh(np.clip(t, -edge, edge))
    half = norm.ppf(1.0 - (1.0 - level) / 2.0) * np.sqrt(FIELLER_VARIANCE / (n - 4))
    low, high = np.tanh(z - half), np.tanh(z + half)
    low = np.where(t == -1.0, -1.0, low)    # the interval always holds tau itself
    high = np.where(t == 1.0, 1.0, high)
    if scalar:
        return float(low), float(high)
    return low, high


# --------------------------------------------------------------------------- the matrix

@attrs.frozen(eq=False, repr=False)
class RankingSimilarity(Displayed):
    """Similarity of the system rankings of every pair of metrics (plain data, pure methods).

    Attributes
    ----------
    labels : tuple of str
        The metrics.
    tau : ndarray of shape (M, M)
        ``tau[i, j]`` = the correlation between the rankings of metrics i and j (1 on the
        diagonal). For ``method="tau_ap"`` row i is the reference: ``tau[i, j]`` =
        ``tau_ap(metric i, metric j)`` (not symmetric).
    ci_low, ci_high : ndarray of shape (M, M)
        Confidence bounds (Fisher z, se = sqrt(0.437 / (n - 4))); NaN for tau_AP (no such
        interval) or when ``level`` is None.
    n_systems : int
        Systems (runs) ranked.
    method : str
        ``"tau_b"``, ``"tau_ap"`` or ``"tau_ap_symmetric"``.
    level : float or None
        Confidence level of the intervals.
    means : ndarray of shape (M, n_systems)
        The system scores (mean over topics) that were ranked.
    runs : tuple of str or None
        Run names, when known (values given as a cwla Evaluation).
    """

    labels: tuple
    tau: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    n_systems: int
    method: str
    level: float | None = 0.95
    means: np.ndarray | None = None
    runs: tuple | None = None

    @property
    def symmetric(self) -> bool:
        return self.method != "tau_ap"

    def _shown(self) -> Shown:
        """Per metric: its mean and smallest tau with the other metrics (row i: metric i the reference)."""
        import pandas as pd

        m = len(self.labels)
        shorts = short_labels(self.labels)
        others = [self.tau[i][(np.arange(m) != i) & np.isfinite(self.tau[i])] for i in range(m)]
        table = pd.DataFrame({"mean_tau": [float(v.mean()) if v.size else np.nan for v in others],
                              "min_tau": [float(v.min()) if v.size else np.nan for v in others]},
                             index=pd.Index(shorts, name="metric")).rename_axis(columns="statistic")
        facts = [self.method] + ([] if self.level is None or self.method != "tau_b" else [f"level={self.level:g}"])
        return Shown("RankingSimilarity", f"{count_text(m, 'metric')} x {count_text(self.n_systems, 'system')}",
                     table, tuple(facts), legend(self.labels, shorts))

    def to_frame(self) -> pd.DataFrame:
        """Long form: one row per pair ``metric_a, metric_b, tau, ci_low, ci_high``.

        Symmetric methods give each unordered pair once (a before b in ``labels``);
        ``tau_ap`` gives every ordered pair (metric_a is the reference)."""
        import pandas as pd

        m = len(self.labels)
        if self.symmetric:
            i, j = np.triu_indices(m, k=1)
        else:
            i, j = np.nonzero(~np.eye(m, dtype=bool))
        names = np.array(self.labels, dtype=object)
        return pd.DataFrame({
            "metric_a": names[i], "metric_b": names[j], "tau": self.tau[i, j],
            "ci_low": self.ci_low[i, j], "ci_high": self.ci_high[i, j],
        })

    def to_latex(self, digits: int = 2) -> str:
        """The tau matrix as a LaTeX tabular (lower triangle for symmetric methods; rows are
        the reference for tau_AP)."""
        digits = digits_value(digits)
        m = len(self.labels)

        def cell(i: int, j: int) -> str:
            if self.symmetric and j > i:
                return ""
            return "--" if np.isnan(self.tau[i, j]) else f"{self.tau[i, j]:.{digits}f}"

        header = ["", *(f"\\rotatebox{{90}}{{{_tex(lab)}}}" for lab in self.labels)]
        return grid("l" + "r" * m, header, ([_tex(lab), *(cell(i, j) for j in range(m))]
                                             for i, lab in enumerate(self.labels)))

    def plot(self, ax: Axes | None = None, annotate: bool | None = None, cmap: str | None = None, digits: int = 2,
             colorbar: bool = True, vmin: float | None = None) -> Axes:
        """A heatmap of the tau matrix like Chen & Sakai's Figure 2, column labels rotated.

        When every tau is >= 0 (the usual case between metrics) the colours span
        [vmin, 1] on a sequential map, vmin = the smallest tau rounded down to 0.1,
        so differences are visible; otherwise a diverging map over [-1, 1] (``viridis`` and ``RdBu_r``:
        colour-blind safe, and ``viridis`` readable in greyscale; ``cmap`` overrides them).
        ``annotate`` (default: up to 20 metrics) writes each value in its cell. The title and the colour
        bar name the coefficient; with ``tau_ap`` the rows (y axis) are the reference metrics.
        Needs matplotlib (imported here only). Returns the Axes."""
        plt = pyplot("RankingSimilarity.plot")
        digits = digits_value(digits)

        m = len(self.labels)
        if annotate is None:
            annotate = m <= 20
        finite = self.tau[np.isfinite(self.tau)]
        positive = finite.size and finite.min() >= 0.0
        if vmin is None:
            vmin = np.floor(finite.min() * 10) / 10 if positive else -1.0
        if cmap is None:
            cmap = SEQUENTIAL_CMAP if positive else DIVERGING_CMAP
        if ax is None:
            size = max(4.0, 0.32 * m + 2.0)
            _, ax = plt.subplots(figsize=(size + 1.0, size))
        image = ax.imshow(self.tau, cmap=cmap, vmin=vmin, vmax=1.0, interpolation="nearest")
        ax.set_xticks(range(m))
        ax.set_yticks(range(m))
        ax.set_xticklabels(self.labels, rotation=90)
        ax.set_yticklabels(self.labels)
        if annotate:
            font = max(3.0, min(9.0, 180.0 / max(m, 1)))
            for i in range(m):
                for j in range(m):
                    v = self.tau[i, j]
                    text = "" if np.isnan(v) else f"{v:.{digits}f}"
                    dark = (v - vmin) / (1.0 - vmin) < 0.5 if positive else abs(v) > 0.6
                    ax.text(j, i, text, ha="center", va="center", fontsize=font,
                            color="white" if dark else "black")
        coefficient = {"tau_b": "Kendall $\\tau_b$", "tau_ap": "$\\tau_{AP}$"}.get(self.method,
                                                                                "symmetric $\\tau_{AP}$")
        if colorbar:
            ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label=coefficient)
        if not self.symmetric:
            ax.set_ylabel("reference metric (row)")
            ax.set_xlabel("metric (column)")
        ax.set_title(f"System-ranking similarity: {coefficient} between the metrics' rankings of "
                     f"{self.n_systems} systems (by mean score)", fontsize=9)
        return ax


@validated({"method": Options(_METHODS), "level": (A_LEVEL, NONE), "tie_tolerance": A_TIE_TOLERANCE})
def ranking_similarity(values: ArrayLike | Evaluation, labels: Sequence[str] | None = None,
                       runs: Sequence[str] | None = None, method: str = "tau_b", level: float | None = 0.95, *,
                       tie_tolerance: float = TIE_TOLERANCE) -> RankingSimilarity:
    """Correlation between the system rankings of every pair of metrics.

    The system ranking of a metric is by mean score per run (over topics).

    Parameters
    ----------
    values : array-like of shape (M, n_runs, n_topics) or (M, n_runs), or a cwla Evaluation
        Scores (``cwla.evaluate(...).values``), or per-run means already.
    labels : sequence of str
        One name per metric (default: the Evaluation's labels).
    runs : boolean mask, sequence of int, or sequence of run names (with an Evaluation), optional
        The runs to rank (default: all).
    method : {"tau_b", "tau_ap", "tau_ap_symmetric"}
        Kendall's tau-b (with confidence intervals), tau_AP with the row metric as reference,
        or the mean of tau_AP in both directions.
    level : float or None
        Confidence level of the tau-b intervals; None skips them (then 2 runs suffice,
        otherwise at least 5 are needed).
    tie_tolerance : float
        Mean scores within this count as tied for tau-b (see the module notes); tau_AP
        breaks ties by the order of the runs.

    Returns
    -------
    RankingSimilarity

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> quality = rng.random(8)
    >>> values = np.stack([quality[:, None] + rng.normal(0, s, (8, 20)) for s in (0.1, 0.2)])
    >>> sim = ranking_similarity(values, ["m1", "m2"])
    >>> sim.tau.shape, float(sim.tau[0, 0])
    ((2, 2), 1.0)
    """
    tol = tie_tolerance
    min_runs = 5 if (method == "tau_b" and level is not None) else 2
    V, labels, run_names = score_array(values, labels, runs, min_runs=min_runs)
    means = V.mean(axis=2) if V.ndim == 3 else V
    means = np.ascontiguousarray(means)
    m, n = means.shape
    nan = np.full((m, m), np.nan)
    if method == "tau_b":
        tau = tau_b_matrix(means, tol)
        if level is not None:
            low, high = tau_confidence_interval(tau, n, level)
        else:
            low, high = nan, nan.copy()
    else:
        tau = np.ones((m, m))
        for i in range(m):
            for j in range(m):
                if i != j:
                    tau[i, j] = tau_ap(means[i], means[j], symmetric=(method == "tau_ap_symmetric"))
        low, high = nan, nan.copy()
    undefined = [labels[i] for i in range(len(labels)) if np.isnan(np.delete(tau[i], i)).all() and len(labels) > 1]
    if undefined:
        warnings.warn(f"tau is undefined (NaN) for {undefined}: every run has the same mean score under "
                      f"{'it' if len(undefined) == 1 else 'them'}", CwlaWarning, stacklevel=2)
    return RankingSimilarity(labels=labels, tau=tau, ci_low=low, ci_high=high, n_systems=int(n), method=method,
                             level=level if method == "tau_b" else None, means=means, runs=run_names)
