"""Byte strings without fixed widths: hashing, comparing, interning.

A :class:`Strings` value holds distinct byte strings back to back (``blob``, with
``offsets``: string i is ``blob[offsets[i]:offsets[i + 1]]``) and their 64-bit
FNV-1a hashes, so storage costs the bytes of the strings plus 16 bytes each,
never (count x longest string). :func:`intern_spans` gives the distinct strings
among spans of a buffer, :func:`strings_of` among Python strings, with each one's id. :func:`compare` orders byte strings as
trec_eval's ``strcmp`` does.
"""

from __future__ import annotations

import attrs
import numpy as np

from .._numba import jit

__all__ = ["Strings", "strings_of", "intern_spans", "compare", "read_only"]

FNV_OFFSET = np.uint64(14695981039346656037)
FNV_PRIME = np.uint64(1099511628211)
_EMPTY = np.int32(-1)


def read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array`` (the array itself stays writable).

    Byte buffers reach the kernels read-only, always: numba compiles a kernel once per argument
    type, and a writable and a read-only array are two types (a file's bytes are read-only when gzip
    gives them as a ``bytes`` object, so every buffer is).
    """
    view = array.view()
    view.flags.writeable = False
    return view


@jit()
def fnv_hash(buf, s, e):
    """64-bit FNV-1a of ``buf[s:e]``."""
    h = FNV_OFFSET
    for i in range(s, e):
        h = (h ^ np.uint64(buf[i])) * FNV_PRIME
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


@jit()
def intern_spans(buf, starts, ends, hashes):
    """Distinct strings among ``buf[starts[k]:ends[k]]`` (hashes ``hashes[k]``), in first-seen order.

    Returns ``(ids, first)``: ``ids[k]`` is the id of span k, ``first[i]`` the first span holding
    string i.
    """
    n = starts.shape[0]
    size = 16
    while size < 2 * n:
        size *= 2
    mask = np.uint64(size - 1)
    table = np.full(size, -1, dtype=np.int32)
    ids = np.empty(n, dtype=np.int32)
    first = np.empty(n, dtype=np.int64)
    m = 0
    for k in range(n):
        s, e, h = starts[k], ends[k], hashes[k]
        slot = h & mask
        while True:
            u = table[slot]
            if u < 0:
                table[slot] = m
                first[m] = k
                ids[k] = m
                m += 1
                break
            f = first[u]
            if hashes[f] == h and compare(buf, s, e, buf, starts[f], ends[f]) == 0:
                ids[k] = u
                break
            slot = (slot + np.uint64(1)) & mask
    return ids, first[:m]


@jit()
def _gather(blob, starts, ends, rows, out_offsets, out):
    o = 0
    for i in range(rows.shape[0]):
        k = rows[i]
        for b in range(starts[k], ends[k]):  # a loop, not a slice copy: numba compiles it in a fraction
            out[o] = blob[b]
            o += 1
        out_offsets[i + 1] = o


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

    @property
    def nbytes(self) -> int:
        return self.blob.nbytes + self.offsets.nbytes + self.hashes.nbytes

    @classmethod
    def gather(cls, blob, starts, ends, rows, hashes=None) -> "Strings":
        """The strings ``blob[starts[k]:ends[k]]`` for k in ``rows``, back to back, copied out of ``blob``
        (their hashes computed, unless given)."""
        rows = np.asarray(rows, dtype=np.int64)
        offsets = np.zeros(len(rows) + 1, dtype=np.int64)
        out = np.empty(int((ends[rows] - starts[rows]).sum()), dtype=np.uint8)
        _gather(read_only(blob), starts, ends, rows, offsets, out)
        return cls(out, offsets, _hashes(out, offsets) if hashes is None else hashes)


@jit()
def _hash_all(blob, offsets, out):
    for i in range(out.shape[0]):
        out[i] = fnv_hash(blob, offsets[i], offsets[i + 1])


def _hashes(blob, offsets) -> np.ndarray:
    """The hash of each string ``blob[offsets[i]:offsets[i + 1]]``."""
    out = np.empty(len(offsets) - 1, dtype=np.uint64)
    _hash_all(blob, offsets, out)
    return out


def strings_of(values) -> tuple:
    """``(ids, Strings)`` of Python strings: the distinct strings (UTF-8) and each value's id."""
    import pandas as pd

    codes, uniques = pd.factorize(np.asarray(values, dtype=object))
    uniques = [u if isinstance(u, str) else str(u) for u in uniques.tolist()]
    joined = "".join(uniques)
    offsets = np.zeros(len(uniques) + 1, dtype=np.int64)
    if joined.isascii():  # one byte a character: the lengths are the strings' lengths
        np.cumsum(np.fromiter(map(len, uniques), dtype=np.int64, count=len(uniques)), out=offsets[1:])
        data = joined.encode("ascii")
    else:
        encoded = [u.encode("utf-8", "surrogateescape") for u in uniques]
        np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
        data = b"".join(encoded)
    blob = np.frombuffer(data, dtype=np.uint8).copy()
    return codes.astype(np.int32), Strings(blob, offsets, _hashes(blob, offsets))
