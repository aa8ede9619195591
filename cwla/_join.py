"""Numba kernels of :func:`cwla.read_runs` and :func:`cwla.prepare`.

:func:`order_cells` puts each (run, topic) ranking in trec_eval's order, the one
place that order is defined: score descending, ties broken by docno descending,
docnos compared bytewise (trec_eval's ``strcmp``). :func:`join_run` looks each
ranked document up among its topic's judgements and writes its grade code.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ._docnos import compare
from ._numba import jit

__all__ = ["group_by_cell", "first_duplicate", "order_cells", "remap", "join_run"]


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
def first_duplicate(idx, starts, lengths, doc_ids, n_docs):
    """A row whose document appears earlier in the same cell, or -1 (one pass, a mark per document)."""
    mark = np.full(n_docs, -1, dtype=np.int64)
    for c in range(starts.shape[0]):
        for k in range(starts[c], starts[c] + lengths[c]):
            d = doc_ids[idx[k]]
            if mark[d] == c:
                return idx[k]
            mark[d] = c
    return -1


@jit()
def _before(a, b, scores, doc_ids, blob, offsets):
    """Row a ranks strictly before row b in trec_eval's order: higher score, or the same score and the
    bytewise greater docno (the documents of a cell are distinct, so the order is total)."""
    if scores[a] != scores[b]:
        return scores[a] > scores[b]
    da, db = doc_ids[a], doc_ids[b]
    return compare(blob, offsets[da], offsets[da + 1], blob, offsets[db], offsets[db + 1]) > 0


@jit()
def _sort_rows(rows, scores, doc_ids, blob, offsets):
    """``rows`` in trec_eval order (bottom-up merge sort, skipped when the rows are in order already,
    as most run files list them; a plain loop keeps numba's compile time small)."""
    n = rows.shape[0]
    in_order = True
    for k in range(1, n):
        if not _before(rows[k - 1], rows[k], scores, doc_ids, blob, offsets):
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
                if j < hi and (i >= mid or _before(src[j], src[i], scores, doc_ids, blob, offsets)):
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
        src, dst = dst, src
        width *= 2
    return src


@jit(parallel=True)
def order_cells(idx, starts, lengths, scores, doc_ids, blob, offsets, out):
    """``out[starts[c]:starts[c] + lengths[c]]``: the rows of cell c (``idx``, grouped by cell) in
    trec_eval order; ``blob``/``offsets`` hold the docno of each ``doc_ids`` value."""
    for c in prange(starts.shape[0]):
        s, n = starts[c], lengths[c]
        if n > 0:
            out[s:s + n] = _sort_rows(idx[s:s + n], scores, doc_ids, blob, offsets)


@jit()
def remap(ids, mapping):
    """``ids[k] = mapping[ids[k]]`` in place."""
    for k in range(ids.shape[0]):
        ids[k] = mapping[ids[k]]


@jit()
def join_run(doc_ids, run_starts, lengths, q_starts, q_docs, q_codes, unjudged, mark, out, out_starts):
    """Grade codes of one run's rankings.

    The run's ranking of qrels topic t is ``doc_ids[run_starts[t]:run_starts[t] + lengths[t]]``;
    ``out[out_starts[t] + k]`` becomes the grade code of its k-th document: ``q_codes[i]`` where
    ``q_docs[i]`` is that document among the topic's judged documents ``q_starts[t]:q_starts[t + 1]``,
    else ``unjudged``. ``mark`` (one entry per docno id, every entry ``unjudged``) marks
    the topic's judged documents while its ranking is read, one memory access per document, and is
    left as it was found.
    """
    for t in range(lengths.shape[0]):
        if lengths[t] == 0:
            continue
        for i in range(q_starts[t], q_starts[t + 1]):
            mark[q_docs[i]] = q_codes[i]
        s, o = run_starts[t], out_starts[t]
        for k in range(lengths[t]):
            out[o + k] = mark[doc_ids[s + k]]
        for i in range(q_starts[t], q_starts[t + 1]):
            mark[q_docs[i]] = unjudged
