"""Numba kernels of :func:`cwla.read_runs` and :func:`cwla.prepare`.

:func:`order_cells` puts each (run, topic) ranking in trec_eval's order, the one
place that order is defined: score descending, ties broken by docno descending,
docnos compared bytewise (trec_eval's ``strcmp``). :func:`join_run` writes the
grade code of each ranked (topic, docno) pair.
"""

from __future__ import annotations

import numpy as np

from ._docnos import compare
from .._numba import jit

__all__ = ["cell_starts", "group_by_cell", "order_cells", "join_run"]


def cell_starts(lengths) -> np.ndarray:
    """Where each cell starts when cells of ``lengths`` lie back to back (int64, same length)."""
    lengths = np.asarray(lengths, dtype=np.int64).reshape(-1)
    starts = np.zeros(len(lengths), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    return starts


@jit()
def group_by_cell(ids, cell_of, n_cells, idx):
    """Row indices grouped by cell, stably, into ``idx``: row k belongs to cell ``cell_of[ids[k]]``.
    Returns each cell's start and length."""
    lengths = np.zeros(n_cells, dtype=np.int64)
    for i in ids:
        lengths[cell_of[i]] += 1
    starts = np.zeros(n_cells, dtype=np.int64)
    for c in range(1, n_cells):
        starts[c] = starts[c - 1] + lengths[c - 1]
    fill = starts.copy()
    for k in range(ids.shape[0]):
        c = cell_of[ids[k]]
        idx[fill[c]] = k
        fill[c] += 1
    return starts, lengths


@jit()
def _before(a, b, scores, doc_ids, offsets, blob):
    """Row a ranks strictly before row b in trec_eval's order: higher score, or the same score and the
    bytewise greater docno (row k's docno is string ``doc_ids[k]`` of ``blob``/``offsets``, looked up
    only for a tie)."""
    if scores[a] != scores[b]:
        return scores[a] > scores[b]
    i, j = doc_ids[a], doc_ids[b]
    return compare(blob, offsets[i], offsets[i + 1], blob, offsets[j], offsets[j + 1]) > 0


@jit()
def _sort_rows(rows, scores, doc_ids, offsets, blob):
    """``rows`` put in trec_eval order in place, stably. Run files mostly list a ranking in that order
    already, or nearly (a tie listed in the other docno order): an insertion sort finishes those in
    about one pass; when it has moved more than a few rows per row it stops, and a bottom-up merge
    sort of the original order does the rest. (Plain loops keep numba's compile time small.)"""
    n = rows.shape[0]
    src = rows.copy()
    moves = 0
    for k in range(1, n):
        row = rows[k]
        j = k - 1
        while j >= 0 and _before(row, rows[j], scores, doc_ids, offsets, blob):
            rows[j + 1] = rows[j]
            j -= 1
            moves += 1
        rows[j + 1] = row
        if moves > 4 * n:
            break
    if moves <= 4 * n:
        return
    dst = np.empty_like(src)
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid, hi = min(lo + width, n), min(lo + 2 * width, n)
            i, j = lo, mid
            for k in range(lo, hi):
                if j < hi and (i >= mid or _before(src[j], src[i], scores, doc_ids, offsets, blob)):
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
        src, dst = dst, src
        width *= 2
    for k in range(n):
        rows[k] = src[k]


@jit()
def order_cells(idx, starts, lengths, scores, doc_ids, offsets, blob):
    """Each cell's rows ``idx[starts[c]:starts[c] + lengths[c]]`` put in trec_eval order, in place; row
    k's docno is the string ``doc_ids[k]`` of ``blob``/``offsets`` (:class:`cwla.data._docnos.Strings`).
    (Serial: runs are ranked in parallel threads, one run a thread.)"""
    for c in range(starts.shape[0]):
        s, n = starts[c], lengths[c]
        if n > 1:
            _sort_rows(idx[s:s + n], scores, doc_ids, offsets, blob)


@jit()
def join_run(doc_ids, run_starts, lengths, grade, out, out_starts):
    """Grade codes of one run's rankings: ``out[out_starts[t] + k] = grade[doc_ids[run_starts[t] + k]]``
    for k < ``lengths[t]`` (``grade``: the code of every (topic, docno) pair, unjudged included)."""
    for t in range(lengths.shape[0]):
        s, o = run_starts[t], out_starts[t]
        for k in range(lengths[t]):
            out[o + k] = grade[doc_ids[s + k]]
