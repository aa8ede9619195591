"""Score matrices as the tests take them: one orientation for bare arrays, labels read for labelled ones.

**One orientation.** A bare matrix (a NumPy array, a list of rows) is **topics x systems**: one row per
topic, one column per system, in every function of discpower (and as ``cwla.Evaluation.values[k].T``).

**Labels decide.** A labelled matrix -- a DataFrame whose index and columns are named, such as
``cwla.Evaluation.scores(metric)`` (runs x topics: index ``run``, columns ``topic``) -- is read by its
labels: rows named ``topic`` (or ``qid``, ``query_id``) are topics, an axis named ``run`` (or
``system``, ``name``) holds the systems, and the matrix is turned to topics x systems when its labels
say so. An unnamed DataFrame is topics x systems (its columns name the systems). Labels that
contradict a test -- an axis of metrics, two axes of one kind -- or names given beside them that
differ from them (``systems=``, ``topics=``) are refused with a message; an orientation is never guessed
from a shape.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from ..errors import DiscpowerError

__all__ = ["score_matrix", "metric_matrices", "float_array", "score_array", "run_index", "labelled_axes", "finite_sums", "TOPIC_LABELS", "SYSTEM_LABELS", "METRIC_LABELS"]

#: axis names that mark topics
TOPIC_LABELS = ("topic", "topics", "qid", "query_id")
#: axis names that mark systems (runs)
SYSTEM_LABELS = ("run", "runs", "system", "systems", "name")
#: axis names that mark metrics: never an axis of a score matrix
METRIC_LABELS = ("metric", "metrics", "measure", "measures")


def _kind(label) -> str | None:
    if not isinstance(label, str):
        return None
    for kind, names in (("topics", TOPIC_LABELS), ("systems", SYSTEM_LABELS), ("metrics", METRIC_LABELS)):
        if label in names:
            return kind
    return None


def labelled_axes(frame: pd.DataFrame, name: str = "X") -> pd.DataFrame:
    """``frame`` as topics x systems by its axis names (see the module's docstring); refused when they
    contradict a score matrix."""
    rows, columns = _kind(frame.index.name), _kind(frame.columns.name)
    shown = f"{frame.index.name!r} x {frame.columns.name!r}"
    if "metrics" in (rows, columns):
        raise DiscpowerError(f"{name} is labelled {shown}: an axis of metrics is not a score matrix; select one "
                             f"metric (cwla's Evaluation.scores(metric) gives runs x topics)")
    if rows is not None and rows == columns:
        raise DiscpowerError(f"{name} is labelled {shown}: both axes hold {rows}; a score matrix is topics x "
                             f"systems")
    if rows == "systems" or columns == "topics":
        return frame.T
    return frame


def _not_an_evaluation(X, name: str) -> None:
    """A :class:`cwla.Evaluation` where one metric's scores are expected: say what to pass."""
    from cwla import Evaluation
    from cwla._shared import count_text

    if isinstance(X, Evaluation):
        label = X.labels[0] if X.labels else "nDCG@10"
        raise DiscpowerError(f"{name} is a cwla Evaluation ({count_text(len(X.labels), 'metric')} x {count_text(len(X.runs), 'run')} x "
                             f"{count_text(len(X.topics), 'topic')}); a test takes one metric's scores: pass "
                             f"ev.scores({label!r}) (runs x topics, labelled), or compare every metric at once "
                             f"with discpower.compare_systems(ev)")


def float_array(value: object, ndim: int, what: str, wrong_shape: Callable[[np.ndarray], str]) -> np.ndarray:
    """``value`` as a float64 array of ``ndim`` dimensions; else a DiscpowerError, ``"{what}: <numpy's reason>"``
    for a value that holds no numbers and ``wrong_shape(array)`` for other dimensions."""
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise DiscpowerError(f"{what}: {err}") from None
    if array.ndim != ndim:
        raise DiscpowerError(wrong_shape(array))
    return array


def score_matrix(X, *, name="X", min_systems=2, min_topics=2, systems=None, topics=None):
    """A (topics x systems) float64 C-contiguous matrix, checked: rectangular, finite, at least
    ``min_systems`` columns and ``min_topics`` rows. Returns (X, system names).

    A DataFrame is turned by its axis names (:func:`labelled_axes`) and its columns name the systems;
    ``systems`` (and ``topics``) given beside a labelled frame must be its labels."""
    _not_an_evaluation(X, name)
    if isinstance(X, pd.DataFrame):
        labelled = X.index.name is not None or X.columns.name is not None
        X = labelled_axes(X, name)
        own = tuple(str(c) for c in X.columns)
        if systems is not None and labelled and tuple(str(s) for s in systems) != own:
            raise DiscpowerError(f"{name} names its systems {list(own)[:5]}{' ...' if len(own) > 5 else ''} "
                                 f"(its {X.columns.name!r} axis), and systems= names others "
                                 f"{list(systems)[:5]}; give one of them")
        own_topics = tuple(str(t) for t in X.index)
        if topics is not None and X.index.name is not None and tuple(map(str, topics)) != own_topics:
            raise DiscpowerError(f"{name} names its topics {list(own_topics)[:5]} (its {X.index.name!r} axis), and "
                                 f"topics= names others {list(topics)[:5]}; give one of them")
        systems = list(own) if systems is None else systems
        X = X.to_numpy()
    if isinstance(X, (list, tuple)) and X and all(isinstance(row, (list, tuple, np.ndarray)) for row in X):
        widths = [len(row) for row in X]
        bad = next((i for i, w in enumerate(widths) if w != widths[0]), None)
        if bad is not None:
            raise DiscpowerError(f"{name} is ragged: topic row {bad} has {widths[bad]} scores, row 0 has "
                                 f"{widths[0]}; every topic needs one score per system")
    X = float_array(X, 2, f"{name} must be a topics x systems matrix of numbers",
                    lambda a: f"{name} must be 2-dimensional (topics x systems), got {a.ndim} dimension(s) with shape "
                              f"{a.shape}")
    n, m = X.shape
    if m < min_systems:
        raise DiscpowerError(f"{name} has {m} system(s) (columns); comparing systems needs at least "
                             f"{min_systems}")
    if n < min_topics:
        raise DiscpowerError(f"{name} has {n} topic(s) (rows); a paired test needs at least {min_topics}")
    bad = ~np.isfinite(X)
    if bad.any():
        t, j = map(int, np.argwhere(bad)[0])
        raise DiscpowerError(f"{name} has a non-finite score ({X[t, j]}) at topic row {t}, system column {j}; "
                             f"scores must be finite numbers (drop or impute the missing ones)")
    if systems is None:
        systems = [f"S{j + 1}" for j in range(m)]
    systems = [str(s) for s in systems]
    if len(systems) != m:
        raise DiscpowerError(f"{len(systems)} system names for {m} columns of {name}")
    if len(set(systems)) != m:
        raise DiscpowerError(f"system names must be unique; repeated: {sorted({s for s in systems if systems.count(s) > 1})}")
    return np.ascontiguousarray(X), tuple(systems)


def score_array(values, labels, runs, *, name="values", allow_2d=True, min_metrics=1, min_runs=2,
                 min_topics=1):
    """Check a (metric x run x topic) [or (metric x run)] score array and its labels; select runs.

    ``values`` may be a :class:`cwla.Evaluation` (then ``labels`` default to its labels and
    ``runs`` may name runs). Returns (float64 C-contiguous array, labels tuple, run names or None)."""
    run_names = None
    if hasattr(values, "values") and hasattr(values, "labels") and hasattr(values, "runs") \
            and not isinstance(values, np.ndarray):  # a cwla Evaluation
        labels = values.labels if labels is None else labels
        run_names = tuple(str(r) for r in values.runs)
        values = values.values
    try:
        V = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise DiscpowerError(f"{name} must be an array of numbers (metric x run x topic): {err}") from None
    dims = "3-dimensional (metrics x runs x topics)" + (" or 2-dimensional (metrics x runs)" if allow_2d else "")
    if V.ndim != 3 and not (allow_2d and V.ndim == 2):
        raise DiscpowerError(f"{name} must be {dims}, got {V.ndim} dimension(s) with shape {V.shape}")
    n_metrics, n_runs = V.shape[0], V.shape[1]
    if labels is None:
        raise DiscpowerError(f"labels are required: one name per metric ({n_metrics} for {name} of shape {V.shape})")
    if isinstance(labels, str):
        raise DiscpowerError("labels must be a sequence of metric names, not one string")
    labels = tuple(str(lab) for lab in labels)
    if len(labels) != n_metrics:
        raise DiscpowerError(f"{len(labels)} labels for {n_metrics} metrics (the first axis of {name}, "
                             f"shape {V.shape}); give one label per metric")
    if len(set(labels)) != len(labels):
        raise DiscpowerError(f"metric labels must be unique; repeated: "
                             f"{sorted({lab for lab in labels if labels.count(lab) > 1})}")
    if runs is not None:
        idx = run_index(runs, n_runs, run_names)
        V = V[:, idx]
        if run_names is not None:
            run_names = tuple(run_names[i] for i in idx)
        n_runs = V.shape[1]
    if n_metrics < min_metrics:
        raise DiscpowerError(f"{name} has {n_metrics} metric(s); this needs at least {min_metrics}")
    if n_runs < min_runs:
        raise DiscpowerError(f"{name} has {n_runs} run(s) (systems); this needs at least {min_runs}")
    if V.ndim == 3 and V.shape[2] < min_topics:
        raise DiscpowerError(f"{name} has {V.shape[2]} topic(s); this needs at least {min_topics}")
    bad = ~np.isfinite(V)
    if bad.any():
        where = tuple(int(k) for k in np.argwhere(bad)[0])
        raise DiscpowerError(f"{name} has a non-finite score ({V[where]}) at index {where} "
                             f"(metric '{labels[where[0]]}'); scores must be finite numbers")
    return np.ascontiguousarray(V), labels, run_names


def run_index(runs, n_runs, run_names):
    """Indices of the selected runs: a boolean mask, integer indices, or run names (with an Evaluation)."""
    if isinstance(runs, str) or not isinstance(runs, (Sequence, np.ndarray)):
        raise DiscpowerError(f"runs must be a boolean mask, a sequence of run indices or of run names; "
                             f"got {runs!r}")
    arr = np.asarray(runs)
    if arr.dtype == bool:
        if arr.shape != (n_runs,):
            raise DiscpowerError(f"a boolean runs mask needs one entry per run ({n_runs}), got shape {arr.shape}")
        return np.flatnonzero(arr)
    if arr.size and (arr.dtype.kind in "US" or arr.dtype == object):
        if run_names is None:
            raise DiscpowerError("runs given by name need an Evaluation as values (a plain array has no run "
                                 "names); pass run indices instead")
        missing = [r for r in runs if str(r) not in run_names]
        if missing:
            raise DiscpowerError(f"unknown run(s) {missing}; the evaluation has {list(run_names)}")
        idx = np.array([run_names.index(str(r)) for r in runs], dtype=np.int64)
    elif arr.size == 0:
        idx = np.zeros(0, dtype=np.int64)
    elif arr.dtype.kind in "iu":
        idx = arr.astype(np.int64).ravel()
        if idx.min() < -n_runs or idx.max() >= n_runs:
            raise DiscpowerError(f"run index out of range: the array has {n_runs} runs, got {runs!r}")
        idx = idx % n_runs
    else:
        raise DiscpowerError(f"runs must be a boolean mask, run indices or run names; got dtype {arr.dtype}")
    if len(set(idx.tolist())) != len(idx):
        raise DiscpowerError("runs selects a run more than once")
    return idx


def finite_sums(X, test, *, squares=False):
    """Refuse scores so large that a sum ``test`` forms would overflow to infinity (p-values from inf).

    Every sum the tests form over the topics -- a column sum, permuted or resampled, a difference of two,
    the grand total -- is at most ``sum |X| + sum_t (max_t - min_t)`` in absolute value, and a sum of
    squared deviations (``squares``: t-test, bootstrap, ANOVA residuals) at most
    ``X.size * (2 max_t (max_t - min_t))^2``, with max_t and min_t over topic t's scores. These bounds
    must be finite; finite scores of any realistic size pass, and results are unchanged.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        spread = X.max(axis=1) - X.min(axis=1)
        sums = float(np.sum(np.abs(X))) + float(np.sum(spread))
        widest = 2.0 * float(np.max(spread))
    if not math.isfinite(sums):
        kind = "sums"
    elif squares and not math.isfinite(X.size * widest * widest):
        kind = "sums of squares"
    else:
        return
    largest = float(np.max(np.abs(X)))
    if not math.isfinite(largest):  # a NaN or an infinity (the score matrices refuse both; a user's null may not)
        raise DiscpowerError(f"{test}: the scores are not all finite (the largest |score| is {largest}); "
                             f"every score must be a finite number")
    scale = 10.0 ** math.floor(math.log10(largest))
    raise DiscpowerError(f"{test}: the scores are too large: their {kind} over the topics can overflow to "
                         f"infinity (the largest |score| is {largest:.3g}), and p-values computed from infinity "
                         f"mean nothing; rescale the scores (e.g. divide them all by {scale:.0e})")


def metric_matrices(scores, systems, topics) -> tuple[tuple[str, ...], list[np.ndarray], tuple[str, ...], tuple[str, ...]]:
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
