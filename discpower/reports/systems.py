"""Compare systems: the table of means with significance marks that every paper prints.

:func:`compare_systems` scores runs with cwla and, per metric, reports each system's mean over the
topics, a t-based confidence interval, the paired effect size d_z and significance -- either of
each system against a ``baseline`` (with a multiple-comparison ``correction`` over those m - 1
comparisons), against several baselines (the correction over all their comparisons), or of all
pairs (the studentised-permutation max-t test by default, family-wise by construction). The per-pair tests
are the t-test, Fisher's randomisation test, Sakai's bootstrap, Wilcoxon's signed-rank test, the sign
test or any callable ``test(x, y) -> p-value`` (scipy.stats' tests), and the corrections those of
statsmodels' ``multipletests`` (:func:`discpower.stats.corrections.adjust_pvalues`).
:func:`compare_scores` does the same on topics x systems score matrices.

The result, :class:`SystemComparison`, is plain data with pure methods: a tidy
:meth:`~SystemComparison.to_frame`, the pairs (:meth:`~SystemComparison.pair_frame`),
:meth:`~SystemComparison.to_markdown`, :meth:`~SystemComparison.to_latex` and
:meth:`~SystemComparison.plot`.

The means are ``sum_t x_t / n`` over the n topics; the intervals and effect sizes are those of
:mod:`discpower.stats.effects` (their formulas there), the family of tested pairs and its correction those
of :mod:`discpower.stats.family`.

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
from typing import TYPE_CHECKING, Union

import attrs
import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

import cwla
from cwla import Evaluation, Evaluator
from cwla._shared import Displayed, FLAG, Interval, Shown, check, count_text, legend, markdown_text, short_labels
from cwla._shared import bold, escape, grid, inline_math, superscript, table

from .._params import ALPHA, TRIALS, validated
from .._params import digits as digits_value
from ..errors import DiscpowerError
from ..scoring import evaluation_of
from ..stats.rng import SEED
from ..stats.effects import confidence_intervals, effect_sizes
from ..stats.family import (TestLike, adjust_family, baseline_option, callable_name, family_pairs, family_pvalues,
                             trials_per_metric, unknown_baselines)
from ..stats.matrix import metric_matrices
from ..stats.memory import null_memory
from ..stats.registry import REGISTRY, check_reachable, resolve, label_of
from ..stats.trials import in_parts
from ..stats.registry import TESTS as REGISTRY_TESTS
from ..stats.corrections import CORRECTION_NAMES, CORRECTIONS, check_correction
from ..stats.tukey import column_sums
from ..typing import MetricsLike, QrelsLike, RunsLike, Seed
from .comparison_plot import comparison_plot

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

    from cwla import Collection

__all__ = ["SystemComparison", "compare_systems", "compare_scores", "confidence_intervals", "effect_sizes",
           "marker_labels", "TESTS", "CORRECTIONS", "TestLike", "BaselineLike"]

#: names accepted by ``test=`` (beside a callable ``test(x, y) -> p-value``): the registry's, the correction apart
TESTS = REGISTRY_TESTS
#: the baseline(s): a run name, a list or tuple of run names, or None (all pairs)
BaselineLike = Union[str, Sequence[str], None]

_CORRECTION_NAMES = CORRECTION_NAMES
#: the parameters of a comparison of systems, declared once for compare_systems and compare_scores
_COMPARISON = {"alpha": ALPHA, "n_trials": TRIALS, "seed": SEED, "plus_one": FLAG}


# ----------------------------------------------------------------------------- formulas

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

def _options(baseline, test, correction, n_trials, seed) -> tuple[str | tuple[str, ...] | None, TestLike, str | None,
                                                                 int | None, int | None]:
    """The comparison's options checked before any file is read; returns them normalised. A test name is the
    registry's (:func:`discpower.stats.registry.resolve`): ``"<test>-<correction>"`` (``"t-test-holm"``) or
    the test and ``correction`` apart."""
    if callable(test):
        found = None
        correction = check_correction(correction)
    else:
        found, correction = resolve(test, correction)
        test = found.name
    baseline = baseline_option(baseline)
    if found is not None and found.resampling:
        null_memory(n_trials)  # the plan's memory check: a test at a time, its null not kept
        B = n_trials
    else:
        B, seed = None, None  # (n_trials and seed checked at the entry all the same: a bad value is a mistake)
    return baseline, test, correction, B, seed


# ----------------------------------------------------------------------------- the result

@attrs.frozen(eq=False, repr=False)
class SystemComparison(Displayed):
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
    baseline : str, tuple of str, or None
        The baseline system; a tuple of them when several were given (as a list or tuple, even of one);
        None when all pairs are compared. :attr:`baselines` is always a tuple.
    test : str or callable
        The test's name (one of :data:`TESTS`), or the test callable given (:attr:`test_name` names it).
    correction : str or None
        The multiple-comparison correction of the family (one of :data:`CORRECTIONS`).
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
        NaN on the diagonal and for pairs not compared: with baselines only their rows and columns).
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
    baseline: str | tuple[str, ...] | None
    test: TestLike
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
    plus_one: bool = True

    # --------------------------------------------------------------- queries

    @property
    def n_systems(self) -> int:
        """m, the number of systems."""
        return len(self.systems)

    def _shown(self) -> Shown:
        """Each system's mean, systems x metrics (long labels abbreviated)."""
        shorts = short_labels(self.metrics)
        table = pd.DataFrame(np.asarray(self.means).T, index=pd.Index(self.systems, name="system"),
                             columns=pd.Index(shorts, name="metric"))
        facts = [self.method] + ([f"correction={self.correction}"] if self.correction else [])
        facts += [f"baseline={', '.join(self.baselines)}" if self.baselines else "all pairs", f"alpha={self.alpha:g}"]
        return Shown("SystemComparison", f"{count_text(len(self.metrics), 'metric')} x "
                     f"{count_text(self.n_systems, 'system')} x {count_text(len(self.topics), 'topic')}", table,
                     tuple(facts), legend(self.metrics, shorts))

    @property
    def n_topics(self) -> int:
        """n, the number of topics."""
        return len(self.topics)

    @property
    def method(self) -> str:
        """The test in words, e.g. ``"paired randomised Tukey HSD"`` (``"test wilcoxon"`` for a callable)."""
        return REGISTRY[self.test].words if isinstance(self.test, str) else f"test {self.test_name}"

    @property
    def test_name(self) -> str:
        """The test's name: one of :data:`TESTS`, or the callable's name (``"wilcoxon"``, ``"<lambda>"``)."""
        return self.test if isinstance(self.test, str) else callable_name(self.test)

    @property
    def baselines(self) -> tuple[str, ...]:
        """The baseline systems in the order given: ``()`` when all pairs are compared."""
        if self.baseline is None:
            return ()
        return (self.baseline,) if isinstance(self.baseline, str) else tuple(self.baseline)

    def baseline_positions(self) -> tuple[int, ...]:
        """The positions of the baselines."""
        return tuple(self.systems.index(b) for b in self.baselines)

    def family_size(self) -> int:
        """The number of comparisons of each metric's family: C(m, 2), or the pairs with the baselines
        (m - 1 for one baseline; each pair once with several)."""
        return len(family_pairs(self.n_systems, self.baseline_positions())[0])

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
        """(m, m) bool: the pairs compared -- every pair, or those with a baseline (False on the diagonal)."""
        m = self.n_systems
        out = np.ones((m, m), dtype=bool)
        if self.baseline is not None:
            out[:] = False
            for b in self.baseline_positions():
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
        systems). One baseline (a str): ``"+"`` significantly better than the baseline, ``"-"``
        significantly worse, ``""`` otherwise (and for the baseline itself). Several baselines: a
        sign and the baseline's marker for each baseline it differs from significantly, in the order
        the baselines were given: ``"+c-e"`` is better than baseline c, worse than baseline e (``"+3,-5"``
        past 26 systems).
        """
        q = self.metric_index(metric)
        wins = self.wins(q)
        if self.baseline is None:
            return tuple(_join([self.markers[j] for j in np.flatnonzero(wins[i])]) for i in range(self.n_systems))
        if isinstance(self.baseline, str):
            b = self.systems.index(self.baseline)
            return tuple("+" if wins[i, b] else "-" if wins[b, i] else "" for i in range(self.n_systems))
        sep = "" if self.n_systems <= 26 else ","
        return tuple(sep.join(("+" if wins[i, b] else "-") + self.markers[b] for b in self.baseline_positions()
                              if wins[i, b] or wins[b, i]) for i in range(self.n_systems))

    # --------------------------------------------------------------- frames

    def to_frame(self) -> pd.DataFrame:
        """Tidy: one row per (metric, system); with several baselines, per (metric, baseline, system).

        Columns ``metric, system, marker, mean, ci_low, ci_high, best, significance`` (the cell
        marks of :meth:`cell_markers`), then with a baseline ``diff`` (mean - the baseline's mean),
        ``effect`` (d_z against the baseline), ``pvalue_raw``, ``pvalue`` (NaN on the baseline's
        row), and for all pairs ``wins`` and ``losses`` (how many systems it significantly beats /
        is beaten by). Several baselines: a ``baseline`` column after ``metric`` says which baseline
        the row's comparison is against, and ``significance`` is ``"+"``, ``"-"`` or ``""`` against it.
        """
        if isinstance(self.baseline, tuple):
            return self._baselines_frame()
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

    def _baselines_frame(self) -> pd.DataFrame:
        """:meth:`to_frame` with several baselines: one row per (metric, baseline, system)."""
        rows = []
        for q, metric in enumerate(self.metrics):
            best, wins = self.best(q), self.wins(q)
            for b in self.baseline_positions():
                for i, system in enumerate(self.systems):
                    own = i == b
                    rows.append({"metric": metric, "baseline": self.systems[b], "system": system,
                                 "marker": self.markers[i], "mean": self.means[q, i], "ci_low": self.ci_low[q, i],
                                 "ci_high": self.ci_high[q, i], "best": bool(best[i]),
                                 "significance": "+" if wins[i, b] else "-" if wins[b, i] else "",
                                 "diff": self.diff[q, i, b], "effect": math.nan if own else self.effect[q, i, b],
                                 "pvalue_raw": self.pvalue_raw[q, i, b], "pvalue": self.pvalue[q, i, b]})
        return pd.DataFrame(rows)

    def pair_frame(self) -> pd.DataFrame:
        """One row per (metric, compared pair): ``metric, system_a, system_b, diff`` (mean a - mean b),
        ``effect`` (d_z of a against b), ``pvalue_raw, pvalue, significant``. With baselines,
        ``system_b`` is the baseline the comparison is against (the pairs of the first baseline, then
        those of the next with the systems not yet compared, ...: the family, each pair once);
        otherwise the pairs i < j in table order."""
        if self.baseline is None:
            i, j = np.triu_indices(self.n_systems, k=1)
        else:
            j, i = family_pairs(self.n_systems, self.baseline_positions())
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

    def description(self, ci: bool = False, *, tidy: bool = False) -> str:
        """What the table shows, in plain text (the caption of :meth:`to_markdown`); ``ci``: the table
        prints each mean's confidence interval (as ``mean ± half-width``), and the text says so; ``tidy``:
        what the columns of :meth:`to_frame` hold instead (no bold, no superscripts)."""
        check(ci, "ci", FLAG, error=DiscpowerError)
        check(tidy, "tidy", FLAG, error=DiscpowerError)
        return self._describe(latex=False, ci=bool(ci), tidy=bool(tidy))

    def _describe(self, latex: bool, ci: bool = False, tidy: bool = False) -> str:
        m, n = self.n_systems, self.n_topics
        text = escape if latex else str
        alpha = inline_math(f"\\alpha = {self.alpha:g}") if latex else f"alpha = {self.alpha:g}"
        test = text(self.method)
        if self.n_trials is not None:
            trials = f"{self.n_trials:,}".replace(",", "{,}") if latex else f"{self.n_trials:,}"
            test += f", B = {trials}, seed {self.seed}" + (", p = (count + 1) / (B + 1)" if self.plus_one else "")
        several = isinstance(self.baseline, tuple)
        if isinstance(self.test, str) and REGISTRY[self.test].family_wise:
            family = f"family-wise over all {m * (m - 1) // 2} pairs by construction, no further correction"
        elif self.correction is None:
            family = "no correction for multiple comparisons"
        else:
            size = self.family_size()
            what = ("comparisons of the baselines with the other systems (each pair once)" if several
                    else "comparisons with the baseline" if self.baseline is not None else "pairs")
            family = f"{_CORRECTION_NAMES[self.correction]} correction over the {size} {what} of each metric"
        level = f"{100 * (1 - self.alpha):g}" + ("\\%" if latex else "%")
        if tidy:
            intro = (f"mean: over {n} topics, its {level} t-based confidence interval in ci_low, ci_high; best: "
                     f"the highest mean of the metric.")
        elif ci:
            pm = inline_math("\\pm") if latex else "±"
            intro = f"Mean over {n} topics {pm} the half-width of its {level} t-based confidence interval; the " \
                    f"highest mean of each metric in bold."
        else:
            intro = f"Mean over {n} topics; the highest mean of each metric in bold."
        how = f"{test}, {alpha}; {family}" if callable(self.test) else f"two-sided {test}, {alpha}; {family}"
        if tidy and self.baseline is None:
            marks = (f"significance: the markers of the systems it significantly beats; wins, losses: how many it "
                     f"significantly beats, and is beaten by ({how}).")
        elif tidy:
            marks = (f"significance: + / - significantly better / worse than the baseline; diff, effect: the "
                     f"difference of means and the paired effect size d_z against it; pvalue_raw, pvalue: before "
                     f"and after the correction ({how}).")
        elif self.baseline is None:
            marks = f"Superscripts: the markers of the systems each one significantly beats ({how})."
        elif several:
            named = ", ".join(f"{self.markers[b]} = {text(self.systems[b])}" for b in self.baseline_positions())
            marks = (f"Superscripts +x / -x: significantly better / worse than the baseline of marker x, the "
                     f"baselines being {named} ({how}).")
        else:
            marks = (f"Superscripts + / -: significantly better / worse than the baseline {text(self.baseline)} "
                     f"({how}).")
        return f"{intro} {marks}"

    def to_markdown(self, digits: int = 4, *, ci: bool = False) -> str:
        """The comparison as a GitHub-flavoured Markdown table (written here: no tabulate needed).

        One row per system (with its marker when all pairs are compared), one column per metric:
        the mean with ``digits`` decimals, the highest mean of each column in bold
        (``**0.7123**``), with ``ci`` the half-width of its ``1 - alpha`` confidence interval
        (``0.7123 ± 0.0412``), and the significance marks as ``<sup>...</sup>``; the description
        follows the table and mentions the intervals only when they are printed. Names are escaped
        for Markdown (``|``, ``*``, ``_``, ``\\``, backticks, ``<``).
        """
        digits = digits_value(digits)
        check(ci, "ci", FLAG, error=DiscpowerError)
        header, rows = self._cells(digits, markdown_text, lambda s: f"**{s}**", lambda s: f"<sup>{s}</sup>" if s else "",
                                   "±" if ci else None)
        align = ["---"] * (len(header) - len(self.metrics)) + ["---:"] * len(self.metrics)
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
        lines += ["| " + " | ".join(cells) + " |" for cells in rows]
        return "\n".join(lines) + "\n\n" + markdown_text(self.description(ci=bool(ci))) + "\n"

    def to_latex(self, digits: int = 4, *, label: str | None = None, caption: bool = True, ci: bool = False,
                 booktabs: bool = False) -> str:
        """The comparison as a LaTeX ``table`` (a ``tabular`` alone with ``caption=False``).

        Built only from cwla's LaTeX helpers: names escaped (``RBP_ERG`` -> ``RBP\\_ERG``),
        the highest mean of each column in ``\\textbf``, with ``ci`` the half-width of its
        ``1 - alpha`` confidence interval (``0.7123 $\\pm$ 0.0412``), the significance marks as
        ``\\textsuperscript``, and a caption that names the test, the correction and alpha (and the
        intervals only when they are printed). The rules are ``\\hline``, and the table needs no LaTeX
        package beyond the standard ones; ``booktabs=True`` uses ``\\toprule``, ``\\midrule`` and
        ``\\bottomrule`` instead, which need ``\\usepackage{booktabs}`` in the preamble.

        Examples
        --------
        >>> import numpy as np
        >>> res = compare_scores(np.array([[0.5, 0.2], [0.7, 0.4], [0.3, 0.3]]), test="t-test")
        >>> tex = res.to_latex(2, ci=True, booktabs=True)
        >>> "\\\\toprule" in tex and "$\\\\pm$" in tex and "confidence interval" in tex
        True
        >>> "confidence interval" in res.to_latex(2)
        False
        """
        digits = digits_value(digits)
        check(ci, "ci", FLAG, error=DiscpowerError)
        check(booktabs, "booktabs", FLAG, error=DiscpowerError)
        header, rows = self._cells(digits, escape, bold, superscript, inline_math("\\pm") if ci else None)
        spec = "l" * (len(header) - len(self.metrics)) + "r" * len(self.metrics)
        body = grid(spec, header, rows, booktabs=bool(booktabs))
        if not caption:
            return body
        return table(body, self._describe(latex=True, ci=bool(ci)), label=label)

    def _cells(self, digits: int, text, strong, sup, pm: str | None = None) -> tuple[list[str], list[list[str]]]:
        """Header and rows of the wide table in a markup: ``text`` escapes, ``strong`` bolds, ``sup`` marks;
        ``pm`` (the markup's plus-minus sign) adds each mean's confidence half-width."""
        all_pairs = self.baseline is None
        header = (["", "System"] if all_pairs else ["System"]) + [text(m) for m in self.metrics]
        marks = [self.cell_markers(q) for q in range(len(self.metrics))]
        best = [self.best(q) for q in range(len(self.metrics))]
        several = isinstance(self.baseline, tuple)
        rows = []
        for i, system in enumerate(self.systems):
            if several:
                name = text(system) + (text(f" (baseline {self.markers[i]})") if system in self.baseline else "")
            else:
                name = text(system) + (text(" (baseline)") if system == self.baseline else "")
            cells = [text(self.markers[i]), name] if all_pairs else [name]
            for q in range(len(self.metrics)):
                value = _fixed(self.means[q, i], digits)
                value = strong(value) if best[q][i] else value
                if pm is not None:
                    value += f" {pm} {_fixed((self.ci_high[q, i] - self.ci_low[q, i]) / 2.0, digits)}"
                cells.append(value + sup(text(marks[q][i])))
            rows.append(cells)
        return header, rows

    # --------------------------------------------------------------- plot

    def plot(self, metric: str | int | None = None, ax: Axes | None = None) -> Axes:
        """Each system's mean with its confidence interval under ``metric`` (default: the first),
        highest mean at the top, significance shown; returns the matplotlib Axes.

        All pairs: each point is labelled with the markers of the systems it significantly
        beats, and each name with its own marker. Baseline: the baseline's mean is a dashed line
        (its point a black square); systems significantly better are blue triangles pointing up,
        significantly worse vermillion triangles pointing down, the others grey circles (Okabe-Ito
        colours, no red/green pair; the shapes tell them apart in greyscale), as the legend says. The
        x axis names the metric and the topics, the title the test (with its correction), B and alpha.
        Several baselines: a dashed line at each baseline's mean, the colours and shapes against the
        first baseline, and each point labelled with its marks against all of them (:meth:`cell_markers`).
        """
        return comparison_plot(self, metric, ax)


def _fixed(value: float, digits: int) -> str:
    """``value`` with ``digits`` decimals, never ``-0.0000`` (nor ``-0``)."""
    out = f"{value:.{digits}f}"
    return out[1:] if out.startswith("-") and float(out) == 0.0 else out


# ----------------------------------------------------------------------------- entry points

@validated(_COMPARISON)
def compare_scores(scores: Mapping[str, ArrayLike] | ArrayLike, *, systems: Sequence[str] | None = None,
                   topics: Sequence[str] | None = None, baseline: BaselineLike = None, test: TestLike = "perm-max-t",
                   correction: str | None = None, alpha: float = 0.05, n_trials: int = 10_000,
                   seed: Seed = 0, plus_one: bool = True) -> SystemComparison:
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

    Examples
    --------
    Sakai's Table 5.1 (20 topics, systems A, B, C), all pairs with Wilcoxon's signed-rank test and Holm's
    correction, then against two baselines with the sign test and Hommel's:

    >>> import pandas as pd, scipy.stats
    >>> X = pd.DataFrame({"A": [.7, .3, .2, .6, .4, .4, .0, .7, .1, .3, .5, .4, .0, .6, .5, .3, .1, .5, .2, .1],
    ...                   "B": [.5, .1, .0, .2, .4, .3, .0, .5, .3, .3, .4, .4, .1, .4, .2, .1, .1, .6, .3, .2],
    ...                   "C": [.0, .0, .2, .1, .3, .3, .1, .2, .4, .4, .4, .3, .3, .2, .2, .2, .1, .5, .4, .3]})
    >>> res = compare_scores({"AP": X}, test="wilcoxon", correction="holm")
    >>> bool(res.pvalue_raw[0, 0, 1] == scipy.stats.wilcoxon(X.A, X.B).pvalue)
    True
    >>> vs = compare_scores({"AP": X}, baseline=["B", "C"], test="sign", correction="hommel")
    >>> vs.pair_frame()[["system_a", "system_b"]].values.tolist()
    [['A', 'B'], ['C', 'B'], ['A', 'C']]
    >>> tt = compare_scores({"AP": X}, baseline="C", test=scipy.stats.ttest_rel)  # any test(x, y) -> .pvalue
    >>> bool(tt.pvalue_raw[0, 0, 2] == scipy.stats.ttest_rel(X.A, X.C).pvalue), tt.cell_markers()
    (True, ('', '', ''))
    """
    baseline, test, correction, B, seed = _options(baseline, test, correction, n_trials, seed)
    return _compared(scores, systems, topics, baseline, test, correction, alpha, B, seed, plus_one)


def _compared(scores, systems, topics, baseline, test, correction, alpha, B, seed, plus_one) -> SystemComparison:
    """:func:`compare_scores` with its options checked (:func:`_options`)."""
    labels, matrices, names, topic_names = metric_matrices(scores, systems, topics)
    unknown_baselines(baseline, names, "systems")
    bs = () if baseline is None else (names.index(baseline),) if isinstance(baseline, str) \
        else tuple(names.index(b) for b in baseline)
    k, m, n = len(labels), len(names), len(topic_names)
    if not callable(test) and correction is not None:  # before any resampling: can the family reach significance?
        check_reachable(test, m, B, alpha, plus_one, correction=correction, family=len(family_pairs(m, bs)[0]))
    means, low, high = np.empty((k, m)), np.empty((k, m)), np.empty((k, m))
    diff, effect, raw, adjusted = (np.empty((k, m, m)) for _ in range(4))
    with in_parts(k, label_of(test), trials_per_metric(test, B, len(family_pairs(m, bs)[0]))) as part:
        for q, X in enumerate(matrices):
            means[q] = column_sums(X) / n
            low[q], high[q] = confidence_intervals(X, alpha)
            diff[q] = means[q][:, None] - means[q][None, :]
            effect[q] = effect_sizes(X)
            with part(q):
                raw[q] = family_pvalues(X, names, bs, test, B, seed, plus_one, labels[q])
            adjusted[q] = adjust_family(raw[q], bs, correction, alpha)
    arrays = dict(scores=np.stack(matrices), means=means, ci_low=low, ci_high=high, diff=diff, effect=effect,
                  pvalue_raw=raw, pvalue=adjusted)
    for array in arrays.values():
        array.setflags(write=False)  # plain data that stays as computed
    return SystemComparison(
        metrics=labels, systems=names, topics=topic_names, markers=marker_labels(m), baseline=baseline, test=test,
        correction=correction, alpha=alpha, n_trials=B, seed=seed, plus_one=plus_one, **arrays,
    )


@validated(_COMPARISON)
def compare_systems(qrels: QrelsLike | Collection | Evaluation, runs: RunsLike | None = None,
                    metrics: MetricsLike | None = None, *, baseline: BaselineLike = None,
                    test: TestLike = "perm-max-t", correction: str | None = None, alpha: float = 0.05,
                    n_trials: int = 10_000, seed: Seed = 0, plus_one: bool = True,
                    **options: object) -> SystemComparison:
    """Compare systems: per metric, each system's mean, confidence interval, effect size and significance.

    The runs are scored by one :class:`cwla.Evaluator` (``options``: those of :func:`cwla.evaluate`,
    gain, cutoff, depth, stop, order, rel, ...); then for each metric, over the n topics:

    * **mean** ``xbar_j = sum_t x_tj / n`` and its t-based ``1 - alpha`` **confidence interval**
      ``xbar_j +- t_{n-1, 1-alpha/2} s_j / sqrt(n)`` (:func:`confidence_intervals`);
    * **effect size** of each pair, paired Cohen's ``d_z = dbar / s_d`` over the per-topic
      differences (:func:`effect_sizes`): with a baseline, each system against it;
    * **significance** (two-sided, ``p < alpha``):

      - ``baseline=None`` (all pairs): ``test="perm-max-t"`` (default) is the studentised-permutation
        max-t test (:func:`discpower.permutation_max_t`): each topic's scores permuted across the systems
        B times, each pair's paired |t| against the largest paired |t| over all pairs of each relabelling,
        seeded, identical whatever the number of threads. It controls the family-wise error over all
        C(m, 2) pairs and holds it under the nulls built from real runs (``docs/calibration.md``: the
        recommendation and its figures). ``"tukey"`` is the paired randomised Tukey HSD (Carterette 2012;
        Sakai 2014, 2018; :func:`discpower.randomised_tukey_hsd`: the range of the permuted means,
        ``p_ij = (#{b : r_b >= |S_i - S_j| / n - 1e-10} + 1) / (B + 1)``), the published papers' test;
        ``"max-t"`` the sign-flip max-t (:func:`discpower.randomised_max_t`) and ``"parametric-tukey"``
        Sakai's two-way ANOVA Tukey HSD (:func:`discpower.parametric_tukey_hsd`). These control the
        family-wise error themselves: ``correction`` must be None.
        ``"t-test"``, ``"fisher"`` (alias ``"randomisation"``) and ``"bootstrap"`` test each pair and ``correction`` adjusts the
        C(m, 2) p-values of each metric, as do the other per-pair tests below. Each system's cell
        lists the markers (:func:`marker_labels`) of the systems it significantly beats.
      - ``baseline`` a run name: each other system against the baseline -- ``"t-test"`` (Student's
        paired t), ``"randomisation"`` (Fisher's paired randomisation test, B sign-flip trials,
        :func:`discpower.fisher_randomisation`), ``"bootstrap"`` (Sakai 2006's paired bootstrap,
        :func:`discpower.paired_bootstrap`), ``"wilcoxon"``, ``"sign"`` or a callable -- with
        ``correction`` over the **m - 1 comparisons with the baseline of each metric** (one family per
        metric). ``"tukey"`` / ``"parametric-tukey"`` read the baseline's p-values off the all-pairs
        test (so conservative: corrected for all C(m, 2) pairs). A cell is marked ``+``
        (significantly better than the baseline) or ``-`` (significantly worse).
      - ``baseline`` a list or tuple of run names (several baselines): the family of each metric is
        every baseline against every other system, each pair once (two baselines are compared once,
        under the first given): ``k (m - 1) - C(k, 2)`` comparisons for k baselines, and
        ``correction`` is applied over all of them together. A cell lists a sign and the baseline's
        marker for each baseline it differs from significantly (``+c-e``: better than baseline c,
        worse than baseline e); :meth:`SystemComparison.to_frame` has a ``baseline`` column and
        :meth:`SystemComparison.pair_frame`'s ``system_b`` is the baseline of each comparison.

    The per-pair tests besides those: ``"wilcoxon"`` is Wilcoxon's signed-rank test,
    ``scipy.stats.wilcoxon(x, y)`` with scipy's defaults (zero differences dropped,
    ``zero_method="wilcox"``; tied |differences| given their average rank; the exact distribution,
    a permutation distribution or the normal approximation as scipy's ``method="auto"`` decides, see
    :func:`discpower.stats.significance.wilcoxon_signed_rank`); ``"sign"`` is the sign test,
    ``scipy.stats.binomtest(k, n', 0.5)`` with k the topics where the first system scores higher and
    n' the topics where the two differ (ties dropped). A **callable** ``test(x, y)`` gets the two
    systems' per-topic scores (float arrays in topic order; ``x`` is ``system_a`` and ``y``
    ``system_b`` of :meth:`SystemComparison.pair_frame`, so with a baseline ``y`` is the baseline's)
    and returns the p-value, a float in [0, 1] or an object with a ``.pvalue`` such as scipy.stats'
    results (``scipy.stats.ttest_rel``, ``scipy.stats.wilcoxon``, a ``functools.partial`` of one);
    anything else raises a DiscpowerError naming the callable and the pair. Identical systems get
    p = 1 from ``"wilcoxon"`` and ``"sign"``.

    ``correction``: ``"holm"`` (Holm 1979), ``"bonferroni"``, ``"bh"`` (Benjamini & Hochberg 1995,
    false discovery rate), and statsmodels' ``multipletests`` names ``"sidak"``, ``"holm-sidak"``,
    ``"simes-hochberg"``, ``"hommel"``, ``"fdr_bh"`` (= ``"bh"``), ``"fdr_by"``, ``"fdr_tsbh"``,
    ``"fdr_tsbky"`` (the two-stage ones at ``alpha``), see :func:`discpower.adjust_pvalues`: each
    gives statsmodels' adjusted p-values. The resampling tests use ``seed`` for every metric and
    every pair (common random numbers).

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
    baseline : str, list or tuple of str, optional
        The name of the baseline run, or the names of several; None compares all pairs.
    test : str or callable
        A test of the registry (:mod:`discpower.stats.registry`): ``"perm-max-t"`` (default), ``"tukey"``,
        ``"max-t"``, ``"parametric-tukey"``, ``"t-test"``, ``"fisher"`` (alias ``"randomisation"``),
        ``"bootstrap"``, ``"wilcoxon"``, ``"sign"``, a test that is not family-wise with its correction as
        ``"<test>-<correction>"`` (``"t-test-holm"``); or a callable ``test(x, y) -> p-value`` (or an object
        with ``.pvalue``) that tests each pair. A randomised test with a correction its smallest p-value
        1/(B + 1) cannot pass (e.g. ``"fisher-holm"`` over 1,711 pairs at B = 10,000) is refused, with the
        B that can.
    correction : one of :data:`CORRECTIONS`
        The correction apart from the test's name (the same as ``test="<test>-<correction>"``): None, ``"holm"``, ``"bonferroni"``, ``"bh"``, ``"sidak"``, ``"holm-sidak"``, ``"simes-hochberg"``,
        ``"hommel"``, ``"fdr_bh"``, ``"fdr_by"``, ``"fdr_tsbh"``, ``"fdr_tsbky"``.
    alpha : float in (0, 1)
        Significance level; the confidence intervals are ``1 - alpha``.
    n_trials : int
        B of the resampling tests (default 10,000).
    seed : int, numpy Generator or None
        Same seed, same numbers, whatever the number of numba threads (None draws one and records it).
    plus_one : bool
        Randomised p-values as ``(count + 1) / (B + 1)`` (default; never 0) or, False, ``count / B``. With a
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
        fewer than 2 systems or topics, a test callable that fails or returns no p-value in [0, 1], ...

    References
    ----------
    Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006; Sakai, "Metrics, statistics,
    tests", LNCS 8173, 2014; Sakai, "Statistical reform in information retrieval?", SIGIR Forum 2014; Sakai,
    *Laboratory Experiments in Information Retrieval*, 2018; Carterette, TOIS 2012; Holm, Scand. J. Stat.
    1979; Benjamini & Hochberg, JRSS B 1995; Wilcoxon, Biometrics Bulletin 1945; Smucker, Allan & Carterette,
    CIKM 2007 (the sign, Wilcoxon, t and randomisation tests in IR).

    Examples
    --------
    >>> import cwla
    >>> qrels, runs = cwla.synthetic.collection(n_topics=20, n_runs=4, seed=1)
    >>> res = compare_systems(qrels, runs, ["nDCG@10"], n_trials=1000, seed=1)
    >>> res.means.shape, res.markers
    ((1, 4), ('a', 'b', 'c', 'd'))

    Against two baselines with Wilcoxon's test, Holm-corrected over the 5 comparisons of each metric:

    >>> vs = compare_systems(qrels, runs, ["nDCG@10", "P@5"], baseline=["run01", "run02"], test="wilcoxon",
    ...                      correction="holm")
    >>> vs.family_size(), sorted(vs.to_frame().baseline.unique())
    (5, ['run01', 'run02'])
    >>> print(vs.to_markdown(3, ci=True).splitlines()[0])
    | System | nDCG@10 | P@5 |
    """
    # checked before anything is read; a seed of None or a Generator becomes the int that is recorded
    baseline, test, correction, B, seed = _options(baseline, test, correction, n_trials, seed)
    if not isinstance(qrels, (Evaluation, cwla.Collection)) and not isinstance(runs, Evaluator) \
            and (runs is None or metrics is None):
        raise DiscpowerError(f"compare_systems: give the runs and the metrics (e.g. ['nDCG@10']) with the "
                             f"qrels; got runs={'None' if runs is None else '...'}, metrics={metrics!r}")
    ev = evaluation_of(qrels, runs, metrics, options, "compare_systems")
    if len(ev.runs) < 2:
        raise DiscpowerError(f"compare_systems compares systems: give at least 2 runs; got {len(ev.runs)} "
                             f"({', '.join(map(repr, ev.runs))})")
    unknown_baselines(baseline, ev.runs, "runs")
    scores = {label: ev.scores(label) for label in ev.labels}  # labelled: runs x topics
    return _compared(scores, ev.runs, ev.topics, baseline, test, correction, alpha, B, seed, plus_one)
