"""Candidate qrels generators: seeded, repeatable ways to derive cheaper or biased qrels from a ground truth.

Each generator is a plain function that takes ground-truth qrels (anything
:func:`cwla.read_qrels` accepts: a path, a DataFrame, a pytrec_eval dict) and,
where it needs them, runs (anything :func:`cwla.read_runs` accepts, or a
:class:`cwla.RunSet`), and returns qrels in cwla's canonical form: columns
``topic`` (str), ``docno`` (str), ``grade`` (float64) with a fresh
``RangeIndex``, so that the result goes straight to :func:`cwla.evaluate`,
:func:`discpower.compare_qrels` or :func:`discpower.sweep` and round-trips
through :func:`cwla.read_qrels` unchanged.

=========================  ===================================================  ==========
generator                  what it simulates                                    random?
=========================  ===================================================  ==========
:func:`sample_relevant`    fewer relevant documents found (McKechnie et al.)    yes
:func:`popularity_qrels`   an assessor biased towards popular documents         ties only
:func:`biased_qrels`       a judge that favours some systems' documents         yes
:func:`topic_subset`       fewer topics                                         yes
:func:`depth_pool`         a shallower depth-k pool                             no
=========================  ===================================================  ==========

:data:`GENERATORS` maps names to adapters with one signature
``fn(truth, runs, parameter, seed) -> qrels`` for parameter sweeps
(:func:`discpower.sweep`).

Randomness comes from ``numpy.random.default_rng(seed_value(seed))`` alone, a
fresh generator per call: no global state, and the same arguments always give
the same qrels. Random draws are made in a canonical order (sorted topics and
docnos), so the result does not depend on the row order of the input qrels or
on the order of the runs. The draws are *nested*: for one seed, the documents
kept at sampling rate 0.3 are a subset of those kept at 0.5, and likewise for
topic subsets, which makes curves over the parameter smooth.

"trec_eval order" means what trec_eval and :func:`cwla.prepare` do: per run and
topic, documents sorted by score descending (scores compared as single-precision
floats), ties broken by docno descending (bytewise, as ``strcmp``); the rank
column of the run files is ignored.

References
----------
J. McKechnie, G. McDonald and C. Macdonald. Measuring hypothesis testing errors
in the evaluation of retrieval systems. SIGIR 2025; arXiv:2507.07924.

D. Otero, J. Parapar and N. Ferro. How discriminative are your qrels? How to
study the statistical significance of document adjudication methods. CIKM
2023; arXiv:2308.09340.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from cwla import Evaluator, read_qrels, read_runs
from cwla._shared import Interval, NONE, Options, check

from ..stats.rng import SEED
from .._params import validated
from ..errors import DiscpowerError
from ..typing import QrelsLike, RunsLike, Seed

__all__ = ["sample_relevant", "popularity_qrels", "biased_qrels", "topic_subset", "depth_pool", "GENERATORS"]

#: values of ``mode=`` in :func:`sample_relevant`
MODES = ("drop", "relabel")


# ---------------------------------------------------------------------------
# argument checks
# ---------------------------------------------------------------------------


def _real(value, name: str, func: str, rule: str, interval: Interval) -> float:
    """A finite real number in ``interval``, else a DiscpowerError naming parameter, function, rule and value."""
    return check(value, name, interval, func=func, error=DiscpowerError, rule=rule)


#: a number of topics, documents or ranks: an integer >= 1 (a whole-valued float such as 10.0, as sweeps produce,
#: is accepted)
A_COUNT = Interval("int", 1, None, whole=True)
A_THRESHOLD = Interval("real", 0, None, closed="neither", text="a finite number > 0 (a document is relevant when its "
                      "grade >= threshold; relabelled and unselected documents get grade 0, which must not count as "
                      "relevant)")
A_SHARE = Interval("real", 0, 1, text="a number in [0, 1]")


def _relevant_grade(grade, threshold: float, func: str, which: str) -> float:
    """The grade a generator gives the documents it labels relevant (``which``): ``threshold`` by default, else
    a finite number >= threshold."""
    if grade is None:
        return threshold
    return _real(grade, "grade", func, f"a finite number >= threshold ({threshold:g}) so that {which} documents "
                 f"count as relevant", Interval("real", threshold, None))


def _judging(qrels, runs, grade, threshold: float, seed: int, func: str, which: str) -> tuple:
    """What a labeller built on runs starts from: the grade it gives the documents it labels relevant
    (``which``: :func:`_relevant_grade`), its random generator, the qrels read and the runs ranked."""
    return (_relevant_grade(grade, threshold, func, which), np.random.default_rng(seed), read_qrels(qrels),
            _ranked(runs))


def _frame(topics, docnos, grades) -> pd.DataFrame:
    """A canonical qrels frame (the dtypes of :func:`cwla.read_qrels`)."""
    return pd.DataFrame({"topic": pd.Series(topics, dtype=str), "docno": pd.Series(docnos, dtype=str),
                         "grade": pd.Series(np.asarray(grades, dtype=np.float64))})


def _rint(x):
    """Round half to even, as Python's ``round`` (``np.rint`` on float64)."""
    return np.rint(np.asarray(x, dtype=np.float64)).astype(np.int64)


# ---------------------------------------------------------------------------
# percentage sampling (McKechnie et al.)
# ---------------------------------------------------------------------------


@validated({"rate": A_SHARE, "seed": SEED, "mode": Options(MODES), "threshold": A_THRESHOLD}, named=True)
def sample_relevant(qrels: QrelsLike, rate: float, *, seed: Seed = 0, mode: str = "drop",
                    threshold: float = 1) -> pd.DataFrame:
    """Keep a random share of each topic's relevant documents (McKechnie et al.'s percentage sampling).

    Per topic t, of the relevant documents R_t (judged with grade >= `threshold`),
    ``k_t = round(rate * |R_t|)`` are kept, chosen uniformly at random; the others
    are dropped (``mode="drop"``) or relabelled non-relevant, grade 0
    (``mode="relabel"``). Non-relevant judgements (grade < `threshold`, including
    e.g. grade 1 at threshold 2) are kept as they are. The generator never adds
    relevance and never changes a kept judgement's grade.

    Parameters
    ----------
    qrels : path, DataFrame or dict
        The ground truth; anything :func:`cwla.read_qrels` accepts.
    rate : float
        Share of each topic's relevant documents to keep, in [0, 1].
    seed : int, numpy Generator or None, default 0
        Seed of ``numpy.random.default_rng`` (a Generator draws the seed from it;
        None draws a fresh one from the OS, so the result is not repeatable).
    mode : {"drop", "relabel"}, default "drop"
        What happens to the relevant documents not kept: removed from the qrels
        (they become unjudged) or kept with grade 0 (judged non-relevant).
    threshold : float, default 1
        Grade from which a document counts as relevant (> 0). Use 2 for the
        binary measures of the TREC Deep Learning tracks.

    Returns
    -------
    pandas.DataFrame
        Canonical qrels (``topic``, ``docno``, ``grade``) in the input's row order
        with a fresh RangeIndex. With ``mode="drop"`` a topic all of whose
        judgements were relevant and dropped disappears; the frame may be empty.

    Raises
    ------
    DiscpowerError
        For a rate outside [0, 1], an unknown mode or a threshold <= 0.

    Notes
    -----
    *Rounding.* ``k_t = round(rate * |R_t|)`` is taken literally, with Python's
    ``round`` on the float64 product: halves go to the even neighbour
    (``round(0.5 * 5) = 2``, ``round(0.5 * 3) = 2``, ``round(0.5 * 1) = 0``). A
    topic may therefore keep no relevant document at a small rate.

    *Randomness.* One random permutation of all relevant judgements, drawn in
    the canonical order (sorted by topic, then docno), ranks them; each topic
    keeps its ``k_t`` best-ranked. Each topic's kept set is thus a uniform random
    ``k_t``-subset, independent across topics, and for one seed the kept sets are
    nested in `rate` and identical for both modes; the row order of the input
    does not matter.

    References
    ----------
    J. McKechnie, G. McDonald and C. Macdonald. Measuring hypothesis testing
    errors in the evaluation of retrieval systems. SIGIR 2025; arXiv:2507.07924.

    Examples
    --------
    >>> qrels = {"q1": {"a": 2, "b": 1, "c": 0, "d": 3}, "q2": {"e": 1, "f": 0}}
    >>> out = sample_relevant(qrels, 0.5, seed=3)
    >>> out.groupby("topic")["grade"].apply(lambda g: int((g >= 1).sum())).to_dict()   # round(0.5*3), round(0.5*1)
    {'q1': 2, 'q2': 0}
    >>> len(sample_relevant(qrels, 0.5, seed=3, mode="relabel"))   # every judgement kept
    6
    """
    rng = np.random.default_rng(seed)
    q = read_qrels(qrels)
    grades = q["grade"].to_numpy(np.float64).copy()
    rel_rows = np.flatnonzero(grades >= threshold)
    chosen = np.zeros(len(q), dtype=bool)
    if len(rel_rows):
        rel = q.iloc[rel_rows]
        canonical = rel.reset_index(drop=True).sort_values(["topic", "docno"], kind="stable").index.to_numpy()
        priority = np.empty(len(rel_rows), dtype=np.int64)
        priority[canonical] = rng.permutation(len(rel_rows))
        codes, _ = pd.factorize(rel["topic"])
        sizes = np.bincount(codes)
        quota = _rint(rate * sizes)
        order = np.lexsort((priority, codes))
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        position = np.arange(len(order)) - starts[codes[order]]
        chosen[rel_rows[order[position < quota[codes[order]]]]] = True
    relevant = grades >= threshold
    if mode == "drop":
        out = q.loc[~relevant | chosen]
    else:
        grades[relevant & ~chosen] = 0.0
        out = q.assign(grade=grades)
    return out.reset_index(drop=True)


# ---------------------------------------------------------------------------
# random topic subsets
# ---------------------------------------------------------------------------


@validated({"n": (A_COUNT, NONE), "fraction": (Interval("real", 0, 1, closed="right", text="a number in (0, 1]"), NONE),
            "seed": SEED}, named=True)
def topic_subset(qrels: QrelsLike, n: int | None = None, *, fraction: float | None = None,
                 seed: Seed = 0) -> pd.DataFrame:
    """A random subset of the topics, with all their judgements.

    Parameters
    ----------
    qrels : path, DataFrame or dict
        The ground truth; anything :func:`cwla.read_qrels` accepts.
    n : int, optional
        Number of topics to keep, 1 .. number of topics.
    fraction : float, optional
        Share of the topics to keep, in (0, 1]: ``max(1, round(fraction * n_topics))``
        topics (Python's ``round``, halves to even). Give exactly one of `n`
        and `fraction`.
    seed : int, numpy Generator or None, default 0
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    pandas.DataFrame
        Canonical qrels: the rows of the chosen topics in input order, fresh RangeIndex.

    Raises
    ------
    DiscpowerError
        If both or neither of `n` and `fraction` are given, `n` is not an integer
        in 1 .. number of topics, or `fraction` is outside (0, 1].

    Notes
    -----
    The topics are permuted at random in sorted order and the first ones kept,
    so every subset of the size is equally likely, the result does not depend on
    the input's row order, and for one seed smaller subsets are nested in larger
    ones. Evaluating on a topic subset is the cheap end of the topic-set-size
    trade-off (fewer topics, each fully judged).

    Examples
    --------
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1, "c": 0}, "q3": {"d": 2}, "q4": {"e": 0}}
    >>> topic_subset(qrels, 2, seed=1)["topic"].nunique()
    2
    >>> topic_subset(qrels, fraction=0.1)["topic"].nunique()   # at least one topic
    1
    """
    func = "topic_subset"
    if (n is None) == (fraction is None):
        raise DiscpowerError(f"{func} takes exactly one of 'n' (a number of topics) and 'fraction' (a share of "
                             f"them). Got n={n!r} and fraction={fraction!r} instead.")
    rng = np.random.default_rng(seed)
    q = read_qrels(qrels)
    topics = np.array(sorted(set(q["topic"].tolist())), dtype=object)
    if n is None:
        n = max(1, int(round(fraction * len(topics))))
    elif n > len(topics):
        raise DiscpowerError(f"The 'n' parameter of {func} must be at most the number of topics of the qrels "
                             f"({len(topics)}). Got {n!r} instead.")
    keep = topics[rng.permutation(len(topics))[:n]]
    return q.loc[q["topic"].isin(keep)].reset_index(drop=True)


# ---------------------------------------------------------------------------
# runs in trec_eval order, for pools
# ---------------------------------------------------------------------------


class _Ranked:
    """The documents of a RunSet by trec_eval rank, for pools: the RunSet keeps every ranking in
    trec_eval order, so the top d of a ranking are its first d rows.

    ``labels`` are the runs' topics (sorted); documents are the RunSet's (topic, docno) pair ids.
    """

    __slots__ = ("run_set", "labels", "index")

    def __init__(self, run_set):
        self.run_set = run_set
        self.labels = list(run_set.topics)
        self.index = {label: i for i, label in enumerate(self.labels)}

    def codes(self, topics, func: str) -> np.ndarray:
        """The codes of the qrels' topics; an error naming the topics no run retrieves for."""
        uniques, inverse = np.unique(np.asarray(topics, dtype=object), return_inverse=True)
        missing = [t for t in uniques.tolist() if t not in self.index]
        if missing:
            raise DiscpowerError(
                f"{func}: the runs retrieve nothing for {len(missing)} of the {len(uniques)} ground-truth "
                f"topic(s): {missing[:5]}{' ...' if len(missing) > 5 else ''}; a pool needs at least one run "
                f"per topic (the runs' topics: {self.labels[:5]}{' ...' if len(self.labels) > 5 else ''}). "
                f"Drop those topics from the qrels or pass runs that cover them.")
        return np.array([self.index[t] for t in uniques.tolist()], dtype=np.int64)[inverse.reshape(-1)]

    def top(self, depth: int, wanted: np.ndarray, runs: Sequence[int] | None = None):
        """(topic codes, pair ids) of the documents some run (of ``runs``, indices; default all) ranks in its top
        `depth`, topics in `wanted` (bool), run after run."""
        topics, docs = [], []
        for r in range(len(self.run_set)) if runs is None else runs:
            take = np.minimum(self.run_set.lengths[r], depth) * wanted
            first = np.repeat(self.run_set.starts(r), take)
            rows = first + np.arange(len(first)) - np.repeat(np.cumsum(take) - take, take)
            topics.append(np.repeat(np.arange(len(take)), take))
            docs.append(self.run_set.doc_ids[r][rows])
        if not topics:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
        return np.concatenate(topics).astype(np.int64), np.concatenate(docs).astype(np.int64)

    def doc_ids(self, topics: np.ndarray, docnos) -> np.ndarray:
        """Ids of (topic code, docno) pairs (qrels'): the RunSet's, and for pairs no run retrieves new ids
        past them."""
        ids = self.run_set.pair_ids_of(topics, docnos)
        absent = ids < 0
        ids[absent] = len(self.run_set.docnos) + np.arange(int(absent.sum()))
        return ids


def _ranked(runs) -> _Ranked:
    """The runs ranked as they were read: an Evaluator's runs and a RunSet in the order of their reading
    (trec_eval's, or the file's with ``order="file"``); paths and frames read in trec_eval order."""
    return _Ranked(runs.runs if isinstance(runs, Evaluator) else read_runs(runs))


def _bytewise_rank(ids: np.ndarray, docno_of) -> np.ndarray:
    """Each id's position among the distinct ``ids`` in bytewise docno order (trec_eval's ``strcmp``)."""
    uniques, inverse = np.unique(ids, return_inverse=True)
    encoded = [docno_of(int(i)).encode("utf-8", "surrogateescape") for i in uniques]
    rank = np.empty(len(uniques), dtype=np.int64)
    rank[sorted(range(len(uniques)), key=encoded.__getitem__)] = np.arange(len(uniques))
    return rank[inverse.reshape(-1)]


# ---------------------------------------------------------------------------
# depth-k pooling
# ---------------------------------------------------------------------------


@validated({"depth": A_COUNT}, named=True)
def depth_pool(qrels: QrelsLike, runs: RunsLike, depth: int) -> pd.DataFrame:
    """Depth-k pooling: the ground truth's judgements of the documents some run retrieves in its top `depth`.

    Parameters
    ----------
    qrels : path, DataFrame or dict
        The ground truth; anything :func:`cwla.read_qrels` accepts.
    runs : paths, DataFrames, dict or cwla.RunSet
        The runs that form the pool; anything :func:`cwla.read_runs` accepts.
        Every run contributes (pass only the pooled runs to simulate a pool of a subset).
    depth : int
        Pool depth k >= 1: each run's first k documents per topic, in trec_eval
        order (score descending, docno descending), whatever the rank column says.

    Returns
    -------
    pandas.DataFrame
        Canonical qrels: the ground-truth rows whose (topic, docno) is pooled, in
        input order, grades unchanged, fresh RangeIndex. Documents pooled but not
        judged by the ground truth are not added (their label is unknown); a topic
        none of whose judged documents is pooled disappears.

    Raises
    ------
    DiscpowerError
        If `depth` is not an integer >= 1, or no run retrieves anything for some
        topic of the qrels (its pool would be empty).

    Notes
    -----
    Deterministic (no seed). The result is a subset of the ground truth and grows
    with `depth`.

    Examples
    --------
    >>> qrels = {"q1": {"a": 1, "b": 0, "c": 2}}
    >>> runs = {"r1": {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}}, "r2": {"q1": {"c": 5.0, "b": 4.0}}}
    >>> depth_pool(qrels, runs, 1)["docno"].tolist()
    ['a', 'c']
    """
    func = "depth_pool"
    q = read_qrels(qrels)
    ranked = _ranked(runs)
    topic = ranked.codes(q["topic"].to_numpy(), func)
    wanted = np.zeros(len(ranked.labels), dtype=bool)
    wanted[topic] = True
    pool_topic, pool_docs = ranked.top(depth, wanted)
    pool = pd.DataFrame({"t": pool_topic, "d": pool_docs}).drop_duplicates()
    truth = pd.DataFrame({"t": topic, "d": ranked.doc_ids(topic, q["docno"].to_numpy()), "row": np.arange(len(q))})
    rows = truth.merge(pool, on=["t", "d"], how="inner")["row"].to_numpy()
    keep = np.zeros(len(q), dtype=bool)
    keep[rows] = True
    return q.loc[keep].reset_index(drop=True)


# ---------------------------------------------------------------------------
# popularity-biased labeller
# ---------------------------------------------------------------------------


@validated({"k": A_COUNT, "seed": SEED, "threshold": A_THRESHOLD}, named=True)
def popularity_qrels(qrels: QrelsLike, runs: RunsLike, *, k: int = 10, seed: Seed = 0, threshold: float = 1,
                     grade: float | None = None) -> pd.DataFrame:
    """A popularity-biased labeller: the documents most runs retrieve in their top k are labelled relevant.

    Simulates an assessor (or a cheap automatic labeller) biased towards what the
    systems retrieve: per topic of the ground truth, the candidate documents are
    ranked by popularity -- the number of runs that retrieve the document in
    their top `k` (trec_eval order) -- and the ``|R_t|`` most popular are labelled
    relevant, ``|R_t|`` being the number of documents the ground truth judges
    relevant for the topic (grade >= `threshold`). Every other candidate gets 0.

    Parameters
    ----------
    qrels : path, DataFrame or dict
        The ground truth; anything :func:`cwla.read_qrels` accepts. It gives the
        topics, the number of relevant documents per topic and the judged sets.
    runs : paths, DataFrames, dict or cwla.RunSet
        The runs whose top-k lists decide popularity; anything :func:`cwla.read_runs` accepts.
    k : int, default 10
        Depth of each run's list that counts (>= 1).
    seed : int, numpy Generator or None, default 0
        Seed of ``numpy.random.default_rng`` for breaking ties in popularity.
    threshold : float, default 1
        Grade from which a ground-truth judgement is relevant (> 0).
    grade : float, optional
        Grade given to the labelled-relevant documents (default: `threshold`);
        must be >= `threshold`.

    Returns
    -------
    pandas.DataFrame
        Canonical qrels. Per ground-truth topic (topics in order of first
        appearance), the ground truth's judged documents in input order with
        their new labels, then the pooled documents the ground truth does not
        judge, by popularity descending then docno. Fresh RangeIndex.

    Raises
    ------
    DiscpowerError
        If `k` is not an integer >= 1, `threshold` <= 0, `grade` < `threshold`,
        or no run retrieves anything for some ground-truth topic.

    Notes
    -----
    Choices made here:

    * *Candidates* of a topic: its pool (every document some run retrieves in
      its top `k`) together with the ground truth's judged documents of the topic;
      all of them, and nothing else, appear in the output.
    * *Count.* Exactly ``|R_t|`` documents are labelled relevant per topic (never
      more than there are candidates, and the judged set alone has ``|R_t|``
      relevant ones). When the pool holds fewer than ``|R_t|`` documents, the rest
      are judged documents nobody retrieved in the top `k` (popularity 0), chosen
      at random. A topic without relevant documents gets all zeros.
    * *Ties* in popularity are broken uniformly at random: a random permutation
      of the candidates, drawn in the canonical order (topic, then docno), ranks
      equally popular ones. Same seed, same output; other seeds differ only when
      a tie straddles the cut-off.
    * *Topics*: the ground truth's only; run topics it does not judge are ignored.
      A run missing a topic simply contributes nothing to that topic's pool.
    * Runs are assumed valid (no docno retrieved twice for a topic;
      :func:`cwla.prepare` rejects such runs): a repeated docno would count twice.

    This is a biased labeller of the kind whose qrels McKechnie et al. (2025) and
    Otero et al. (2023) compare with the ground truth through significance tests:
    it rewards systems that agree with the majority.

    References
    ----------
    J. McKechnie, G. McDonald and C. Macdonald. Measuring hypothesis testing
    errors in the evaluation of retrieval systems. SIGIR 2025; arXiv:2507.07924.

    D. Otero, J. Parapar and N. Ferro. How discriminative are your qrels? How to
    study the statistical significance of document adjudication methods. CIKM 2023.

    Examples
    --------
    >>> qrels = {"q1": {"a": 2, "b": 0, "c": 0}}
    >>> runs = {"r1": {"q1": {"c": 3.0, "a": 1.0}}, "r2": {"q1": {"c": 2.0, "d": 1.0}}}
    >>> popularity_qrels(qrels, runs, k=1).values.tolist()   # c is in both top-1 lists
    [['q1', 'a', 0.0], ['q1', 'b', 0.0], ['q1', 'c', 1.0]]
    """
    func = "popularity_qrels"
    grade, rng, q, ranked = _judging(qrels, runs, grade, threshold, seed, func, "labelled")
    topic = ranked.codes(q["topic"].to_numpy(), func)
    n_labels = len(ranked.labels)
    wanted = np.zeros(n_labels, dtype=bool)
    wanted[topic] = True
    quota = np.bincount(topic[q["grade"].to_numpy() >= threshold], minlength=n_labels)

    pool_topic, pool_docs = ranked.top(k, wanted)
    popularity = pd.DataFrame({"t": pool_topic, "d": pool_docs}).groupby(["t", "d"], sort=False).size().rename("pop")
    q_docs = ranked.doc_ids(topic, q["docno"].to_numpy())
    truth = pd.DataFrame({"t": topic, "d": q_docs, "row": np.arange(len(q))})
    cand = truth.merge(popularity.reset_index(), on=["t", "d"], how="outer")
    row = cand["row"].fillna(-1).to_numpy().astype(np.int64)
    pop = cand["pop"].fillna(0).to_numpy().astype(np.int64)
    t = cand["t"].to_numpy().astype(np.int64)
    d = cand["d"].to_numpy().astype(np.int64)
    q_docno = dict(zip(q_docs.tolist(), q["docno"].tolist()))
    n_vocab = len(ranked.run_set.docnos)
    key_cols = (_bytewise_rank(d, lambda i: ranked.run_set.docnos[i] if i < n_vocab else q_docno[i]),)

    # ties: a random permutation drawn in the canonical (topic, docno) order
    tie = np.empty(len(cand), dtype=np.int64)
    tie[np.lexsort(key_cols + (t,))] = rng.permutation(len(cand))
    by_popularity = np.lexsort((tie, -pop, t))
    t_sorted = t[by_popularity]
    new_topic = np.r_[True, t_sorted[1:] != t_sorted[:-1]]
    position = np.arange(len(t_sorted)) - np.flatnonzero(new_topic)[np.cumsum(new_topic) - 1]
    relevant = np.zeros(len(cand), dtype=bool)
    relevant[by_popularity[position < quota[t_sorted]]] = True

    # output order: topics as they first appear, judged rows in input order, then the pool's others
    appearance = np.full(n_labels, -1, dtype=np.int64)
    seen, first_row = np.unique(topic, return_index=True)
    appearance[seen] = first_row
    within = np.where(row >= 0, row, len(q))
    order = np.lexsort(key_cols + (-pop, within, appearance[t]))
    row, t, relevant = row[order], t[order], relevant[order]
    judged = row >= 0
    docnos = np.empty(len(order), dtype=object)
    docnos[judged] = q["docno"].to_numpy(dtype=object)[row[judged]]
    if (~judged).any():
        docnos[~judged] = [ranked.run_set.docnos[i] for i in d[order][~judged].tolist()]
    labels = np.array(ranked.labels, dtype=object)
    return _frame(labels[t], docnos, np.where(relevant, grade, 0.0))


# ---------------------------------------------------------------------------
# a judge that favours chosen systems
# ---------------------------------------------------------------------------


def favoured_by_default(names: Sequence[str]) -> list[str]:
    """The systems :func:`biased_qrels` favours when none are named: the first half of the run names in sorted
    order (``len // 2``, at least one). On a :func:`~discpower.known_truth_collection` of 3 levels x 3 systems
    that is L0S0, L0S1, L0S2 and L1S0: one system of the middle level is favoured over its two equals."""
    ordered = sorted(names)
    return ordered[:max(1, len(ordered) // 2)]


@validated({"strength": Interval("real", 0, 1, text="a probability in [0, 1]"), "k": A_COUNT, "seed": SEED,
            "threshold": A_THRESHOLD}, named=True)
def biased_qrels(qrels: QrelsLike, runs: RunsLike, strength: float, *, favoured: Sequence[str] | None = None,
                 k: int = 10, seed: Seed = 0, threshold: float = 1, grade: float | None = None) -> pd.DataFrame:
    """A judge that favours the documents of chosen systems: candidate qrels that can *create* differences.

    Per topic of the ground truth, with F the documents the favoured runs retrieve in their top `k` and O those
    only the other runs retrieve in their top `k` (trec_eval order), each document of

    * F that is not relevant (judged with grade < `threshold`, or not judged) is labelled relevant (`grade`),
    * O that is relevant (grade >= `threshold`) is labelled 0,

    with probability `strength`; every other judgement is kept. At strength 0 the result is the ground truth
    (plus nothing); at strength 1 every favoured top-k document is relevant and every relevant document only
    the others find is not. LLM judges are reported to favour the output of systems built on the same model
    (a self-preference bias). Sampling, pooling and popularity treat exchangeable systems alike, so their true
    Type I rate stays at the test's own among truly equal systems; this generator makes a favoured system
    differ from its equals, i.e. Type I errors against the truth (:func:`discpower.known_truth_errors`).

    Parameters
    ----------
    qrels : path, DataFrame or dict
        The ground truth; anything :func:`cwla.read_qrels` accepts.
    runs : paths, DataFrames, dict or cwla.RunSet
        The runs; anything :func:`cwla.read_runs` accepts.
    strength : float
        The probability of each change, in [0, 1].
    favoured : sequence of str, optional
        Names of the favoured runs (at least one, each a run of `runs`). Default:
        :func:`favoured_by_default`, the first half of the run names in sorted order.
    k : int, default 10
        Depth of each run's list that the judge sees (>= 1).
    seed : int, numpy Generator or None, default 0
        One uniform draw per document that may change (the non-relevant and unjudged documents of F, the
        relevant ones of O), made in the canonical order (topic, then docno bytewise), decides its change: the
        changes at a strength are a subset of those at any higher strength (nested), and the result does not
        depend on the row order of the qrels or the order of the runs.
    threshold : float, default 1
        Grade from which a judgement is relevant (> 0).
    grade : float, optional
        The grade of an upgraded document (default: `threshold`); must be >= `threshold`.

    Returns
    -------
    pandas.DataFrame
        Canonical qrels: the ground truth's rows in input order with their new grades, then the upgraded
        documents it does not judge, by topic then docno (bytewise). Fresh RangeIndex.

    Raises
    ------
    DiscpowerError
        `strength` outside [0, 1], `k` not an integer >= 1, `threshold` <= 0, `grade` < `threshold`, an empty
        `favoured` or a name in it that is not a run, or a ground-truth topic no run retrieves anything for.

    Examples
    --------
    >>> qrels = {"q1": {"a": 1, "b": 0, "c": 1}}
    >>> runs = {"fav": {"q1": {"b": 2.0, "a": 1.0}}, "other": {"q1": {"c": 2.0, "d": 1.0}}}
    >>> biased_qrels(qrels, runs, 1.0, favoured=["fav"], k=2).values.tolist()
    [['q1', 'a', 1.0], ['q1', 'b', 1.0], ['q1', 'c', 0.0]]
    """
    func = "biased_qrels"
    grade, rng, q, ranked = _judging(qrels, runs, grade, threshold, seed, func, "upgraded")
    names = list(ranked.run_set.names)
    if favoured is None:
        favoured = favoured_by_default(names)
    elif isinstance(favoured, str) or not isinstance(favoured, Iterable):
        raise DiscpowerError(f"{func}: favoured must be a list of run names; got {favoured!r}")
    else:
        favoured = list(favoured)
        if not all(isinstance(name, str) for name in favoured):
            raise DiscpowerError(f"{func}: favoured must be a list of run names; got {favoured!r}")
    favoured = list(dict.fromkeys(favoured))
    unknown = [name for name in favoured if name not in names]
    if not favoured or unknown:
        raise DiscpowerError(f"{func}: favoured must name at least one of the runs"
                             + (f"; not runs: {unknown[:5]}" if unknown else "; got none")
                             + f" (the runs: {names[:8]}{' ...' if len(names) > 8 else ''})")
    chosen = [names.index(name) for name in favoured]
    others = [r for r in range(len(names)) if r not in set(chosen)]

    topic = ranked.codes(q["topic"].to_numpy(), func)
    wanted = np.zeros(len(ranked.labels), dtype=bool)
    wanted[topic] = True
    width = np.int64(len(ranked.run_set.docnos) + len(q) + 1)  # (topic, pair id) -> one int64 key
    q_docs = ranked.doc_ids(topic, q["docno"].to_numpy())
    q_keys = topic * width + q_docs
    fav_t, fav_d = ranked.top(k, wanted, chosen)
    oth_t, oth_d = ranked.top(k, wanted, others)
    in_f = np.unique(fav_t * width + fav_d)
    in_o = np.setdiff1d(oth_t * width + oth_d, in_f)

    grades = q["grade"].to_numpy(dtype=np.float64)
    relevant = grades >= threshold
    up_judged = np.isin(q_keys, in_f) & ~relevant
    down = np.isin(q_keys, in_o) & relevant
    new_keys = np.setdiff1d(in_f, q_keys)  # favoured top-k documents the ground truth does not judge
    # the documents that may change: one uniform draw each, in the canonical (topic, docno) order
    keys = np.concatenate([q_keys[up_judged | down], new_keys])
    q_docno = dict(zip(q_docs.tolist(), q["docno"].tolist()))
    n_vocab = len(ranked.run_set.docnos)
    docno_of = (lambda i: ranked.run_set.docnos[i] if i < n_vocab else q_docno[i])
    canonical = keys[np.lexsort((_bytewise_rank(keys % width, docno_of), keys // width))]
    flipped = canonical[rng.random(len(canonical)) < strength]

    changed = np.isin(q_keys, flipped)
    out = grades.copy()
    out[changed & up_judged] = grade
    out[changed & down] = 0.0
    added = flipped[np.isin(flipped, new_keys)]  # in the canonical order
    labels = np.array(ranked.labels, dtype=object)
    added_docnos = np.array([docno_of(int(i)) for i in (added % width).tolist()], dtype=object)
    return _frame(np.concatenate([q["topic"].to_numpy(dtype=object), labels[added // width]]),
                  np.concatenate([q["docno"].to_numpy(dtype=object), added_docnos]),
                  np.concatenate([out, np.full(len(added), grade)]))


# ---------------------------------------------------------------------------
# the registry for sweeps
# ---------------------------------------------------------------------------


def _sampling(truth, runs, parameter, seed):
    """``"sampling"``: :func:`sample_relevant` with ``rate=parameter``, ``mode="drop"``, threshold 1; runs unused."""
    return sample_relevant(truth, parameter, seed=seed, mode="drop")


def _sampling_relabel(truth, runs, parameter, seed):
    """``"sampling-relabel"``: :func:`sample_relevant` with ``rate=parameter``, ``mode="relabel"``, threshold 1;
    runs unused."""
    return sample_relevant(truth, parameter, seed=seed, mode="relabel")


def _topics(truth, runs, parameter, seed):
    """``"topics"``: :func:`topic_subset` with ``fraction=parameter``; runs unused. Sweeps compare it
    with the ground truth on all its topics (``keeps_truth_topics``), as McKechnie et al.'s Table 2."""
    return topic_subset(truth, fraction=parameter, seed=seed)


_topics.keeps_truth_topics = True


def _pooling(truth, runs, parameter, seed):
    """``"pooling"``: :func:`depth_pool` with ``depth=parameter`` (an integer; 10.0 is accepted); deterministic,
    the seed is unused."""
    return depth_pool(truth, runs, parameter)


def _popularity(truth, runs, parameter, seed):
    """``"popularity"``: :func:`popularity_qrels` with ``k=parameter``, threshold 1 and grade 1; the seed breaks
    ties."""
    return popularity_qrels(truth, runs, k=parameter, seed=seed)


def _biased(truth, runs, parameter, seed):
    """``"biased"``: :func:`biased_qrels` with ``strength=parameter``, the default favoured runs (the first half
    of the run names in sorted order: :func:`favoured_by_default`), k 10, threshold 1 and grade 1."""
    return biased_qrels(truth, runs, parameter, seed=seed)


#: Name -> adapter ``fn(truth, runs, parameter, seed) -> qrels DataFrame`` for :func:`discpower.sweep`.
#: ``truth`` is anything :func:`cwla.read_qrels` accepts (sweeps pass the canonical frame), ``runs``
#: anything :func:`cwla.read_runs` accepts (sweeps pass a RunSet; unused by sampling and topics),
#: ``parameter`` the swept value and ``seed`` the repetition's seed. For other settings (e.g. threshold 2)
#: pass your own callable, e.g. ``lambda g, r, p, s: sample_relevant(g, p, seed=s, threshold=2)``.
GENERATORS = {
    "sampling": _sampling,
    "sampling-relabel": _sampling_relabel,
    "topics": _topics,
    "pooling": _pooling,
    "popularity": _popularity,
    "biased": _biased,
}
