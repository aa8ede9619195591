"""Qrels and runs joined into arrays, for every metric and every meta-evaluation.

:func:`prepare` reads the qrels (a :class:`Judgements`), reads the runs once into a
:class:`cwla.RunSet` (unless given one) and joins the two: each ranked document's
docno id is looked up among its topic's judgements and becomes a grade code. The
result, a :class:`Collection`, holds one flat array of grade codes in rank order
and the offsets of every (run, topic) cell. No string reaches a kernel; joining
one RunSet with many qrels (candidate qrels, sampled qrels) redoes only the look-ups.

Topic policy (trec_eval ``-c``): every qrels topic is scored; a qrels topic
missing from a run scores 0; run topics absent from the qrels are ignored.
Both are counted per run.
"""

from __future__ import annotations

import os
import warnings

import attrs
import numpy as np
import pandas as pd

from .._validate import NONE, validate_params
from .._display import Displayed, Shown, count_text
from ._docnos import strings_of
from ..typing import QrelsLike, RunsLike
from ._join import cell_starts, join_run
from ._tokenize import read_qrels_file
from ..errors import CwlaWarning, InputError
from .readers import read_costs, read_qrels
from .runset import A_TIES, A_WORKERS, AN_ORDER, RunSet, read_runs

__all__ = ["Collection", "Judgements", "prepare", "join"]

#: up to this many distinct grades, :meth:`Collection.judged_sums` multiplies dense count blocks
DENSE_GRADES = 4096


@attrs.frozen(eq=False, repr=False)
class Judgements(Displayed):
    """Qrels as arrays: per judgement its topic, docno and grade code; and per (topic, grade) the number
    of judged documents, kept sparse (memory follows the number of judgements, not topics x grades).

    Attributes
    ----------
    topics : tuple of str
        The qrels topics, sorted.
    grades : ndarray of float64
        The distinct grades, ascending; grade code g is ``grades[g]``.
    topic, doc, code : ndarray of int32, one entry per judgement
        Topic index, index into ``docnos``, grade code.
    docnos : Strings
        The distinct judged docnos.
    count_topic, count_code, count : ndarray of int64
        The judged documents of topic ``count_topic[i]`` at grade code ``count_code[i]``
        number ``count[i]``; sorted by topic, then code; only nonzero counts.
    """

    topics: tuple
    grades: np.ndarray
    topic: np.ndarray
    doc: np.ndarray
    code: np.ndarray
    docnos: object
    count_topic: np.ndarray
    count_code: np.ndarray
    count: np.ndarray

    @classmethod
    def of(cls, qrels: QrelsLike | Judgements) -> Judgements:
        """Anything :func:`cwla.read_qrels` accepts (a Judgements is returned as it is); qrels files by the
        fast reader (a numba tokenizer) where it can."""
        if isinstance(qrels, Judgements):
            return qrels
        if isinstance(qrels, (str, os.PathLike)):
            columns = read_qrels_file(qrels)
            if columns is not None:
                return cls._build(columns.topic_ids, columns.topics, columns.grades, columns.doc_ids, columns.docnos)
        return cls.from_frame(read_qrels(qrels))

    @classmethod
    def of_costs(cls, costs: QrelsLike | Judgements) -> Judgements:
        """Per-document costs as Judgements whose grades are the costs: anything
        :func:`cwla.data.readers.read_costs` accepts (a file ``qid iter docno cost``, a frame
        ``topic, docno, cost`` or one shaped as qrels with the cost in its grade column, a dict
        ``{topic: {docno: cost}}``), every cost finite and > 0; or Judgements, checked (:func:`check_costs`)."""
        if isinstance(costs, Judgements):
            check_costs(costs)
            return costs
        return cls.from_frame(read_costs(costs), value="cost")

    @classmethod
    def from_frame(cls, q: pd.DataFrame, value: str = "grade") -> "Judgements":
        """A canonical qrels frame (what :func:`cwla.read_qrels` returns; not checked again); the grades from
        its column ``value`` (``"cost"``: a frame of :func:`cwla.data.readers.read_costs`)."""
        topic, topics = pd.factorize(q["topic"].to_numpy())
        doc, docnos = strings_of(q["docno"].to_numpy())
        return cls._build(topic, [str(t) for t in topics], q[value].to_numpy(np.float64), doc, docnos)

    @classmethod
    def _build(cls, topic_ids, labels: list, values, doc, docnos) -> "Judgements":
        """From per-judgement topic ids (into ``labels``), grades and docno ids (into ``docnos``)."""
        order = sorted(range(len(labels)), key=labels.__getitem__)
        rank = np.empty(len(labels), dtype=np.int32)
        rank[order] = np.arange(len(labels), dtype=np.int32)
        topic = rank[topic_ids]
        grades, code = np.unique(values, return_inverse=True)
        code = code.reshape(-1)
        pairs, count = np.unique(topic.astype(np.int64) * len(grades) + code, return_counts=True)
        return cls(topics=tuple(labels[i] for i in order), grades=grades, topic=topic, doc=doc.astype(np.int32),
                   code=code.astype(np.int32), docnos=docnos, count_topic=pairs // len(grades),
                   count_code=pairs % len(grades), count=count.astype(np.int64))

    def _shown(self) -> Shown:
        """Per grade: the judged documents and the topics with one."""
        n_g = len(self.grades)
        table = pd.DataFrame({"judged": np.bincount(self.count_code, weights=self.count, minlength=n_g).astype(np.int64),
                              "topics": np.bincount(self.count_code, minlength=n_g).astype(np.int64)},
                             index=pd.Index(self.grades, name="grade")).rename_axis(columns="count")
        return Shown("Judgements", f"{count_text(len(self.topics), 'topic')}, {count_text(len(self.topic), 'judgement')}, "
                     f"{count_text(n_g, 'grade')}", table)


@attrs.frozen(eq=False, repr=False)
class Collection(Displayed):
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
    count_topic, count_code, count : ndarray of int64
        Topic ``count_topic[i]`` has ``count[i]`` judged documents of grade code ``count_code[i]``
        (sorted by topic, then code; see :class:`Judgements`).
    missing_topics : dict
        Run name -> qrels topics that the run does not retrieve for (scored 0).
    ignored_topics : dict
        Run name -> run topics that the qrels do not judge (ignored).
    ties : {"float32", "float64"}
        The precision in which scores were compared when ordering the rankings.
    present : ndarray of bool, shape (n_runs, n_topics)
        The run retrieved something for the topic (before any truncation).
    cost_codes, costs : ndarray of int32 aligned with ``codes``, ndarray of float64; or None
        Per-document costs (:func:`join_costs`): document i costs ``costs[cost_codes[i]]``; code
        ``len(costs)``: no cost given (cwl_eval's max_cost / min_cost). None: no costs.
    """

    topics: tuple
    runs: tuple
    grades: np.ndarray
    codes: np.ndarray
    starts: np.ndarray
    lengths: np.ndarray
    count_topic: np.ndarray
    count_code: np.ndarray
    count: np.ndarray
    missing_topics: dict
    ignored_topics: dict
    ties: str = "float32"
    present: np.ndarray = attrs.field(default=None)
    cost_codes: np.ndarray | None = None
    costs: np.ndarray | None = None

    def __attrs_post_init__(self):
        if self.present is None:
            object.__setattr__(self, "present", (np.asarray(self.lengths) > 0).reshape(len(self.runs),
                                                                                     len(self.topics)))

    @property
    def unjudged_code(self) -> int:
        return len(self.grades)

    def _shown(self) -> Shown:
        """Per run: the documents ranked, the topics retrieved for, missing and ignored."""
        n_r, n_t = len(self.runs), len(self.topics)
        lengths = np.asarray(self.lengths).reshape(n_r, n_t)
        table = pd.DataFrame({"ranked": lengths.sum(axis=1).astype(np.int64),
                              "topics": np.asarray(self.present).sum(axis=1).astype(np.int64),
                              "missing": [len(self.missing_topics.get(r, ())) for r in self.runs],
                              "ignored": [len(self.ignored_topics.get(r, ())) for r in self.runs]},
                             index=pd.Index(self.runs, name="run")).rename_axis(columns="count")
        facts = [f"ties={self.ties}"] + (["costs"] if self.costs is not None else [])
        return Shown("Collection", f"{count_text(n_r, 'run')} x {count_text(n_t, 'topic')}, "
                     f"{count_text(int(lengths.sum()), 'ranked document')}, {count_text(len(self.grades), 'grade')}",
                     table, tuple(facts))

    def arrays(self) -> tuple:
        """``(codes, starts, lengths, n_topics, unjudged_code)``: what the scoring kernel reads."""
        return self.codes, self.starts, self.lengths, len(self.topics), self.unjudged_code

    def judged_sums(self, weights: np.ndarray) -> np.ndarray:
        """``(n_rows, n_topics)``: per topic, the sum over its judged documents of ``weights[:, code]``.

        Computed as ``weights @ counts.T`` with ``counts`` the dense (topics x grades) matrix of judged
        documents, built a block of topics at a time (at most 2**20 entries: memory stays bounded however
        many topics and distinct grades there are). With more than :data:`DENSE_GRADES` distinct grades
        (say, float gains of a cwl_eval gain file) the sum runs over the judged (topic, grade) pairs
        instead, grade by grade; the two may differ in the last bit (BLAS may fuse multiply and add).
        """
        weights = np.asarray(weights, dtype=np.float64)
        n_t, n_g = len(self.topics), len(self.grades)
        out = np.zeros((weights.shape[0], n_t))
        if n_g > DENSE_GRADES:
            for row in range(weights.shape[0]):
                np.add.at(out[row], self.count_topic, weights[row, self.count_code] * self.count)
            return out
        block = max(1, 2**20 // max(n_g, 1))
        bounds = np.searchsorted(self.count_topic, np.arange(0, n_t + block, block))
        for b, first in enumerate(range(0, n_t, block)):
            n = min(block, n_t - first)
            counts = np.zeros((n, n_g))
            entries = slice(bounds[b], bounds[b + 1])
            counts[self.count_topic[entries] - first, self.count_code[entries]] = self.count[entries]
            out[:, first:first + n] = weights @ counts.T
        return out

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
        cost_codes = None if self.cost_codes is None else np.ascontiguousarray(self.cost_codes[rows][keep])
        return attrs.evolve(self, codes=codes, starts=cell_starts(lengths), lengths=lengths, cost_codes=cost_codes)

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

    def check(self) -> None:
        """Raise InputError unless the arrays are consistent (a Collection built by hand reaches the kernels
        only through this: every index in range, every cell inside ``codes``)."""
        n_cells = len(self.runs) * len(self.topics)
        problems = []

        def need(ok, text):
            if not ok:
                problems.append(text)

        for name in ("codes", "starts", "lengths", "grades", "count_topic", "count_code", "count"):
            need(isinstance(getattr(self, name), np.ndarray) and getattr(self, name).ndim == 1,
                 f"{name} must be a 1-d NumPy array")
        if problems:
            raise InputError(f"invalid Collection: {'; '.join(problems)}")
        need(np.issubdtype(self.codes.dtype, np.integer), f"codes must be integers (got {self.codes.dtype})")
        need(np.issubdtype(self.grades.dtype, np.number) and np.isfinite(self.grades).all(),
             "grades must be finite numbers")
        need(len(self.grades) < 2 or bool((np.diff(self.grades) > 0).all()), "grades must be strictly ascending")
        need(self.starts.shape == (n_cells,) and self.lengths.shape == (n_cells,),
             f"starts and lengths must have one entry per (run, topic) cell: {n_cells}")
        need(isinstance(self.present, np.ndarray) and self.present.shape == (len(self.runs), len(self.topics)),
             "present must have shape (n_runs, n_topics)")
        if problems:
            raise InputError(f"invalid Collection: {'; '.join(problems)}")
        if len(self.codes):
            lo, hi = int(self.codes.min()), int(self.codes.max())
            need(lo >= 0 and hi <= self.unjudged_code,
                 f"grade codes must lie in 0..{self.unjudged_code} (n_grades = unjudged); found {lo}..{hi}")
        need(not len(self.lengths) or int(self.lengths.min()) >= 0, "lengths must be >= 0")
        need(not len(self.starts) or int(self.starts.min()) >= 0, "starts must be >= 0")
        ends = self.starts.astype(np.int64) + self.lengths.astype(np.int64)
        need(not len(ends) or int(ends.max()) <= len(self.codes),
             f"every cell must lie inside codes (length {len(self.codes)}); a cell ends at {int(ends.max(initial=0))}")
        n_t, n_g = len(self.topics), len(self.grades)
        need(len(self.count_topic) == len(self.count_code) == len(self.count), "the judged counts must align")
        if len(self.count):
            need(int(self.count_topic.min()) >= 0 and int(self.count_topic.max()) < n_t,
                 f"count_topic must lie in 0..{n_t - 1}")
            need(int(self.count_code.min()) >= 0 and int(self.count_code.max()) < n_g,
                 f"count_code must lie in 0..{n_g - 1}")
            need(int(self.count.min()) >= 0, "judged counts must be >= 0")
        if problems:
            raise InputError(f"invalid Collection: {'; '.join(problems)}")


def _cell_codes(judgements: Judgements, run_set: RunSet, topics: tuple) -> tuple:
    """``(codes, starts, lengths, store)``: the code of every document the runs retrieve for ``topics``
    (``judgements``' code of the pair, ``len(judgements.grades)`` where it has none), cell after cell
    (run-major, topics in the order given), and where each topic is in the RunSet (-1: nowhere)."""
    n_topics = len(topics)
    index = pd.Index(run_set.topics)
    store = index.get_indexer(list(topics))  # each topic in the RunSet (-1: none)
    # the code of every (topic, docno) pair the runs retrieve
    ids = run_set.pair_ids(index.get_indexer(list(judgements.topics))[judgements.topic], judgements.docnos,
                           judgements.doc)
    grade = np.full(len(run_set.docnos), len(judgements.grades), dtype=np.int32)
    found = ids >= 0
    grade[ids[found]] = judgements.code[found]

    retrieved = store >= 0
    n_runs = len(run_set)
    lengths = np.zeros((n_runs, n_topics), dtype=np.int64)
    lengths[:, retrieved] = run_set.lengths[:, store[retrieved]]
    starts = cell_starts(lengths)
    out_starts = starts.reshape(n_runs, n_topics)
    codes = np.empty(int(lengths.sum()), dtype=np.int32)
    for r in range(n_runs):
        run_starts = np.zeros(n_topics, dtype=np.int64)
        run_starts[retrieved] = run_set.starts(r)[store[retrieved]]
        join_run(run_set.doc_ids[r], run_starts, lengths[r], grade, codes, out_starts[r])
    return codes, starts, lengths, store


def check_costs(costs: Judgements) -> None:
    """Raise InputError unless the cost (grade) of every judgement of ``costs`` is finite and > 0, naming the
    topic and docno of the first that is not."""
    values = costs.grades[costs.code]
    bad = ~(np.isfinite(values) & (values > 0))
    if bad.any():
        j = int(np.argmax(bad))
        value = float(values[j])
        problem = "is not > 0" if np.isfinite(value) else "is not a finite number"
        raise InputError(f"costs Judgements, topic {costs.topics[costs.topic[j]]!r}, docno "
                         f"{costs.docnos[costs.doc[j]]!r}: cost {value!r} {problem}; costs must be finite and > 0 "
                         f"(cwl_eval: no free lunches)")


def join_costs(collection: Collection, costs: Judgements, run_set: RunSet) -> Collection:
    """``collection`` (the qrels joined with ``run_set``) with the cost of every retrieved document:
    ``costs`` are per-document costs as :meth:`Judgements.of_costs` gives them (the grades are the costs,
    checked there once, not at every join)."""
    codes, _, lengths, _ = _cell_codes(costs, run_set, collection.topics)
    if not np.array_equal(lengths.reshape(-1), collection.lengths):
        raise InputError("the costs were joined with other runs than the qrels")
    return attrs.evolve(collection, cost_codes=codes, costs=costs.grades)


def join(judgements: Judgements, run_set: RunSet) -> Collection:
    """Qrels (:class:`Judgements`) joined with runs read once (:class:`cwla.RunSet`) into a Collection."""
    topics = judgements.topics
    n_topics = len(topics)
    codes, starts, lengths, store = _cell_codes(judgements, run_set, topics)
    retrieved = store >= 0

    judged_topic = np.zeros(len(run_set.topics), dtype=bool)
    judged_topic[store[retrieved]] = True
    missing, ignored = {}, {}
    for r, name in enumerate(run_set.names):
        has = run_set.lengths[r] > 0
        missing[name] = tuple(t for t, n in zip(topics, lengths[r]) if n == 0)
        ignored[name] = tuple(t for t, h, j in zip(run_set.topics, has, judged_topic) if h and not j)
        labels = [t for t, h in zip(run_set.topics, has) if h]
        if labels and not lengths[r].any():  # (a run with no documents at all was warned of when it was read)
            warnings.warn(f"run {name!r} retrieves for none of the {n_topics} qrels topics (its topics: "
                          f"{_some(labels)}; qrels topics: {_some(list(topics))}); every score of it is 0",
                          CwlaWarning, stacklevel=3)
    return Collection(topics=topics, runs=run_set.names, grades=judgements.grades, codes=codes, starts=starts,
                      lengths=lengths.reshape(-1), count_topic=judgements.count_topic,
                      count_code=judgements.count_code, count=judgements.count, missing_topics=missing,
                      ignored_topics=ignored, ties=run_set.ties)


@validate_params({"order": AN_ORDER, "ties": A_TIES, "workers": (A_WORKERS, NONE)}, named=True)
def prepare(qrels: QrelsLike | Judgements, runs: RunsLike, *, order: str = "trec_eval", ties: str = "float32",
            workers: int | None = None) -> Collection:
    """Read qrels and runs into a :class:`Collection`.

    Parameters
    ----------
    qrels : path, DataFrame, dict, iterable of records, object with ``to_dict()``, or Judgements
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
        ``{name: run}``, or runs already read by :func:`cwla.read_runs` (then only the
        qrels are read: the cheap way to evaluate one set of runs under many qrels).
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

    Examples
    --------
    >>> import cwla
    >>> qrels, runs = cwla.synthetic.collection(n_topics=5, n_runs=3, seed=1)
    >>> col = cwla.prepare(qrels, runs)      # read and joined once: evaluate it under many metrics
    >>> col.runs, len(col.topics)
    (('run01', 'run02', 'run03'), 5)
    >>> cwla.evaluate(col, metrics=["nDCG@10"]).means().shape
    (3, 1)
    """
    judgements = Judgements.of(qrels)
    return join(judgements, read_runs(runs, workers=workers, ties=ties, order=order))


def _some(items, n=3) -> str:
    return ", ".join(items[:n]) + (", ..." if len(items) > n else "")

