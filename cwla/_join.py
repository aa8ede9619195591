"""Numba kernels of :func:`cwla.read_runs` and :func:`cwla.prepare`.

:func:`order_cells` puts each (run, topic) ranking in trec_eval's order, the one
place that order is defined: score descending, ties broken by docno descending,
docnos compared bytewise (trec_eval's ``strcmp``). :func:`join_run` writes the
grade code of each ranked (topic, docno) pair.
"""

from __future__ import annotations

import numpy as np

from ._docnos import compare
from ._numba import jit

__all__ = ["group_by_cell", "order_cells", "join_run"]


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
def _before(a, b, scores, starts, ends, blob):
    """Row a ranks strictly before row b in trec_eval's order: higher score, or the same score and the
    bytewise greater docno (row k's docno is ``blob[starts[k]:ends[k]]``)."""
    if scores[a] != scores[b]:
        return scores[a] > scores[b]
    return compare(blob, starts[a], ends[a], blob, starts[b], ends[b]) > 0


@jit()
def _sort_rows(rows, scores, starts, ends, blob):
    """``rows`` in trec_eval order (bottom-up merge sort, skipped when the rows are in order already,
    as most run files list them; a plain loop keeps numba's compile time small)."""
    n = rows.shape[0]
    in_order = True
    for k in range(1, n):
        if not _before(rows[k - 1], rows[k], scores, starts, ends, blob):
            in_order = False
            break
    if in_order:
        return rows
    src = rows.copy()
    dst = np.empty_like(src)
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid, hi = min(lo + width, n), min(lo + 2 * width, n)
            i, j = lo, mid
            for k in range(lo, hi):
                if j < hi and (i >= mid or _before(src[j], src[i], scores, starts, ends, blob)):
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
        src, dst = dst, src
        width *= 2
    return src


@jit()
def order_cells(idx, starts, lengths, scores, doc_starts, doc_ends, blob, out):
    """``out[starts[c]:starts[c] + lengths[c]]``: the rows of cell c (``idx``, grouped by cell) in
    trec_eval order; row k's docno is ``blob[doc_starts[k]:doc_ends[k]]``. (Serial: runs are read in
    parallel threads, one run a thread.)"""
    for c in range(starts.shape[0]):
        s, n = starts[c], lengths[c]
        if n > 0:
            ranked = _sort_rows(idx[s:s + n], scores, doc_starts, doc_ends, blob)
            for k in range(n):
                out[s + k] = ranked[k]


@jit()
def join_run(doc_ids, run_starts, lengths, grade, out, out_starts):
    """Grade codes of one run's rankings: ``out[out_starts[t] + k] = grade[doc_ids[run_starts[t] + k]]``
    for k < ``lengths[t]`` (``grade``: the code of every (topic, docno) pair, unjudged included)."""
    for t in range(lengths.shape[0]):
        s, o = run_starts[t], out_starts[t]
        for k in range(lengths[t]):
            out[o + k] = grade[doc_ids[s + k]]
