"""The result of an evaluation: scores of metrics x runs x topics as plain data, with labelled views.

An :class:`Evaluation` holds the raw (metric x run x topic) arrays of values and residuals (the
residual, cwl_eval's ``-r``: the score with every unjudged document inside the ranking and every padded
position up to the depth H at gain 1, minus the score with them at 0) and the labels of every axis.
Its views carry those labels: :meth:`Evaluation.scores` is a DataFrame of one metric, runs x topics,
whose index is named ``run`` and columns ``topic``, so that discpower reads the orientation from the
labels (:func:`discpower.stats.matrix.score_matrix`) and never from a guess.
"""

from __future__ import annotations

import attrs
import numpy as np
import pandas as pd

from .._display import Displayed, Shown, count_text, legend, short_labels
from .._latex import tabular
from ..metrics.counting import CountingMeasure
from ..metrics.metric import Metric
from ..metrics.summary import MEASURE_TYPES
from ..metrics.text import parse_metric

__all__ = ["Evaluation", "metric_position", "EXPECTED", "RUN_AXIS", "TOPIC_AXIS", "METRIC_AXIS"]

#: the names of the axes of every labelled view of an Evaluation
RUN_AXIS, TOPIC_AXIS, METRIC_AXIS = "run", "topic", "metric"

def metric_position(metric, labels: tuple, metrics: tuple, requested: tuple) -> int:
    """The position of ``metric`` among ``labels``: a label, a position, a Metric (or counting measure) as
    given or as resolved, or a text that parses to one of them; a KeyError naming the labels otherwise."""
    if isinstance(metric, int) and not isinstance(metric, bool):
        if not 0 <= metric < len(labels):
            raise KeyError(f"metric position {metric} out of range: there are {len(labels)} metrics")
        return metric
    if isinstance(metric, str) and metric in labels:
        return labels.index(metric)
    try:
        m = metric if isinstance(metric, MEASURE_TYPES) else parse_metric(metric)
    except (TypeError, ValueError):
        m = None
    for i, (label, own, asked) in enumerate(zip(labels, metrics, requested)):
        if m is not None and (m in (own, asked) or label == str(m)):
            return i
    raise KeyError(f"{metric!r} is not among the evaluated metrics {list(labels)}")


#: the names of :attr:`Evaluation.expected`'s rows (cwl_eval's): expected cost, expected total cost, expected depth
EXPECTED = ("EC", "ETC", "ED")


@attrs.frozen(eq=False, repr=False)
class Evaluation(Displayed):
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
        return metric_position(metric, self.labels, self.metrics, self.requested)

    def scores(self, metric: str | int | Metric | CountingMeasure) -> pd.DataFrame:
        """The scores of one metric (by label, text, Metric or index), labelled: runs x topics, the
        index named ``run`` and the columns ``topic`` (``values[k]`` with its axes).

        discpower's tests take it as it is, or transposed: they read the orientation from the labels."""
        return pd.DataFrame(self.values[self._index(metric)], index=pd.Index(self.runs, name=RUN_AXIS),
                            columns=pd.Index(self.topics, name=TOPIC_AXIS))

    def select(self, metrics: str | int | Metric | CountingMeasure | list) -> Evaluation:
        """The Evaluation of some of its metrics (each by label, text, Metric or index, as :meth:`scores`
        takes it), in the order given; a KeyError names the evaluated metrics.

        >>> import cwla
        >>> qrels, runs = cwla.synthetic.collection(n_topics=5, n_runs=3, seed=1)
        >>> cwla.evaluate(qrels, runs, ["nDCG@10", "P@5", "RR"]).select(["RR", "nDCG@10"]).labels
        ('RR', 'nDCG@10')
        """
        if isinstance(metrics, (str, int, np.integer, *MEASURE_TYPES)):
            metrics = [metrics]
        keep = [self._index(m) for m in metrics]
        if len(set(keep)) != len(keep):
            raise KeyError(f"a metric is selected twice in {list(metrics)}")

        def part(array):
            return None if array is None else array[..., keep, :, :]

        return attrs.evolve(self, metrics=tuple(self.metrics[k] for k in keep),
                            requested=tuple(self.requested[k] for k in keep),
                            labels=tuple(self.labels[k] for k in keep), values=self.values[keep],
                            residuals=self.residuals[keep], expected=part(self.expected),
                            expected_residuals=part(self.expected_residuals))

    def aggregated(self, residuals: bool = False) -> np.ndarray:
        """(n_metrics, n_runs): each run's value over the topics -- the mean, the sum for the
        counts (``NumRel``, ``NumRet``, ``NumRelRet``, ``NumQ``), as trec_eval and ir_measures report them,
        or the geometric mean for :class:`~cwla.metrics.summary.GeoMean` (trec_eval's ``gm_map``)."""
        kinds = [m.aggregate for m in self.metrics]
        out = np.empty(self.values.shape[:2])
        for i, kind in enumerate(kinds):
            if kind == "gmean":  # the residual: the geometric mean in the upper world minus the run's value
                value = _geometric_mean(self.values[i], self.metrics[i].floor)
                out[i] = _geometric_mean(self.values[i] + self.residuals[i], self.metrics[i].floor) - value \
                    if residuals else value
            else:
                data = self.residuals[i] if residuals else self.values[i]
                out[i] = data.sum(axis=1) if kind == "sum" else data.mean(axis=1)
        return out

    def means(self) -> pd.DataFrame:
        """Each run's value (:meth:`aggregated`: the mean over topics, the sum for counts): a
        DataFrame with one row per run and one column per metric label."""
        return pd.DataFrame(self.aggregated().T, index=pd.Index(self.runs, name=RUN_AXIS),
                            columns=pd.Index(self.labels, name=METRIC_AXIS))

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

    def _shown(self) -> Shown:
        """The means (runs x metrics, long labels abbreviated), the shape and the topics missing from runs."""
        shorts = short_labels(self.labels)
        table = pd.DataFrame(self.aggregated().T, index=pd.Index(self.runs, name=RUN_AXIS),
                             columns=pd.Index(shorts, name=METRIC_AXIS))
        n_m, n_r, n_t = self.values.shape
        facts = []
        missing = sum(1 for r in self.runs if self.missing_topics.get(r))
        if missing:
            facts.append(f"{count_text(missing, 'run')} missing topics")
        if self.expected is not None:
            facts.append("expected costs")
        return Shown("Evaluation", f"{count_text(n_m, 'metric')} x {count_text(n_r, 'run')} x "
                     f"{count_text(n_t, 'topic')}", table, tuple(facts), legend(self.labels, shorts))


def _geometric_mean(values: np.ndarray, floor: float) -> np.ndarray:
    """exp(mean log max(v, floor)) over the last axis (trec_eval's gm_map, gm_bpref)."""
    if values.shape[-1] == 0:
        return np.zeros(values.shape[:-1])
    return np.exp(np.log(np.maximum(values, floor)).mean(axis=-1))


def _label_order(ev):
    runs = {r: i for i, r in enumerate(ev.runs)}
    labels = {m: i for i, m in enumerate(ev.labels)}

    def key(col):
        return col.map(runs if col.name == "run" else labels)

    return key


