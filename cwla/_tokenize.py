"""Fast reading of whitespace-separated TREC run files: numba passes over raw bytes.

The bulk path of :func:`cwla.read_runs` reads every run file with these helpers:
the bytes (loaded, decompressed and checked by :mod:`cwla.readers`) are split
into fields in one jitted pass that also checks the rank and converts the score
(no Python string per field): scores become the float32 that trec_eval 9.x's
``(float) atof(text)`` gives, or the correctly rounded double (``ties="float64"``,
trec_eval >= 10). Topics and docnos stay byte spans of the buffer until
:mod:`cwla._docnos` interns them. Anything unexpected sends the caller to the
line-by-line reader of :mod:`cwla.readers`, which names the file, line and problem.
"""

from __future__ import annotations

import attrs
import numpy as np

from ._docnos import Strings, intern_spans
from ._numba import jit
from .readers import _FLOAT_RE, run_file_bytes

__all__ = ["scan_run", "read_run_file", "RunColumns"]


@jit()
def _is_space(c):
    # space, \t, \v, \f, \r: bytes 9, 11, 12, 13 and 32 (\n, 10, ends the line)
    return c == 32 or (c >= 9 and c <= 13 and c != 10)


# 10**k for k = 0..22: exactly representable in float64
_POW10 = np.array([10.0**k for k in range(23)])
# relative margin that covers the two roundings of the fast conversion below
_MARGIN = 8.0 * np.finfo(np.float64).eps


@jit()
def _number(buf, s, e, want64):
    """``(value, ok)``: the decimal field ``buf[s:e]`` as trec_eval reads it, by a fast exact path.

    The mantissa (at most 19 significant digits) times an exact power of ten (at most
    10**22). For float64 (``want64``) the product is correctly rounded when the mantissa
    is below 2**53 (one rounding of exact operands). For float32 it is within two ulps of
    the correctly rounded double; when every double in a margin around it rounds to the
    same float32 (rounding is monotone: checking both ends suffices), that float32 is
    ``(float) atof(text)``. Other fields (``ok`` False) are left to an exact conversion.
    """
    i = s
    neg = False
    if i < e and (buf[i] == 45 or buf[i] == 43):
        neg = buf[i] == 45
        i += 1
    mant = np.uint64(0)
    digits = 0
    frac = 0
    seen_dot = False
    seen_digit = False
    good = True
    while i < e:
        c = buf[i]
        if c >= 48 and c <= 57:
            seen_digit = True
            if digits > 0 or c != 48:
                digits += 1
            if digits <= 19:
                mant = mant * np.uint64(10) + np.uint64(c - 48)
                if seen_dot:
                    frac += 1
            elif not seen_dot:
                frac -= 1  # digits past the 19th only scale an integer part
        elif c == 46 and not seen_dot:
            seen_dot = True
        else:
            break
        i += 1
    exp = 0
    if i < e and (buf[i] == 101 or buf[i] == 69):
        i += 1
        eneg = False
        if i < e and (buf[i] == 45 or buf[i] == 43):
            eneg = buf[i] == 45
            i += 1
        if i == e:
            good = False
        while i < e:
            c = buf[i]
            if c < 48 or c > 57 or exp > 10000:
                good = False
                break
            exp = exp * 10 + (c - 48)
            i += 1
        if eneg:
            exp = -exp
    if i != e or not seen_digit or digits > 19:
        good = False
    exp -= frac
    if not good or exp < -22 or exp > 22:
        return 0.0, False
    if want64 and mant > np.uint64(9007199254740992):
        return 0.0, False
    v = float(mant)
    v = v * _POW10[exp] if exp >= 0 else v / _POW10[-exp]
    if not want64:
        lo = np.float32(v * (1.0 - _MARGIN))
        hi = np.float32(v * (1.0 + _MARGIN))
        if lo != hi:
            return 0.0, False
        v = float(lo)
    return (-v if neg else v), True


@jit()
def _is_int(buf, s, e):
    """The field is an integer (``12``, ``-3``, ``12.0``) of at most 18 digits (so within int64)."""
    i = s
    if i < e and (buf[i] == 45 or buf[i] == 43):
        i += 1
    digits = 0
    while i < e and buf[i] >= 48 and buf[i] <= 57:
        i += 1
        digits += 1
    if i < e and buf[i] == 46:
        i += 1
        while i < e and buf[i] == 48:
            i += 1
    return digits > 0 and digits <= 18 and i == e


#: the most scores one file may leave to the exact (slow) conversion before the careful reader takes over
MAX_SLOW_SCORES = 4096


@jit()
def scan_run(buf, want64, scores):
    """One pass over a run file's bytes: lines of at least 6 whitespace-separated fields
    (``qid Q0 docno rank score tag``; trec_eval reads the first 6 and ignores the rest).

    Fills ``scores[k]`` (float32 or float64; one entry per line of ``buf`` at least) for the k-th
    non-blank line and returns
    ``(n, topic_spans, docno_spans, slow, problem)``: the spans are ``(n, 2)`` start/end
    offsets; ``slow`` holds ``(line k, start, end)`` of the scores the fast path left to an
    exact conversion. ``problem`` is False, or True (a line with fewer than 6 fields, a
    rank that is not an integer, more than :data:`MAX_SLOW_SCORES` slow scores): the
    caller then reads the file carefully.
    """
    n_lines = scores.shape[0]  # the caller's count: one entry per line at least
    topics = np.empty((n_lines, 2), dtype=np.int64)
    docnos = np.empty((n_lines, 2), dtype=np.int64)
    slow = np.empty((MAX_SLOW_SCORES, 3), dtype=np.int64)
    n_slow = 0
    k = 0
    pos = 0
    n = buf.shape[0]
    while pos < n:
        f = 0
        rank_s = rank_e = score_s = score_e = 0
        while pos < n and buf[pos] != 10:
            if _is_space(buf[pos]):
                pos += 1
                continue
            start = pos
            while pos < n and buf[pos] != 10 and not _is_space(buf[pos]):
                pos += 1
            if f == 0:
                topics[k, 0], topics[k, 1] = start, pos
            elif f == 2:
                docnos[k, 0], docnos[k, 1] = start, pos
            elif f == 3:
                rank_s, rank_e = start, pos
            elif f == 4:
                score_s, score_e = start, pos
            f += 1
        pos += 1  # the newline
        if f == 0:
            continue
        if f < 6 or not _is_int(buf, rank_s, rank_e):
            return k, topics[:k], docnos[:k], slow[:n_slow], True
        value, ok = _number(buf, score_s, score_e, want64)
        scores[k] = value
        if not ok:
            if n_slow == MAX_SLOW_SCORES:
                return k, topics[:k], docnos[:k], slow[:n_slow], True
            slow[n_slow, 0], slow[n_slow, 1], slow[n_slow, 2] = k, score_s, score_e
            n_slow += 1
        k += 1
    return k, topics[:k], docnos[:k], slow[:n_slow], False


def _slow_scores(buf: np.ndarray, slow: np.ndarray, scores: np.ndarray) -> bool:
    """Convert the scores the fast path left (exactly, as ``(float) atof`` / ``strtod``); False if one
    is not a decimal number in the readers' grammar (:data:`cwla.readers._FLOAT_RE`: no ``nan``, ``inf``)."""
    for k, s, e in slow.tolist():
        text = bytes(buf[s:e]).decode("ascii", "replace")
        if not _FLOAT_RE.match(text):
            return False
        with np.errstate(over="ignore"):  # beyond float32 range: inf, as trec_eval's (float) cast
            scores[k] = float(text)  # float64, then (for float32 scores) rounded once more, as C's (float) cast
    return True


@attrs.frozen(eq=False)
class RunColumns:
    """One run as read, in input order: per line its topic (an id into ``topics``, the distinct topics in
    first-seen order), its docno (``blob[doc_starts[k]:doc_ends[k]]``) and its score."""

    topic_ids: np.ndarray  # int32
    topics: list  # str
    blob: np.ndarray  # uint8
    doc_starts: np.ndarray  # int64
    doc_ends: np.ndarray  # int64
    scores: np.ndarray  # float32 or float64


def read_run_file(path, ties: str = "float32") -> RunColumns | None:
    """A run file's columns (:class:`RunColumns`) by the fast path.

    Returns None when the file is empty or anything in it is unexpected (a wrong
    field count, a non-number, a non-finite score, non-ASCII or NUL bytes, a carriage
    return that does not end a line); the caller then uses :func:`cwla.readers.read_run`,
    which raises the precise error or accepts a form this fast path does not handle.
    """
    buf = np.frombuffer(run_file_bytes(path), dtype=np.uint8)
    if (buf >= 128).any() or (buf == 0).any():
        return None
    cr = np.flatnonzero(buf == 13)
    if len(cr) and (cr[-1] + 1 >= len(buf) or (buf[np.minimum(cr + 1, len(buf) - 1)] != 10).any()):
        return None
    scores = np.empty(np.count_nonzero(buf == 10) + 1, dtype=np.float64 if ties == "float64" else np.float32)
    n, topic_spans, docno_spans, slow, problem = scan_run(buf, ties == "float64", scores)
    if problem or n == 0 or not _slow_scores(buf, slow, scores):
        return None
    scores = scores[:n]
    if not np.isfinite(scores).all():
        return None  # the careful reader says which score is not finite (float32's overflow is inf, and fine)
    topic_ids, t_first, _ = intern_spans(buf, topic_spans[:, 0], topic_spans[:, 1])
    topics = Strings.gather(buf, topic_spans[:, 0], topic_spans[:, 1], t_first).tolist()
    return RunColumns(topic_ids, topics, buf, docno_spans[:, 0], docno_spans[:, 1], scores)
