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

import warnings
from collections.abc import Mapping, Sequence

import attrs
import numpy as np
import pandas as pd

from . import kernels as K
from .collection import Collection, prepare
from .errors import CwlaWarning
from .gains import GainMap, _fmt, parse_gain
from .metric import Metric
from .text import parse_metric

__all__ = ["Evaluation", "evaluate", "as_metrics"]


@attrs.frozen(eq=False)
class Evaluation:
    """Scores of metrics x runs x topics, as plain data.

    Attributes
    ----------
    metrics : tuple of Metric
        The metrics as evaluated (every option resolved).
    requested : tuple of Metric
        The metrics as given (options left unset stay None).
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

    def _index(self, metric) -> int:
        if isinstance(metric, int):
            return metric
        if isinstance(metric, str) and metric in self.labels:
            return self.labels.index(metric)
        m = metric if isinstance(metric, Metric) else parse_metric(metric)
        for i, (label, own, asked) in enumerate(zip(self.labels, self.metrics, self.requested)):
            if m in (own, asked) or label == str(m):
                return i
        raise KeyError(f"{metric!r} is not among the evaluated metrics {list(self.labels)}")

    def scores(self, metric) -> np.ndarray:
        """The (n_runs, n_topics) scores of one metric (by label, text, Metric or index)."""
        return self.values[self._index(metric)]

    def means(self) -> pd.DataFrame:
        """Mean over topics: a DataFrame with one row per run and one column per metric label."""
        return pd.DataFrame(self.values.mean(axis=2).T, index=pd.Index(self.runs, name="run"),
                            columns=pd.Index(self.labels, name="metric"))

    def to_frame(self, per_topic: bool = True, means: bool = True) -> pd.DataFrame:
        """Tidy frame with columns ``run, topic, metric, value, residual``.

        ``per_topic`` rows come first, then, if ``means``,
        one row per run and metric with topic ``"all"`` (the mean over topics). Runs
        and metrics keep their evaluation order; topics are sorted as strings.
        """
        n_m, n_r, n_t = self.values.shape
        parts = []
        if per_topic:
            parts.append(pd.DataFrame({
                "run": np.tile(np.repeat(np.array(self.runs, dtype=object), n_t), n_m),
                "topic": np.tile(np.array(self.topics, dtype=object), n_m * n_r),
                "metric": np.repeat(np.array(self.labels, dtype=object), n_r * n_t),
                "value": self.values.reshape(-1),
                "residual": self.residuals.reshape(-1),
            }))
        if means:
            parts.append(pd.DataFrame({
                "run": np.tile(np.array(self.runs, dtype=object), n_m),
                "topic": "all",
                "metric": np.repeat(np.array(self.labels, dtype=object), n_r),
                "value": self.values.mean(axis=2).reshape(-1),
                "residual": self.residuals.mean(axis=2).reshape(-1),
            }))
        frame = pd.concat(parts, ignore_index=True)
        return frame.sort_values(["run", "metric"], kind="stable", key=_label_order(self)).reset_index(drop=True)

    def to_latex(self, digits: int = 4) -> str:
        """Per-run means as a LaTeX tabular (runs x metrics)."""
        return self.means().to_latex(float_format=f"%.{digits}f")


def _label_order(ev):
    runs = {r: i for i, r in enumerate(ev.runs)}
    labels = {m: i for i, m in enumerate(ev.labels)}

    def key(col):
        return col.map(runs if col.name == "run" else labels)

    return key


def as_metrics(metrics) -> tuple[list[Metric], list[str]]:
    """Metrics and labels from a Metric, a text, a sequence of them, or a dict {label: metric}."""
    if isinstance(metrics, Mapping) and metrics:
        named = [(str(label), as_metrics([m])[0][0]) for label, m in metrics.items()]
        return [m for _, m in named], [label for label, _ in named]
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    if not isinstance(metrics, Sequence) or not metrics:
        raise TypeError("metrics must be a Metric, a metric text, a non-empty list of them, or a dict "
                        "{label: metric}")
    out, labels = [], []
    for m in metrics:
        if isinstance(m, str):
            out.append(parse_metric(m))
            labels.append(m)
        elif isinstance(m, Metric):
            out.append(m)
            labels.append(str(m))
        else:
            raise TypeError(f"a metric must be a Metric or a metric text, got {m!r}")
    dupes = sorted({label for label in labels if labels.count(label) > 1})
    if dupes:
        raise ValueError(f"metrics must be distinct; {dupes} appear more than once")
    return out, labels


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
                warnings.warn(f"{label}: gain map {m.gain} gives every qrels grade ({', '.join(_fmt(g) for g in col.grades)}) gain 0, "
                              f"so every score is 0", CwlaWarning, stacklevel=4)
        lo[i, :n_g] = hi[i, :n_g] = cache[m.gain]
        hi[i, n_g] = 1.0
    return lo, hi


def _specs(metrics):
    ispec = np.zeros((len(metrics), K.N_ISPEC), dtype=np.int64)
    fspec = np.zeros((len(metrics), K.N_FSPEC), dtype=np.float64)
    for i, m in enumerate(metrics):
        ispec[i] = (
            m.browsing.code,
            m.aggregation.code,
            min(m.cutoff, m.depth) if m.cutoff is not None else -1,  # a cutoff past H changes nothing
            m.depth,
            int(m.stop),
        )
        fspec[i] = (m.browsing.params[0], m.aggregation.params[0])
    return ispec, fspec


def _run_kernel(codes, starts, lengths, n_topics, unjudged, metrics, glo, ghi, relsum, with_upper=True):
    ispec, fspec = _specs(metrics)
    lo = np.zeros((len(metrics), len(starts)))
    hi = np.zeros((len(metrics), len(starts)))
    K.score_cells(codes, starts, lengths, n_topics, unjudged, ispec, fspec, glo, ghi, relsum, with_upper, lo, hi)
    return lo, hi


def _ideal_scores(col: Collection, metrics, glo, ghi, relsum) -> np.ndarray:
    """(n_metrics, n_topics) score of each metric on each topic's ideal ranking
    (all judged documents by gain descending, same cutoff, depth and stop)."""
    n_t = len(col.topics)
    ideal = np.zeros((len(metrics), n_t))
    by_gain = {}
    for i, m in enumerate(metrics):
        if m.normalize == "ideal":
            by_gain.setdefault(m.gain, []).append(i)
    grade_codes = np.arange(len(col.grades))
    for rows in by_gain.values():
        gains = glo[rows[0], : len(col.grades)]
        order = grade_codes[np.lexsort((-col.grades, -gains))]  # by gain, then grade, descending
        counts = col.judged[:, order]
        codes = np.repeat(np.tile(order, n_t), counts.reshape(-1)).astype(np.int32)
        lengths = counts.sum(axis=1).astype(np.int64)
        starts = np.zeros(n_t, dtype=np.int64)
        np.cumsum(lengths[:-1], out=starts[1:])
        sub = [metrics[i] for i in rows]
        lo, _ = _run_kernel(codes, starts, lengths, n_t, col.unjudged_code, sub, glo[rows], ghi[rows], relsum[rows],
                            with_upper=False)
        ideal[rows] = lo
    return ideal


def evaluate(qrels, runs=None, metrics=("nDCG@10",), *, gain=None, cutoff=None, depth=None, stop=None,
             normalize=None, order="trec_eval") -> Evaluation:
    """Evaluate metrics on runs.

    Parameters
    ----------
    qrels : path, DataFrame, dict or Collection
        The qrels (anything :func:`cwla.read_qrels` accepts), or a :class:`Collection`
        from :func:`cwla.prepare` (then ``runs`` must be None).
    runs : path, DataFrame, list or dict
        The runs (see :func:`cwla.prepare`).
    metrics : Metric, str, sequence of them, or dict {label: Metric or str}
        Canonical texts, Chen & Sakai names or trec_eval habits (see :func:`cwla.parse_metric`);
        results are labelled by the text given, ``str(metric)``, or the dict's keys.
    gain, cutoff, depth, stop, normalize
        Options for every metric that does not set them itself (the trec_eval-habit
        names fix some: ``P@k``, ``AP`` binary gains, ``nDCG@k`` linear gains, cutoff and
        normalisation, ``ERR@k`` exponential gains and cutoff). Unset everywhere:
        ``linear`` gains (gmax = the largest grade in the qrels), no cutoff, depth 1000,
        stop False, no normalisation. ``gain`` may be a text (``"binary:2"``).
    order : {"trec_eval", "file"}
        Document order when reading runs (see :func:`cwla.prepare`).

    Returns
    -------
    Evaluation

    Examples
    --------
    >>> from cwla import evaluate, synthetic
    >>> qrels, runs = synthetic.collection(seed=1)
    >>> ev = evaluate(qrels, runs, ["P(rel=2)@10", "nDCG@10", "INST_PE"])
    >>> ev.values.shape[0]
    3
    """
    if isinstance(qrels, Collection):
        if runs is not None:
            raise ValueError("evaluate: pass runs inside the Collection or with raw qrels, not both")
        col = qrels
    else:
        if runs is None:
            raise ValueError("evaluate: no runs given")
        col = prepare(qrels, runs, order=order)
    parsed, labels = as_metrics(metrics)
    if isinstance(gain, str):
        gain = parse_gain(gain)
    if gain is not None and not isinstance(gain, GainMap):
        raise TypeError(f"The 'gain' parameter of evaluate must be a gain map or its text. Got {gain!r} instead.")
    resolved = [m.resolve(gain=gain, cutoff=cutoff, depth=depth, stop=stop, normalize=normalize) for m in parsed]
    for m, label in zip(resolved, labels):
        m.warn_if_constant(label, stacklevel=3)
        m.warn_if_truncated(label, stacklevel=3)

    glo, ghi = _gain_tables(resolved, labels, col)
    relsum = glo[:, : len(col.grades)] @ col.judged.T.astype(np.float64)  # (n_metrics, n_topics)
    lo, hi = _run_kernel(col.codes, col.starts, col.lengths, len(col.topics), col.unjudged_code,
                         resolved, glo, ghi, relsum)
    n_m, n_r, n_t = len(resolved), len(col.runs), len(col.topics)
    lo = lo.reshape(n_m, n_r, n_t)
    hi = hi.reshape(n_m, n_r, n_t)

    # trec_eval -c: a qrels topic missing from a run scores 0 (its upper bound stays)
    lo[:, ~col.present] = 0.0
    if any(m.normalize == "ideal" for m in resolved):
        ideal = _ideal_scores(col, resolved, glo, ghi, relsum)[:, None, :]
        norm = np.array([m.normalize == "ideal" for m in resolved])
        # divide (not multiply by 1/ideal, which overflows for a subnormal ideal and makes 0 * inf = NaN);
        # 0 where the ideal scores 0
        safe = np.where(ideal > 0.0, ideal, 1.0)
        with np.errstate(over="ignore"):
            lo = np.where(norm[:, None, None], np.where(ideal > 0.0, lo / safe, 0.0), lo)
            hi = np.where(norm[:, None, None], np.where(ideal > 0.0, hi / safe, 0.0), hi)
    return Evaluation(
        metrics=tuple(resolved),
        requested=tuple(parsed),
        labels=tuple(labels),
        runs=col.runs,
        topics=col.topics,
        values=lo,
        residuals=hi - lo,
        missing_topics=col.missing_topics,
        ignored_topics=col.ignored_topics,
    )
