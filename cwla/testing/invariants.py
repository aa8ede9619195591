"""Invariant checks for any metric, on any qrels and runs.

Each check evaluates the metric as cwla does and raises ``AssertionError``
with the offending run, topic and values when the invariant fails. Checks that
hold only for some metrics say so and skip (return False) otherwise.
"""

from __future__ import annotations

import warnings

import attrs
import numpy as np
import pandas as pd

from ..typing import QrelsLike, RunsLike
from ..metrics.aggregations import ERG, ETG, Max
from ..metrics.browsing import AP, DCG, RBP, Precision
from ..errors import CwlaWarning
from ..scoring.evaluator import evaluate
from ..metrics.metric import ALL, Metric
from ..data.readers import read_qrels, read_run
from ..data.runset import read_runs
from ..metrics.text import parse_metric

__all__ = [
    "check_bounds", "check_order_invariance", "check_unjudged_as_nonrelevant", "check_swap_monotone",
    "check_stop_normalises", "check_round_trip", "check_invariants",
]

_TOL = 1e-9


def _evaluate(metric, qrels, runs, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CwlaWarning)  # constant metrics, all-zero gains: legal here
        return evaluate(qrels, runs, [metric], **kw)


def _fail(what, ev, where, got, expected):
    m, r, t = where
    raise AssertionError(
        f"{what}: metric {ev.labels[m]}, run {ev.runs[r]!r}, topic {ev.topics[t]!r}: got {got!r}, expected {expected}"
    )


def check_round_trip(metric: Metric) -> None:
    """``parse_metric(str(metric)) == metric``."""
    back = parse_metric(str(metric))
    if back != metric:
        raise AssertionError(f"text round trip changed the metric: {metric!r} -> {str(metric)!r} -> {back!r}")


def check_bounds(metric: Metric, qrels: QrelsLike, runs: RunsLike) -> None:
    """Values and residuals are finite, values >= 0; without normalisation values are <= 1
    (<= the depth H for ETG, whose scale is gain units)."""
    ev = _evaluate(metric, qrels, runs)
    m = ev.metrics[0]
    v = ev.values
    bad = ~np.isfinite(v) | ~np.isfinite(ev.residuals)
    if bad.any():
        _fail("non-finite value", ev, np.argwhere(bad)[0], v[tuple(np.argwhere(bad)[0])], "a finite number")
    low = v < -_TOL
    if low.any():
        where = tuple(np.argwhere(low)[0])
        _fail("negative value", ev, where, v[where], ">= 0")
    if m.normalize != "ideal":
        if isinstance(m.aggregation, ETG):  # gain units: at most one per position up to the depth H
            if m.depth == ALL:  # H = the longest (cut) ranking, at least Precision's or DCG's k
                longest = max((int(read_run(run).groupby("topic").size().max()) for run in runs.values()),
                              default=0)
                upper = float(max(longest, getattr(m.browsing, "k", None) or 0))
            else:
                upper = float(m.depth)
        else:
            upper = 1.0
        high = v > upper + _TOL
        if high.any():
            where = tuple(np.argwhere(high)[0])
            _fail("value above its bound", ev, where, v[where], f"<= {upper}")


def _shuffled(runs, rng):
    out = {}
    for name, run in runs.items():
        frame = read_run(run)
        out[name] = frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)
    return out


def check_order_invariance(metric: Metric, qrels: QrelsLike, runs: RunsLike, seed: int = 0) -> None:
    """Shuffling the lines of the qrels and of every run changes nothing (runs are
    ordered by score, then docno, as trec_eval)."""
    rng = np.random.default_rng(seed)
    q = read_qrels(qrels)
    base = _evaluate(metric, q, runs)
    other = _evaluate(metric, q.iloc[rng.permutation(len(q))].reset_index(drop=True), _shuffled(runs, rng))
    diff = np.abs(base.values - other.values)
    if (diff > _TOL).any():
        where = tuple(np.argwhere(diff > _TOL)[0])
        _fail("result depends on line order", base, where, other.values[where], base.values[where])


def check_unjudged_as_nonrelevant(metric: Metric, qrels: QrelsLike, runs: RunsLike) -> bool:
    """Judging every unjudged retrieved document at grade 0 leaves the values unchanged
    (an unjudged document has gain 0). Applies when the metric's gain map sends grade 0 to 0
    and the metric keeps unjudged documents (not ``judged_only``)."""
    q = read_qrels(qrels)
    probe = _evaluate(metric, q, runs).metrics[0]
    if probe.judged_only:
        return False
    if float(probe.gain.table(np.array([0.0]), max(float(q["grade"].max()), 1.0))[0]) != 0.0:
        return False
    judged = set(zip(q["topic"], q["docno"]))
    extra = []
    for run in runs.values():
        frame = read_run(run)
        extra += [(t, d) for t, d in zip(frame["topic"], frame["docno"]) if (t, d) not in judged and t in set(q["topic"])]
    if not extra:
        return True
    extra = pd.DataFrame(sorted(set(extra)), columns=["topic", "docno"]).assign(grade=0.0)
    base = _evaluate(metric, q, runs)
    more = _evaluate(metric, pd.concat([q, extra], ignore_index=True), runs)
    diff = np.abs(base.values - more.values)
    if (diff > _TOL).any():
        where = tuple(np.argwhere(diff > _TOL)[0])
        _fail("an unjudged document counts differently from a non-relevant one", base, where, more.values[where],
              base.values[where])
    return True


def check_swap_monotone(metric: Metric, qrels: QrelsLike, runs: RunsLike) -> bool:
    """Moving a more relevant document up one place never lowers the score.

    SPEC section 2 promises this for Precision, DCG and RBP with ERG; for other
    metrics the check runs only when asked directly (it returns False from
    :func:`check_invariants`), which makes it a tool to find counterexamples.
    """
    q = read_qrels(qrels)
    grade = dict(zip(zip(q["topic"], q["docno"]), q["grade"]))
    ordered = {name: _trec_ordered(read_run(run)) for name, run in runs.items()}
    base = _evaluate(metric, q, ordered, order="file")
    resolved = base.metrics[0]
    gains = dict(zip(np.unique(q["grade"]), resolved.gain.table(np.unique(q["grade"]), float(q["grade"].max()))))
    for name, frame in ordered.items():
        for topic, part in frame.groupby("topic", sort=False):
            docs = part["docno"].tolist()
            g = [gains.get(grade.get((topic, d)), 0.0) for d in docs]
            for i in range(len(docs) - 1):
                if g[i + 1] > g[i]:
                    swapped = frame.copy()
                    rows = part.index[[i, i + 1]]
                    swapped.loc[rows, "docno"] = [docs[i + 1], docs[i]]
                    after = _evaluate(metric, q, {**ordered, name: swapped}, order="file")
                    r, t = base.runs.index(name), base.topics.index(topic) if topic in base.topics else None
                    if t is None:
                        continue
                    if after.values[0, r, t] < base.values[0, r, t] - _TOL:
                        _fail(f"swapping ranks {i + 1} and {i + 2} upward lowered the score", base, (0, r, t),
                              after.values[0, r, t], f">= {base.values[0, r, t]}")
    return True


def _trec_ordered(frame):
    """A run frame in trec_eval order (score desc, docno desc), for order='file' evaluations."""
    return read_runs({"run": frame}).frame("run")


def check_stop_normalises(metric: Metric, qrels: QrelsLike, runs: RunsLike) -> None:
    """With ``stop=True`` the stopping probabilities L(1..H) sum to 1: on the same
    browsing model, the ``max`` aggregation with every gain 1 scores exactly 1."""
    browsing = AP("retrieved") if isinstance(metric.browsing, AP) else metric.browsing  # no R_ret/R factor
    probe = attrs.evolve(metric, browsing=browsing, aggregation=Max(), stop=True, normalize="none", cutoff=None,
                         judged_only=False)
    q = read_qrels(qrels)
    ones = q.assign(grade=1.0)
    from ..metrics.gains import Binary

    ev = _evaluate(attrs.evolve(probe, gain=Binary(1.0)), ones, runs)
    # every ranked and padded position has gain 1 in the upper bound: value + residual = sum L
    total = ev.values + ev.residuals
    ok = np.abs(total - 1.0) <= 1e-9
    ok |= ~np.broadcast_to(_present(ev, runs), total.shape)
    if not ok.all():
        where = tuple(np.argwhere(~ok)[0])
        _fail("stop=True but sum L != 1", ev, where, total[where], 1.0)


def _present(ev, runs):
    present = np.zeros((len(ev.runs), len(ev.topics)), dtype=bool)
    for r, name in enumerate(ev.runs):
        topics = set(read_run(runs[name])["topic"])
        present[r] = [t in topics for t in ev.topics]
    return present[None]


def check_invariants(metric: Metric, qrels: QrelsLike, runs: RunsLike) -> None:
    """Every invariant that applies to ``metric``: round trip, bounds, order
    invariance, unjudged = non-relevant, swap monotonicity (Precision, DCG, RBP
    with ERG), and sum L = 1 under stop."""
    check_round_trip(metric)
    check_bounds(metric, qrels, runs)
    check_order_invariance(metric, qrels, runs)
    check_unjudged_as_nonrelevant(metric, qrels, runs)
    if isinstance(metric.browsing, (Precision, DCG, RBP)) and isinstance(metric.aggregation, ERG):
        check_swap_monotone(metric, qrels, runs)
    check_stop_normalises(metric, qrels, runs)
