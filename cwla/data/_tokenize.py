"""Fast reading of whitespace-separated TREC run and qrels files: numba passes over raw bytes.

The bulk path of :func:`cwla.read_runs` reads every run file with these helpers: the
bytes (opened by :func:`cwla.data.files.read_array`: decompressed, without a byte-order mark) are split into fields
in one jitted pass (:func:`scan_run`) that also interns the topic, hashes the docno,
checks the rank and converts the score (no Python string per field): scores become the
float32 that trec_eval 9.x's ``(float) atof(text)`` gives, or the correctly rounded
double (``ties="float64"``, trec_eval >= 10). Docnos stay byte spans of the buffer
until :mod:`cwla.data._pairs` interns them. A reader thread reuses its scratch arrays from
file to file (:class:`Workspace`). Qrels files get the same pass (:func:`scan_qrels`,
grades as correctly rounded doubles). Anything unexpected sends the caller to the
line-by-line reader of :mod:`cwla.data.readers`, which names the file, line and problem.
"""

from __future__ import annotations

import attrs
import numpy as np

from ._docnos import FNV_OFFSET, FNV_PRIME, Strings, fnv_hash, compare, intern_spans
from .._numba import jit
from .files import read_array
from .trec_format import FLOAT_RE, QRELS_LAYOUT, RUN_LAYOUT

__all__ = ["check_bytes", "scan_run", "scan_qrels", "read_run_file", "scan_run_block", "read_qrels_file", "RunColumns", "QrelsColumns",
           "Workspace"]


#: the class of each byte: 0 in a field, 1 a field separator (space, \t, \v, \f, \r), 2 the newline
_BYTE_CLASS = np.zeros(256, dtype=np.uint8)
_BYTE_CLASS[[32, 9, 11, 12, 13]] = 1
_BYTE_CLASS[10] = 2


@jit()
def _skip_separators(buf, pos, n):
    """The first position from ``pos`` that is not a field separator (a field, a newline, or ``n``)."""
    while pos < n and _BYTE_CLASS[buf[pos]] == 1:
        pos += 1
    return pos


@jit()
def _field_end(buf, pos, n):
    """The end of the field starting at ``pos`` (a separator, a newline, or ``n``)."""
    while pos < n and _BYTE_CLASS[buf[pos]] == 0:
        pos += 1
    return pos


@jit()
def _field_end_hashed(buf, pos, n):
    """``(end, hash)``: :func:`_field_end` and the :func:`cwla.data._docnos.fnv_hash` of the field, in one pass."""
    h = FNV_OFFSET
    while pos < n and _BYTE_CLASS[buf[pos]] == 0:
        h = (h ^ np.uint64(buf[pos])) * FNV_PRIME
        pos += 1
    return pos, h


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
def check_bytes(buf):
    """``(lines, ok)``: one more than the number of newlines (an upper bound on the lines), and whether
    the bytes are ones the fast path reads: no byte above 127, no NUL, every carriage return followed
    by a newline. (One pass without branches, which the compiler vectorises; no temporary array.)"""
    n = buf.shape[0]
    newlines = zeros = returns = 0
    bits = np.uint8(0)
    for i in range(n):
        c = buf[i]
        bits |= c  # bit 7 set by a byte above 127
        newlines += c == 10
        zeros += c == 0
        returns += c == 13
    if bits >= 128 or zeros > 0:
        return newlines + 1, False
    if returns > 0:  # rare: every CR must end a line
        for i in range(n):
            if buf[i] == 13 and (i + 1 == n or buf[i + 1] != 10):
                return newlines + 1, False
    return newlines + 1, True


@jit()
def _topic_id(buf, s, e, table, t_start, t_end, t_hash, m):
    """The id of topic ``buf[s:e]`` among the ``m`` topics seen (spans ``t_start``/``t_end``, hashes
    ``t_hash``; ``table``: open addressing, -1 empty, at most half full), or -1 - (its slot) if new."""
    h = fnv_hash(buf, s, e)
    mask = np.uint64(table.shape[0] - 1)
    slot = h & mask
    while True:
        u = table[slot]
        if u < 0:
            return -1 - np.int64(slot), h
        if t_hash[u] == h and compare(buf, s, e, buf, t_start[u], t_end[u]) == 0:
            return np.int64(u), h
        slot = (slot + np.uint64(1)) & mask


@jit()
def _split_line(buf, pos):
    """The first fields of the line at ``pos``, unrolled (a loop over fields with a span array took
    about 40% longer on a 5 M-line run). Returns ``(the next line's position, the number of fields up
    to 6, field 0's start and end, field 2's start, end and hash, field 3's, field 4's start and end)``;
    the hash (:func:`cwla.data._docnos.fnv_hash`) is computed as the field is scanned."""
    n = buf.shape[0]
    f = 0
    s0 = e0 = s2 = e2 = s3 = e3 = s4 = e4 = 0
    h = FNV_OFFSET
    pos = _skip_separators(buf, pos, n)
    if pos < n and buf[pos] != 10:
        s0 = pos
        e0 = pos = _field_end(buf, pos, n)
        f = 1
        pos = _skip_separators(buf, pos, n)
    if f == 1 and pos < n and buf[pos] != 10:
        pos = _field_end(buf, pos, n)
        f = 2
        pos = _skip_separators(buf, pos, n)
    if f == 2 and pos < n and buf[pos] != 10:
        s2 = pos
        pos, h = _field_end_hashed(buf, pos, n)
        e2 = pos
        f = 3
        pos = _skip_separators(buf, pos, n)
    if f == 3 and pos < n and buf[pos] != 10:
        s3 = pos
        e3 = pos = _field_end(buf, pos, n)
        f = 4
        pos = _skip_separators(buf, pos, n)
    if f == 4 and pos < n and buf[pos] != 10:
        s4 = pos
        e4 = pos = _field_end(buf, pos, n)
        f = 5
        pos = _skip_separators(buf, pos, n)
    if f == 5 and pos < n and buf[pos] != 10:
        f = 6
    while pos < n and buf[pos] != 10:  # any further fields
        pos += 1
    return pos + 1, f, s0, e0, s2, e2, h, s3, e3, s4, e4


@jit()
def _scan(buf, qrels, want64, values, topic_ids, doc_starts, doc_ends, doc_hashes):
    """The pass of :func:`scan_run` and (``qrels``) :func:`scan_qrels`: a run line is ``qid Q0 docno
    rank score tag ...`` (its value the score), a qrels line exactly ``qid iter docno grade``."""
    slow = np.empty((MAX_SLOW_SCORES, 3), dtype=np.int64)
    n_slow = 0
    table = np.full(64, -1, dtype=np.int32)  # the topics' hash table, doubled when half full
    t_start = np.empty(32, dtype=np.int64)
    t_end = np.empty(32, dtype=np.int64)
    t_hash = np.empty(32, dtype=np.uint64)
    none = np.empty((0, 2), dtype=np.int64)
    m = k = pos = np.int64(0)  # typed, not literal 0: a literal would compile the callees a second time
    while pos < buf.shape[0]:
        pos, f, s0, e0, s2, e2, h, s3, e3, s4, e4 = _split_line(buf, pos)
        if f == 0:
            continue
        if qrels:
            if f != 4 or buf[s0] == 35:  # "#": a comment line, which the careful reader skips
                return k, none, slow[:n_slow], True
            s, e = s3, e3  # the grade
        else:
            if f < 6 or not _is_int(buf, s3, e3):
                return k, none, slow[:n_slow], True
            s, e = s4, e4  # the score
        doc_starts[k], doc_ends[k], doc_hashes[k] = s2, e2, h
        value, ok = _number(buf, s, e, want64)
        values[k] = value
        if not ok:
            if n_slow == MAX_SLOW_SCORES:
                return k, none, slow[:n_slow], True
            slow[n_slow, 0], slow[n_slow, 1], slow[n_slow, 2] = k, s, e
            n_slow += 1
        if k > 0 and compare(buf, s0, e0, buf, t_start[topic_ids[k - 1]], t_end[topic_ids[k - 1]]) == 0:
            topic_ids[k] = topic_ids[k - 1]  # the topic of the line before (files are grouped by topic)
        else:
            table, t_start, t_end, t_hash, m = _line_topic(buf, s0, e0, k, topic_ids, table, t_start, t_end, t_hash,
                                                           m)
        k += 1
    return k, _spans(t_start, t_end, m), slow[:n_slow], False


def scan_run(buf, want64, scores, topic_ids, doc_starts, doc_ends, doc_hashes):
    """One pass over a run file's bytes: lines of at least 6 whitespace-separated fields
    (``qid Q0 docno rank score tag``; trec_eval reads the first 6 and ignores the rest).

    For the k-th non-blank line fills ``topic_ids[k]`` (topics numbered in first-seen order),
    ``doc_starts[k]``, ``doc_ends[k]`` (the docno is ``buf[doc_starts[k]:doc_ends[k]]``),
    ``doc_hashes[k]`` (its :func:`cwla.data._docnos.fnv_hash`) and ``scores[k]`` (float64; without
    ``want64`` a value that float32 holds exactly, trec_eval 9.x's ``(float) atof``); every
    output has one entry per line of ``buf`` at least (:func:`check_bytes`). Returns
    ``(n, topic_spans, slow, problem)``: ``topic_spans`` the ``(m, 2)`` start/end of each topic's
    first occurrence; ``slow`` holds ``(line k, start, end)`` of the scores the fast path left to an
    exact conversion. ``problem`` is False, or True (a line with fewer than 6 fields, a rank that is
    not an integer, more than :data:`MAX_SLOW_SCORES` slow scores): the caller then reads the file
    carefully.
    """
    return _scan(buf, False, want64, scores, topic_ids, doc_starts, doc_ends, doc_hashes)


def scan_qrels(buf, grades, topic_ids, doc_starts, doc_ends, doc_hashes):
    """One pass over a qrels file's bytes: lines of exactly 4 whitespace-separated fields
    (``qid iter docno grade``), as :func:`scan_run` (``grades`` as float64, correctly rounded).

    Returns ``(n, topic_spans, slow, problem)``; ``problem`` is True for a line of another field
    count, a comment line (first field starting with ``#``) or more than :data:`MAX_SLOW_SCORES`
    slow grades: the caller then reads the file carefully.
    """
    return _scan(buf, True, True, grades, topic_ids, doc_starts, doc_ends, doc_hashes)


@jit()
def _line_topic(buf, s, e, k, topic_ids, table, t_start, t_end, t_hash, m):
    """``topic_ids[k]``: the id of line k's topic ``buf[s:e]`` among the ``m`` seen so far (spans
    ``t_start``/``t_end`` of their first lines, hashes ``t_hash``, hash table ``table``), a new one if
    unseen. Returns the tables (grown as needed) and the new ``m``. (The caller checks first whether
    the line has the topic of the line before, as most lines do: this call costs more.)"""
    u, h = _topic_id(buf, s, e, table, t_start, t_end, t_hash, m)
    if u < 0:  # a new topic
        if m == t_start.shape[0]:
            t_start, t_end, t_hash = _doubled(t_start), _doubled(t_end), _doubled(t_hash)
        t_start[m], t_end[m], t_hash[m] = s, e, h
        table[-1 - u] = m
        u = m
        m += 1
        if 2 * m > table.shape[0]:
            table = _rehashed(table, t_hash, m)
    topic_ids[k] = u
    return table, t_start, t_end, t_hash, m


@jit()
def _spans(starts, ends, m):
    out = np.empty((m, 2), dtype=np.int64)
    for i in range(m):
        out[i, 0], out[i, 1] = starts[i], ends[i]
    return out


@jit()
def _doubled(a):
    out = np.empty(2 * a.shape[0], dtype=a.dtype)
    for i in range(a.shape[0]):
        out[i] = a[i]
    return out


@jit()
def _rehashed(table, hashes, m):
    """A table twice the size holding ids ``0..m-1`` placed by ``hashes``."""
    out = np.full(2 * table.shape[0], -1, dtype=np.int32)
    mask = np.uint64(out.shape[0] - 1)
    for u in range(m):
        slot = hashes[u] & mask
        while out[slot] >= 0:
            slot = (slot + np.uint64(1)) & mask
        out[slot] = u
    return out


def _slow_scores(buf: np.ndarray, slow: np.ndarray, scores: np.ndarray) -> bool:
    """Convert the scores the fast path left (exactly, as ``(float) atof`` / ``strtod``); False if one
    is not a decimal number in the readers' grammar (:data:`cwla.data.trec_format.FLOAT_RE`: no ``nan``, ``inf``)."""
    for k, s, e in slow.tolist():
        text = bytes(buf[s:e]).decode("ascii", "replace")
        if not FLOAT_RE.match(text):
            return False
        scores[k] = float(text)  # the correctly rounded double (read_run_file rounds it to float32 if asked)
    return True


@attrs.frozen(eq=False)
class RunColumns:
    """One run as read, in input order: per line its topic (an id into ``topics``, the distinct topics in
    first-seen order), its docno (``blob[doc_starts[k]:doc_ends[k]]``, with its hash) and its score."""

    topic_ids: np.ndarray  # int32
    topics: list  # str
    blob: np.ndarray  # uint8
    doc_starts: np.ndarray  # int64
    doc_ends: np.ndarray  # int64
    doc_hashes: np.ndarray  # uint64
    scores: np.ndarray  # float32 or float64


class Workspace:
    """Scratch arrays that one reader thread reuses from one run file to the next.

    Fresh memory is not free: every new page is faulted in and zeroed by the kernel, which
    for the arrays of a 5 M-line run took longer than scanning it. A reader keeps its
    arrays (at the size of the largest file so far) and hands out views of them; whatever
    it returns that must outlive the next file is copied out.
    """

    def __init__(self):
        self._arrays: dict = {}

    def array(self, name: str, n: int, dtype) -> np.ndarray:
        """A view of ``n`` entries of the scratch array ``name`` (contents undefined)."""
        a = self._arrays.get(name)
        if a is None or len(a) < n or a.dtype != np.dtype(dtype):
            del a  # (the old array is freed before the new one is allocated)
            self._arrays.pop(name, None)
            # an eighth more than asked: the next file, a little longer, fits without new memory
            a = self._arrays[name] = np.empty(n + n // 8, dtype=dtype)
        return a[:n]


def read_run_file(path, ties: str = "float32", workspace: Workspace | None = None) -> RunColumns | None:
    """A run file's columns (:class:`RunColumns`) by the fast path.

    Returns None when the file is empty or anything in it is unexpected (a wrong
    field count, a non-number, a non-finite score, non-ASCII or NUL bytes, a carriage
    return that does not end a line); the caller then uses :func:`cwla.data.readers.read_run`,
    which raises the precise error or accepts a form this fast path does not handle.
    The columns are views of ``workspace``'s arrays when one is given (valid until it
    reads the next file).
    """
    ws = workspace or Workspace()
    buf = read_array(path, "run", layout=RUN_LAYOUT, allocate=lambda n: ws.array("bytes", n, np.uint8))
    return scan_run_block(buf, ties, ws)


def scan_run_block(buf: np.ndarray, ties: str = "float32", workspace: Workspace | None = None) -> RunColumns | None:
    """The columns (:class:`RunColumns`) of run lines ``buf`` (a read-only uint8 array of whole lines: a file,
    or a block of one, :func:`cwla.data.files.text_blocks`) by the fast path, or None as :func:`read_run_file`.
    The columns are views of ``workspace``'s arrays and of ``buf``."""
    ws = workspace or Workspace()
    lines, ok = check_bytes(buf)
    if not ok:
        return None
    scores = ws.array("scores", lines, np.float64)  # float64 for both ties: one compiled scan (see scan_run)
    topic_ids = ws.array("topic_ids", lines, np.int32)
    doc_starts, doc_ends = ws.array("doc_starts", lines, np.int64), ws.array("doc_ends", lines, np.int64)
    doc_hashes = ws.array("doc_hashes", lines, np.uint64)
    n, topic_spans, slow, problem = scan_run(buf, ties == "float64", scores, topic_ids, doc_starts, doc_ends,
                                             doc_hashes)
    if problem or n == 0 or not _slow_scores(buf, slow, scores):
        return None
    scores = scores[:n]
    if ties == "float32":  # exact for the fast path's values; the slow ones rounded once, as C's (float) cast
        single = ws.array("scores32", n, np.float32)
        with np.errstate(over="ignore"):  # beyond float32's range: inf, as trec_eval's (float) cast
            single[:] = scores
        scores = single
    if not np.isfinite(scores).all():
        return None  # the careful reader says which score is not finite (float32's overflow is inf, and fine)
    topics = [bytes(buf[s:e]).decode("ascii") for s, e in topic_spans.tolist()]
    return RunColumns(topic_ids[:n], topics, buf, doc_starts[:n], doc_ends[:n], doc_hashes[:n], scores)


@attrs.frozen(eq=False)
class QrelsColumns:
    """A qrels file as read, in input order: per line its topic (an id into ``topics``, first-seen
    order), its docno (an id into ``docnos``, the distinct docnos) and its grade."""

    topic_ids: np.ndarray  # int32
    topics: list  # str
    doc_ids: np.ndarray  # int32
    docnos: Strings
    grades: np.ndarray  # float64


def read_qrels_file(path) -> QrelsColumns | None:
    """A qrels file's columns (:class:`QrelsColumns`) by the fast path, or None when anything in it is
    unexpected (as :func:`read_run_file`; also comment lines, a topic named ``all``, a docno judged
    twice for a topic): the caller then uses :func:`cwla.data.readers.read_qrels`, which says what."""
    buf = read_array(path, "qrels", layout=QRELS_LAYOUT)
    lines, ok = check_bytes(buf)
    if not ok:
        return None
    grades, topic_ids = np.empty(lines, dtype=np.float64), np.empty(lines, dtype=np.int32)
    doc_starts, doc_ends = np.empty(lines, dtype=np.int64), np.empty(lines, dtype=np.int64)
    doc_hashes = np.empty(lines, dtype=np.uint64)
    n, topic_spans, slow, problem = scan_qrels(buf, grades, topic_ids, doc_starts, doc_ends, doc_hashes)
    if problem or n == 0 or not _slow_scores(buf, slow, grades):
        return None
    grades = grades[:n]
    if not np.isfinite(grades).all():
        return None
    topics = [bytes(buf[s:e]).decode("ascii") for s, e in topic_spans.tolist()]
    if "all" in topics:
        return None
    doc_ids, first = intern_spans(buf, doc_starts[:n], doc_ends[:n], doc_hashes[:n])
    topic_ids = topic_ids[:n]
    keys = np.sort(topic_ids.astype(np.int64) << 32 | doc_ids)
    if len(keys) > 1 and (keys[1:] == keys[:-1]).any():
        return None  # a docno judged twice for a topic
    docnos = Strings.gather(buf, doc_starts, doc_ends, first, doc_hashes[first])
    return QrelsColumns(topic_ids, topics, doc_ids, docnos, grades)
