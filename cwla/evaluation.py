"""Evaluate many metrics x runs x topics in one kernel call.

:func:`evaluate` resolves each metric's options, turns every metric into a row
of codes and parameters plus a gain table, scores all (run, topic) cells with
:func:`cwla.kernels.score_cells` and returns an :class:`Evaluation`: the raw
(metric x run x topic) arrays of values and residuals, with tidy views.

Residual (cwl_eval's ``-r``): the score with every unjudged document inside the
ranking and every padded position up to the depth H at gain 1, minus the score
with them at 0.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Mapping, Sequence

import attrs
import numpy as np
import pandas as pd

from . import kernels as K
from ._join import cell_starts
from ._latex import tabular
from .aggregations import ERRAgg
from .browsing import AP, ERR, MAX_CUTOFF, Tabulated, adaptive_function
from ._types import MetricsLike, QrelsLike, RunsLike
from .collection import Collection, Judgements, join, join_costs
from .runset import _check_order, _check_ties, read_runs, run_groups
from .counting import C_CODE, C_K, C_LEVEL, N_CSPEC, NONREL, REL, UNJUDGED, CountingMeasure, kind_table
from .errors import CwlaWarning
from .gains import Binary, GainMap, _fmt, parse_gain
from .metric import ALL, Metric
from .text import parse_metric

__all__ = ["Evaluation", "evaluate", "as_metrics", "EXPECTED"]

#: the names of :attr:`Evaluation.expected`'s rows (cwl_eval's): expected cost, expected total cost, expected depth
EXPECTED = ("EC", "ETC", "ED")


@attrs.frozen(eq=False)
class Evaluation:
    """Scores of metrics x runs x topics, as plain data.

    Attributes
    ----------
    metrics : tuple of Metric or CountingMeasure
        The measures as evaluated (every option resolved).
    requested : tuple of Metric or CountingMeasure
        The measures as given (options left unset stay None).
    labels : tuple of str
        One label per metric: the text the user gave, or the canonical text.
    runs, topics : tuple of str
        Axis labels.
    values : ndarray of shape (n_metrics, n_runs, n_topics)
        The scores.
    residuals : ndarray of shape (n_metrics, n_runs, n_topics)
        Upper bound minus score (unjudged and padded documents at gain 1).
    missing_topics, ignored_topics : dict
        Run -> qrels topics missing from the run (scored 0), run topics not in the qrels (ignored).
    expected : ndarray of shape (3, n_metrics, n_runs, n_topics), or None
        With ``evaluate(expected=True)`` (or costs): each metric's expected cost EC = sum_{i<=H} W(i) c_i
        (W(i) = V(i) / E), expected total cost ETC = sum_{i<=H} L(i) cc(i) (cc(i) = c_1 + ... + c_i) and
        expected depth ED = E = sum_{i<=H} V(i), in that order (cwl_eval's EC, ETC, ED; see
        :data:`EXPECTED`). They depend on the browsing model, depth, stop and costs, not on the aggregation.
    expected_residuals : ndarray like ``expected``, or None
        Their residuals: unjudged and padded documents at gain 1, unknown and padded costs at ``min_cost``
        instead of ``max_cost``, minus the above (cwl_eval's ResEC, ResETC, ResED).
    """

    metrics: tuple
    requested: tuple
    labels: tuple
    runs: tuple
    topics: tuple
    values: np.ndarray
    residuals: np.ndarray
    missing_topics: dict
    ignored_topics: dict
    expected: np.ndarray | None = None
    expected_residuals: np.ndarray | None = None

    def _index(self, metric) -> int:
        if isinstance(metric, int):
            return metric
        if isinstance(metric, str) and metric in self.labels:
            return self.labels.index(metric)
        m = metric if isinstance(metric, (Metric, CountingMeasure)) else parse_metric(metric)
        for i, (label, own, asked) in enumerate(zip(self.labels, self.metrics, self.requested)):
            if m in (own, asked) or label == str(m):
                return i
        raise KeyError(f"{metric!r} is not among the evaluated metrics {list(self.labels)}")

    def scores(self, metric: str | int | Metric | CountingMeasure) -> np.ndarray:
        """The (n_runs, n_topics) scores of one metric (by label, text, Metric or index)."""
        return self.values[self._index(metric)]

    def aggregated(self, residuals: bool = False) -> np.ndarray:
        """(n_metrics, n_runs): each run's value over the topics -- the mean, or the sum for the
        counts (``NumRel``, ``NumRet``, ``NumRelRet``, ``NumQ``), as trec_eval and ir_measures report them."""
        data = self.residuals if residuals else self.values
        summed = np.array([m.aggregate == "sum" for m in self.metrics], dtype=bool)
        return np.where(summed[:, None], data.sum(axis=2), data.mean(axis=2))

    def means(self) -> pd.DataFrame:
        """Each run's value (:meth:`aggregated`: the mean over topics, the sum for counts): a
        DataFrame with one row per run and one column per metric label."""
        return pd.DataFrame(self.aggregated().T, index=pd.Index(self.runs, name="run"),
                            columns=pd.Index(self.labels, name="metric"))

    def to_frame(self, per_topic: bool = True, means: bool = True) -> pd.DataFrame:
        """Tidy frame with columns ``run, topic, metric, value, residual`` (and, with :attr:`expected`,
        ``EC, ETC, ED, ResEC, ResETC, ResED``).

        ``per_topic`` rows come first, then, if ``means``,
        one row per run and metric with topic ``"all"`` (:meth:`aggregated`: the mean over
        topics, the sum for counts). Runs
        and metrics keep their evaluation order; topics are sorted as strings.
        """
        n_m, n_r, n_t = self.values.shape
        parts = []
        if per_topic:
            columns = {
                "run": np.tile(np.repeat(np.array(self.runs, dtype=object), n_t), n_m),
                "topic": np.tile(np.array(self.topics, dtype=object), n_m * n_r),
                "metric": np.repeat(np.array(self.labels, dtype=object), n_r * n_t),
                "value": self.values.reshape(-1),
                "residual": self.residuals.reshape(-1),
            }
            if self.expected is not None:
                for k, name in enumerate(EXPECTED):
                    columns[name] = self.expected[k].reshape(-1)
                for k, name in enumerate(EXPECTED):
                    columns["Res" + name] = self.expected_residuals[k].reshape(-1)
            parts.append(pd.DataFrame(columns))
        if means:
            columns = {
                "run": np.tile(np.array(self.runs, dtype=object), n_m),
                "topic": "all",
                "metric": np.repeat(np.array(self.labels, dtype=object), n_r),
                "value": self.aggregated().reshape(-1),
                "residual": self.aggregated(residuals=True).reshape(-1),
            }
            if self.expected is not None:
                for k, name in enumerate(EXPECTED):
                    columns[name] = self.expected[k].mean(axis=2).reshape(-1)
                for k, name in enumerate(EXPECTED):
                    columns["Res" + name] = self.expected_residuals[k].mean(axis=2).reshape(-1)
            parts.append(pd.DataFrame(columns))
        frame = pd.concat(parts, ignore_index=True)
        return frame.sort_values(["run", "metric"], kind="stable", key=_label_order(self)).reset_index(drop=True)

    def to_latex(self, digits: int = 4) -> str:
        """Per-run means as a LaTeX tabular (runs x metrics)."""
        return tabular(self.means(), digits, index=True)


def _label_order(ev):
    runs = {r: i for i, r in enumerate(ev.runs)}
    labels = {m: i for i, m in enumerate(ev.labels)}

    def key(col):
        return col.map(runs if col.name == "run" else labels)

    return key


def as_metrics(metrics) -> tuple[list, list[str]]:
    """Measures and labels from a measure (:class:`Metric` or counting measure), a text, a sequence
    of them, or a dict {label: measure}."""
    if isinstance(metrics, Mapping) and metrics:
        named = [(str(label), as_metrics([m])[0][0]) for label, m in metrics.items()]
        return [m for _, m in named], [label for label, _ in named]
    if isinstance(metrics, (str, Metric, CountingMeasure)):
        metrics = [metrics]
    if not isinstance(metrics, Sequence) or not metrics:
        raise TypeError("metrics must be a Metric, a metric text, a non-empty list of them, or a dict "
                        "{label: metric}")
    out, labels = [], []
    for m in metrics:
        if isinstance(m, str):
            out.append(parse_metric(m))
            labels.append(m)
        elif isinstance(m, (Metric, CountingMeasure)):
            out.append(m)
            labels.append(str(m))
        else:
            raise TypeError(f"a metric must be a Metric, a counting measure or a metric text, got {m!r}")
    dupes = sorted({label for label in labels if labels.count(label) > 1})
    if dupes:
        raise ValueError(f"metrics must be distinct; {dupes} appear more than once")
    return out, labels


def relevance_level(rel=None, gain=None) -> float | None:
    """The evaluation's relevance level: ``rel``, else the threshold of a binary ``gain``, else None
    (binary measures then use 1). Both given and different is an error."""
    if rel is not None:
        if isinstance(rel, bool) or not isinstance(rel, numbers.Real) or not math.isfinite(rel) or not rel > 0:
            raise ValueError(f"The 'rel' parameter of evaluate must be a number > 0 (the lowest relevant grade). "
                             f"Got {rel!r} instead.")
        rel = float(rel)
    own = gain.threshold if isinstance(gain, Binary) else None
    if rel is not None and own is not None and rel != own:
        raise ValueError(f"evaluate: the relevance level rel={_fmt(rel)} contradicts gain={gain}; give one of them")
    return rel if rel is not None else own


def _gain_tables(metrics, labels, col: Collection):
    """Per metric: gains of each grade code, unjudged last (0 in ``lo``, 1 in ``hi``)."""
    n_g = len(col.grades)
    lo = np.zeros((len(metrics), n_g + 1))
    hi = np.zeros((len(metrics), n_g + 1))
    cache = {}
    for i, (m, label) in enumerate(zip(metrics, labels)):
        if m.gain not in cache:
            cache[m.gain] = m.gain.table(col.grades, col.max_grade)
        if n_g and not cache[m.gain].any():
            warnings.warn(f"{label}: gain map {m.gain} gives every qrels grade "
                          f"({', '.join(_fmt(g) for g in col.grades)}) gain 0, so every score is 0",
                          CwlaWarning, stacklevel=4)
        lo[i, :n_g] = hi[i, :n_g] = cache[m.gain]
        hi[i, n_g] = 1.0
    return lo, hi


def _specs(metrics):
    """The kernel's view of ``metrics``: integer spec rows, float spec rows (the model's parameters, then the
    aggregation's) and the tables of tabulated models (one row per metric)."""
    ispec = np.zeros((len(metrics), K.N_ISPEC), dtype=np.int64)
    fspec = np.zeros((len(metrics), K.N_FSPEC), dtype=np.float64)
    width = max([len(m.browsing.values) for m in metrics if isinstance(m.browsing, Tabulated)], default=1)
    tabs = np.zeros((len(metrics), width))
    for i, m in enumerate(metrics):
        whole = m.depth == ALL
        ispec[i] = (
            m.browsing.code,
            m.aggregation.code,
            # a cutoff past H changes nothing
            min(m.cutoff, MAX_CUTOFF if whole else m.depth) if m.cutoff is not None else -1,
            -1 if whole else m.depth,
            int(m.stop),
            int(m.browsing.uses_costs),
        )
        model = m.browsing.params
        fspec[i, K.F_MODEL:K.F_MODEL + len(model)] = model
        fspec[i, K.F_AGG] = m.aggregation.params[0] if m.aggregation.params else 0.0
        if isinstance(m.browsing, Tabulated):
            tabs[i, :len(m.browsing.values)] = m.browsing.continuation
    return ispec, fspec, tabs


#: no per-document costs: every document (and padded position) costs 1, as in cwl_eval without a cost file
UNIT_COSTS = (np.zeros(0, dtype=np.int32), np.ones(1), np.ones(1))


def _cost_tables(col: Collection, max_cost: float, min_cost: float) -> tuple:
    """``(cost codes, costs in the score, costs in the upper bound)``: a document without a cost, and a
    padded position, costs ``max_cost`` in the score and ``min_cost`` in the upper bound (cwl_eval)."""
    if col.cost_codes is None:
        return np.zeros(0, dtype=np.int32), np.array([float(max_cost)]), np.array([float(min_cost)])
    return col.cost_codes, np.append(col.costs, max_cost), np.append(col.costs, min_cost)


def _level_tables(measures, col: Collection):
    """For the counting measures: their spec rows and, per distinct relevance level, what each grade code
    is (:func:`cwla.counting.kind_table`) and how many relevant and judged non-relevant (0 <= grade < level)
    documents each topic has."""
    levels = sorted({m.level for m in measures})
    row = {level: i for i, level in enumerate(levels)}
    n_g = len(col.grades)
    kinds = np.full((max(1, len(levels)), n_g + 1), UNJUDGED, dtype=np.uint8)
    n_rel = np.zeros((max(1, len(levels)), len(col.topics)))
    n_nonrel = np.zeros_like(n_rel)
    for level, i in row.items():
        kinds[i] = kind_table(col.grades, level)
        n_rel[i], n_nonrel[i] = col.judged_sums(np.stack([kinds[i, :n_g] == REL, kinds[i, :n_g] == NONREL]))
    cspec = np.zeros((len(measures), N_CSPEC), dtype=np.int64)
    cpar = np.zeros(len(measures))
    for q, m in enumerate(measures):
        cspec[q, C_CODE] = m.code
        cspec[q, C_LEVEL] = row[m.level]
        cspec[q, C_K] = -1 if m.k is None else min(m.k, MAX_CUTOFF)  # a k past every ranking changes nothing
        cpar[q] = m.fparam
    return cspec, cpar, kinds, n_rel, n_nonrel


def _warn_if_nothing_relevant(measures, labels, col: Collection) -> None:
    """A relevance level above every qrels grade makes a counting measure 0 everywhere: say so (as the
    C/W/L/A metrics do for a gain map that sends every grade to 0)."""
    for m, label in zip(measures, labels):
        if "rel" in attrs.fields_dict(type(m)) and len(col.grades) and not (col.grades >= m.level).any():
            warnings.warn(f"{label}: no qrels grade is >= its relevance level {_fmt(m.level)} (grades "
                          f"{', '.join(_fmt(g) for g in col.grades)}), so no document is relevant", CwlaWarning,
                          stacklevel=4)


def _run_kernel(col_arrays, metrics, glo, ghi, relsum, count_tables=None, with_upper=True, costs=UNIT_COSTS,
                want=False):
    """Scores (lo, hi) of ``metrics`` and of the counting measures on the cells of ``col_arrays``
    (codes, starts, lengths, n_topics, unjudged code), and (``want``) each metric's EC, ETC and ED
    (xlo, xhi: shape (n_metrics, n_cells, 3); else empty), under ``costs`` (:func:`_cost_tables`).

    The metrics of adaptive models (:func:`cwla.register_model`) are scored by their function's kernel
    (:func:`cwla.kernels.kernel_for`), the others (and the counting measures) by the cached one."""
    groups = {}
    for i, m in enumerate(metrics):
        groups.setdefault(adaptive_function(m.browsing), []).append(i)
    if len(groups) <= 1:
        return _kernel_call(K.kernel_for(next(iter(groups), None)), col_arrays, metrics, glo, ghi, relsum,
                            count_tables, with_upper, costs, want)
    parts = []
    for k, (function, rows) in enumerate(groups.items()):
        parts.append((rows, _kernel_call(K.kernel_for(function), col_arrays, [metrics[i] for i in rows], glo[rows],
                                         ghi[rows], relsum[rows], count_tables if k == 0 else None, with_upper,
                                         costs, want)))
    n_cells = len(col_arrays[1])
    lo, hi = np.zeros((len(metrics), n_cells)), np.zeros((len(metrics), n_cells))
    shape = (len(metrics), n_cells, K.N_X) if want else (1, 1, K.N_X)
    xlo, xhi = np.zeros(shape), np.zeros(shape)
    for rows, (l, h, _, _, xl, xh) in parts:
        lo[rows], hi[rows] = l, h
        if want:
            xlo[rows], xhi[rows] = xl, xh
    return lo, hi, parts[0][1][2], parts[0][1][3], xlo, xhi


def _kernel_call(kernel, col_arrays, metrics, glo, ghi, relsum, count_tables, with_upper, costs, want):
    """One call of a scoring kernel (see :func:`_run_kernel`)."""
    codes, starts, lengths, n_topics, unjudged = col_arrays
    ispec, fspec, tabs = _specs(metrics)
    ccodes, clo_costs, chi_costs = costs
    h_ap = 0
    for m in metrics:
        if isinstance(m.browsing, AP):
            h_ap = max(h_ap, int(lengths.max(initial=0)) if m.depth == ALL else m.depth)
    if count_tables is None:  # no counting measures
        count_tables = (np.zeros((0, N_CSPEC), dtype=np.int64), np.zeros(0), np.zeros((1, 1), dtype=np.uint8),
                        np.zeros((1, n_topics)), np.zeros((1, n_topics)))
    cspec, cpar, kinds, n_rel, n_nonrel = count_tables
    lo = np.zeros((len(metrics), len(starts)))
    hi = np.zeros((len(metrics), len(starts)))
    clo = np.zeros((len(cspec), len(starts)))
    chi = np.zeros((len(cspec), len(starts)))
    shape = (len(metrics), len(starts), K.N_X) if want else (1, 1, K.N_X)
    xlo, xhi = np.zeros(shape), np.zeros(shape)
    kernel(codes, starts, lengths, n_topics, unjudged, ispec, fspec, glo, ghi, relsum, with_upper, h_ap, tabs, ccodes,
           clo_costs, chi_costs, want, cspec, cpar, kinds, n_rel, n_nonrel, lo, hi, xlo, xhi, clo, chi)
    return lo, hi, clo, chi, xlo, xhi


def _ideal_scores(col: Collection, metrics, glo, ghi, relsum, max_cost: float = 1.0) -> np.ndarray:
    """(n_metrics, n_topics) score of each metric on each topic's ideal ranking
    (the judged documents of positive gain by gain descending, same cutoff, depth and stop).

    Documents of gain 0 are left out of the ideal ranking: below the relevant ones they add nothing to
    it, and under ``depth="all"`` (the ranking's own length as depth) they would lengthen it and so
    change a rate aggregation's ideal (ERG divides by the expected depth); a judged 0 must score as an
    unjudged document does. (With a fixed depth the ideal ranking is padded to it: no change.)"""
    n_t = len(col.topics)
    ideal = np.zeros((len(metrics), n_t))
    by_gain = {}
    for i, m in enumerate(metrics):
        if m.normalize == "ideal":
            by_gain.setdefault(m.gain, []).append(i)
    grade_codes = np.arange(len(col.grades))
    for rows in by_gain.values():
        gains = glo[rows[0], : len(col.grades)]
        rank = np.empty(len(col.grades), dtype=np.int64)  # each code's place in the ideal ranking
        rank[np.lexsort((-col.grades, -gains))] = grade_codes  # by gain, then grade, descending
        positive = np.flatnonzero(gains[col.count_code] > 0.0)
        entries = positive[np.lexsort((rank[col.count_code[positive]], col.count_topic[positive]))]
        codes = np.repeat(col.count_code[entries], col.count[entries]).astype(np.int32)
        lengths = np.bincount(col.count_topic[entries], weights=col.count[entries], minlength=n_t).astype(np.int64)
        starts = cell_starts(lengths)
        sub = [metrics[i] for i in rows]
        uniform = (UNIT_COSTS[0], np.array([float(max_cost)]), np.array([float(max_cost)]))  # every document
        lo = _run_kernel((codes, starts, lengths, n_t, col.unjudged_code), sub, glo[rows], ghi[rows],
                         relsum[rows], with_upper=False, costs=uniform)[0]
        ideal[rows] = lo
    return ideal


def _normalised(values, residuals, ideal, label):
    """``values / ideal`` and ``residuals / ideal`` per topic; 0 where the ideal scores 0, and where it is so
    small that the division overflows (a degenerate ideal, e.g. a gain of 1e-309: said in a warning)."""
    best = ideal[None, :]
    safe = np.where(best > 0.0, best, 1.0)
    # divide (not multiply by 1/ideal, which overflows for a subnormal ideal and makes 0 * inf = NaN)
    with np.errstate(over="ignore", invalid="ignore"):
        v, r = values / safe, residuals / safe
    degenerate = (best > 0.0) & ~(np.isfinite(v) & np.isfinite(r))
    if degenerate.any():
        topics = np.flatnonzero(degenerate.any(axis=0))
        warnings.warn(f"{label}: the ideal score of {len(topics)} topic(s) is so small (down to "
                      f"{float(ideal[topics].min()):.3g}) that normalising by it overflows; those values count as "
                      f"0, as where the ideal scores 0", CwlaWarning, stacklevel=4)
    zero = (best <= 0.0) | degenerate
    return np.where(zero, 0.0, v), np.where(zero, 0.0, r)


def evaluate(qrels: QrelsLike | Collection, runs: RunsLike | None = None, metrics: MetricsLike = ("nDCG@10",), *,
             gain: GainMap | str | None = None, cutoff: int | None = None, depth: int | str | None = None,
             stop: bool | None = None, normalize: str | None = None, judged_only: bool | None = None,
             rel: float | None = None, max_docs: int | None = None, order: str = "trec_eval", ties: str = "float32",
             workers: int | None = None, costs: QrelsLike | None = None, max_cost: float = 1.0,
             min_cost: float = 1.0, expected: bool | None = None) -> Evaluation:
    """Evaluate metrics on runs.

    Parameters
    ----------
    qrels : path, DataFrame, dict, iterable, object with ``to_dict()``, or Collection
        The qrels (anything :func:`cwla.read_qrels` accepts), or a :class:`Collection`
        from :func:`cwla.prepare` (then ``runs`` must be None).
    runs : path, DataFrame, list, dict, iterable, object with ``to_dict()``, or RunSet
        The runs (see :func:`cwla.prepare`).
    metrics : measure, str, sequence of them, or dict {label: measure or str}
        Canonical texts, Chen & Sakai names, ir_measures or trec_eval names (see
        :func:`cwla.parse_metric`), :class:`Metric` values or counting measures
        (:mod:`cwla.counting`); results are labelled by the text given,
        ``str(metric)``, or the dict's keys.
    gain, cutoff, depth, stop, normalize, judged_only
        Options for every metric that does not set them itself (the ir_measures and trec_eval
        names fix some: ``P@k`` binary gains and cutoff, ``nDCG@k`` linear gains, cutoff and
        normalisation, ...). Unset everywhere: ``linear`` gains (gmax = the largest grade in the
        qrels), no cutoff, depth 1000, stop False, no normalisation, every document kept.
        ``gain`` may be a text (``"binary:2"``); a binary ``gain`` also sets the relevance level.
    rel : number, optional
        The relevance level (trec_eval's ``-l``) of every binary measure that does not give its
        own (``P@10``, ``map``, ``R@100``, ``Bpref``, ...): grades >= rel are relevant. Default:
        the threshold of a binary ``gain``, else 1.
    max_docs : int, optional
        Keep only the first ``max_docs`` documents of each ranking (in the evaluation's order)
        before anything is measured, as trec_eval's ``-M`` does; unlike a cutoff it applies to
        every measure, counts (``NumRet``) included.
    order : {"trec_eval", "file"}
        Document order when reading runs (see :func:`cwla.prepare`).
    ties : {"float32", "float64"}
        Precision in which scores are compared when ordering (see :func:`cwla.prepare`).
    workers : int, optional
        Threads that read run files (default: the number of CPUs, at most 4). Run files are
        read, joined and scored a group at a time (consecutive files of up to 1 GiB of text, at
        least one file), so memory holds the qrels and one group, never every run; other runs
        are read at once. The result is the same.
    costs : qrels-like, optional
        Per-document costs, in any form qrels take with the cost in the grade column (a file
        ``qid 0 docno cost``, a frame ``topic, docno, cost``, a dict ``{topic: {docno: cost}}``);
        finite and > 0. They drive the cost-based models (BPM, TBG, U, IFTRate, IFT) and EC / ETC.
        A document without one costs ``max_cost`` in the score and ``min_cost`` in the upper
        bound (cwl_eval's convention; both 1 by default), as do the padded positions up to H.
    max_cost, min_cost : float
        See ``costs``.
    expected : bool, optional
        Also compute :attr:`Evaluation.expected` (EC, ETC, ED) and their residuals. Default: only
        when ``costs`` are given.

    Returns
    -------
    Evaluation

    Examples
    --------
    >>> from cwla import evaluate, synthetic
    >>> qrels, runs = synthetic.collection(seed=1)
    >>> ev = evaluate(qrels, runs, ["P(rel=2)@10", "nDCG@10", "INST_PE", "map", "R@100"])
    >>> ev.values.shape[0]
    5
    """
    parsed, labels = as_metrics(metrics)
    for name, value in (("max_cost", max_cost), ("min_cost", min_cost)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value <= 0:
            raise ValueError(f"The {name!r} parameter of evaluate must be a finite number > 0. Got {value!r} instead.")
    if expected not in (None, True, False):
        raise TypeError(f"The 'expected' parameter of evaluate must be True, False or None. Got {expected!r} instead.")
    want = bool(expected) or (expected is None and costs is not None)
    cost_judgements = None if costs is None else Judgements.of(costs)
    if isinstance(gain, str):
        gain = parse_gain(gain)
    if gain is not None and not isinstance(gain, GainMap):
        raise TypeError(f"The 'gain' parameter of evaluate must be a gain map or its text. Got {gain!r} instead.")
    level = relevance_level(rel, gain)
    if max_docs is not None:
        if isinstance(max_docs, bool) or not isinstance(max_docs, numbers.Integral) or max_docs < 1:
            raise ValueError(f"The 'max_docs' parameter of evaluate must be an integer >= 1 or None. "
                             f"Got {max_docs!r} instead.")
        max_docs = min(int(max_docs), MAX_CUTOFF)  # past every ranking: no change
    options = dict(gain=gain, cutoff=cutoff, depth=depth, stop=stop, normalize=normalize, judged_only=judged_only)
    Metric(ERR(), ERRAgg(), **options)  # the options are checked even where every metric sets its own
    resolved = [m.resolve(rel=level, **options) for m in parsed]
    for m, label in zip(resolved, labels):
        m.warn_if_constant(label, stacklevel=3)
        m.warn_if_truncated(label, stacklevel=3)
        if costs is not None and isinstance(m, Metric) and m.normalize == "ideal" and m.browsing.uses_costs:
            raise ValueError(f"{label}: ideal normalisation of a cost-based model needs the costs of the ideal "
                             f"ranking's documents, which per-document costs do not give (cwla's ideal ranking is "
                             f"made of grades); use normalize=none, or no costs (every document then costs "
                             f"max_cost)")

    plans, parts = None, []
    for col in _collections(qrels, runs, order, ties, workers, cost_judgements):
        if max_docs is not None:
            col = col.truncated(max_docs)
        plans = plans or _plans(col, resolved, labels, max_cost)  # the qrels' side: the same for every part
        parts.append((col, _scores(col, resolved, plans, (max_cost, min_cost), want)))
    values = np.concatenate([p[0] for _, p in parts], axis=1)
    uppers = np.concatenate([p[1] for _, p in parts], axis=1)
    x_lo = np.concatenate([p[2] for _, p in parts], axis=2) if want else None
    x_hi = np.concatenate([p[3] for _, p in parts], axis=2) if want else None
    present = np.concatenate([col.present for col, _ in parts])
    runs_axis = tuple(r for col, _ in parts for r in col.runs)
    missing = {r: t for col, _ in parts for r, t in col.missing_topics.items()}
    ignored = {r: t for col, _ in parts for r, t in col.ignored_topics.items()}
    col = parts[0][0]

    # trec_eval -c: a qrels topic missing from a run scores 0 (its upper bound stays)
    # (the counting measures are right on an empty ranking as they are: NumRel = R, NumQ = 1, the rest 0)
    absent = ~present
    for i, m in enumerate(resolved):
        if isinstance(m, Metric):
            values[i][absent] = 0.0
    _check_adaptive(resolved, labels, values, uppers, x_lo, x_hi)
    residuals = uppers - values  # before the normalisation: (upper - value) / ideal keeps its digits
    for plan in plans:
        if plan.ideal is not None:
            for j, i in enumerate(plan.cw):
                if resolved[i].normalize == "ideal":
                    values[i], residuals[i] = _normalised(values[i], residuals[i], plan.ideal[j], labels[i])
    return Evaluation(
        metrics=tuple(resolved),
        requested=tuple(parsed),
        labels=tuple(labels),
        runs=runs_axis,
        topics=col.topics,
        values=values,
        residuals=residuals,
        missing_topics=missing,
        ignored_topics=ignored,
        expected=x_lo,
        expected_residuals=None if x_lo is None else x_hi - x_lo,
    )


def _check_adaptive(resolved, labels, *arrays) -> None:
    """An adaptive model's function left [0, 1] (the kernel made its scores NaN): say which, before the
    ideal normalisation could hide it."""
    for i, m in enumerate(resolved):
        if isinstance(m, Metric) and m.browsing.code == K.ADAPTIVE:
            rows = [a[i] if a.ndim == 3 else a[:, i] for a in arrays if a is not None]
            if not all(np.isfinite(r).all() for r in rows):
                raise ValueError(f"{labels[i]}: the function of the adaptive model {type(m.browsing).__name__} "
                                 f"returned a continuation probability outside [0, 1] (or NaN) on some ranking "
                                 f"(with the unjudged documents at gain 0 or, for the residual, at 1); C(i) must "
                                 f"lie in [0, 1] for every rank, gain and parameter value")


@attrs.frozen
class _Plan:
    """What one group of metrics (judged_only or not) needs from the qrels, computed once: the rows of the
    C/W/L/A metrics and of the counting measures, their gain tables, judged gain sums, the counting
    measures' tables, and the ideal scores of the normalised metrics (or None)."""

    judged_only: bool
    cw: list
    counting: list
    glo: np.ndarray
    ghi: np.ndarray
    relsum: np.ndarray
    tables: tuple
    ideal: np.ndarray | None


def _plans(col: Collection, resolved, labels, max_cost: float = 1.0) -> list:
    """The :class:`_Plan` of each group of metrics (warnings about the qrels said once here)."""
    plans = []
    for only_judged in (False, True):
        rows = [i for i, m in enumerate(resolved) if bool(m.judged_only) == only_judged]
        if not rows:
            continue
        cw = [i for i in rows if isinstance(resolved[i], Metric)]
        counting = [i for i in rows if not isinstance(resolved[i], Metric)]
        cw_metrics = [resolved[i] for i in cw]
        glo, ghi = _gain_tables(cw_metrics, [labels[i] for i in cw], col)
        relsum = col.judged_sums(glo[:, : len(col.grades)])  # (n_metrics, n_topics)
        tables = _level_tables([resolved[i] for i in counting], col)
        _warn_if_nothing_relevant([resolved[i] for i in counting], [labels[i] for i in counting], col)
        ideal = _ideal_scores(col, cw_metrics, glo, ghi, relsum, max_cost) \
            if any(m.normalize == "ideal" for m in cw_metrics) \
            else None
        plans.append(_Plan(only_judged, cw, counting, glo, ghi, relsum, tables, ideal))
    return plans


def _scores(col: Collection, resolved, plans, cost_range, want) -> tuple:
    """``(values, uppers)`` of shape (n_metrics, n_runs, n_topics) on one Collection, and (``want``) the
    expectations EC, ETC, ED in the score and in the upper bound, shape (3, n_metrics, n_runs, n_topics)
    (0 for the counting measures), else None."""
    n_r, n_t = len(col.runs), len(col.topics)
    values = np.zeros((len(resolved), n_r, n_t))
    uppers = np.zeros_like(values)
    x_lo = np.zeros((K.N_X, len(resolved), n_r, n_t)) if want else None
    x_hi = np.zeros_like(x_lo) if want else None
    for plan in plans:
        group = col.judged_only() if plan.judged_only else col
        cw_metrics = [resolved[i] for i in plan.cw]
        lo, hi, clo, chi, xlo, xhi = _run_kernel(group.arrays(), cw_metrics, plan.glo, plan.ghi, plan.relsum,
                                                 plan.tables, costs=_cost_tables(group, *cost_range), want=want)
        values[plan.cw], uppers[plan.cw] = lo.reshape(-1, n_r, n_t), hi.reshape(-1, n_r, n_t)
        values[plan.counting], uppers[plan.counting] = clo.reshape(-1, n_r, n_t), chi.reshape(-1, n_r, n_t)
        if want and plan.cw:
            x_lo[:, plan.cw] = np.moveaxis(xlo, 2, 0).reshape(K.N_X, -1, n_r, n_t)
            x_hi[:, plan.cw] = np.moveaxis(xhi, 2, 0).reshape(K.N_X, -1, n_r, n_t)
    return values, uppers, x_lo, x_hi


def _collections(qrels, runs, order, ties, workers, costs=None):
    """The Collections to score: the one given; or the qrels joined with the runs, a group of files at a time
    when they are files (:func:`cwla.runset.run_groups`: memory holds the qrels and one group), else all at
    once; with ``costs`` (Judgements), the documents' costs joined too."""
    if isinstance(qrels, Collection):
        if costs is not None:
            raise ValueError("evaluate: costs are joined with the runs; pass raw qrels and runs with costs=, "
                             "not a prepared Collection")
        if runs is not None:
            raise ValueError("evaluate: pass runs inside the Collection or with raw qrels, not both")
        if ties != qrels.ties and ties != "float32":
            raise ValueError(f"evaluate: the Collection was prepared with ties={qrels.ties!r}; prepare it again with "
                             f"ties={ties!r}")
        qrels.check()
        yield qrels
        return
    if runs is None:
        raise ValueError("evaluate: no runs given")
    _check_order(order, "evaluate")
    _check_ties(ties, "evaluate")
    judgements = Judgements.of(qrels)
    for group in run_groups(runs):
        run_set = read_runs(group, workers=workers, ties=ties, order=order)
        col = join(judgements, run_set)
        yield col if costs is None else join_costs(col, costs, run_set)
