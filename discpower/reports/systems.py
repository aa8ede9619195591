"""Compare systems: the table of means with significance marks that every paper prints.

:func:`compare_systems` scores runs with cwla and, per metric, reports each system's mean over the
topics, a t-based confidence interval, the paired effect size d_z and significance -- either of
each system against a ``baseline`` (with a multiple-comparison ``correction`` over those m - 1
comparisons) or of all pairs (the paired randomised Tukey HSD by default, family-wise by
construction). :func:`compare_scores` does the same on topics x systems score matrices.

The result, :class:`SystemComparison`, is plain data with pure methods: a tidy
:meth:`~SystemComparison.to_frame`, the pairs (:meth:`~SystemComparison.pair_frame`),
:meth:`~SystemComparison.to_markdown`, :meth:`~SystemComparison.to_latex` and
:meth:`~SystemComparison.plot`.

Formulas (n topics, per-topic scores x_t of a system, differences d_t = x_t - y_t of a pair):

* mean ``xbar = sum_t x_t / n``;
* ``(1 - alpha)`` confidence interval ``xbar +- t_{n-1, 1-alpha/2} s / sqrt(n)``, with
  ``s^2 = sum_t (x_t - xbar)^2 / (n - 1)`` (Student's t over the topics);
* effect size (paired Cohen's d, "d_z") ``d_z = dbar / s_d``,
  ``s_d^2 = sum_t (d_t - dbar)^2 / (n - 1)``; 0 when the two systems score the same on every topic,
  +-inf when the difference is the same non-zero number on every topic.

References
----------
Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006.
Sakai, "Metrics, statistics, tests", PROMISE Winter School 2013, LNCS 8173, 2014 (the randomised
Tukey HSD).
Sakai, "Statistical reform in information retrieval?", SIGIR Forum 48(1), 2014 (effect sizes, intervals).
Sakai, *Laboratory Experiments in Information Retrieval*, Springer 2018, ch. 4-5.
Carterette, "Multiple testing in statistical analysis of systems-based information retrieval
experiments", TOIS 30(1), 2012.
Holm, "A simple sequentially rejective multiple test procedure", Scand. J. Stat. 6, 1979.
Benjamini & Hochberg, "Controlling the false discovery rate", J. R. Stat. Soc. B 57, 1995.
Lakens, "Calculating and reporting effect sizes ...", Frontiers in Psychology 4, 2013 (d_z).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import attrs
import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

import cwla
from cwla import Evaluation, Evaluator
from cwla._shared import FLAG, Interval, check
from cwla._shared import bold, escape, grid, inline_math, superscript, table

from .._params import alpha_level
from .._params import digits as digits_value
from .._params import n_trials as trials_value
from .._plots import pyplot
from ..errors import DiscpowerError
from ..scoring import evaluation_of
from ..stats.matrix import finite_sums, labelled_axes, score_matrix
from ..stats.memory import null_trials
from ..stats.rng import seed_value
from ..stats.significance import adjust_pvalues, bootstrap_test, fisher_test, paired_t_test, parametric_tukey_hsd
from ..stats.tukey import column_sums, tukey_test
from ..typing import MetricsLike, QrelsLike, RunsLike, Seed

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

    from cwla import Collection

__all__ = ["SystemComparison", "compare_systems", "compare_scores", "confidence_intervals", "effect_sizes",
           "marker_labels", "TESTS", "CORRECTIONS"]

#: names accepted by ``test=``
TESTS = ("tukey", "parametric-tukey", "t-test", "randomisation", "bootstrap")
#: the tests that control the family-wise error over all C(m, 2) pairs themselves (``correction`` must be None)
FAMILY_WISE = ("tukey", "parametric-tukey")
#: the tests that draw random numbers (``n_trials`` and ``seed`` apply)
RESAMPLING = ("tukey", "randomisation", "bootstrap")
#: names accepted by ``correction=``
CORRECTIONS = (None, "holm", "bonferroni", "bh")

_METHODS = {
    "tukey": "paired randomised Tukey HSD",
    "parametric-tukey": "paired parametric Tukey HSD (two-way ANOVA)",
    "t-test": "paired t-test",
    "randomisation": "Fisher's paired randomisation test",
    "bootstrap": "paired bootstrap test",
}
_CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg"}


# ----------------------------------------------------------------------------- formulas

def confidence_intervals(X: ArrayLike, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """The t-based ``1 - alpha`` confidence interval of each system's mean over the topics.

    ``xbar_j +- t_{n-1, 1-alpha/2} s_j / sqrt(n)`` with ``s_j^2 = sum_t (x_tj - xbar_j)^2 / (n - 1)``:
    an interval for the system's expected score over topics like these (topics as a random
    sample). It is marginal: two overlapping intervals do not mean that the paired test of the two
    systems is not significant (the pairing removes the topic variance the intervals contain).

    Parameters
    ----------
    X : array-like of shape (n_topics, n_systems)
        Scores, one row per topic.
    alpha : float
        1 - the confidence level.

    Returns
    -------
    (low, high) : two ndarrays of shape (n_systems,)
    """
    X, _ = score_matrix(X)
    alpha = alpha_level(alpha)
    import scipy.stats  # here, not at import time: scipy.stats costs about 0.5 s to import

    n = X.shape[0]
    mean = column_sums(X) / n
    half = float(scipy.stats.t.ppf(1.0 - alpha / 2.0, n - 1)) * X.std(axis=0, ddof=1) / math.sqrt(n)
    return mean - half, mean + half


def effect_sizes(X: ArrayLike) -> np.ndarray:
    """Paired Cohen's d (d_z) of every pair of systems: an (m, m) antisymmetric matrix.

    ``effect[i, j] = dbar / s_d`` with ``d_t = X[t, i] - X[t, j]`` and
    ``s_d^2 = sum_t (d_t - dbar)^2 / (n - 1)`` -- the mean difference in standard deviations of the
    per-topic differences (the standardisation of the paired t-test: ``t = d_z sqrt(n)``). A pair
    whose differences are exactly equal on every topic has ``s_d = 0``: d_z is 0 when they are all
    0 (the same scores) and +-inf otherwise. The diagonal is 0.

    Parameters
    ----------
    X : array-like of shape (n_topics, n_systems)

    Returns
    -------
    ndarray of shape (n_systems, n_systems)
    """
    X, _ = score_matrix(X)
    m = X.shape[1]
    i, j = np.triu_indices(m, k=1)
    D = X[:, i] - X[:, j]
    mean = D.mean(axis=0)
    constant = np.all(D == D[:1], axis=0)
    sd = np.where(constant, 1.0, D.std(axis=0, ddof=1))
    dz = np.where(constant, np.where(D[0] == 0.0, 0.0, np.copysign(np.inf, D[0])), mean / sd)
    out = np.zeros((m, m))
    out[i, j] = dz
    out[j, i] = -dz
    return out


def marker_labels(m: int) -> tuple[str, ...]:
    """The markers of m systems, in table order: ``a, b, ..., z`` when m <= 26, else ``1, 2, ..., m``.

    A cell lists the markers of the systems it significantly beats: letters side by side
    (``"ace"``), numbers separated by commas (``"1,3,5"``).
    """
    m = check(m, "m", Interval("int", 0, None), error=DiscpowerError, rule="a non-negative integer")
    if m <= 26:
        return tuple(chr(ord("a") + k) for k in range(m))
    return tuple(str(k + 1) for k in range(m))


def _join(markers: Sequence[str]) -> str:
    return ("" if all(len(s) == 1 and s.isalpha() for s in markers) else ",").join(markers)


# ----------------------------------------------------------------------------- validation

def _options(baseline, test, correction, alpha, n_trials, seed) -> tuple[str | None, str, str | None, float,
                                                                        int | None, int | None]:
    """The comparison's options checked before any file is read; returns them normalised."""
    if not isinstance(test, str) or test not in TESTS:
        raise DiscpowerError(f"The 'test' parameter must be one of {', '.join(repr(t) for t in TESTS)}. "
                             f"Got {test!r} instead.")
    if correction is not None and (not isinstance(correction, str) or correction not in CORRECTIONS):
        raise DiscpowerError(f"The 'correction' parameter must be None, 'holm', 'bonferroni' or 'bh' "
                             f"(Benjamini-Hochberg). Got {correction!r} instead.")
    if test in FAMILY_WISE and correction is not None:
        raise DiscpowerError(f"test={test!r} already controls the family-wise error over all pairs of systems; "
                             f"correction must be None (got {correction!r}). For a corrected family use "
                             f"test='t-test', 'randomisation' or 'bootstrap' with correction={correction!r}")
    if baseline is not None and not (isinstance(baseline, str) and baseline):
        raise DiscpowerError(f"The 'baseline' parameter must be a run name (a non-empty str) or None. "
                             f"Got {baseline!r} instead.")
    alpha = alpha_level(alpha)
    if test in RESAMPLING:
        B = null_trials(n_trials)  # the plan's one check: a test at a time, its null not kept
        seed = seed_value(seed)
    else:
        trials_value(n_trials)  # checked, though unused: a bad value is a mistake either way
        if seed is not None:
            seed_value(seed)
        B, seed = None, None
    return baseline, test, correction, alpha, B, seed


def _matrices(scores, systems, topics) -> tuple[tuple[str, ...], list[np.ndarray], tuple[str, ...], tuple[str, ...]]:
    """(metric labels, topics x systems matrices, system names, topic names) from ``compare_scores`` input."""
    if isinstance(scores, Mapping):
        if not scores:
            raise DiscpowerError("scores is an empty mapping; give {metric: topics x systems matrix}")
        items = [(str(k), v) for k, v in scores.items()]
    else:
        items = [("score", scores)]
    labels, matrices, names, topic_names = [], [], None, None
    for label, value in items:
        frame_topics = None
        if isinstance(value, pd.DataFrame):
            value = labelled_axes(value, f"the scores of {label!r}")  # topics x systems, by its labels
            frame_topics = tuple(str(t) for t in value.index)
        X, these = score_matrix(value, name=f"the scores of {label!r}", systems=systems, topics=topics, min_systems=1)
        if X.shape[1] < 2:
            raise DiscpowerError(f"comparing systems needs at least 2 systems; the scores of {label!r} have "
                                 f"{X.shape[1]} (one column per system: {list(these)})")
        if names is None:
            names = these
        elif these != names:
            raise DiscpowerError(f"the scores of {label!r} name other systems than those of {labels[0]!r}: "
                                 f"{list(these)[:5]} vs {list(names)[:5]}; every metric must score the same "
                                 f"systems in the same order")
        if frame_topics is not None and topic_names is not None and frame_topics != topic_names:
            raise DiscpowerError(f"the scores of {label!r} index other topics (or the same in another order) than "
                                 f"those of {labels[0]!r}: {list(frame_topics)[:5]} vs {list(topic_names)[:5]}; "
                                 f"every metric must score the same topics in the same order")
        if matrices and X.shape[0] != matrices[0].shape[0]:
            raise DiscpowerError(f"the scores of {label!r} have {X.shape[0]} topics, those of {labels[0]!r} "
                                 f"{matrices[0].shape[0]}; every metric must score the same topics")
        if topic_names is None and topics is None:
            topic_names = frame_topics
        labels.append(label)
        matrices.append(X)
    n = matrices[0].shape[0]
    if topics is not None:
        topic_names = tuple(str(t) for t in topics)
        if len(topic_names) != n:
            raise DiscpowerError(f"{len(topic_names)} topic names for {n} topics (rows)")
    elif topic_names is None:
        topic_names = tuple(str(t + 1) for t in range(n))
    return tuple(labels), matrices, names, topic_names


# ----------------------------------------------------------------------------- the tests

def _pvalues(X: np.ndarray, names: tuple[str, ...], b: int | None, test: str, B: int | None,
             seed: int | None, plus_one: bool = False) -> np.ndarray:
    """Raw p-values (m, m), symmetric, of the tested pairs (the baseline's, or all); NaN elsewhere."""
    m = X.shape[1]
    p = np.full((m, m), np.nan)
    if test == "tukey":
        finite_sums(X, "randomised Tukey HSD")
        p = tukey_test(X, names, B, seed, plus_one=plus_one).pvalue.copy()
    elif test == "parametric-tukey":
        p = parametric_tukey_hsd(X, systems=names).pvalue.copy()
    elif test == "t-test":
        p = paired_t_test(X, systems=names).pvalue.copy()
    else:
        i, j = _family(m, b)
        func = fisher_test if test == "randomisation" else bootstrap_test
        for a, c in zip(i, j):
            pair = np.ascontiguousarray(X[:, [a, c]])
            finite_sums(pair, "Fisher randomisation" if test == "randomisation" else "paired bootstrap",
                        squares=test == "bootstrap")
            value = func(pair, (names[a], names[c]), B, seed, plus_one=plus_one).pvalue[0, 1]
            p[a, c] = p[c, a] = value
    if b is not None:  # only the m - 1 comparisons with the baseline are reported
        keep = np.zeros((m, m), dtype=bool)
        keep[b, :] = keep[:, b] = True
        p[~keep] = np.nan
    np.fill_diagonal(p, np.nan)
    return p


def _family(m: int, b: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The pairs (i, j) of the family: (baseline, other) for each other system, or every i < j."""
    if b is None:
        return np.triu_indices(m, k=1)
    others = np.array([j for j in range(m) if j != b], dtype=np.intp)
    return np.full(len(others), b, dtype=np.intp), others


def _adjust(p: np.ndarray, b: int | None, correction: str | None) -> np.ndarray:
    """``p`` with the family's p-values adjusted by ``correction`` (symmetric again)."""
    i, j = _family(p.shape[0], b)
    out = p.copy()
    adjusted = adjust_pvalues(p[i, j], correction)
    out[i, j] = adjusted
    out[j, i] = adjusted
    return out


# ----------------------------------------------------------------------------- the result

@attrs.frozen(eq=False)
class SystemComparison:
    """Means, confidence intervals, effect sizes and significance of systems, per metric.

    Plain data (see :func:`compare_systems` for what each field holds and how it is computed):
    frozen, its arrays read-only; every method is pure.

    Attributes
    ----------
    metrics : tuple of str
        The metric labels (k of them).
    systems : tuple of str
        The systems (m), in table order.
    topics : tuple of str
        The topics (n) the scores are over.
    scores : ndarray of shape (k, n, m)
        Each metric's topics x systems scores.
    markers : tuple of str
        Each system's marker (:func:`marker_labels`).
    baseline : str or None
        The baseline system, or None (all pairs compared).
    test : str
        The test's name (one of :data:`TESTS`).
    correction : str or None
        The multiple-comparison correction of the family (None, ``"holm"``, ``"bonferroni"``, ``"bh"``).
    alpha : float
        Significance level (p < alpha) and 1 - the confidence level of the intervals.
    n_trials : int or None
        B of the resampling tests (None for the parametric ones).
    seed : int or None
        The seed of the resampling tests (None for the parametric ones).
    means, ci_low, ci_high : ndarray of shape (k, m)
        Each system's mean over the topics and its t-based ``1 - alpha`` confidence interval.
    diff : ndarray of shape (k, m, m)
        ``diff[q, i, j]`` = mean of system i - mean of system j under metric q.
    effect : ndarray of shape (k, m, m)
        Paired Cohen's d_z of system i against system j (antisymmetric; :func:`effect_sizes`).
    pvalue_raw : ndarray of shape (k, m, m)
        The test's two-sided p-values of the compared pairs, before ``correction`` (symmetric;
        NaN on the diagonal and for pairs not compared: with a baseline only its row and column).
    pvalue : ndarray of shape (k, m, m)
        The p-values after ``correction`` over the family (equal to ``pvalue_raw`` without one).
    plus_one : bool
        The randomised p-values are ``(count + 1) / (B + 1)``.
    """

    metrics: tuple[str, ...]
    systems: tuple[str, ...]
    topics: tuple[str, ...]
    scores: np.ndarray
    markers: tuple[str, ...]
    baseline: str | None
    test: str
    correction: str | None
    alpha: float
    n_trials: int | None
    seed: int | None
    means: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    diff: np.ndarray
    effect: np.ndarray
    pvalue_raw: np.ndarray
    pvalue: np.ndarray
    plus_one: bool = False

    # --------------------------------------------------------------- queries

    @property
    def n_systems(self) -> int:
        """m, the number of systems."""
        return len(self.systems)

    @property
    def n_topics(self) -> int:
        """n, the number of topics."""
        return len(self.topics)

    @property
    def method(self) -> str:
        """The test in words, e.g. ``"paired randomised Tukey HSD"``."""
        return _METHODS[self.test]

    def metric_index(self, metric: str | int | None = None) -> int:
        """The position of ``metric`` (a label or an index; None: the first metric)."""
        if metric is None:
            return 0
        if Interval("int").accepts(metric):
            if not -len(self.metrics) <= metric < len(self.metrics):
                raise DiscpowerError(f"metric index {metric} out of range: there are {len(self.metrics)} metrics")
            return int(metric) % len(self.metrics)
        if metric not in self.metrics:
            raise DiscpowerError(f"unknown metric {metric!r}; this comparison has {list(self.metrics)}")
        return self.metrics.index(metric)

    def system_index(self, system: str) -> int:
        """The position of ``system`` (a system name)."""
        if system not in self.systems:
            raise DiscpowerError(f"unknown system {system!r}; the systems are {list(self.systems)}")
        return self.systems.index(system)

    def tested(self) -> np.ndarray:
        """(m, m) bool: the pairs compared -- every pair, or those with the baseline (False on the diagonal)."""
        m = self.n_systems
        out = np.ones((m, m), dtype=bool)
        if self.baseline is not None:
            b = self.systems.index(self.baseline)
            out[:] = False
            out[b, :] = out[:, b] = True
        np.fill_diagonal(out, False)
        return out

    def significant(self, metric: str | int | None = None) -> np.ndarray:
        """(m, m) bool: ``pvalue < alpha`` (strict) for the compared pairs of ``metric``."""
        p = self.pvalue[self.metric_index(metric)]
        with np.errstate(invalid="ignore"):
            return np.where(np.isnan(p), False, p < self.alpha)

    def wins(self, metric: str | int | None = None) -> np.ndarray:
        """(m, m) bool: system i significantly better than system j (significant, mean i > mean j)."""
        q = self.metric_index(metric)
        return self.significant(q) & (self.diff[q] > 0)

    def best(self, metric: str | int | None = None) -> np.ndarray:
        """(m,) bool: the system(s) with the highest mean under ``metric`` (bold in the tables)."""
        means = self.means[self.metric_index(metric)]
        return means == means.max()

    def cell_markers(self, metric: str | int | None = None) -> tuple[str, ...]:
        """Each system's significance marks under ``metric``.

        All pairs: the markers of the systems it significantly beats (``"bd"``, or ``"2,4"`` past 26
        systems). Baseline: ``"+"`` significantly better than the baseline, ``"-"`` significantly
        worse, ``""`` otherwise (and for the baseline itself).
        """
        q = self.metric_index(metric)
        wins = self.wins(q)
        if self.baseline is None:
            return tuple(_join([self.markers[j] for j in np.flatnonzero(wins[i])]) for i in range(self.n_systems))
        b = self.systems.index(self.baseline)
        return tuple("+" if wins[i, b] else "-" if wins[b, i] else "" for i in range(self.n_systems))

    # --------------------------------------------------------------- frames

    def to_frame(self) -> pd.DataFrame:
        """Tidy: one row per (metric, system).

        Columns ``metric, system, marker, mean, ci_low, ci_high, best, significance`` (the cell
        marks of :meth:`cell_markers`), then with a baseline ``diff`` (mean - the baseline's mean),
        ``effect`` (d_z against the baseline), ``pvalue_raw``, ``pvalue`` (NaN on the baseline's
        row), and for all pairs ``wins`` and ``losses`` (how many systems it significantly beats /
        is beaten by).
        """
        rows = []
        b = None if self.baseline is None else self.systems.index(self.baseline)
        for q, metric in enumerate(self.metrics):
            marks, best, wins = self.cell_markers(q), self.best(q), self.wins(q)
            for i, system in enumerate(self.systems):
                row = {"metric": metric, "system": system, "marker": self.markers[i], "mean": self.means[q, i],
                       "ci_low": self.ci_low[q, i], "ci_high": self.ci_high[q, i], "best": bool(best[i]),
                       "significance": marks[i]}
                if b is None:
                    row.update(wins=int(wins[i].sum()), losses=int(wins[:, i].sum()))
                else:
                    own = i == b
                    row.update(diff=self.diff[q, i, b], effect=math.nan if own else self.effect[q, i, b],
                               pvalue_raw=self.pvalue_raw[q, i, b], pvalue=self.pvalue[q, i, b])
                rows.append(row)
        return pd.DataFrame(rows)

    def pair_frame(self) -> pd.DataFrame:
        """One row per (metric, compared pair): ``metric, system_a, system_b, diff`` (mean a - mean b),
        ``effect`` (d_z of a against b), ``pvalue_raw, pvalue, significant``. With a baseline,
        ``system_b`` is the baseline; otherwise the pairs i < j in table order."""
        if self.baseline is None:
            i, j = np.triu_indices(self.n_systems, k=1)
        else:
            j, i = _family(self.n_systems, self.systems.index(self.baseline))
        names = np.array(self.systems, dtype=object)
        parts = []
        for q, metric in enumerate(self.metrics):
            sig = self.significant(q)
            parts.append(pd.DataFrame({
                "metric": metric, "system_a": names[i], "system_b": names[j], "diff": self.diff[q, i, j],
                "effect": self.effect[q, i, j], "pvalue_raw": self.pvalue_raw[q, i, j],
                "pvalue": self.pvalue[q, i, j], "significant": sig[i, j],
            }))
        return pd.concat(parts, ignore_index=True)

    # --------------------------------------------------------------- text

    def description(self) -> str:
        """What the table shows, in plain text (the caption of :meth:`to_markdown`)."""
        return self._describe(latex=False)

    def _describe(self, latex: bool) -> str:
        m, n = self.n_systems, self.n_topics
        text = escape if latex else str
        alpha = inline_math(f"\\alpha = {self.alpha:g}") if latex else f"alpha = {self.alpha:g}"
        test = self.method
        if self.n_trials is not None:
            trials = f"{self.n_trials:,}".replace(",", "{,}") if latex else f"{self.n_trials:,}"
            test += f", B = {trials}, seed {self.seed}" + (", p = (count + 1) / (B + 1)" if self.plus_one else "")
        if self.test in FAMILY_WISE:
            family = f"family-wise over all {m * (m - 1) // 2} pairs by construction, no further correction"
        elif self.correction is None:
            family = "no correction for multiple comparisons"
        else:
            size = m - 1 if self.baseline is not None else m * (m - 1) // 2
            what = "comparisons with the baseline" if self.baseline is not None else "pairs"
            family = f"{_CORRECTION_NAMES[self.correction]} correction over the {size} {what} of each metric"
        level = f"{100 * (1 - self.alpha):g}" + ("\\%" if latex else "%")
        intro = f"Mean over {n} topics with its {level} t-based confidence interval; the highest mean of each " \
                f"metric in bold."
        how = f"two-sided {test}, {alpha}; {family}"
        if self.baseline is None:
            marks = f"Superscripts: the markers of the systems each one significantly beats ({how})."
        else:
            marks = (f"Superscripts + / -: significantly better / worse than the baseline {text(self.baseline)} "
                     f"({how}).")
        return f"{intro} {marks}"

    def to_markdown(self, digits: int = 4) -> str:
        """The comparison as a GitHub-flavoured Markdown table (written here: no tabulate needed).

        One row per system (with its marker when all pairs are compared), one column per metric:
        the mean with ``digits`` decimals, the highest mean of each column in bold
        (``**0.7123**``) and the significance marks as ``<sup>...</sup>``; the description follows
        the table. Names are escaped for Markdown (``|``, ``*``, ``_``, ``\\``, backticks, ``<``).
        """
        digits = digits_value(digits)
        header, rows = self._cells(digits, _md, lambda s: f"**{s}**", lambda s: f"<sup>{s}</sup>" if s else "")
        align = ["---"] * (len(header) - len(self.metrics)) + ["---:"] * len(self.metrics)
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
        lines += ["| " + " | ".join(cells) + " |" for cells in rows]
        return "\n".join(lines) + "\n\n" + _md(self.description()) + "\n"

    def to_latex(self, digits: int = 4, *, label: str | None = None, caption: bool = True) -> str:
        """The comparison as a LaTeX ``table`` (a ``tabular`` alone with ``caption=False``).

        Built only from cwla's LaTeX helpers: names escaped (``RBP_ERG`` -> ``RBP\\_ERG``),
        the highest mean of each column in ``\\textbf``, the significance marks as
        ``\\textsuperscript``, and a caption that names the test, the correction and alpha.
        Needs no LaTeX package beyond the standard ones.
        """
        digits = digits_value(digits)
        header, rows = self._cells(digits, escape, bold, superscript)
        spec = "l" * (len(header) - len(self.metrics)) + "r" * len(self.metrics)
        body = grid(spec, header, rows)
        if not caption:
            return body
        return table(body, self._describe(latex=True), label=label)

    def _cells(self, digits: int, text, strong, sup) -> tuple[list[str], list[list[str]]]:
        """Header and rows of the wide table in a markup: ``text`` escapes, ``strong`` bolds, ``sup`` marks."""
        all_pairs = self.baseline is None
        header = (["", "System"] if all_pairs else ["System"]) + [text(m) for m in self.metrics]
        marks = [self.cell_markers(q) for q in range(len(self.metrics))]
        best = [self.best(q) for q in range(len(self.metrics))]
        rows = []
        for i, system in enumerate(self.systems):
            name = text(system) + (text(" (baseline)") if system == self.baseline else "")
            cells = [text(self.markers[i]), name] if all_pairs else [name]
            for q in range(len(self.metrics)):
                value = f"{self.means[q, i]:.{digits}f}"
                if value.startswith("-") and float(value) == 0.0:  # no "-0.0000" (nor "-0")
                    value = value[1:]
                cells.append((strong(value) if best[q][i] else value) + sup(text(marks[q][i])))
            rows.append(cells)
        return header, rows

    # --------------------------------------------------------------- plot

    def plot(self, metric: str | int | None = None, ax: Axes | None = None) -> Axes:
        """Each system's mean with its confidence interval under ``metric`` (default: the first),
        highest mean at the top, significance shown; returns the matplotlib Axes.

        All pairs: each point is labelled with the markers of the systems it significantly
        beats, and each name with its own marker. Baseline: the baseline's mean is a dashed line,
        systems significantly better are green, worse red, the others grey.
        """
        plt = pyplot("SystemComparison.plot")

        q = self.metric_index(metric)
        m = self.n_systems
        if ax is None:
            _, ax = plt.subplots(figsize=(6.0, max(2.0, 0.28 * m + 1.0)))
        order = np.argsort(-self.means[q], kind="stable")
        y = np.arange(m)[::-1]
        marks = self.cell_markers(q)
        means, low, high = self.means[q, order], self.ci_low[q, order], self.ci_high[q, order]
        if self.baseline is None:
            colours = ["tab:blue"] * m
        else:
            palette = {"+": "tab:green", "-": "tab:red", "": "grey"}
            colours = ["black" if self.systems[k] == self.baseline else palette[marks[k]] for k in order]
            ax.axvline(self.means[q, self.systems.index(self.baseline)], ls="--", color="black", lw=0.8)
        for yy, mean, lo, hi, colour in zip(y, means, low, high, colours):
            ax.errorbar(mean, yy, xerr=[[mean - lo], [hi - mean]], fmt="o", color=colour, ms=4, capsize=2)
        if self.baseline is None:
            for yy, hi, k in zip(y, high, order):
                if marks[k]:
                    ax.annotate(marks[k], (hi, yy), xytext=(3, 0), textcoords="offset points", va="center",
                                fontsize=7)
            names = [f"{self.markers[k]}  {self.systems[k]}" for k in order]
        else:
            names = [self.systems[k] + (" (baseline)" if self.systems[k] == self.baseline else "") for k in order]
        ax.set_yticks(y)
        ax.set_yticklabels(names, fontsize=7)
        ax.set_xlabel(f"mean {self.metrics[q]} ({1 - self.alpha:.0%} CI)")
        correction = "" if self.correction is None else f", {_CORRECTION_NAMES[self.correction]}"
        ax.set_title(f"{self.method}{correction}, alpha = {self.alpha:g}", fontsize=9)
        return ax


_MD_SPECIAL = {"\\": "\\\\", "|": "\\|", "*": "\\*", "_": "\\_", "`": "\\`", "<": "&lt;", ">": "&gt;"}


def _md(text: str) -> str:
    """``text`` safe in a Markdown table cell."""
    return "".join(_MD_SPECIAL.get(ch, ch) for ch in str(text))


# ----------------------------------------------------------------------------- entry points

def compare_scores(scores: Mapping[str, ArrayLike] | ArrayLike, *, systems: Sequence[str] | None = None,
                   topics: Sequence[str] | None = None, baseline: str | None = None, test: str = "tukey",
                   correction: str | None = None, alpha: float = 0.05, n_trials: int = 10_000,
                   seed: Seed = 0, plus_one: bool = False) -> SystemComparison:
    """:func:`compare_systems` on score matrices already computed.

    Parameters
    ----------
    scores : mapping {metric: matrix} or one matrix
        Topics x systems scores (arrays or DataFrames whose columns name the systems and index
        the topics), the same systems and topics for every metric; one matrix is labelled
        ``"score"``.
    systems, topics : sequence of str, optional
        Names of the columns and rows (default: the DataFrame's, else S1..Sm and 1..n).
    baseline, test, correction, alpha, n_trials, seed, plus_one
        As for :func:`compare_systems`.

    Returns
    -------
    SystemComparison
    """
    baseline, test, correction, alpha, B, seed = _options(baseline, test, correction, alpha, n_trials, seed)
    check(plus_one, "plus_one", FLAG, error=DiscpowerError)
    return _compared(scores, systems, topics, baseline, test, correction, alpha, B, seed, bool(plus_one))


def _compared(scores, systems, topics, baseline, test, correction, alpha, B, seed, plus_one) -> SystemComparison:
    """:func:`compare_scores` with its options checked (:func:`_options`)."""
    labels, matrices, names, topic_names = _matrices(scores, systems, topics)
    if baseline is not None and baseline not in names:
        raise DiscpowerError(f"unknown baseline {baseline!r}: the systems are {', '.join(map(repr, names))} "
                             f"(a run's name is its file name without directory and .gz)")
    b = None if baseline is None else names.index(baseline)
    k, m, n = len(labels), len(names), len(topic_names)
    means, low, high = np.empty((k, m)), np.empty((k, m)), np.empty((k, m))
    diff, effect, raw, adjusted = (np.empty((k, m, m)) for _ in range(4))
    for q, X in enumerate(matrices):
        means[q] = column_sums(X) / n
        low[q], high[q] = confidence_intervals(X, alpha)
        diff[q] = means[q][:, None] - means[q][None, :]
        effect[q] = effect_sizes(X)
        raw[q] = _pvalues(X, names, b, test, B, seed, plus_one)
        adjusted[q] = _adjust(raw[q], b, correction)
    arrays = dict(scores=np.stack(matrices), means=means, ci_low=low, ci_high=high, diff=diff, effect=effect,
                  pvalue_raw=raw, pvalue=adjusted)
    for array in arrays.values():
        array.setflags(write=False)  # plain data that stays as computed
    return SystemComparison(
        metrics=labels, systems=names, topics=topic_names, markers=marker_labels(m), baseline=baseline, test=test,
        correction=correction, alpha=alpha, n_trials=B, seed=seed, plus_one=bool(plus_one), **arrays,
    )


def compare_systems(qrels: QrelsLike | Collection | Evaluation, runs: RunsLike | None = None,
                    metrics: MetricsLike | None = None, *, baseline: str | None = None,
                    test: str = "tukey", correction: str | None = None, alpha: float = 0.05,
                    n_trials: int = 10_000, seed: Seed = 0, plus_one: bool = False,
                    **options: object) -> SystemComparison:
    """Compare systems: per metric, each system's mean, confidence interval, effect size and significance.

    The runs are scored by one :class:`cwla.Evaluator` (``options``: those of :func:`cwla.evaluate`,
    gain, cutoff, depth, stop, order, rel, ...); then for each metric, over the n topics:

    * **mean** ``xbar_j = sum_t x_tj / n`` and its t-based ``1 - alpha`` **confidence interval**
      ``xbar_j +- t_{n-1, 1-alpha/2} s_j / sqrt(n)`` (:func:`confidence_intervals`);
    * **effect size** of each pair, paired Cohen's ``d_z = dbar / s_d`` over the per-topic
      differences (:func:`effect_sizes`): with a baseline, each system against it;
    * **significance** (two-sided, ``p < alpha``):

      - ``baseline=None`` (all pairs): ``test="tukey"`` (default) is the paired randomised Tukey HSD
        (Carterette 2012; Sakai 2014, 2018): with column sums S_j and, for b = 1..B, S*_j the sums
        after permuting each topic's scores across the systems, ``r_b = (max_j S*_j - min_j S*_j) / n``
        and ``p_ij = #{b : r_b >= |S_i - S_j| / n - 1e-10} / B``
        (:func:`discpower.randomised_tukey_hsd`, seeded, identical whatever the number of threads). It controls the family-wise error over all C(m, 2) pairs
        itself, as does ``"parametric-tukey"`` (Sakai's two-way ANOVA Tukey HSD,
        :func:`discpower.parametric_tukey_hsd`): ``correction`` must be None. ``"t-test"``,
        ``"randomisation"`` and ``"bootstrap"`` test each pair and ``correction`` adjusts the
        C(m, 2) p-values of each metric. Each system's cell lists the markers
        (:func:`marker_labels`) of the systems it significantly beats.
      - ``baseline`` a run name: each other system against the baseline -- ``"t-test"`` (Student's
        paired t), ``"randomisation"`` (Fisher's paired randomisation test, B sign-flip trials,
        :func:`discpower.fisher_randomisation`), ``"bootstrap"`` (Sakai 2006's paired bootstrap,
        :func:`discpower.paired_bootstrap`) -- with ``correction`` over the **m - 1 comparisons with
        the baseline of each metric** (one family per metric). ``"tukey"`` / ``"parametric-tukey"``
        read the baseline's p-values off the all-pairs test (so conservative: corrected for all
        C(m, 2) pairs). A cell is marked ``+`` (significantly better than the baseline) or ``-``
        (significantly worse).

    ``correction``: ``"holm"`` (Holm 1979), ``"bonferroni"``, ``"bh"`` (Benjamini & Hochberg 1995,
    false discovery rate), see :func:`discpower.adjust_pvalues`. The resampling tests use ``seed`` for
    every metric and every pair (common random numbers).

    Parameters
    ----------
    qrels : qrels (path, DataFrame, dict), cwla.Collection or cwla.Evaluation
        With an Evaluation, ``runs`` and ``metrics`` must be None and ``options`` empty: its scores
        are used.
    runs : run files, DataFrames, dict, cwla RunSet or cwla.Evaluator
        The systems (run names: file names without directory and ``.gz``). An Evaluator brings its
        runs, metrics and options: ``metrics`` selects among them, ``options`` must be empty.
    metrics : metric text, Metric, list of them or dict {label: metric}
        What to compare the systems on (e.g. ``["nDCG@10", "RBP_ERG"]``).
    baseline : str, optional
        The name of the baseline run; None compares all pairs.
    test : {"tukey", "parametric-tukey", "t-test", "randomisation", "bootstrap"}
    correction : {None, "holm", "bonferroni", "bh"}
    alpha : float in (0, 1)
        Significance level; the confidence intervals are ``1 - alpha``.
    n_trials : int
        B of the resampling tests (default 10,000).
    seed : int, numpy Generator or None
        Same seed, same numbers, whatever the number of numba threads (None draws one and records it).
    plus_one : bool
        Randomised p-values as ``(count + 1) / (B + 1)`` instead of ``count / B`` (never 0). With a
        correction over k comparisons a p-value of 0 passes every step of Holm or Bonferroni; with
        ``plus_one`` the smallest p-value is 1 / (B + 1), and Holm's first step passes it only when
        B + 1 > k / alpha (B >= 13,320 for DL19's 666 pairs at alpha 0.05).

    Returns
    -------
    SystemComparison

    Raises
    ------
    DiscpowerError
        An unknown test, correction or baseline, alpha outside (0, 1), a correction with a Tukey HSD,
        fewer than 2 systems or topics, ...

    References
    ----------
    Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006; Sakai, "Metrics, statistics,
    tests", LNCS 8173, 2014; Sakai, "Statistical reform in information retrieval?", SIGIR Forum 2014; Sakai,
    *Laboratory Experiments in Information Retrieval*, 2018; Carterette, TOIS 2012; Holm, Scand. J. Stat.
    1979; Benjamini & Hochberg, JRSS B 1995.

    Examples
    --------
    >>> import cwla
    >>> qrels, runs = cwla.synthetic.collection(n_topics=20, n_runs=4, seed=1)
    >>> res = compare_systems(qrels, runs, ["nDCG@10"], n_trials=1000, seed=1)
    >>> res.means.shape, res.markers
    ((1, 4), ('a', 'b', 'c', 'd'))
    """
    # checked before anything is read; a seed of None or a Generator becomes the int that is recorded
    baseline, test, correction, alpha, B, seed = _options(baseline, test, correction, alpha, n_trials, seed)
    check(plus_one, "plus_one", FLAG, error=DiscpowerError)
    if not isinstance(qrels, (Evaluation, cwla.Collection)) and not isinstance(runs, Evaluator) \
            and (runs is None or metrics is None):
        raise DiscpowerError(f"compare_systems: give the runs and the metrics (e.g. ['nDCG@10']) with the "
                             f"qrels; got runs={'None' if runs is None else '...'}, metrics={metrics!r}")
    ev = evaluation_of(qrels, runs, metrics, options, "compare_systems")
    if len(ev.runs) < 2:
        raise DiscpowerError(f"compare_systems compares systems: give at least 2 runs; got {len(ev.runs)} "
                             f"({', '.join(map(repr, ev.runs))})")
    if baseline is not None and baseline not in ev.runs:
        raise DiscpowerError(f"unknown baseline {baseline!r}: the runs are {', '.join(map(repr, ev.runs))} "
                             f"(a run's name is its file name without directory and .gz)")
    scores = {label: ev.scores(label) for label in ev.labels}  # labelled: runs x topics
    return _compared(scores, ev.runs, ev.topics, baseline, test, correction, alpha, B, seed, bool(plus_one))
