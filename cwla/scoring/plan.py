"""One kernel pass over a Collection: what the scoring kernel needs from the qrels, computed once.

A *plan* holds, for one group of metrics (those with ``judged_only`` and those without), what the
kernel reads besides the rankings: each metric's row of codes and parameters (:func:`_specs`), its
gain table (unjudged documents last: gain 0 in the score, 1 in the upper bound), the judged gain
sum of each topic (AP's R), the counting measures' tables and the ideal scores of the normalised
metrics. :func:`plans` builds them from the qrels' side of a Collection (the same for every group of
runs), :func:`scores` runs the kernel with them. Private to :mod:`cwla.scoring`.
"""

from __future__ import annotations

import warnings

import attrs
import numpy as np

from .._threads import over_chunks
from .._validate import fmt as _fmt
from ..data._join import cell_starts
from ..data.collection import Collection
from ..errors import CwlaWarning, UserFunctionError
from ..metrics.browsing import AP, Tabulated, adaptive_function
from ..metrics.browsing import MAX_CUTOFF
from ..metrics.counting import C_CODE, C_GAIN, C_K, C_LEVEL, FIRST_TREC, N_CSPEC, RBP_TREC
from .counting_kernels import NONREL, REL, UNJUDGED, kind_table
from ..metrics.metric import ALL, Metric
from . import kernels as K

__all__ = ["Plan", "plans", "scores", "normalised", "check_adaptive", "UNIT_COSTS"]


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
    is (:func:`cwla.scoring.counting_kernels.kind_table`) and how many relevant and judged non-relevant (0 <= grade < level)
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
    params = [np.atleast_1d(np.asarray(m.fparam, dtype=np.float64)) for m in measures]
    cpar = np.zeros((len(measures), max([len(p) for p in params], default=1)))
    graded = [m for m in measures if m.uses_gains]
    for q, m in enumerate(measures):
        cspec[q, C_CODE] = m.code
        cspec[q, C_LEVEL] = row[m.level]
        cspec[q, C_K] = -1 if m.k is None else min(m.k, MAX_CUTOFF)  # a k past every ranking changes nothing
        cspec[q, C_GAIN] = graded.index(m) if m.uses_gains else -1
        cpar[q, :len(params[q])] = params[q]
    return (cspec, cpar, kinds, n_rel, n_nonrel, *_grade_gain_tables(graded, col))


def _grade_gain_tables(measures, col: Collection) -> tuple:
    """For the measures over grades as gains (:class:`cwla.metrics.counting.G`, ...): the gain of each grade
    code (unjudged last, 0), each topic's ideal ranking as gain levels (descending, > 0) with their document
    counts -- row r, topic t is ``igain[istart[r, t]:istart[r, t + 1]]`` -- and rbp's per-topic scaling
    ``(lo, span)`` (trec_eval scales a topic's gains into [0, 1] when one lies outside)."""
    n_t, n_g = len(col.topics), len(col.grades)
    gain = np.zeros((max(1, len(measures)), n_g + 1))
    istart = np.zeros((max(1, len(measures)), n_t + 1), dtype=np.int64)
    scale = np.zeros((max(1, len(measures)), n_t, 2))
    scale[:, :, 1] = 1.0
    igain, icount = [np.zeros(0)], [np.zeros(0, dtype=np.int64)]
    offset = 0
    top = np.full(n_t, -np.inf)  # each topic's largest grade >= 0
    judged = col.grades[col.count_code] >= 0
    np.maximum.at(top, col.count_topic[judged], col.grades[col.count_code[judged]])
    for r, m in enumerate(measures):
        gain[r, :n_g] = [m.gain_of(g) for g in col.grades]
        g = gain[r, col.count_code]
        keep = g > 0
        topic, g, count = col.count_topic[keep], g[keep], col.count[keep]
        order = np.lexsort((-g, topic))
        topic, g, count = topic[order], g[order], count[order]
        first = np.ones(len(g), dtype=bool)
        first[1:] = (topic[1:] != topic[:-1]) | (g[1:] != g[:-1])
        at = np.flatnonzero(first)
        levels, counts, level_topic = g[at], np.add.reduceat(count, at) if len(at) else count[:0], topic[at]
        istart[r] = offset + np.searchsorted(level_topic, np.arange(n_t + 1))
        offset += len(levels)
        igain.append(levels)
        icount.append(counts.astype(np.int64))
        if m.code == RBP_TREC:
            pairs = dict(m.gains)
            for t in range(n_t):
                values = list(pairs.values()) + [float(v) for v in range(int(top[t]) + 1) if float(v) not in pairs] \
                    if np.isfinite(top[t]) else list(pairs.values())
                lo, hi = min([0.0, *values]), max([0.0, *values])
                if lo < 0.0 or hi > 1.0:
                    scale[r, t] = lo, hi - lo
    return gain, istart, np.concatenate(igain), np.concatenate(icount), scale


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
    (:func:`cwla.scoring.kernels.kernel_for`), the others (and the counting measures) by the cached one."""
    groups = {}
    for i, m in enumerate(metrics):
        groups.setdefault(adaptive_function(m.browsing), []).append(i)

    def call(function, rows, tables):
        args = (col_arrays, [metrics[i] for i in rows], glo[rows], ghi[rows], relsum[rows])
        try:
            return _kernel_call(function, *args, tables, with_upper, costs, want)
        except Exception as exc:  # noqa: BLE001 - only a user's function raises in a kernel
            if function is None:
                raise
            raise _user_error(exc, function, rows, metrics, glo, ghi, relsum, col_arrays, with_upper, costs,
                              want) from exc

    if len(groups) <= 1:
        function, rows = next(iter(groups.items()), (None, []))
        return call(function, rows, count_tables)
    parts = [(rows, call(function, rows, count_tables if k == 0 else None))
             for k, (function, rows) in enumerate(groups.items())]
    n_cells = len(col_arrays[1])
    lo, hi = np.zeros((len(metrics), n_cells)), np.zeros((len(metrics), n_cells))
    shape = (len(metrics), n_cells, K.N_X) if want else (1, 1, K.N_X)
    xlo, xhi = np.zeros(shape), np.zeros(shape)
    for rows, (l, h, _, _, xl, xh) in parts:
        lo[rows], hi[rows] = l, h
        if want:
            xlo[rows], xhi[rows] = xl, xh
    return lo, hi, parts[0][1][2], parts[0][1][3], xlo, xhi


def _user_error(exc, function, rows, metrics, glo, ghi, relsum, col_arrays, with_upper, costs, want):
    """The :class:`~cwla.errors.UserFunctionError` for a user's model function that raised ``exc`` while the
    metrics ``rows`` (which share it) were scored: naming the first of them that raises alone, its model's
    parameters and the function's exception (a parallel kernel wraps it in a SystemError: its cause)."""
    cause = exc.__cause__ if isinstance(exc, SystemError) and exc.__cause__ is not None else exc
    culprit = rows[0]
    if len(rows) > 1:
        for i in rows:
            try:
                _kernel_call(function, col_arrays, [metrics[i]], glo[[i]], ghi[[i]], relsum[[i]], None,
                             with_upper, costs, want)
            except Exception as again:  # noqa: BLE001 - this one raises
                culprit, cause = i, (again.__cause__ if isinstance(again, SystemError) and again.__cause__ is not None
                                     else again)
                break
    model = metrics[culprit].browsing
    values = ", ".join(f"{p.name}={getattr(model, p.name)!r}" for p in model.declared) or "none"
    return UserFunctionError(f"{metrics[culprit]}: the function of the browsing model {type(model).__name__} "
                             f"(registered with cwla.register_model; parameters {values}) raised "
                             f"{type(cause).__name__}: {cause}")


def _kernel_call(function, col_arrays, metrics, glo, ghi, relsum, count_tables, with_upper, costs, want):
    """One call of the scoring kernel of ``function`` (None: the cached one; see :func:`_run_kernel`)."""
    codes, starts, lengths, n_topics, unjudged = col_arrays
    ispec, fspec, tabs = _specs(metrics)
    ccodes, clo_costs, chi_costs = costs
    h_ap = 0
    for m in metrics:
        if isinstance(m.browsing, AP):
            h_ap = max(h_ap, int(lengths.max(initial=0)) if m.depth == ALL else m.depth)
    if count_tables is None:  # no counting measures
        count_tables = (np.zeros((0, N_CSPEC), dtype=np.int64), np.zeros((0, 1)), np.zeros((1, 1), dtype=np.uint8),
                        np.zeros((1, n_topics)), np.zeros((1, n_topics)), np.zeros((1, 1)),
                        np.zeros((1, n_topics + 1), dtype=np.int64), np.zeros(0), np.zeros(0, dtype=np.int64),
                        np.zeros((1, n_topics, 2)))
    cspec, cpar, kinds, n_rel, n_nonrel, ggain, istart, igain, icount, gscale = count_tables
    lo = np.zeros((len(metrics), len(starts)))
    hi = np.zeros((len(metrics), len(starts)))
    clo = np.zeros((len(cspec), len(starts)))
    chi = np.zeros((len(cspec), len(starts)))
    shape = (len(metrics), len(starts), K.N_X) if want else (1, 1, K.N_X)
    xlo, xhi = np.zeros(shape), np.zeros(shape)
    counts = bool(len(cspec)) and bool((cspec[:, C_CODE] < FIRST_TREC).any())
    kernel = K.kernel_for(function, metrics=len(metrics) > 0, costs=want or bool(ispec[:, K.I_COSTS].any()),
                          counts=counts)
    if len(metrics) or counts:
        over_chunks(lambda first, last: kernel(
            first, last, codes, starts, lengths, n_topics, unjudged, ispec, fspec, glo, ghi, relsum, with_upper, h_ap,
            tabs, ccodes, clo_costs, chi_costs, want, cspec, cpar, kinds, n_rel, n_nonrel, lo, hi, xlo, xhi, clo, chi),
            len(starts))
    if len(cspec) and (cspec[:, C_CODE] >= FIRST_TREC).any():  # trec_eval's other measures: their own kernel
        over_chunks(lambda first, last: K.trec_cells(
            first, last, codes, starts, lengths, n_topics, unjudged, cspec, cpar, kinds, n_rel, n_nonrel, ggain,
            istart, igain, icount, gscale, with_upper, clo, chi), len(starts))
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


def _full_scores(col: Collection, metrics, max_cost: float) -> np.ndarray:
    """(n_metrics,): each metric's score on the fullest ranking -- H documents of gain 1 (with novelty gains,
    r_i = (1 - alpha)^{i-1}: every document relevant to every subtopic), H its cutoff, else its depth, else
    the longest ranking (0 for the metrics not normalised so)."""
    full = np.zeros(len(metrics))
    longest = int(col.lengths.max()) if len(col.lengths) else 0
    for i, m in enumerate(metrics):
        if m.normalize != "full":
            continue
        bounds = [h for h in (m.cutoff, m.depth if isinstance(m.depth, int) else None) if h is not None]
        n = min(bounds) if bounds else longest
        alpha = getattr(m.intents, "alpha", None)
        gains = np.ones(n) if alpha is None else (1.0 - alpha) ** np.arange(n)
        table = np.append(gains, 0.0)[None, :]
        arrays = (np.arange(n, dtype=np.int32), np.zeros(1, dtype=np.int64), np.array([n], dtype=np.int64), 1, n)
        uniform = (UNIT_COSTS[0], np.array([float(max_cost)]), np.array([float(max_cost)]))
        full[i] = _run_kernel(arrays, [m], table, table, np.array([[gains.sum()]]), with_upper=False,
                              costs=uniform)[0][0, 0]
    return full


def normalised(values, residuals, ideal, label):
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


def check_adaptive(resolved, labels, *arrays) -> None:
    """An adaptive model's function left [0, 1] (the kernel made its scores NaN): say which, before the
    ideal normalisation could hide it."""
    for i, m in enumerate(resolved):
        if isinstance(m, Metric) and m.browsing.code == K.ADAPTIVE:
            rows = [a[i] if a.ndim == 3 else a[:, i] for a in arrays if a is not None]
            if not all(np.isfinite(r).all() for r in rows):
                raise UserFunctionError(f"{labels[i]}: the function of the adaptive model {type(m.browsing).__name__} "
                                        f"returned a continuation probability outside [0, 1] (or NaN) on some "
                                        f"ranking (with the unjudged documents at gain 0 or, for the residual, at "
                                        f"1); C(i) must lie in [0, 1] for every rank, gain and parameter value")


@attrs.frozen
class Plan:
    """What one group of metrics (judged_only or not) needs from the qrels, computed once: the rows of the
    C/W/L/A metrics and of the counting measures, their gain tables, judged gain sums, the counting
    measures' tables, the ideal scores of the metrics normalised by the ideal ranking (or None) and the
    scores of the fullest ranking of those normalised by it (or None)."""

    judged_only: bool
    cw: list
    counting: list
    glo: np.ndarray
    ghi: np.ndarray
    relsum: np.ndarray
    tables: tuple
    ideal: np.ndarray | None
    full: np.ndarray | None = None


def plans(col: Collection, resolved, labels, max_cost: float = 1.0) -> list:
    """The :class:`Plan` of each group of metrics (warnings about the qrels said once here)."""
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
        full = _full_scores(col, cw_metrics, max_cost) if any(m.normalize == "full" for m in cw_metrics) else None
        plans.append(Plan(only_judged, cw, counting, glo, ghi, relsum, tables, ideal, full))
    return plans


def scores(col: Collection, resolved, plans, cost_range, want) -> tuple:
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


