"""Fast reading of whitespace-separated TREC run files: numba tokenizer over raw bytes.

The bulk path of :func:`cwla.prepare` reads every run file with these helpers:
the bytes (loaded, decompressed and checked by :mod:`cwla.readers`) are split
into fields in one jitted pass (no Python string per field), docnos become
fixed-width big-endian integer keys (so integer order is bytewise docno order,
as trec_eval's ``strcmp``) and scores become the float32 that trec_eval's
``(float) atof(text)`` gives. Anything unexpected sends the caller to the
line-by-line reader of :mod:`cwla.readers`, which names the file, line and problem.
"""

from __future__ import annotations

import numpy as np

from ._numba import jit
from .readers import _FLOAT_RE, run_file_bytes

__all__ = ["tokenize", "field_strings", "field_keys", "parse_float32", "parse_float64", "read_run_arrays"]


@jit()
def _is_space(c):
    # space, \t, \v, \f, \r: bytes 9, 11, 12, 13 and 32 (\n, 10, ends the line)
    return c == 32 or (c >= 9 and c <= 13 and c != 10)


@jit()
def tokenize(buf, n_fields, extra=False):
    """Split ``buf`` into lines of exactly ``n_fields`` whitespace-separated fields (with ``extra``: at
    least ``n_fields``, the first ``n_fields`` kept, as trec_eval reads a run line).

    Returns ``(spans, line_no, bad_line, bad_count)``: ``spans[k, j] = (start, end)``
    of field j on the k-th non-blank line, ``line_no[k]`` its 1-based physical line;
    ``bad_line`` is the first line with another number of fields (0 if none) and
    ``bad_count`` that number.
    """
    n_lines = np.count_nonzero(buf == 10) + 1
    spans = np.empty((n_lines, n_fields, 2), dtype=np.int64)
    line_no = np.empty(n_lines, dtype=np.int64)
    k = 0
    pos = 0
    n = buf.shape[0]
    line = 0
    while pos < n:
        line += 1
        f = 0
        while pos < n and buf[pos] != 10:
            c = buf[pos]
            if _is_space(c):
                pos += 1
                continue
            start = pos
            while pos < n and buf[pos] != 10 and not _is_space(buf[pos]):
                pos += 1
            if f < n_fields:
                spans[k, f, 0] = start
                spans[k, f, 1] = pos
            f += 1
        pos += 1  # the newline
        if f == 0:
            continue
        if f < n_fields or (f > n_fields and not extra):
            return spans[:k], line_no[:k], line, f
        line_no[k] = line
        k += 1
    return spans[:k], line_no[:k], 0, 0


@jit()
def _fill(buf, spans, j, width, out):
    for k in range(spans.shape[0]):
        s, e = spans[k, j, 0], spans[k, j, 1]
        for i in range(e - s):
            out[k, i] = buf[s + i]


def field_strings(buf, spans, j) -> np.ndarray:
    """Field ``j`` of every line as a NumPy bytes array (``S<width>``)."""
    width = int((spans[:, j, 1] - spans[:, j, 0]).max()) if len(spans) else 1
    out = np.zeros((len(spans), width), dtype=np.uint8)
    _fill(buf, spans, j, width, out)
    return out.view(f"S{width}").reshape(-1)


def field_keys(strings: np.ndarray, n_chunks: int | None = None) -> np.ndarray:
    """Bytes strings as (n, n_chunks) uint64 keys whose lexicographic order is bytewise
    string order (shorter strings first among equal prefixes, as ``strcmp``)."""
    width = strings.dtype.itemsize
    need = max(1, -(-width // 8))
    n_chunks = need if n_chunks is None else n_chunks
    if n_chunks < need:
        raise ValueError("n_chunks too small for these strings")
    raw = np.zeros((len(strings), n_chunks * 8), dtype=np.uint8)
    raw[:, :width] = strings.view(np.uint8).reshape(len(strings), width)
    return raw.view(">u8").astype(np.uint64).reshape(len(strings), n_chunks)


# 10**k for k = 0..22: exactly representable in float64
_POW10 = np.array([10.0**k for k in range(23)])
# relative margin that covers the two roundings of the fast conversion below
_MARGIN = 8.0 * np.finfo(np.float64).eps


@jit()
def _fast_float32(buf, spans, j, out, ok):
    """Decimal field -> float32 as trec_eval gets it: the correctly rounded double, cast to float.

    The mantissa (at most 19 significant digits) times an exact power of ten
    (at most 10**22) is within two ulps of the correctly rounded double; when
    every double in a margin around it rounds to the same float32 (rounding is
    monotone, so checking both ends suffices) that float32 is exact. Other
    fields (``ok[k] = False``) are left to NumPy's exact conversion.
    """
    for k in range(spans.shape[0]):
        s, e = spans[k, j, 0], spans[k, j, 1]
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
        ok[k] = False
        if good and -22 <= exp <= 22:
            v = float(mant)
            v = v * _POW10[exp] if exp >= 0 else v / _POW10[-exp]
            lo = np.float32(v * (1.0 - _MARGIN))
            hi = np.float32(v * (1.0 + _MARGIN))
            if lo == hi:
                out[k] = -lo if neg else lo
                ok[k] = True


def parse_float32(buf, spans, j) -> np.ndarray:
    """Field ``j`` as float32, rounded as ``(float) atof(text)``.

    Raises ValueError on a field that is not a decimal number in the readers'
    grammar (:data:`cwla.readers._FLOAT_RE`: no ``nan``, ``inf`` or ``1_0``).
    """
    out = np.empty(len(spans), dtype=np.float32)
    ok = np.empty(len(spans), dtype=np.bool_)
    _fast_float32(buf, spans, j, out, ok)
    if not ok.all():
        rest = np.flatnonzero(~ok)
        texts = field_strings(buf, spans[rest], j)
        if not all(_FLOAT_RE.match(t.decode("ascii", "replace")) for t in texts):
            raise ValueError("a field is not a decimal number")
        with np.errstate(over="ignore"):  # beyond float32 range: inf, as trec_eval's (float) cast
            out[rest] = texts.astype(np.float64).astype(np.float32)
    return out


@jit()
def _first_bad_int(buf, spans, j):
    """Index of the first line whose field j is not an integer (``12``, ``-3``, ``12.0``) of at
    most 18 digits (so within int64), or -1."""
    for k in range(spans.shape[0]):
        s, e = spans[k, j, 0], spans[k, j, 1]
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
        if digits == 0 or digits > 18 or i != e:
            return k
    return -1


def parse_float64(buf, spans, j) -> np.ndarray:
    """Field ``j`` as the correctly rounded float64 (``strtod``; trec_eval >= 10 keeps doubles).

    Raises ValueError on a field that is not a decimal number in the readers' grammar.
    """
    ok = np.empty(len(spans), dtype=np.bool_)
    _fast_float32(buf, spans, j, np.empty(len(spans), dtype=np.float32), ok)  # ok: in the grammar, plainly
    texts = field_strings(buf, spans, j)
    if not all(_FLOAT_RE.match(t.decode("ascii", "replace")) for t in texts[~ok]):
        raise ValueError("a field is not a decimal number")
    return texts.astype(np.float64)


def read_run_arrays(path, ties: str = "float32"):
    """Topics and docnos (bytes arrays) and scores (float32 as trec_eval 9.x keeps them, or float64 for
    ``ties="float64"``, as trec_eval >= 10) of a run file, in file order.

    Returns None when the file is empty or anything in it is unexpected (a wrong
    field count, a non-number, non-ASCII bytes, a carriage return that does not
    end a line); the caller then uses :func:`cwla.readers.read_run`, which raises
    the precise error or accepts a form this fast path does not handle.
    """
    buf = np.frombuffer(run_file_bytes(path), dtype=np.uint8)
    if (buf >= 128).any():
        return None
    cr = np.flatnonzero(buf == 13)
    if len(cr) and (cr[-1] + 1 >= len(buf) or (buf[np.minimum(cr + 1, len(buf) - 1)] != 10).any()):
        return None
    spans, _, bad_line, _ = tokenize(buf, 6, True)
    if bad_line or len(spans) == 0 or _first_bad_int(buf, spans, 3) >= 0:
        return None
    try:
        scores = parse_float64(buf, spans, 4) if ties == "float64" else parse_float32(buf, spans, 4)
    except ValueError:
        return None
    if not np.isfinite(scores).all():
        return None
    return field_strings(buf, spans, 0), field_strings(buf, spans, 2), scores
