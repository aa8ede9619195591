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

import threading
import zlib
from concurrent.futures import ThreadPoolExecutor

import attrs
import numpy as np

from ._docnos import Strings, compare
from ._join import cell_starts
from .._numba import jit

__all__ = ["Docnos", "PairBuilder", "find_pairs"]


@attrs.frozen(eq=False)
class Docnos:
    """The docnos of a run's rows, in place: row k's is ``blob[starts[k]:ends[k]]``, its hash ``hashes[k]``
    (:func:`cwla.data._docnos.fnv_hash`)."""

    blob: np.ndarray  # uint8
    starts: np.ndarray  # int64
    ends: np.ndarray  # int64
    hashes: np.ndarray  # uint64

    def __getitem__(self, k: int) -> str:
        return bytes(self.blob[self.starts[k]:self.ends[k]]).decode("utf-8", "surrogateescape")


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
def _read_through(data, start, stop):
    """Read the bytes ``data[start:stop]`` in order, one a cache line, before the array they hold is read
    at random: the hardware prefetcher then brings it in at streaming speed instead of a cache miss
    each time (this halves the time to intern a run whose pairs are mostly known already). Returns a
    value the caller must keep, so that the reads are not compiled away. (Bytes: one compiled
    version for arrays of any type, passed as ``array.view(np.uint8)``.)"""
    acc = np.uint64(0)
    for j in range(start, stop, 64):
        acc ^= np.uint64(data[j])
    return acc


@jit()
def _insert_run(run, cell_topic, cell_starts, cell_lengths, rows, row_blob, row_starts, row_ends, row_hash, reg_start,
                reg_size, count, first_pair, first_count, slots, slots_used, p_hash, p_offsets, p_topic, p_last, n_pairs, blob, out, first_cell,
                first_row, sink):
    """Intern one run's rows into the pairs: cell c (of topic ``cell_topic[c]``) is the positions
    ``cell_starts[c]:cell_starts[c] + cell_lengths[c]``; position j holds the row ``rows[j]``, whose docno
    is ``row_blob[row_starts[k]:row_ends[k]]`` with hash ``row_hash[k]`` (k = ``rows[j]``).

    A slot holds ``(low 32 bits of the hash) << 32 | (pair id + 1)``, 0 when empty; a topic's first region
    holds its first cell at most a quarter full (a region that starts small and doubles through every size
    on its way leaves each smaller one unused behind it); a region doubles when half full. ``out[j]`` becomes the pair id of position j. Starts at cell ``first_cell``,
    position ``first_row`` (-1: the cell's first); returns ``(n_pairs, slots_used, status, cell,
    position)``: status -1 when done, -2 when ``slots`` is full (grow it and call again from ``cell``,
    ``position``), else a position whose pair the run already retrieved (the same docno twice for a
    topic). The pairs a topic's first cell added are ``first_pair[t]`` onwards, ``first_count[t]`` of
    them. The caller guarantees room in the pair arrays and ``blob``; ``sink`` (one entry) receives
    :func:`_read_through`'s values.
    """
    for c in range(first_cell, cell_topic.shape[0]):
        k = first_row if c == first_cell and first_row >= 0 else cell_starts[c]
        end = cell_starts[c] + cell_lengths[c]
        t = cell_topic[c]
        if reg_size[t] == 0:  # the topic's first region: room for its first cell at a quarter full
            size = np.int64(16)  # typed: no literal version
            while size < 4 * (end - k) and size < 2**20:
                size *= 2
            if slots_used + size > slots.shape[0]:
                return n_pairs, slots_used, -2, c, k
            reg_start[t], reg_size[t] = _new_region(slots, slots_used, size)
            slots_used += size
            first_pair[t] = n_pairs
        # the topic's table, and the pairs of its first cell (most of its pairs: later runs add fewer), read
        # in order before the probes when the cell probes enough of them (a short ranking against a large
        # table probes a few slots: reading it all would cost more than those misses)
        if 32 * (end - k) >= reg_size[t]:
            sink[0] ^= _read_through(slots.view(np.uint8), 8 * reg_start[t], 8 * (reg_start[t] + reg_size[t]))
        f, f_end = first_pair[t], first_pair[t] + first_count[t]
        if f_end > f and 8 * (end - k) >= f_end - f:
            sink[0] ^= _read_through(p_offsets.view(np.uint8), 8 * f, 8 * (f_end + 1))
            sink[0] ^= _read_through(p_last.view(np.uint8), 4 * f, 4 * f_end)
            sink[0] ^= _read_through(blob, p_offsets[f], p_offsets[f_end])
        while k < end:
            if 2 * (count[t] + 1) > reg_size[t]:
                if slots_used + 2 * reg_size[t] > slots.shape[0]:
                    return n_pairs, slots_used, -2, c, k
                reg_start[t], reg_size[t] = _grow(slots, slots_used, reg_start[t], reg_size[t])
                slots_used += reg_size[t]
            start, mask = reg_start[t], np.uint64(reg_size[t] - 1)
            row = rows[k]
            h = row_hash[row]
            tag = h & _LOW
            s, e = row_starts[row], row_ends[row]
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
        if first_count[t] == 0:
            first_count[t] = count[t]
    return n_pairs, slots_used, -1, cell_topic.shape[0], -1


@jit()
def _cell_bytes(rows, cell_starts, cell_lengths, row_starts, row_ends):
    """The docno bytes of each cell's rows."""
    out = np.zeros(cell_starts.shape[0], dtype=np.int64)
    for c in range(cell_starts.shape[0]):
        for k in range(cell_starts[c], cell_starts[c] + cell_lengths[c]):
            out[c] += row_ends[rows[k]] - row_starts[rows[k]]
    return out


@jit()
def _place(where, p_offsets, p_hash, out_offsets, out_hashes):
    """Pair i's length to ``out_offsets[where[i] + 1]``, its hash to ``out_hashes[where[i]]``."""
    for i in range(where.shape[0]):
        out_offsets[where[i] + 1] = p_offsets[i + 1] - p_offsets[i]
        out_hashes[where[i]] = p_hash[i]


@jit()
def _scatter(blob, offsets, where, out, out_offsets):
    """String i of ``blob``/``offsets`` copied to ``out[out_offsets[where[i]]:]``."""
    for i in range(where.shape[0]):
        o = out_offsets[where[i]]
        for b in range(offsets[i], offsets[i + 1]):
            out[o] = blob[b]
            o += 1


@jit()
def _remap_cells(ids, cell_base, cell_starts, cell_lengths, mapping):
    """``ids[k] = mapping[cell_base[c] + ids[k]]`` for the positions k of each cell c."""
    for c in range(cell_starts.shape[0]):
        base = cell_base[c]
        for k in range(cell_starts[c], cell_starts[c] + cell_lengths[c]):
            ids[k] = mapping[base + ids[k]]


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
def _before(key_a, a, key_b, b, blob, p_offsets):
    """Pair a (hash ``key_a``) sorts before pair b: a smaller hash, or the same hash and smaller bytes."""
    if key_a != key_b:
        return key_a < key_b
    return compare(blob, p_offsets[a], p_offsets[a + 1], blob, p_offsets[b], p_offsets[b + 1]) < 0


@jit()
def _sort_groups_by_hash(idx, starts, p_hash, blob, p_offsets):
    """Each group of ``idx`` (``starts``) ordered by hash, then (the same hash) bytewise, so the order does
    not depend on the order the pairs were found in.

    The hashes are uniform, so a counting sort by their top bits (a bucket per pair, about) puts each
    pair next to its place; an insertion sort finishes each bucket. (Plain loops: numba compiles them
    far faster than ``np.argsort``.)"""
    largest = 1
    for g in range(starts.shape[0] - 1):
        largest = max(largest, starts[g + 1] - starts[g])
    size = 1
    while size < largest:
        size *= 2
    keys, ids = np.empty(largest, dtype=np.uint64), np.empty(largest, dtype=idx.dtype)
    fill = np.empty(size + 1, dtype=np.int64)
    for g in range(starts.shape[0] - 1):
        lo, n = starts[g], starts[g + 1] - starts[g]
        if n < 2:
            continue
        bits = 1
        while (1 << bits) < n:
            bits += 1
        shift = np.uint64(64 - bits)
        fill[:(1 << bits) + 1] = 0
        for k in range(n):
            fill[(p_hash[idx[lo + k]] >> shift) + np.uint64(1)] += 1
        for b in range(1 << bits):
            fill[b + 1] += fill[b]
        for k in range(n):
            u = idx[lo + k]
            b = p_hash[u] >> shift
            keys[fill[b]], ids[fill[b]] = p_hash[u], u
            fill[b] += 1
        for k in range(1, n):  # insertion sort: each pair is at most a bucket from its place
            key, u = keys[k], ids[k]
            j = k - 1
            while j >= 0 and _before(key, u, keys[j], ids[j], blob, p_offsets):
                keys[j + 1], ids[j + 1] = keys[j], ids[j]
                j -= 1
            keys[j + 1], ids[j + 1] = key, u
        for k in range(n):
            idx[lo + k] = ids[k]


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


class _Shard:
    """The pair tables of some topics (a :class:`PairBuilder` shard): one thread at a time."""

    #: the per-topic arrays (int64, indexed by the shard's topic id): its table region's start and size,
    #: its number of pairs, and the first pair and number of pairs its first cell added
    TOPIC_ARRAYS = ("reg_start", "reg_size", "count", "first_pair", "first_count")

    def __init__(self):
        self.topics: dict = {}  # label -> the shard's topic id, first seen first
        for name in self.TOPIC_ARRAYS:
            setattr(self, name, np.zeros(16, dtype=np.int64))
        self.slots = np.zeros(1024, dtype=np.uint64)
        self.slots_used = 0
        self.n_pairs = 0
        self.p_hash = np.empty(256, dtype=np.uint64)
        self.p_offsets = np.zeros(257, dtype=np.int64)
        self.p_topic = np.empty(256, dtype=np.int32)
        self.p_last = np.empty(256, dtype=np.int32)
        self.blob = np.empty(4096, dtype=np.uint8)
        self._sink = np.zeros(1, dtype=np.uint64)

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

    def add(self, run: int, labels: list, starts: np.ndarray, lengths: np.ndarray, rows: np.ndarray,
            docnos: Docnos, n_bytes: int, ids: np.ndarray) -> int:
        """Intern the cells of topics ``labels`` (positions ``starts[c]:starts[c] + lengths[c]``, of
        ``n_bytes`` docno bytes in all) into ``ids``; returns a duplicated position or -1."""
        for label in labels:
            self.topics.setdefault(label, len(self.topics))
        for name in self.TOPIC_ARRAYS:
            setattr(self, name, _grown(getattr(self, name), len(self.topics), fill=0))
        self._room(int(lengths.sum()), n_bytes)
        cell_topic = np.array([self.topics[label] for label in labels], dtype=np.int64)
        cell, row = 0, -1
        while True:
            self.n_pairs, self.slots_used, status, cell, row = _insert_run(
                run, cell_topic, starts, lengths, rows, docnos.blob, docnos.starts, docnos.ends, docnos.hashes,
                self.reg_start, self.reg_size, self.count, self.first_pair, self.first_count, self.slots,
                self.slots_used, self.p_hash, self.p_offsets, self.p_topic, self.p_last, self.n_pairs, self.blob, ids,
                cell, row, self._sink)
            if status != -2:
                return int(status)
            self.slots = _grown(self.slots, 2 * len(self.slots))  # the tables need room: double it, go on

    def freeze(self, labels: list) -> tuple:
        """``(pair_starts, new_id)``: the shard's pairs ordered by topic (in ``labels`` order: its labels,
        sorted), then hash and bytes; ``new_id[i]`` is the position of the pair numbered i."""
        n = self.n_pairs
        self.slots = None  # the tables are not needed any more
        rank = np.empty(len(self.topics), dtype=np.int64)
        position = {label: i for i, label in enumerate(labels)}
        for label, t in self.topics.items():
            rank[t] = position[label]
        order, pair_starts = _group(rank[self.p_topic[:n]], len(labels))
        _sort_groups_by_hash(order, pair_starts, self.p_hash[:n], self.blob, self.p_offsets)
        new_id = np.empty(n, dtype=np.int64)
        new_id[order] = np.arange(n)
        return pair_starts, new_id


#: topics are spread over this many shards, so that several threads can intern their runs at once
N_SHARDS = 8


class PairBuilder:
    """The pairs of runs added (:meth:`add`, from several threads at once), then frozen (:meth:`freeze`).

    Each topic belongs to one of :data:`N_SHARDS` shards (by a hash of its label), each with its own
    tables and lock: a thread interns its run shard by shard, taking first the shards no other thread
    holds. Pair ids are numbered per shard while runs are added; :meth:`freeze` orders every pair by
    topic, hash and bytes (so the result does not depend on which thread came first) and renumbers.
    """

    def __init__(self):
        self.shards = [_Shard() for _ in range(N_SHARDS)]
        self.locks = [threading.Lock() for _ in range(N_SHARDS)]
        self._shards_of: dict = {}  # label -> its shard

    def _shard_of(self, label: str) -> int:
        shard = self._shards_of.get(label)
        if shard is None:
            shard = self._shards_of[label] = zlib.crc32(label.encode("utf-8", "surrogateescape")) % N_SHARDS
        return shard

    def add(self, run: int, labels: list, lengths: np.ndarray, rows: np.ndarray, docnos: Docnos,
            reserve: int = 1) -> tuple:
        """Pair ids of one run's ranked documents: cells of topics ``labels`` with ``lengths`` positions
        each, back to back; position j holds row ``rows[j]`` of ``docnos``. A shard that is still empty
        makes room for ``reserve`` runs like this one. Returns ``(ids, duplicate position or -1)``."""
        lengths = np.asarray(lengths, dtype=np.int64)
        starts = cell_starts(lengths)
        cell_bytes = _cell_bytes(rows, starts, lengths, docnos.starts, docnos.ends)
        shard = np.array([self._shard_of(label) for label in labels], dtype=np.int64)
        ids = np.empty(len(rows), dtype=np.int32)
        todo = [s for s in np.roll(np.arange(N_SHARDS), -run).tolist() if (shard == s).any()]
        while todo:
            s = next((s for s in todo if self.locks[s].acquire(blocking=False)), None)
            if s is None:  # every shard left is busy: wait for the first
                s = todo[0]
                self.locks[s].acquire()
            todo.remove(s)
            try:
                cells = np.flatnonzero(shard == s)
                n_bytes = int(cell_bytes[cells].sum())
                if self.shards[s].n_pairs == 0:
                    self.shards[s].reserve(int(lengths[cells].sum()) * reserve, n_bytes * reserve)
                duplicate = self.shards[s].add(run, [labels[c] for c in cells], starts[cells], lengths[cells], rows,
                                               docnos, n_bytes, ids)
            finally:
                self.locks[s].release()
            if duplicate >= 0:
                return ids, duplicate
        return ids, -1

    def freeze(self, labels: list, runs: list, workers: int = 1) -> tuple:
        """``(pair_starts, Strings)``: every pair, ordered by topic (in ``labels`` order: every label added,
        sorted), then hash and bytes (the shards by ``workers`` threads). ``runs`` holds each run's
        ``(labels, lengths, ids)`` as added; the ids are renumbered in place."""
        position = {label: i for i, label in enumerate(labels)}
        counts = np.zeros(len(labels), dtype=np.int64)
        owns = [sorted(shard.topics, key=position.__getitem__) for shard in self.shards]
        with ThreadPoolExecutor(max_workers=workers) as pool:  # the shards are independent
            frozen = list(pool.map(lambda shard, own: shard.freeze(own), self.shards, owns))
        frozen = [(np.array([position[label] for label in own], dtype=np.int64), starts, new_id)
                  for own, (starts, new_id) in zip(owns, frozen)]
        for where, starts, _ in frozen:
            counts[where] = np.diff(starts)
        pair_starts = np.zeros(len(labels) + 1, dtype=np.int64)
        np.cumsum(counts, out=pair_starts[1:])
        # a shard's pair numbered i, at position p = new_id[i] of its frozen order (topic j), goes to the global
        # position pair_starts[where[j]] + p - starts[j]
        finals = [(np.arange(len(new_id)) + np.repeat(pair_starts[where] - starts[:-1], np.diff(starts)))[new_id]
                  for where, starts, new_id in frozen]
        bases = np.cumsum([0] + [len(final) for final in finals])
        mapping = np.concatenate(finals).astype(np.int32)

        def remap(run: tuple) -> None:
            run_labels, lengths, ids = run
            lengths = np.asarray(lengths, dtype=np.int64)
            cell_base = np.array([bases[self._shard_of(label)] for label in run_labels], dtype=np.int64)
            _remap_cells(ids, cell_base, cell_starts(lengths), lengths, mapping)

        offsets = np.zeros(int(bases[-1]) + 1, dtype=np.int64)
        hashes = np.empty(int(bases[-1]), dtype=np.uint64)
        with ThreadPoolExecutor(max_workers=workers) as pool:  # runs and shards: independent, in parallel
            list(pool.map(remap, runs))
            del mapping
            list(pool.map(lambda final, shard: _place(final, shard.p_offsets, shard.p_hash, offsets, hashes), finals,
                          self.shards))
            np.cumsum(offsets, out=offsets)
            blob = np.empty(int(offsets[-1]), dtype=np.uint8)
            list(pool.map(lambda final, shard: _scatter(shard.blob, shard.p_offsets, final, blob, offsets), finals,
                          self.shards))
        self.shards = None
        return pair_starts, Strings(blob, offsets, hashes)
