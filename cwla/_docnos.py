"""Docnos (and topics) as integer ids: byte strings interned in a hash table.

A :class:`Strings` value holds distinct byte strings back to back (``blob``, with
``offsets``: string i is ``blob[offsets[i]:offsets[i + 1]]``) and their 64-bit
FNV-1a hashes, so storage costs the bytes of the strings plus 16 bytes each,
never (count x longest string). :class:`Interner` gives every distinct string
an id in first-seen order and grows as runs are read; its frozen form,
:class:`Vocabulary`, looks strings up (qrels docnos) in O(1) each.

Ids carry no order: wherever trec_eval compares docnos (its ``strcmp`` tie
break) the bytes are compared (:func:`compare`).
"""

from __future__ import annotations

import attrs
import numpy as np

from ._numba import jit

__all__ = ["Strings", "Interner", "Vocabulary", "strings_of", "intern_spans", "compare"]

_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)
_EMPTY = np.int32(-1)


@jit()
def _hash(buf, s, e):
    """64-bit FNV-1a of ``buf[s:e]``."""
    h = _FNV_OFFSET
    for i in range(s, e):
        h = (h ^ np.uint64(buf[i])) * _FNV_PRIME
    return h


@jit()
def compare(buf_a, sa, ea, buf_b, sb, eb):
    """-1, 0 or 1 as ``buf_a[sa:ea]`` sorts before, equal to or after ``buf_b[sb:eb]`` bytewise
    (a proper prefix first, as ``strcmp`` of strings without NUL bytes)."""
    n = min(ea - sa, eb - sb)
    for i in range(n):
        if buf_a[sa + i] != buf_b[sb + i]:
            return -1 if buf_a[sa + i] < buf_b[sb + i] else 1
    if ea - sa == eb - sb:
        return 0
    return -1 if ea - sa < eb - sb else 1


def _table_size(n: int) -> int:
    """A power of two at least 2n (load factor at most 1/2)."""
    return 1 << max(4, int(2 * max(n, 1) - 1).bit_length())


@jit()
def intern_spans(buf, starts, ends):
    """Distinct strings among ``buf[starts[k]:ends[k]]``, in first-seen order.

    Returns ``(ids, first, hashes)``: ``ids[k]`` is the id of span k, ``first[i]`` the
    first span holding string i, ``hashes[i]`` its hash.
    """
    n = starts.shape[0]
    size = 16
    while size < 2 * n:
        size *= 2
    mask = np.uint64(size - 1)
    table = np.full(size, _EMPTY, dtype=np.int32)
    ids = np.empty(n, dtype=np.int32)
    first = np.empty(n, dtype=np.int64)
    hashes = np.empty(n, dtype=np.uint64)
    m = 0
    for k in range(n):
        s, e = starts[k], ends[k]
        h = _hash(buf, s, e)
        slot = h & mask
        while True:
            u = table[slot]
            if u < 0:
                table[slot] = m
                first[m] = k
                hashes[m] = h
                ids[k] = m
                m += 1
                break
            if hashes[u] == h and compare(buf, s, e, buf, starts[first[u]], ends[first[u]]) == 0:
                ids[k] = u
                break
            slot = (slot + np.uint64(1)) & mask
    return ids, first[:m], hashes[:m]


@jit()
def _gather(buf, starts, ends, offsets, out):
    for i in range(starts.shape[0]):
        out[offsets[i]:offsets[i + 1]] = buf[starts[i]:ends[i]]


@attrs.frozen(eq=False)
class Strings:
    """Distinct byte strings back to back, with their hashes (see the module docstring)."""

    blob: np.ndarray  # uint8
    offsets: np.ndarray  # int64, len + 1
    hashes: np.ndarray  # uint64

    def __len__(self) -> int:
        return len(self.hashes)

    def __getitem__(self, i: int) -> str:
        return bytes(self.blob[self.offsets[i]:self.offsets[i + 1]]).decode("utf-8", "surrogateescape")

    def tolist(self) -> list:
        return [self[i] for i in range(len(self))]

    @classmethod
    def from_spans(cls, buf, starts, ends, first) -> "Strings":
        """The strings ``buf[starts[i]:ends[i]]`` for i in ``first``, copied out of ``buf``."""
        s, e = starts[first], ends[first]
        offsets = np.zeros(len(first) + 1, dtype=np.int64)
        np.cumsum(e - s, out=offsets[1:])
        blob = np.empty(int(offsets[-1]), dtype=np.uint8)
        _gather(buf, s, e, offsets, blob)
        return cls(blob, offsets, _hashes(blob, offsets))


@jit()
def _hash_all(blob, offsets, out):
    for i in range(out.shape[0]):
        out[i] = _hash(blob, offsets[i], offsets[i + 1])


def _hashes(blob, offsets) -> np.ndarray:
    out = np.empty(len(offsets) - 1, dtype=np.uint64)
    _hash_all(blob, offsets, out)
    return out


def strings_of(values) -> tuple:
    """``(ids, Strings)`` of Python strings: the distinct strings (UTF-8) and each value's id."""
    codes, uniques = _factorize(values)
    encoded = [u.encode("utf-8", "surrogateescape") for u in uniques]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    blob = np.frombuffer(b"".join(encoded), dtype=np.uint8).copy()
    return codes.astype(np.int32), Strings(blob, offsets, _hashes(blob, offsets))


def _factorize(values):
    import pandas as pd

    codes, uniques = pd.factorize(np.asarray(values, dtype=object))
    return codes, [str(u) for u in uniques]


@jit()
def _find(table, blob, offsets, hashes, q_blob, qs, qe, h):
    mask = np.uint64(table.shape[0] - 1)
    slot = h & mask
    while True:
        u = table[slot]
        if u < 0:
            return -1
        if hashes[u] == h and compare(blob, offsets[u], offsets[u + 1], q_blob, qs, qe) == 0:
            return u
        slot = (slot + np.uint64(1)) & mask


@jit()
def _lookup(table, blob, offsets, hashes, q_blob, q_offsets, q_hashes, out):
    for i in range(out.shape[0]):
        out[i] = _find(table, blob, offsets, hashes, q_blob, q_offsets[i], q_offsets[i + 1], q_hashes[i])


@jit()
def _insert(table, blob, offsets, hashes, n, q_blob, q_offsets, q_hashes, out):
    """Look up each query string; append the missing ones (ids n, n + 1, ...). Returns the new count.
    The caller guarantees room in ``blob``, ``offsets``, ``hashes`` and ``table``."""
    mask = np.uint64(table.shape[0] - 1)
    for i in range(out.shape[0]):
        h = q_hashes[i]
        qs, qe = q_offsets[i], q_offsets[i + 1]
        slot = h & mask
        while True:
            u = table[slot]
            if u < 0:
                table[slot] = n
                hashes[n] = h
                offsets[n + 1] = offsets[n] + (qe - qs)
                blob[offsets[n]:offsets[n + 1]] = q_blob[qs:qe]
                out[i] = n
                n += 1
                break
            if hashes[u] == h and compare(blob, offsets[u], offsets[u + 1], q_blob, qs, qe) == 0:
                out[i] = u
                break
            slot = (slot + np.uint64(1)) & mask
    return n


@jit()
def _rehash(hashes, n, table):
    mask = np.uint64(table.shape[0] - 1)
    for u in range(n):
        slot = hashes[u] & mask
        while table[slot] >= 0:
            slot = (slot + np.uint64(1)) & mask
        table[slot] = u


def _grown(array: np.ndarray, need: int) -> np.ndarray:
    """``array`` with room for ``need`` entries (capacity doubled as needed)."""
    if need <= len(array):
        return array
    out = np.empty(max(need, 2 * len(array)), dtype=array.dtype)
    out[:len(array)] = array
    return out


class Interner:
    """Ids for strings as they arrive (runs read one after another); :meth:`freeze` ends it."""

    def __init__(self):
        self.n = 0
        self.blob = np.empty(1024, dtype=np.uint8)
        self.offsets = np.zeros(257, dtype=np.int64)
        self.hashes = np.empty(256, dtype=np.uint64)
        self.table = np.full(_table_size(256), _EMPTY, dtype=np.int32)

    def add(self, strings: Strings) -> np.ndarray:
        """The id of each of ``strings`` (new strings get the next ids)."""
        k = len(strings)
        self.blob = _grown(self.blob, int(self.offsets[self.n]) + len(strings.blob))
        self.offsets = _grown(self.offsets, self.n + k + 1)
        self.hashes = _grown(self.hashes, self.n + k)
        if len(self.table) < 2 * (self.n + k):
            self.table = np.full(_table_size(self.n + k), _EMPTY, dtype=np.int32)
            _rehash(self.hashes, self.n, self.table)
        ids = np.empty(k, dtype=np.int32)
        self.n = _insert(self.table, self.blob, self.offsets, self.hashes, self.n, strings.blob, strings.offsets,
                         strings.hashes, ids)
        return ids

    def freeze(self) -> "Vocabulary":
        n = self.n
        strings = Strings(self.blob[:self.offsets[n]].copy(), self.offsets[:n + 1].copy(), self.hashes[:n].copy())
        table = np.full(_table_size(n), _EMPTY, dtype=np.int32)
        _rehash(strings.hashes, n, table)
        return Vocabulary(strings, table)


@attrs.frozen(eq=False)
class Vocabulary:
    """Distinct strings with ids ``0..len-1`` and a hash table to look strings up."""

    strings: Strings
    table: np.ndarray  # int32, power-of-two size, -1 = empty

    def __len__(self) -> int:
        return len(self.strings)

    def __getitem__(self, i: int) -> str:
        return self.strings[i]

    def ids(self, query: Strings) -> np.ndarray:
        """The id of each query string, -1 where absent."""
        out = np.empty(len(query), dtype=np.int32)
        s = self.strings
        _lookup(self.table, s.blob, s.offsets, s.hashes, query.blob, query.offsets, query.hashes, out)
        return out

    @property
    def nbytes(self) -> int:
        s = self.strings
        return s.blob.nbytes + s.offsets.nbytes + s.hashes.nbytes + self.table.nbytes
