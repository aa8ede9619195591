"""Numba kernels of :func:`cwla.prepare`: order each (run, topic) cell and join it with the qrels.

Docnos travel as fixed-width big-endian integer keys (see :mod:`cwla._tokenize`),
so comparing keys chunk by chunk is comparing docnos bytewise, like trec_eval's
``strcmp``. Per cell the documents are sorted by docno; that order finds
duplicated docnos and merges with the topic's judged documents (sorted the same
way) to get grade codes. A second sort gives trec_eval's ranking: score
descending, ties by docno descending.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ._numba import jit

__all__ = ["group_by_cell", "organise_cells", "sort_rows", "trec_order"]


def trec_order(cells: np.ndarray, scores: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """The permutation that sorts rows by cell, then trec_eval's order within each cell: score
    (float32) descending, then docno descending (``keys`` from :func:`cwla._tokenize.field_keys`;
    ``~key`` reverses uint64 order). A vectorised twin of the per-cell sort in :func:`organise_cells`
    for callers that need the order of many rows at once."""
    scores = np.asarray(scores, dtype=np.float32)
    return np.lexsort(tuple(~keys[:, j] for j in range(keys.shape[1] - 1, -1, -1)) + (-scores, cells))


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
def _compare(keys_a, a, keys_b, b):
    """-1, 0 or 1 as row a of keys_a is below, equal to or above row b of keys_b."""
    for j in range(keys_a.shape[1]):
        if keys_a[a, j] < keys_b[b, j]:
            return -1
        if keys_a[a, j] > keys_b[b, j]:
            return 1
    return 0


@jit()
def _before(a, b, by_score, scores, keys):
    """True when row a sorts strictly before row b: by key ascending, or (``by_score``)
    by score descending, then key descending (trec_eval's order)."""
    if by_score:
        if scores[a] != scores[b]:
            return scores[a] > scores[b]
        return _compare(keys, a, keys, b) > 0
    return _compare(keys, a, keys, b) < 0


@jit()
def sort_rows(rows, by_score, scores, keys):
    """``rows`` sorted stably (bottom-up merge sort; a plain loop keeps numba's compile time small)."""
    n = rows.shape[0]
    src = rows.copy()
    dst = np.empty_like(src)
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid, hi = min(lo + width, n), min(lo + 2 * width, n)
            i, j = lo, mid
            for k in range(lo, hi):
                if j < hi and (i >= mid or _before(src[j], src[i], by_score, scores, keys)):
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
        src, dst = dst, src
        width *= 2
    return src


@jit(parallel=True)
def organise_cells(idx, starts, lengths, n_topics, scores, keys, q_keys, q_starts, q_lengths, q_codes,
                   unjudged, trec_order, row_codes, out_codes, out_dup):
    """Rank every cell and look up its grade codes.

    ``out_codes[starts[c] + k]`` is the grade code of the k-th ranked document of
    cell c (``unjudged`` if not in the qrels); ``out_dup[c]`` is a row index of a
    docno that appears twice in cell c, or -1. ``row_codes`` is scratch space, one
    entry per row (each row belongs to one cell, so threads never share an entry).
    """
    for c in prange(starts.shape[0]):
        s, n = starts[c], lengths[c]
        out_dup[c] = -1
        if n == 0:
            continue
        rows = idx[s:s + n]
        asc = sort_rows(rows, False, scores, keys)
        for k in range(1, n):
            if _compare(keys, asc[k - 1], keys, asc[k]) == 0:
                out_dup[c] = asc[k]
                break
        # merge with the topic's judged documents, both in ascending key order
        t = c % n_topics
        qs, qn = q_starts[t], q_lengths[t]
        i = 0
        for k in range(n):
            while i < qn and _compare(q_keys, qs + i, keys, asc[k]) < 0:
                i += 1
            code = unjudged
            if i < qn and _compare(q_keys, qs + i, keys, asc[k]) == 0:
                code = q_codes[qs + i]
            row_codes[asc[k]] = code
        ranked = sort_rows(rows, True, scores, keys) if trec_order else rows
        for k in range(n):
            out_codes[s + k] = row_codes[ranked[k]]
