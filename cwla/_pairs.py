"""The distinct (topic, docno) pairs of a set of runs, interned topic by topic.

Every retrieved document of a :class:`cwla.RunSet` is an id of a (topic, docno) pair,
the unit a qrels judges; the runs share these ids (the same document retrieved for
the same topic by two runs is one id). While runs are read, each topic keeps its own
small open-addressing hash table (so look-ups stay in cache whatever the size of the
collection), in regions of one ``slots`` array that move when they fill up.
:meth:`PairBuilder.freeze` orders the pairs by topic, then hash, and drops the tables:
a pair is then found by binary search among its topic's hashes and an exact byte
comparison (:func:`find_pairs`).
"""

from __future__ import annotations

import numpy as np

from ._docnos import Strings, compare
from ._numba import jit

__all__ = ["PairBuilder", "find_pairs"]


_LOW = np.uint64(0xFFFFFFFF)
_SHIFT = np.uint64(32)


@jit()
def _new_region(slots, used, size):
    for i in range(used, used + size):
        slots[i] = 0
    return used, size


@jit()
def _grow(slots, used, start, size):
    """The region ``start:start + size`` copied into a new one twice its size at ``used`` (its entries
    placed again by the low hash bits they carry: the old region is read in order, nothing else)."""
    new_start, new_size = _new_region(slots, used, 2 * size)
    mask = np.uint64(new_size - 1)
    for j in range(size):
        v = slots[start + j]
        if v != 0:
            i = (v >> _SHIFT) & mask
            while slots[new_start + i] != 0:
                i = (i + np.uint64(1)) & mask
            slots[new_start + i] = v
    return new_start, new_size


@jit()
def _insert_run(run, cell_topic, cell_lengths, row_blob, row_offsets, row_hash, reg_start, reg_size, count, slots,
                slots_used, p_hash, p_offsets, p_topic, p_last, n_pairs, blob, out, first_cell, first_row):
    """Intern one run's rows (cells of global topic ``cell_topic[c]``, rows back to back) into the pairs.

    A slot holds ``(low 32 bits of the hash) << 32 | (pair id + 1)``, 0 when empty; a topic's region
    doubles when half full. ``out[k]`` becomes the pair id of row k. Starts at cell ``first_cell``, row
    ``first_row``; returns ``(n_pairs, slots_used, status, cell, row)``: status -1 when done, -2 when
    ``slots`` is full (grow it and call again from ``cell``, ``row``), else a row whose pair the run
    already retrieved (the same docno twice for a topic). The caller guarantees room in the pair arrays
    and ``blob``.
    """
    end = 0
    for c in range(first_cell + 1):
        end += cell_lengths[c] if c < cell_topic.shape[0] else 0
    k = first_row
    for c in range(first_cell, cell_topic.shape[0]):
        if c > first_cell:
            end += cell_lengths[c]
        t = cell_topic[c]
        if reg_size[t] == 0:
            if slots_used + 16 > slots.shape[0]:
                return n_pairs, slots_used, -2, c, k
            reg_start[t], reg_size[t] = _new_region(slots, slots_used, 16)
            slots_used += 16
        while k < end:
            if 2 * (count[t] + 1) > reg_size[t]:
                if slots_used + 2 * reg_size[t] > slots.shape[0]:
                    return n_pairs, slots_used, -2, c, k
                reg_start[t], reg_size[t] = _grow(slots, slots_used, reg_start[t], reg_size[t])
                slots_used += reg_size[t]
            start, mask = reg_start[t], np.uint64(reg_size[t] - 1)
            h = row_hash[k]
            tag = h & _LOW
            s, e = row_offsets[k], row_offsets[k + 1]
            i = tag & mask
            while True:
                v = slots[start + i]
                if v == 0:  # a new pair
                    u = n_pairs
                    slots[start + i] = (tag << _SHIFT) | np.uint64(u + 1)
                    p_hash[u] = h
                    p_topic[u] = t
                    p_offsets[u + 1] = p_offsets[u] + (e - s)
                    for b in range(e - s):
                        blob[p_offsets[u] + b] = row_blob[s + b]
                    p_last[u] = run
                    count[t] += 1
                    n_pairs += 1
                    break
                if (v >> _SHIFT) == tag:
                    u = np.int64(v & _LOW) - 1
                    if compare(blob, p_offsets[u], p_offsets[u + 1], row_blob, s, e) == 0:
                        if p_last[u] == run:
                            return n_pairs, slots_used, k, c, k
                        p_last[u] = run
                        break
                i = (i + np.uint64(1)) & mask
            out[k] = u
            k += 1
    return n_pairs, slots_used, -1, cell_topic.shape[0], k


@jit()
def _group(keys, n_groups):
    """Indices ``0..len(keys)-1`` grouped by key (stable), and each group's start (``n_groups + 1``)."""
    starts = np.zeros(n_groups + 1, dtype=np.int64)
    for g in keys:
        starts[g + 1] += 1
    for g in range(n_groups):
        starts[g + 1] += starts[g]
    fill = starts[:-1].copy()
    idx = np.empty(keys.shape[0], dtype=np.int64)
    for k in range(keys.shape[0]):
        idx[fill[keys[k]]] = k
        fill[keys[k]] += 1
    return idx, starts


@jit()
def _sort_groups_by_hash(idx, starts, p_hash):
    """Each group of ``idx`` (``starts``) ordered by hash, stably (a bottom-up merge sort: a plain loop,
    which numba compiles far faster than ``np.argsort``)."""
    scratch = np.empty(idx.shape[0], dtype=idx.dtype)
    for g in range(starts.shape[0] - 1):
        lo0, n = starts[g], starts[g + 1] - starts[g]
        src, dst = idx[lo0:lo0 + n], scratch[lo0:lo0 + n]
        width, flips = 1, 0
        while width < n:
            for lo in range(0, n, 2 * width):
                mid, hi = min(lo + width, n), min(lo + 2 * width, n)
                i, j = lo, mid
                for k in range(lo, hi):
                    if j < hi and (i >= mid or p_hash[src[j]] < p_hash[src[i]]):
                        dst[k] = src[j]
                        j += 1
                    else:
                        dst[k] = src[i]
                        i += 1
            src, dst = dst, src
            width *= 2
            flips += 1
        if flips % 2 == 1:  # the sorted group is in scratch
            for k in range(n):
                idx[lo0 + k] = scratch[lo0 + k]


@jit()
def remap_ids(ids, mapping):
    """``ids[k] = mapping[ids[k]]`` in place."""
    for k in range(ids.shape[0]):
        ids[k] = mapping[ids[k]]


@jit()
def find_pairs(pair_starts, p_hash, p_offsets, blob, q_topic, q_blob, q_offsets, q_hash, out):
    """``out[i]``: the id of the pair (topic ``q_topic[i]``, string i of the query), -1 if absent (or if
    ``q_topic[i]`` is -1). The pairs of topic t are ``pair_starts[t]:pair_starts[t + 1]``, by hash."""
    for i in range(out.shape[0]):
        out[i] = -1
        t = q_topic[i]
        if t < 0:
            continue
        h = q_hash[i]
        lo, hi = pair_starts[t], pair_starts[t + 1]
        end = hi
        while lo < hi:
            mid = (lo + hi) >> 1
            if p_hash[mid] < h:
                lo = mid + 1
            else:
                hi = mid
        while lo < end and p_hash[lo] == h:
            if compare(blob, p_offsets[lo], p_offsets[lo + 1], q_blob, q_offsets[i], q_offsets[i + 1]) == 0:
                out[i] = lo
                break
            lo += 1


def _grown(array: np.ndarray, need: int, fill=None) -> np.ndarray:
    """``array`` with room for ``need`` entries (capacity doubled as needed; the new ones ``fill``, if given)."""
    if need <= len(array):
        return array
    size = max(need, 2 * len(array))
    out = np.empty(size, dtype=array.dtype) if fill is None else np.full(size, fill, dtype=array.dtype)
    out[:len(array)] = array
    return out


class PairBuilder:
    """The pairs of runs added one after another (:meth:`add`), then frozen (:meth:`freeze`)."""

    def __init__(self):
        self.topics: dict = {}  # label -> global topic id, first seen first
        self.reg_start = np.zeros(16, dtype=np.int64)
        self.reg_size = np.zeros(16, dtype=np.int64)
        self.count = np.zeros(16, dtype=np.int64)
        self.slots = np.zeros(1024, dtype=np.uint64)
        self.slots_used = 0
        self.n_pairs = 0
        self.p_hash = np.empty(256, dtype=np.uint64)
        self.p_offsets = np.zeros(257, dtype=np.int64)
        self.p_topic = np.empty(256, dtype=np.int32)
        self.p_last = np.empty(256, dtype=np.int32)
        self.blob = np.empty(4096, dtype=np.uint8)

    def reserve(self, rows: int, n_bytes: int) -> None:
        """Room for ``rows`` more pairs of ``n_bytes`` docno bytes (and their tables) at once: growing the
        arrays run after run copies them; untouched room costs no memory (the pages are never written)."""
        self._room(rows, n_bytes)
        self.slots = _grown(self.slots, self.slots_used + 4 * (self.n_pairs + rows))

    def _room(self, rows: int, n_bytes: int) -> None:
        """Room in the pair arrays and the docno bytes for ``rows`` more pairs of ``n_bytes`` bytes."""
        n = self.n_pairs + rows
        for name in ("p_hash", "p_topic", "p_last"):
            setattr(self, name, _grown(getattr(self, name), n))
        self.p_offsets = _grown(self.p_offsets, n + 1)
        self.blob = _grown(self.blob, int(self.p_offsets[self.n_pairs]) + n_bytes)

    def add(self, run: int, labels: list, lengths: np.ndarray, strings: Strings) -> tuple:
        """Pair ids of one run's rows (``strings``: the rows' docnos; cells of topics ``labels`` with
        ``lengths`` rows each, back to back). Returns ``(ids, duplicate row or -1)``."""
        for label in labels:
            self.topics.setdefault(label, len(self.topics))
        n_t = len(self.topics)
        for name in ("reg_start", "reg_size", "count"):
            setattr(self, name, _grown(getattr(self, name), n_t, fill=0))
        rows = len(strings)
        self._room(rows, len(strings.blob))
        cell_topic = np.array([self.topics[label] for label in labels], dtype=np.int64)
        ids = np.empty(rows, dtype=np.int32)
        lengths = np.asarray(lengths, dtype=np.int64)
        cell, row = 0, 0
        while True:
            self.n_pairs, self.slots_used, status, cell, row = _insert_run(
                run, cell_topic, lengths, strings.blob, strings.offsets, strings.hashes, self.reg_start,
                self.reg_size, self.count, self.slots, self.slots_used, self.p_hash, self.p_offsets, self.p_topic,
                self.p_last, self.n_pairs, self.blob, ids, cell, row)
            if status != -2:
                return ids, int(status)
            self.slots = _grown(self.slots, 2 * len(self.slots))  # the tables need room: double it, go on

    def freeze(self, labels: list, doc_ids) -> tuple:
        """``(pair_starts, Strings)`` with the pairs ordered by topic (in ``labels`` order: every label
        added, sorted), then hash; each array of ``doc_ids`` is renumbered in place."""
        n = self.n_pairs
        self.slots = None  # the tables are not needed any more
        rank = np.empty(len(self.topics), dtype=np.int64)
        position = {label: i for i, label in enumerate(labels)}
        for label, t in self.topics.items():
            rank[t] = position[label]
        order, pair_starts = _group(rank[self.p_topic[:n]], len(labels))
        _sort_groups_by_hash(order, pair_starts, self.p_hash[:n])
        new_id = np.empty(n, dtype=np.int32)
        new_id[order] = np.arange(n, dtype=np.int32)
        for ids in doc_ids:
            remap_ids(ids, new_id)
        strings = Strings.gather(self.blob, self.p_offsets[:n], self.p_offsets[1:n + 1], order,
                                 self.p_hash[:n][order])
        self.blob = self.p_hash = self.p_offsets = None
        return pair_starts, strings
