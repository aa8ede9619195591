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
from collections.abc import Mapping, Sequence

import attrs
import numpy as np
import pandas as pd

from .errors import InputError
from .readers import read_qrels, read_run, run_name

__all__ = ["Collection", "prepare"]


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


def prepare(qrels, runs, *, order: str = "trec_eval") -> Collection:
    """Read qrels and runs once into a :class:`Collection`.

    Parameters
    ----------
    qrels : path, DataFrame or dict
        Anything :func:`cwla.read_qrels` accepts.
    runs : path, DataFrame, list or dict
        One run, a list of run files (named by file name without ``.gz``) or
        DataFrames, or a dict ``{name: path or DataFrame or run dict}``.
    order : {"trec_eval", "file"}
        ``"trec_eval"`` (default): score descending, ties by docno descending,
        scores compared as single-precision floats like trec_eval; the rank
        column is ignored. ``"file"``: trust the order of the input.

    Returns
    -------
    Collection
    """
    if order not in ("trec_eval", "file"):
        raise ValueError(f"The 'order' parameter of prepare must be 'trec_eval' or 'file'. Got {order!r} instead.")
    q = read_qrels(qrels)
    named = _named_runs(runs)
    if not named:
        raise InputError("no runs given: pass at least one run file, DataFrame or dict")
    names = [name for name, _ in named]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise InputError(f"run names must be unique; {dupes} appear more than once (rename the files or pass a dict)")
    frames = [read_run(source) for _, source in named]

    topics = np.sort(q["topic"].unique().astype(object))
    grades, grade_codes = np.unique(q["grade"].to_numpy(np.float64), return_inverse=True)
    n_topics, n_runs = len(topics), len(frames)

    # ignored (run topics not in qrels) and missing (qrels topics not in run), per run
    topic_set = set(topics.tolist())
    missing, ignored = {}, {}
    for name, frame in zip(names, frames):
        run_topics = set(frame["topic"].unique().tolist())
        missing[name] = tuple(sorted(topic_set - run_topics))
        ignored[name] = tuple(sorted(run_topics - topic_set))

    sizes = np.array([len(f) for f in frames], dtype=np.int64)
    run_idx = np.repeat(np.arange(n_runs, dtype=np.int64), sizes)
    r_topic = np.concatenate([f["topic"].to_numpy(object) for f in frames])
    r_doc = np.concatenate([f["docno"].to_numpy(object) for f in frames])
    r_score = np.concatenate([f["score"].to_numpy(np.float64) for f in frames])

    topic_code = pd.Categorical(r_topic, categories=topics).codes.astype(np.int64)
    keep = topic_code >= 0
    run_idx, topic_code, r_doc, r_score = run_idx[keep], topic_code[keep], r_doc[keep], r_score[keep]
    position = np.flatnonzero(keep)  # file order, for order="file"

    # one docno factorisation for qrels and runs, sorted so that codes follow bytewise order
    q_topic = pd.Categorical(q["topic"].to_numpy(object), categories=topics).codes.astype(np.int64)
    all_docs = np.concatenate([q["docno"].to_numpy(object), r_doc])
    doc_codes, uniques = pd.factorize(all_docs, sort=True)
    n_docs = max(len(uniques), 1)
    q_key = q_topic * n_docs + doc_codes[: len(q)]
    r_docc = doc_codes[len(q):].astype(np.int64)
    r_key = topic_code * n_docs + r_docc

    sorter = np.argsort(q_key, kind="stable")
    q_key_sorted = q_key[sorter]
    hit = np.searchsorted(q_key_sorted, r_key)
    hit_c = np.minimum(hit, len(q_key_sorted) - 1)
    found = q_key_sorted[hit_c] == r_key
    unjudged = len(grades)
    r_grade = np.where(found, grade_codes[sorter][hit_c], unjudged).astype(np.int32)

    if order == "trec_eval":
        score32 = r_score.astype(np.float32)
        perm = np.lexsort((-r_docc, -score32, topic_code, run_idx))
    else:
        perm = np.lexsort((position, topic_code, run_idx))
    codes = np.ascontiguousarray(r_grade[perm])

    cell = run_idx * n_topics + topic_code
    lengths = np.bincount(cell, minlength=n_runs * n_topics).astype(np.int64)
    starts = np.zeros(n_runs * n_topics, dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])

    judged = np.zeros((n_topics, len(grades)), dtype=np.int64)
    np.add.at(judged, (q_topic, grade_codes), 1)

    return Collection(
        topics=tuple(str(t) for t in topics),
        runs=tuple(names),
        grades=grades,
        codes=codes,
        starts=starts,
        lengths=lengths,
        judged=judged,
        missing_topics=missing,
        ignored_topics=ignored,
    )
