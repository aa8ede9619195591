"""What the metrics with ``intents`` score (:mod:`cwla.metrics.intents`): Collections derived from subtopic qrels.

Runs are joined once with the judged documents *numbered* (:meth:`cwla.data.subtopics.Subtopics.documents`:
a document's grade code says which document it is); from that join

- :func:`novelty_collection` makes a Collection whose every ranked document carries its novelty-discounted
  gain r_i = (1/S) sum_s J(d_i, s) (1 - alpha)^{c_s(i-1)} as its grade (unjudged documents stay unjudged), and
  whose judged documents are ndeval's greedy ideal ranking's gains: so any C/W/L/A metric with ``linear(gmax=1)``
  gains, ``normalize=ideal`` included, scores novelty (alpha-nDCG, nERR-IA, nNRBP, ...);
- :func:`ia_collection` makes one pseudo-topic per (topic, subtopic with a relevant document), its rankings the
  topic's, its judgements binary (relevant to that subtopic or not); :func:`ia_means` averages the scores back
  over each topic's subtopics (0 for a topic without one).
"""

from __future__ import annotations

import attrs
import numpy as np
import pandas as pd

from .._numba import jit
from ..data._join import cell_starts
from ..data.collection import Collection
from ..data.subtopics import Subtopics

__all__ = ["Relevance", "relevance", "novelty_collection", "ia_collection", "ia_means", "greedy_ideal"]


@attrs.frozen(eq=False)
class Relevance:
    """Which subtopics each judged document is relevant to, at one relevance level: document ``doc_of[code]``
    (a grade code of the numbered join; -1 for the unjudged code) of topic t is global document
    ``first_doc[t] + doc``, relevant to the topic's subtopics ``subs[ptr[g]:ptr[g + 1]]`` (numbered 0..S_t - 1
    within the topic, only those with a relevant document: ``n_subtopics[t]`` of them)."""

    doc_of: np.ndarray
    first_doc: np.ndarray
    ptr: np.ndarray
    subs: np.ndarray
    n_subtopics: np.ndarray
    n_docs: np.ndarray
    docnos: tuple


def relevance(subtopics: Subtopics, docs: pd.DataFrame, col: Collection, level: float) -> Relevance:
    """The :class:`Relevance` of ``subtopics`` at ``level`` for ``col`` (the runs joined with the numbered
    documents ``docs`` of :meth:`Subtopics.documents`)."""
    topic_index = {t: i for i, t in enumerate(col.topics)}
    n_t = len(col.topics)
    n_docs = np.bincount(docs["topic"].map(topic_index).to_numpy(), minlength=n_t).astype(np.int64)
    first_doc = np.concatenate([[0], np.cumsum(n_docs)[:-1]]).astype(np.int64)
    relevant = subtopics.frame[subtopics.frame["grade"] >= level]
    numbered = relevant.merge(docs, on=["topic", "docno"])
    t = numbered["topic"].map(topic_index).to_numpy()
    # the subtopics with a relevant document, numbered within their topic
    pairs = numbered[["topic", "subtopic"]].drop_duplicates().sort_values(["topic", "subtopic"], ignore_index=True)
    pairs["local"] = pairs.groupby("topic").cumcount()
    local = numbered.merge(pairs, on=["topic", "subtopic"], how="left")["local"].to_numpy(dtype=np.int64)
    n_sub = np.bincount(pairs["topic"].map(topic_index).to_numpy(dtype=np.int64), minlength=n_t).astype(np.int64)
    g = first_doc[t] + numbered["doc"].to_numpy(dtype=np.int64) if len(numbered) else np.zeros(0, np.int64)
    by_doc = np.lexsort((local, g)) if len(g) else np.zeros(0, np.int64)
    ptr = np.zeros(int(n_docs.sum()) + 1, dtype=np.int64)
    np.add.at(ptr, g + 1, 1)
    doc_of = np.append(col.grades.astype(np.int64), -1)
    docnos = tuple(docs.groupby("topic", sort=True)["docno"].apply(tuple).reindex(col.topics, fill_value=()))
    return Relevance(doc_of, first_doc, np.cumsum(ptr), local[by_doc].astype(np.int64), n_sub, n_docs, docnos)


@jit(parallel=False)
def _novelty_gains(codes, starts, lengths, n_topics, doc_of, first_doc, ptr, subs, n_sub, alpha, out):
    """``out[i]``: the novelty-discounted gain of the document at ``codes[i]`` in its ranking (-1: unjudged)."""
    keep = 1.0 - alpha
    seen = np.zeros(max(1, int(n_sub.max()) if n_sub.shape[0] else 1))
    for c in range(starts.shape[0]):
        t = c % n_topics
        s_t = n_sub[t]
        seen[:] = 0.0
        for i in range(starts[c], starts[c] + lengths[c]):
            d = doc_of[codes[i]]
            if d < 0:
                out[i] = -1.0
                continue
            g = first_doc[t] + d
            gain = 0.0
            for j in range(ptr[g], ptr[g + 1]):
                s = subs[j]
                gain += keep ** seen[s]
                seen[s] += 1.0
            out[i] = gain / s_t if s_t > 0 else 0.0


def greedy_ideal(rel: Relevance, t: int, alpha: float) -> np.ndarray:
    """ndeval's ideal ranking of topic t: at each rank the judged document of largest novelty gain given those
    above (ties: the largest docno); its gains r_i (each over S_t), while positive."""
    s_t = int(rel.n_subtopics[t])
    if s_t == 0:
        return np.zeros(0)
    n = int(rel.n_docs[t])
    first = int(rel.first_doc[t])
    covers = np.zeros((n, s_t))
    for d in range(n):
        covers[d, rel.subs[rel.ptr[first + d]:rel.ptr[first + d + 1]]] = 1.0
    by_docno = np.argsort(np.array(rel.docnos[t], dtype=object))[::-1]  # argmax's first max: the largest docno
    covers = covers[by_docno]
    weight = np.ones(s_t)
    left = np.ones(n, dtype=bool)
    gains = []
    for _ in range(n):
        g = np.where(left, covers @ weight, -1.0)
        j = int(np.argmax(g))
        if g[j] <= 0.0:
            break
        gains.append(g[j] / s_t)
        weight = weight * np.where(covers[j] > 0, 1.0 - alpha, 1.0)
        left[j] = False
    return np.array(gains)


def novelty_collection(col: Collection, rel: Relevance, alpha: float) -> Collection:
    """``col`` (the runs joined with the numbered documents) with novelty-discounted gains as grades and the
    greedy ideal rankings' gains as the judged documents (the others judged at gain 0)."""
    gains = np.zeros(len(col.codes))
    _novelty_gains(col.codes, col.starts, col.lengths, len(col.topics), rel.doc_of, rel.first_doc, rel.ptr,
                   rel.subs, rel.n_subtopics, float(alpha), gains)
    ideals = [greedy_ideal(rel, t, alpha) for t in range(len(col.topics))]
    ideal = np.concatenate(ideals + [np.zeros(0)])
    ideal_topic = np.repeat(np.arange(len(col.topics)), [len(x) for x in ideals])
    zero = rel.n_docs - np.array([len(x) for x in ideals], dtype=np.int64)  # judged documents of gain 0
    judged = gains >= 0.0
    grades, inverse = np.unique(np.concatenate([gains[judged], ideal, [0.0]]), return_inverse=True)
    codes = np.full(len(gains), len(grades), dtype=np.int32)
    codes[judged] = inverse[:judged.sum()]
    ideal_codes = inverse[judged.sum():judged.sum() + len(ideal)]
    zero_code = inverse[-1]
    topic = np.concatenate([ideal_topic, np.flatnonzero(zero > 0)])
    code = np.concatenate([ideal_codes, np.full(int((zero > 0).sum()), zero_code)])
    count = np.concatenate([np.ones(len(ideal_codes), dtype=np.int64), zero[zero > 0]])
    pairs, where = np.unique(topic.astype(np.int64) * (len(grades) + 1) + code, return_inverse=True)
    counts = np.bincount(where, weights=count).astype(np.int64) if len(pairs) else np.zeros(0, np.int64)
    return attrs.evolve(col, grades=grades, codes=codes, count_topic=pairs // (len(grades) + 1),
                        count_code=pairs % (len(grades) + 1), count=counts)


@jit(parallel=False)
def _ia_codes(codes, starts, lengths, n_topics, doc_of, first_doc, ptr, subs, owner, local, new_starts, out):
    """Pseudo-topic p (topic ``owner[p]``, its subtopic ``local[p]``) of run r: the topic's ranking with code 1
    (relevant to the subtopic), 0 (judged) or 2 (unjudged)."""
    n_pseudo = owner.shape[0]
    n_runs = starts.shape[0] // n_topics
    for r in range(n_runs):
        for p in range(n_pseudo):
            t = owner[p]
            c = r * n_topics + t
            at = new_starts[r * n_pseudo + p]
            for i in range(lengths[c]):
                d = doc_of[codes[starts[c] + i]]
                if d < 0:
                    out[at + i] = 2
                    continue
                g = first_doc[t] + d
                hit = 0
                for j in range(ptr[g], ptr[g + 1]):
                    if subs[j] == local[p]:
                        hit = 1
                        break
                out[at + i] = hit


def ia_collection(col: Collection, rel: Relevance) -> tuple[Collection, np.ndarray]:
    """One pseudo-topic per (topic, subtopic with a relevant document), with binary judgements (grades 0, 1):
    the Collection and each pseudo-topic's topic."""
    owner = np.repeat(np.arange(len(col.topics)), rel.n_subtopics).astype(np.int64)
    local = np.concatenate([np.arange(s) for s in rel.n_subtopics] + [np.zeros(0, np.int64)]).astype(np.int64)
    n_r, n_t, n_p = len(col.runs), len(col.topics), len(owner)
    lengths = col.lengths.reshape(n_r, n_t)[:, owner].reshape(-1).astype(np.int64)
    starts = cell_starts(lengths)
    codes = np.zeros(int(lengths.sum()), dtype=np.int32)
    _ia_codes(col.codes, col.starts, col.lengths, n_t, rel.doc_of, rel.first_doc, rel.ptr, rel.subs, owner, local,
              starts, codes)
    hits = np.zeros(n_p, dtype=np.int64)
    for p in range(n_p):  # the relevant documents of each pseudo-topic
        first, n = rel.first_doc[owner[p]], rel.n_docs[owner[p]]
        hits[p] = int((rel.subs[rel.ptr[first]:rel.ptr[first + n]] == local[p]).sum())
    non = rel.n_docs[owner] - hits
    topic = np.concatenate([np.arange(n_p)[non > 0], np.arange(n_p)[hits > 0]])
    code = np.concatenate([np.zeros(int((non > 0).sum()), np.int64), np.ones(int((hits > 0).sum()), np.int64)])
    count = np.concatenate([non[non > 0], hits[hits > 0]])
    order = np.lexsort((code, topic))
    names = tuple(f"{col.topics[t]}/{s}" for t, s in zip(owner, local))
    present = col.present[:, owner]
    derived = Collection(topics=names, runs=col.runs, grades=np.array([0.0, 1.0]), codes=codes, starts=starts,
                         lengths=lengths, count_topic=topic[order], count_code=code[order], count=count[order],
                         missing_topics=col.missing_topics, ignored_topics=col.ignored_topics, ties=col.ties,
                         present=present)
    return derived, owner


def ia_means(values: np.ndarray, owner: np.ndarray, n_topics: int) -> np.ndarray:
    """(..., n_pseudo) -> (..., n_topics): each topic's mean over its pseudo-topics (0 without one)."""
    out = np.zeros(values.shape[:-1] + (n_topics,))
    sizes = np.bincount(owner, minlength=n_topics)
    np.add.at(np.moveaxis(out, -1, 0), owner, np.moveaxis(values, -1, 0))
    return np.where(sizes > 0, out / np.maximum(sizes, 1), 0.0)
