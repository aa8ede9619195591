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

import numbers
import os
import warnings
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Iterable, Mapping, Sequence

import attrs
import numpy as np
import pandas as pd

from ._join import group_by_cell, organise_cells
from ._tokenize import field_keys, read_run_arrays
from .errors import CwlaWarning, InputError
from .readers import SYSTEM_COLUMNS, is_record, read_qrels, read_run, run_name

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
    ties : {"float32", "float64"}
        The precision in which scores were compared when ordering the rankings.
    present : ndarray of bool, shape (n_runs, n_topics)
        The run retrieved something for the topic (before any truncation).
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
    ties: str = "float32"
    present: np.ndarray = attrs.field(default=None)

    def __attrs_post_init__(self):
        if self.present is None:
            object.__setattr__(self, "present", (self.lengths > 0).reshape(len(self.runs), len(self.topics)))

    @property
    def unjudged_code(self) -> int:
        return len(self.grades)

    def arrays(self) -> tuple:
        """``(codes, starts, lengths, n_topics, unjudged_code)``: what the scoring kernel reads."""
        return self.codes, self.starts, self.lengths, len(self.topics), self.unjudged_code

    def truncated(self, max_docs: int) -> "Collection":
        """Each ranking cut to its first ``max_docs`` documents (trec_eval's ``-M``); the arrays are shared."""
        return attrs.evolve(self, lengths=np.minimum(self.lengths, max_docs))

    def judged_only(self) -> "Collection":
        """Each ranking without its unjudged documents, nor those with a negative grade (ir_measures'
        ``judged_only``, trec_eval's ``-J``, which treats a negative grade as judged out of the pool)."""
        cell = np.repeat(np.arange(len(self.lengths)), self.lengths)
        # the rows of every cell, in order (a truncated collection ignores the rest of its rows)
        offsets = np.arange(len(cell)) - np.repeat(np.cumsum(self.lengths) - self.lengths, self.lengths)
        rows = np.repeat(self.starts, self.lengths) + offsets
        negative = np.append(self.grades < 0, True)  # the unjudged code last
        keep = ~negative[self.codes[rows]]
        codes = np.ascontiguousarray(self.codes[rows][keep])
        lengths = np.bincount(cell[keep], minlength=len(self.lengths)).astype(np.int64)
        starts = np.zeros(len(lengths), dtype=np.int64)
        np.cumsum(lengths[:-1], out=starts[1:])
        return attrs.evolve(self, codes=codes, starts=starts, lengths=lengths)

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


_RUNS_ACCEPTED = (
    "runs must be a run file path, a DataFrame (one run, or several with a system column "
    f"{' / '.join(SYSTEM_COLUMNS)}: PyTerrier's results), a dict {{topic: {{docno: score}}}}, an object with "
    "to_dict() of that shape (ranx's Run), an iterable of records with query_id, doc_id, score (ir_datasets' "
    "scoreddocs_iter()), a list of any of these, or a dict {name: any of these}"
)


def _system_column(frame: pd.DataFrame) -> str | None:
    present = [c for c in SYSTEM_COLUMNS if c in frame.columns]
    if len(present) > 1:
        raise InputError(f"run DataFrame has columns {present}, which all name the system; keep one")
    return present[0] if present else None


def _split_systems(frame: pd.DataFrame, column: str) -> list:
    """One (name, frame) per system of a frame with a system column, in order of first appearance."""
    if frame[column].isna().any():
        row = int(np.argmax(frame[column].isna().to_numpy()))
        raise InputError(f"run DataFrame, row {row} (by position): the system column {column!r} is missing a value")
    names = pd.unique(frame[column])
    groups = frame.groupby(column, sort=False)
    return [(str(name), groups.get_group(name).drop(columns=[column])) for name in names]


def _is_run_dict(runs: Mapping) -> bool:
    """True for a pytrec_eval run dict ``{topic: {doc: score}}`` (one run), False for ``{name: run}``:
    every value is a dict, and the first document entry found holds a number, not a dict."""
    if not runs or not all(isinstance(v, Mapping) for v in runs.values()):
        return False
    for docs in runs.values():
        for value in docs.values():
            return isinstance(value, numbers.Number) or isinstance(value, str)
    return True  # every topic empty: one (empty) run, which the reader reports


def _object_name(source, default: str) -> str:
    """A run object's own name (ranx's ``Run.name``), else ``default``."""
    name = getattr(source, "name", None)
    return name if isinstance(name, str) and name else default


def _named_runs(runs) -> list:
    """Normalise the accepted run containers to a list of (name, source)."""
    if isinstance(runs, (str, os.PathLike)):
        return [(run_name(runs), runs)]
    if isinstance(runs, pd.DataFrame):
        column = _system_column(runs)
        return _split_systems(runs, column) if column else [("run", runs)]
    if not isinstance(runs, Mapping) and callable(getattr(runs, "to_dict", None)):
        return [(_object_name(runs, "run"), runs)]
    if isinstance(runs, Iterable) and not isinstance(runs, (Mapping, Sequence, bytes)):
        runs = list(runs)  # a generator: of records (one run) or of runs
    if isinstance(runs, Sequence) and runs and is_record(runs[0]):
        return [("run", list(runs))]
    if isinstance(runs, Mapping):
        if _is_run_dict(runs):  # a pytrec_eval run dict {topic: {doc: score}} is one run
            return [("run", runs)]
        named = []
        for name, source in runs.items():  # {name: run}
            if isinstance(source, pd.DataFrame) and _system_column(source) \
                    and source[_system_column(source)].nunique(dropna=False) > 1:
                raise InputError(f"run {str(name)!r} is a DataFrame holding several runs (column "
                                 f"{_system_column(source)!r}); pass that frame itself as the runs, or one frame "
                                 f"per run")
            named.append((str(name), source))
        return named
    if isinstance(runs, Sequence) and not isinstance(runs, (str, bytes)):
        named = []
        for i, source in enumerate(runs):
            if isinstance(source, (str, os.PathLike)):
                named.append((run_name(source), source))
            elif isinstance(source, pd.DataFrame) and _system_column(source):
                named.extend(_split_systems(source, _system_column(source)))
            elif isinstance(source, Iterable) and not isinstance(source, (Mapping, Sequence, pd.DataFrame)) \
                    and not callable(getattr(source, "to_dict", None)):
                named.append((f"run{i + 1}", list(source)))  # read twice at most (errors name the record)
            else:
                named.append((_object_name(source, f"run{i + 1}"), source))
        return named
    raise TypeError(f"{_RUNS_ACCEPTED}; got {type(runs).__name__}")


def _encode(values) -> np.ndarray:
    """Strings as a UTF-8 bytes array (``S<width>``), the form the bulk reader produces."""
    return np.char.encode(np.asarray(values, dtype=np.str_), "utf-8")


TIES = ("float32", "float64")


def _check_ties(ties, func):
    if ties not in TIES:
        raise ValueError(f"The 'ties' parameter of {func} must be 'float32' (trec_eval 9.x, pytrec_eval, NIST's DL "
                         f"results) or 'float64' (trec_eval >= 10). Got {ties!r} instead.")


def _run_arrays(source, ties="float32"):
    """(topics, docnos, scores) of one run: bytes, bytes, float32 or float64 (``ties``), in input order."""
    if isinstance(source, (str, os.PathLike)):
        arrays = read_run_arrays(source, ties)
        if arrays is not None:
            return arrays
    frame = read_run(source)  # the careful reader: precise errors, every accepted form
    scores = frame["score"].to_numpy(np.float64)
    if ties == "float32":
        with np.errstate(over="ignore"):  # beyond float32 range: inf, as trec_eval's (float) cast
            scores = scores.astype(np.float32)
    return _encode(frame["topic"]), _encode(frame["docno"]), scores


@attrs.frozen(eq=False)
class RunSet:
    """Runs read once, before any qrels: per run its topics and docnos (UTF-8 bytes arrays)
    and scores (float32 as trec_eval 9.x keeps them, or float64: ``ties``), in input order.

    :func:`prepare` joins a RunSet with qrels; reading the runs once and joining them
    with many qrels (candidate qrels, sampled qrels) avoids reading the files again.
    """

    names: tuple
    topics: tuple
    docnos: tuple
    scores: tuple
    sources: tuple  # what each run was read from (for error messages that name file and line)
    ties: str = "float32"

    def __len__(self) -> int:
        return len(self.names)


def read_runs(runs, *, workers: int | None = None, ties: str = "float32") -> RunSet:
    """Read runs (see :func:`prepare` for the accepted forms) into a :class:`RunSet`.

    Files are read by ``workers`` threads (default: the number of CPUs, at most 4);
    ``ties`` is the precision the scores are kept in (see :func:`prepare`).
    """
    _check_ties(ties, "read_runs")
    if isinstance(runs, RunSet):
        if runs.ties != ties:
            raise ValueError(f"these runs were read with ties={runs.ties!r}; read them again with "
                             f"read_runs(..., ties={ties!r})")
        return runs
    named = _named_runs(runs)
    if not named:
        raise InputError("no runs given: pass at least one run file, DataFrame or dict")
    names = [name for name, _ in named]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise InputError(f"run names must be unique; {dupes} appear more than once (a run is named by its file name "
                         f"without .gz: rename or copy the files, or in Python pass a dict {{name: run}})")
    workers = workers or min(4, os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        arrays = list(pool.map(lambda source: _run_arrays(source, ties), [source for _, source in named]))
    return RunSet(names=tuple(names), topics=tuple(a[0] for a in arrays), docnos=tuple(a[1] for a in arrays),
                  scores=tuple(a[2] for a in arrays), sources=tuple(source for _, source in named), ties=ties)


def prepare(qrels, runs, *, order: str = "trec_eval", ties: str = "float32", workers: int | None = None) -> Collection:
    """Read qrels and runs once into a :class:`Collection`.

    Parameters
    ----------
    qrels : path, DataFrame, dict, iterable of records or object with ``to_dict()``
        Anything :func:`cwla.read_qrels` accepts: a TREC qrels file, a DataFrame
        (``topic, docno, grade``, ir_datasets' ``query_id, doc_id, relevance``,
        PyTerrier's ``qid, docno, label``), a dict ``{topic: {docno: grade}}``, ranx's
        ``Qrels``, ir_datasets' ``qrels_iter()``.
    runs : path, DataFrame, list, dict, iterable of records, object with ``to_dict()``, or RunSet
        One run (a TREC run file; a DataFrame ``topic, docno, score[, rank]``, PyTerrier's
        ``qid, docno, score[, rank]``, ir_datasets' ``query_id, doc_id, score``; a dict
        ``{topic: {docno: score}}``; ranx's ``Run``; ir_datasets' ``scoreddocs_iter()``),
        a DataFrame with a system column (``name``, ``run`` or ``system``: one run per
        system, as PyTerrier's results of several pipelines), a list of runs (files are
        named by file name without ``.gz``, ranx runs by their name), a dict
        ``{name: run}``, or runs already read by :func:`read_runs`.
    order : {"trec_eval", "file"}
        ``"trec_eval"`` (default): score descending, ties by docno descending (bytewise);
        the rank column is ignored. ``"file"``: trust the order of the input.
    ties : {"float32", "float64"}
        The precision in which scores are compared. ``"float32"`` (default): as trec_eval
        9.x, pytrec_eval and NIST's official TREC DL results, which keep scores as C
        ``float``, so scores that differ only beyond float precision tie (and the docno
        decides). ``"float64"``: doubles, as trec_eval >= 10.0.
    workers : int, optional
        Threads that read run files (default: the number of CPUs, at most 4).

    Returns
    -------
    Collection
    """
    if order not in ("trec_eval", "file"):
        raise ValueError(f"The 'order' parameter of prepare must be 'trec_eval' or 'file'. Got {order!r} instead.")
    _check_ties(ties, "prepare")
    q = read_qrels(qrels)
    run_set = read_runs(runs, workers=workers, ties=ties)
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
    scores = np.concatenate(scores).astype(np.float32 if ties == "float32" else np.float64)

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
        ties=ties,
    )


def _some(items, n=3) -> str:
    return ", ".join(items[:n]) + (", ..." if len(items) > n else "")


def _raise_duplicate(named, names, run, topic):
    """Let the careful reader name the file and lines of a duplicated docno."""
    read_run(named[run][1])
    raise InputError(f"run {names[run]!r}: a docno appears twice for topic {topic!r}")
