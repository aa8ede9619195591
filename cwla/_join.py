"""Numba kernels of :func:`cwla.prepare`: order each (run, topic) cell and join it with the qrels.

Docnos travel as fixed-width big-endian integer keys (see :mod:`cwla._tokenize`),
so comparing keys chunk by chunk is comparing docnos bytewise, like trec_eval's
``strcmp``. Per cell the documents are sorted by docno once; that order finds
duplicated docnos, merges with the topic's judged documents (sorted the same
way) to get grade codes, and, reversed and stably re-sorted by score, gives
trec_eval's ranking: score descending, ties by docno descending.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ._numba import jit

__all__ = ["group_by_cell", "organise_cells", "sort_keys"]


@jit()
def group_by_cell(cells, n_cells):
    """Row indices grouped by cell (stable), with each cell's start and length."""
    lengths = np.zeros(n_cells, dtype=np.int64)
    for c in cells:
        lengths[c] += 1
    starts = np.zeros(n_cells, dtype=np.int64)
    for c in range(1, n_cells):
        starts[c] = starts[c - 1] + lengths[c - 1]
    fill = starts.copy()
    idx = np.empty(cells.shape[0], dtype=np.int64)
    for k in range(cells.shape[0]):
        idx[fill[cells[k]]] = k
        fill[cells[k]] += 1
    return idx, starts, lengths


@jit()
def sort_keys(rows, keys):
    """``rows`` ordered by their keys ascending (lexicographic over chunks; stable)."""
    order = rows.copy()
    for j in range(keys.shape[1] - 1, -1, -1):
        order = order[np.argsort(keys[order, j], kind="mergesort")]
    return order


@jit()
def _compare(keys_a, a, keys_b, b):
    """-1, 0 or 1 as row a of keys_a is below, equal to or above row b of keys_b."""
    for j in range(keys_a.shape[1]):
        if keys_a[a, j] < keys_b[b, j]:
            return -1
        if keys_a[a, j] > keys_b[b, j]:
            return 1
    return 0


@jit(parallel=True)
def organise_cells(idx, starts, lengths, n_topics, scores, keys, q_keys, q_starts, q_lengths, q_codes,
                   unjudged, trec_order, out_codes, out_dup):
    """Rank every cell and look up its grade codes.

    ``out_codes[starts[c] + k]`` is the grade code of the k-th ranked document of
    cell c (``unjudged`` if not in the qrels); ``out_dup[c]`` is a row index of a
    docno that appears twice in cell c, or -1.
    """
    for c in prange(starts.shape[0]):
        s, n = starts[c], lengths[c]
        out_dup[c] = -1
        if n == 0:
            continue
        rows = idx[s:s + n]
        asc = sort_keys(rows, keys)
        for k in range(1, n):
            if _compare(keys, asc[k - 1], keys, asc[k]) == 0:
                out_dup[c] = asc[k]
                break
        # merge with the topic's judged documents, both in ascending key order
        t = c % n_topics
        grade = np.full(n, unjudged, dtype=np.int32)
        qs, qn = q_starts[t], q_lengths[t]
        i = 0
        for k in range(n):
            while i < qn and _compare(q_keys, qs + i, keys, asc[k]) < 0:
                i += 1
            if i < qn and _compare(q_keys, qs + i, keys, asc[k]) == 0:
                grade[k] = q_codes[qs + i]
        if trec_order:
            desc = asc[::-1].copy()
            neg = np.empty(n, dtype=np.float64)
            for k in range(n):
                neg[k] = -np.float64(scores[desc[k]])
            by_score = np.argsort(neg, kind="mergesort")
            for k in range(n):
                out_codes[s + k] = grade[n - 1 - by_score[k]]
        else:
            # file order: rows are increasing row ids, so the k-th row in file order
            # is the k-th smallest id of asc
            rank_of = np.argsort(asc)
            for k in range(n):
                out_codes[s + k] = grade[rank_of[k]]
