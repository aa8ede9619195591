"""Qrels and runs turned into arrays once, for every metric and every meta-evaluation.

:func:`prepare` reads the qrels and the runs, orders each run's documents per
topic as trec_eval does (score descending, ties broken by docno descending;
scores compared in trec_eval's single precision) and joins them with the qrels.
The result, a :class:`Collection`, holds one flat array of grade codes in
rank order and the offsets of every (run, topic) cell. No string reaches a kernel.

Topic policy (trec_eval ``-c``): every qrels topic is scored; a qrels topic
missing from a run scores 0; run topics absent from the qrels are ignored.
Both are counted per run.
"""

from __future__ import annotations

import os
import warnings
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Mapping, Sequence

import attrs
import numpy as np
import pandas as pd

from ._join import group_by_cell, organise_cells
from ._tokenize import field_keys, read_run_arrays
from .errors import CwlaWarning, InputError
from .readers import read_qrels, read_run, run_name

__all__ = ["Collection", "RunSet", "prepare", "read_runs"]


@attrs.frozen(eq=False)
class Collection:
    """Qrels and runs as arrays (see :func:`prepare`).

    Attributes
    ----------
    topics : tuple of str
        The qrels topics, sorted; the topic axis of every score array.
    runs : tuple of str
        Run names; the run axis.
    grades : ndarray of shape (n_grades,)
        The distinct qrels grades, ascending. Grade code g is ``grades[g]``;
        code ``n_grades`` marks an unjudged document.
    codes : ndarray of int32
        Grade codes of all ranked documents, cell after cell, in rank order.
    starts, lengths : ndarray of int64, shape (n_runs * n_topics,)
        Cell ``r * n_topics + t`` holds ``codes[starts[c]:starts[c] + lengths[c]]``.
    judged : ndarray of int64, shape (n_topics, n_grades)
        Number of judged documents of each topic at each grade.
    missing_topics : dict
        Run name -> qrels topics that the run does not retrieve for (scored 0).
    ignored_topics : dict
        Run name -> run topics that the qrels do not judge (ignored).
    """

    topics: tuple
    runs: tuple
    grades: np.ndarray
    codes: np.ndarray
    starts: np.ndarray
    lengths: np.ndarray
    judged: np.ndarray
    missing_topics: dict
    ignored_topics: dict

    @property
    def unjudged_code(self) -> int:
        return len(self.grades)

    @property
    def present(self) -> np.ndarray:
        """(n_runs, n_topics) bool: the run retrieved something for the topic."""
        return (self.lengths > 0).reshape(len(self.runs), len(self.topics))

    @property
    def max_grade(self) -> float:
        """The largest qrels grade (``linear`` gains without gmax divide by it)."""
        return float(self.grades.max()) if len(self.grades) else 0.0

    def topic_counts(self) -> pd.DataFrame:
        """Per run: topics scored, qrels topics missing from the run, run topics ignored."""
        return pd.DataFrame(
            {
                "run": list(self.runs),
                "topics": len(self.topics),
                "missing": [len(self.missing_topics[r]) for r in self.runs],
                "ignored": [len(self.ignored_topics[r]) for r in self.runs],
            }
        )


def _named_runs(runs) -> list:
    """Normalise the accepted run containers to a list of (name, source)."""
    if isinstance(runs, (str, os.PathLike)):
        return [(run_name(runs), runs)]
    if isinstance(runs, pd.DataFrame):
        return [("run", runs)]
    if isinstance(runs, Mapping):
        # {name: source} -- but a pytrec_eval run dict {topic: {doc: score}} is one run
        values = list(runs.values())
        if values and all(isinstance(v, Mapping) for v in values) and not any(
            isinstance(v, (pd.DataFrame, str, os.PathLike)) for v in values
        ):
            inner = list(values[0].values())
            if inner and not isinstance(inner[0], Mapping):
                return [("run", runs)]
        return [(str(name), source) for name, source in runs.items()]
    if isinstance(runs, Sequence):
        named = []
        for i, source in enumerate(runs):
            if isinstance(source, (str, os.PathLike)):
                named.append((run_name(source), source))
            else:
                named.append((f"run{i + 1}", source))
        return named
    raise TypeError(
        f"runs must be a path, a DataFrame, a list of paths or DataFrames, or a dict {{name: path or DataFrame}}; "
        f"got {type(runs).__name__}"
    )


def _encode(values) -> np.ndarray:
    """Strings as a UTF-8 bytes array (``S<width>``), the form the bulk reader produces."""
    return np.char.encode(np.asarray(values, dtype=np.str_), "utf-8")


def _run_arrays(source):
    """(topics, docnos, scores) of one run: bytes, bytes, float32, in input order."""
    if isinstance(source, (str, os.PathLike)):
        arrays = read_run_arrays(source)
        if arrays is not None:
            return arrays
    frame = read_run(source)  # the careful reader: precise errors, every accepted form
    with np.errstate(over="ignore"):  # beyond float32 range: inf, as trec_eval's (float) cast
        scores = frame["score"].to_numpy(np.float64).astype(np.float32)
    return _encode(frame["topic"]), _encode(frame["docno"]), scores


@attrs.frozen(eq=False)
class RunSet:
    """Runs read once, before any qrels: per run its topics and docnos (UTF-8 bytes arrays)
    and scores (float32, as trec_eval keeps them), in input order.

    :func:`prepare` joins a RunSet with qrels; reading the runs once and joining them
    with many qrels (candidate qrels, sampled qrels) avoids reading the files again.
    """

    names: tuple
    topics: tuple
    docnos: tuple
    scores: tuple
    sources: tuple  # what each run was read from (for error messages that name file and line)

    def __len__(self) -> int:
        return len(self.names)


def read_runs(runs, *, workers: int | None = None) -> RunSet:
    """Read runs (see :func:`prepare` for the accepted forms) into a :class:`RunSet`.

    Files are read by ``workers`` threads (default: the number of CPUs, at most 4).
    """
    if isinstance(runs, RunSet):
        return runs
    named = _named_runs(runs)
    if not named:
        raise InputError("no runs given: pass at least one run file, DataFrame or dict")
    names = [name for name, _ in named]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise InputError(f"run names must be unique; {dupes} appear more than once (rename the files or pass a dict)")
    workers = workers or min(4, os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        arrays = list(pool.map(_run_arrays, [source for _, source in named]))
    return RunSet(names=tuple(names), topics=tuple(a[0] for a in arrays), docnos=tuple(a[1] for a in arrays),
                  scores=tuple(a[2] for a in arrays), sources=tuple(source for _, source in named))


def prepare(qrels, runs, *, order: str = "trec_eval", workers: int | None = None) -> Collection:
    """Read qrels and runs once into a :class:`Collection`.

    Parameters
    ----------
    qrels : path, DataFrame or dict
        Anything :func:`cwla.read_qrels` accepts.
    runs : path, DataFrame, list, dict or RunSet
        One run, a list of run files (named by file name without ``.gz``) or
        DataFrames, a dict ``{name: path or DataFrame or run dict}``, or runs
        already read by :func:`read_runs`.
    order : {"trec_eval", "file"}
        ``"trec_eval"`` (default): score descending, ties by docno descending,
        scores compared as single-precision floats like trec_eval (which keeps
        them as C ``float``); the rank column is ignored. ``"file"``: trust the
        order of the input.
    workers : int, optional
        Threads that read run files (default: the number of CPUs, at most 4).

    Returns
    -------
    Collection
    """
    if order not in ("trec_eval", "file"):
        raise ValueError(f"The 'order' parameter of prepare must be 'trec_eval' or 'file'. Got {order!r} instead.")
    q = read_qrels(qrels)
    run_set = read_runs(runs, workers=workers)
    names = list(run_set.names)
    arrays = list(zip(run_set.topics, run_set.docnos, run_set.scores))
    named = list(zip(run_set.names, run_set.sources))

    topics = sorted(set(q["topic"].tolist()))
    topic_index = {t: i for i, t in enumerate(topics)}
    grades, grade_codes = np.unique(q["grade"].to_numpy(np.float64), return_inverse=True)
    grade_codes = grade_codes.reshape(-1)
    n_topics, n_runs = len(topics), len(arrays)
    n_cells = n_runs * n_topics

    missing, ignored = {}, {}
    cells, docs, scores = [], [], []
    for r, (name, (r_topics, r_docs, r_scores)) in enumerate(zip(names, arrays)):
        uniques, inverse = np.unique(r_topics, return_inverse=True)
        labels = [u.decode("utf-8", "surrogateescape") for u in uniques]
        codes = np.array([topic_index.get(label, -1) for label in labels], dtype=np.int64)
        missing[name] = tuple(sorted(set(topics) - set(labels)))
        ignored[name] = tuple(sorted(label for label, c in zip(labels, codes) if c < 0))
        t_code = codes[inverse.reshape(-1)]
        keep = t_code >= 0
        if not keep.all():
            # rows of unjudged topics are dropped here, but a duplicate among them is still an error
            rest = pd.DataFrame({"topic": r_topics[~keep], "docno": r_docs[~keep]})
            if rest.duplicated().any():
                _raise_duplicate(named, names, r, rest[rest.duplicated()].iloc[0]["topic"].decode())
            if not keep.any():
                warnings.warn(f"run {name!r} retrieves for none of the {n_topics} qrels topics (its topics: "
                              f"{_some(labels)}; qrels topics: {_some(topics)}); every score of it is 0",
                              CwlaWarning, stacklevel=3)
        cells.append(r * n_topics + t_code[keep])
        docs.append(r_docs[keep])
        scores.append(r_scores[keep])
    cells = np.concatenate(cells)
    scores = np.concatenate(scores).astype(np.float32)  # trec_eval keeps scores as C floats

    # docnos as integer keys whose order is bytewise order; the same width for qrels and runs
    q_docs = _encode(q["docno"])
    docs = np.concatenate(docs)
    width = max(q_docs.dtype.itemsize, docs.dtype.itemsize)
    n_chunks = -(-width // 8)
    keys = field_keys(docs, n_chunks)
    q_keys = field_keys(q_docs, n_chunks)
    q_topic = np.array([topic_index[t] for t in q["topic"].tolist()], dtype=np.int64)
    q_order = np.lexsort(tuple(q_keys[:, j] for j in range(n_chunks - 1, -1, -1)) + (q_topic,))
    q_lengths = np.bincount(q_topic, minlength=n_topics).astype(np.int64)
    q_starts = np.zeros(n_topics, dtype=np.int64)
    np.cumsum(q_lengths[:-1], out=q_starts[1:])

    idx, starts, lengths = group_by_cell(cells, n_cells)
    codes = np.empty(len(cells), dtype=np.int32)
    dup = np.empty(n_cells, dtype=np.int64)
    organise_cells(idx, starts, lengths, n_topics, scores, keys, np.ascontiguousarray(q_keys[q_order]),
                   q_starts, q_lengths, grade_codes[q_order].astype(np.int32), len(grades),
                   order == "trec_eval", np.empty(len(cells), dtype=np.int32), codes, dup)
    bad = np.flatnonzero(dup >= 0)
    if len(bad):
        run, topic = divmod(int(bad[0]), n_topics)
        _raise_duplicate(named, names, run, topics[topic])

    judged = np.zeros((n_topics, len(grades)), dtype=np.int64)
    np.add.at(judged, (q_topic, grade_codes), 1)

    return Collection(
        topics=tuple(topics),
        runs=tuple(names),
        grades=grades,
        codes=codes,
        starts=starts,
        lengths=lengths,
        judged=judged,
        missing_topics=missing,
        ignored_topics=ignored,
    )


def _some(items, n=3) -> str:
    return ", ".join(items[:n]) + (", ..." if len(items) > n else "")


def _raise_duplicate(named, names, run, topic):
    """Let the careful reader name the file and lines of a duplicated docno."""
    read_run(named[run][1])
    raise InputError(f"run {names[run]!r}: a docno appears twice for topic {topic!r}")
