"""Read TREC qrels, runs and per-document costs into validated, canonical pandas DataFrames.

Formats
-------
Qrels file
    One judgement per line, four whitespace-separated fields::

        qid iter docno grade

    ``iter`` is ignored. ``grade`` is any finite number: integers (``0``-``3``),
    negative integers (trec_eval fixtures use ``-1``) and floats (cwl_eval gain
    files use values such as ``0.428571``) are all accepted.
Run file
    One retrieved document per line, six whitespace-separated fields::

        qid Q0 docno rank score tag

    ``Q0`` and ``tag`` are ignored (use :func:`run_name` for a system id).
    ``rank`` must be an integer (``3`` or ``3.0``) in the 64-bit range,
    ``score`` a finite number.
Costs file
    A qrels file whose fourth field is the cost (:func:`read_costs`), a finite
    number > 0::

        qid iter docno cost

Files may be plain text or gzip-compressed (recognised by the gzip magic
bytes, whatever the suffix), UTF-8 encoded. Fields are separated by any run
of spaces and tabs (also ``\\v`` and ``\\f``, which C's ``isspace`` and hence
trec_eval treat as blanks; other characters, such as a no-break space, belong
to the field); lines end with ``\\n``, ``\\r\\n`` or ``\\r``. Blank lines
are skipped, but error messages always give physical line numbers (1-based).
``qid`` and ``docno`` are strings: ``0123`` stays ``'0123'``. A
``(topic, docno)`` pair may appear at most once in a qrels file and a docno at
most once per topic in a run.

In memory the readers also accept

* a :class:`pandas.DataFrame` with columns ``topic, docno, grade`` (qrels) or
  ``topic, docno, score`` plus an optional ``rank`` (runs), or with the column
  names of ir_measures (``query_id, doc_id, relevance`` and
  ``query_id, doc_id, score``); other columns are ignored;
* a dict ``{topic: {docno: grade}}`` or ``{topic: {docno: score}}`` (the
  format of pytrec_eval).

Their values obey the rules of the files: a grade or score is a finite real
number (an int, a float, a numeric string; a complex number only if its
imaginary part is 0, then its real part is the value), a rank an integer in the
64-bit range (never wrapped), a cost a finite number > 0.

Output
------
:func:`read_qrels` returns columns ``topic`` (str), ``docno`` (str) and
``grade`` (float64); :func:`read_run` returns ``topic`` (str), ``docno`` (str),
``score`` (float64) and ``rank`` (int64); :func:`read_costs` returns ``topic``,
``docno`` and ``cost`` (float64). Rows keep the input order (a run is
*not* re-sorted by score or rank) and the index is a fresh ``RangeIndex``.
When a DataFrame or dict run has no rank, rows are numbered ``1..n`` within
each topic in input order.

Errors
------
Every malformed input raises :class:`cwla.errors.InputError` naming the file
(as given), the line, the problem and what is accepted, e.g.
``run.txt, line 3: expected 6 columns (qid Q0 docno rank score tag), found 5``.
A missing file raises :class:`FileNotFoundError`; a source of the wrong type
raises :class:`TypeError`.

Implementation note: files are parsed by pandas' C parser (fast path) and the
result is checked with vectorised operations. Whenever the parser fails or a
check fails, a pure-Python scan of the file (slow path) locates the first
offending line and raises the precise error.
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
import warnings
import itertools
import operator
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from .._validate import PATH, check
from ..errors import EmptyRunWarning, InputError, ParameterError
from ..typing import PathLike, QrelsLike, RunLike
from .files import UTF8_BOM, decoded_lines, read_bytes
from .columns import canonical_frame, checked_columns, nul_message, refuse_topic_all, value_text
from .trec_format import FLOAT_RE as _FLOAT_RE
from .trec_format import INT_RE as _INT_RE
from .trec_format import NONFINITE_RE as _NONFINITE_RE
from .trec_format import (COST_RULE, COSTS_FORMAT, DOCNO_NAMES, INT64_MAX, INT64_MIN, QRELS_FORMAT, RUN_FORMAT,
                          TOPIC_NAMES, Format)

__all__ = ["read_qrels", "read_run", "read_costs", "run_name"]


#: columns that name the system of each row: a frame with one holds several runs
SYSTEM_COLUMNS = ("name", "run", "system")

_TOPIC_FIELD = 0
_DOCNO_FIELD = 2

# Field separators: C's isspace() within a line (space, \t, \v, \f), as in
# trec_eval. pandas' C parser splits on spaces and tabs only, so files with
# \v or \f go to the line scan.
_FIELD_SEP_CHARS = " \t\v\f"
_FIELD_SEP_RE = re.compile(r"[ \t\v\f]+")
# \v and \f separate fields only in the line scan; a NUL byte needs its checks (see nul_clash)
_RARE_SEPARATORS = (b"\v", b"\f", b"\0")

class _Problem(Exception):
    """A problem with one value; the caller adds where it is."""


# ---------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------


def read_qrels(source: QrelsLike) -> pd.DataFrame:
    """Read relevance judgements into a canonical DataFrame.

    Parameters
    ----------
    source : str, os.PathLike, pandas.DataFrame or dict
        A path to a TREC qrels file (``qid iter docno grade``, plain or
        gzip); a DataFrame with columns ``topic, docno, grade`` or
        ``query_id, doc_id, relevance``; or a dict
        ``{topic: {docno: grade}}``.

    Returns
    -------
    pandas.DataFrame
        Columns ``topic`` (str), ``docno`` (str), ``grade`` (float64) in
        input order, with a fresh ``RangeIndex``.

    Raises
    ------
    InputError
        If the input is malformed (wrong number of fields, a grade that is
        not a finite number, a duplicated ``(topic, docno)`` pair, missing
        columns, no judgements at all, ...).
    FileNotFoundError
        If `source` is a path that does not exist.
    TypeError
        If `source` is none of the accepted types.

    Examples
    --------
    >>> import cwla
    >>> cwla.read_qrels({"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}})
      topic docno  grade
    0    q1    d1    2.0
    1    q1    d2    0.0
    2    q2    d3    1.0

    A TREC qrels file (``qid iter docno grade``) reads the same way:

    >>> import os, tempfile
    >>> folder = tempfile.TemporaryDirectory()   # removed when it is dropped
    >>> path = os.path.join(folder.name, "qrels.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("q1 0 d1 2\\nq1 0 d2 0\\n")
    >>> cwla.read_qrels(path)["grade"].tolist()
    [2.0, 0.0]
    """
    return _read(source, QRELS_FORMAT, "read_qrels")


def read_run(source: RunLike) -> pd.DataFrame:
    """Read a system run into a canonical DataFrame.

    Parameters
    ----------
    source : str, os.PathLike, pandas.DataFrame or dict
        A path to a TREC run file (``qid Q0 docno rank score tag``, plain or
        gzip); a DataFrame with columns ``topic, docno, score`` and optionally
        ``rank`` (or ir_measures' ``query_id, doc_id, score``); or a dict
        ``{topic: {docno: score}}``.

    Returns
    -------
    pandas.DataFrame
        Columns ``topic`` (str), ``docno`` (str), ``score`` (float64) and
        ``rank`` (int64) in input order, with a fresh ``RangeIndex``. When the
        input has no rank, rows are numbered ``1..n`` within each topic in
        input order.

    Raises
    ------
    InputError
        If the input is malformed (wrong number of fields, a score that is not
        a finite number, a rank that is not an integer, a docno retrieved
        twice for one topic, missing columns, no lines at all, ...).
    FileNotFoundError
        If `source` is a path that does not exist.
    TypeError
        If `source` is none of the accepted types.

    Examples
    --------
    >>> import cwla
    >>> cwla.read_run({"q1": {"d1": 1.5, "d2": 0.5}})
      topic docno  score  rank
    0    q1    d1    1.5     1
    1    q1    d2    0.5     2

    A TREC run file (``qid Q0 docno rank score tag``):

    >>> import os, tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = os.path.join(folder.name, "bm25.run")
    >>> with open(path, "w") as f:
    ...     _ = f.write("q1 Q0 d2 1 9.5 bm25\\nq1 Q0 d1 2 7.0 bm25\\n")
    >>> cwla.read_run(path)["docno"].tolist(), cwla.run_name(path)
    (['d2', 'd1'], 'bm25.run')
    """
    return _read(source, RUN_FORMAT, "read_run")


def read_costs(source: QrelsLike) -> pd.DataFrame:
    """Read per-document costs (``cwla.evaluate(costs=...)``) into a canonical DataFrame.

    Parameters
    ----------
    source : str, os.PathLike, pandas.DataFrame or dict
        A path to a file shaped as TREC qrels whose fourth column is the cost (``qid iter docno cost``,
        plain or gzip); a DataFrame with columns ``topic, docno, cost`` (or ir_measures'
        ``query_id, doc_id, cost``), or a qrels-shaped DataFrame whose ``grade`` (``relevance``,
        ``label``) column holds the cost (a ``cost`` column, where there is one, is the cost); a dict
        ``{topic: {docno: cost}}``; also an object with ``to_dict()`` giving that dict, or records with
        attributes ``query_id, doc_id, cost``.

    Returns
    -------
    pandas.DataFrame
        Columns ``topic`` (str), ``docno`` (str), ``cost`` (float64) in input order, with a fresh
        ``RangeIndex``.

    Raises
    ------
    InputError
        If the input is malformed, as :func:`read_qrels` says, or a cost is not a finite number > 0 (the
        message names the line, row or dict entry).
    FileNotFoundError
        If `source` is a path that does not exist.
    TypeError
        If `source` is none of the accepted types.

    Examples
    --------
    >>> import cwla
    >>> cwla.read_costs({"q1": {"d1": 2.0, "d2": 1.0}})
      topic docno  cost
    0    q1    d1   2.0
    1    q1    d2   1.0
    """
    if isinstance(source, pd.DataFrame) and "cost" in source.columns:
        # a qrels frame with a cost column: the cost column is the cost, its grade column is not
        source = source.drop(columns=[c for c in COSTS_FORMAT.names["cost"][1:] if c in source.columns])
    return _read(source, COSTS_FORMAT, "read_costs")


def run_name(path: PathLike) -> str:
    """Return the system id of a run file: its name without directory or ``.gz``.

    Parameters
    ----------
    path : str or os.PathLike
        Path to a run file.

    Returns
    -------
    str
        The file name without its directory and without a trailing ``.gz``,
        e.g. ``'p_bert'`` for ``'runs/p_bert.gz'``.
    """
    name = os.path.basename(os.fsdecode(check(path, "path", PATH, func="run_name")))
    if name.endswith(".gz"):
        name = name[: -len(".gz")]
    return name


# ---------------------------------------------------------------------------
# dispatch
# ---------------------------------------------------------------------------


def accepted_forms(fmt: Format, func: str) -> str:
    """The sentence that lists every accepted form of a qrels or run source."""
    fields = "query_id, doc_id, " + ("relevance" if fmt.value == "grade" else fmt.value)
    return (
        f"{func}() accepts a path to a TREC {fmt.kind} file ({fmt.layout}; str or os.PathLike), "
        f"a pandas DataFrame with columns {fmt.accepted_columns} (PyTerrier's and ir_datasets' names "
        f"included), a dict {{topic: {{docno: {fmt.value}}}}}, an object with to_dict() giving that dict "
        f"(ranx), or an iterable of records with attributes {fields} (ir_datasets' namedtuples)"
    )


def _read(source, fmt: Format, func: str) -> pd.DataFrame:
    """Dispatch on the type of `source`."""
    if isinstance(source, (str, os.PathLike)):
        return _read_file(source, fmt)
    if isinstance(source, pd.DataFrame):
        return _read_frame(source, fmt)
    if isinstance(source, Mapping):
        return _read_dict(source, fmt)
    if callable(getattr(source, "to_dict", None)):  # ranx's Qrels and Run, and their kin
        try:
            data = source.to_dict()
        except Exception as err:  # noqa: BLE001 - whatever it raises, say which object failed
            raise InputError(f"{func}(): {type(source).__name__}.to_dict() failed ({err})") from None
        if not isinstance(data, Mapping):
            raise InputError(f"{func}(): {type(source).__name__}.to_dict() gave a {type(data).__name__}; "
                             f"accepted: a dict {{topic: {{docno: {fmt.value}}}}}")
        return _read_dict(data, fmt, what=f"{fmt.kind} {type(source).__name__}.to_dict()")
    if isinstance(source, Iterable) and not isinstance(source, (bytes, bytearray)):
        return _read_records(source, fmt, func)
    raise ParameterError(f"{accepted_forms(fmt, func)}; got {type(source).__name__}")


def is_record(item) -> bool:
    """True for an ir_datasets-style record: a namedtuple (or object) with a query and a document id."""
    names = _record_fields(item)
    return any(n in names for n in TOPIC_NAMES) and any(n in names for n in DOCNO_NAMES)


def _record_fields(item) -> tuple:
    fields = getattr(type(item), "_fields", None)
    if fields is not None:
        return tuple(fields)
    if isinstance(item, (str, bytes, Mapping, tuple, list, pd.DataFrame, pd.Series)) or item is None \
            or callable(getattr(item, "to_dict", None)):
        return ()  # a run or a qrels (a frame, a ranx object), not one record of it
    values = ("relevance", "grade", "label", "score", "rank", "cost")
    return tuple(n for n in TOPIC_NAMES + DOCNO_NAMES + values if hasattr(item, n))


def _read_records(records, fmt: Format, func: str) -> pd.DataFrame:
    """An iterable of records (ir_datasets' ``qrels_iter()``, ``scoreddocs_iter()``): read through once."""
    what = f"{fmt.kind} records"
    iterator = iter(records)
    first = next(iterator, None)
    if first is None:
        raise InputError(f"{what} are empty: the iterable gave nothing ({accepted_forms(fmt, func)})")
    fields = _record_fields(first)
    if not is_record(first):
        raise ParameterError(f"{accepted_forms(fmt, func)}; got an iterable whose first item is {_short_repr(first)}")
    chosen = {}
    for role, names in fmt.names.items():
        present = [n for n in names if n in fields]
        if present:
            chosen[role] = present[0]
        elif role != "rank":
            raise InputError(
                f"{what}: the first record ({_short_repr(first)}) has no attribute {' or '.join(names)}; "
                f"{accepted_forms(fmt, func)}"
            )
    getters = {role: operator.attrgetter(name) for role, name in chosen.items()}
    columns: dict[str, list] = {role: [] for role in chosen}
    try:
        for record in itertools.chain([first], iterator):
            for role, get in getters.items():
                columns[role].append(get(record))
    except AttributeError as err:
        raise InputError(f"{what}, record {len(columns['topic']) + 1}: {err}; every record needs the "
                         f"attributes {', '.join(chosen.values())}") from None

    def where(i: int) -> str:
        return f"{what}, record {i + 1}"

    def short(i: int) -> str:
        return f"record {i + 1}"

    series = {role: pd.Series(values, dtype=object) for role, values in columns.items()}
    return checked_columns(series, dict(chosen), fmt, where, short)


def _short_repr(item) -> str:
    text = repr(item)
    return text if len(text) <= 80 else text[:77] + "..."


# ---------------------------------------------------------------------------
# files
# ---------------------------------------------------------------------------


def _read_file(path, fmt: Format) -> pd.DataFrame:
    """Read a qrels or run file: fast path, falling back to the precise scan."""
    label = os.fsdecode(path)
    data = read_bytes(path, fmt.kind, layout=fmt.layout)
    frame = _read_file_fast(data, fmt)
    if frame is None:
        frame = _read_file_slow(data, label, fmt)
    if fmt is QRELS_FORMAT:
        refuse_topic_all(frame, lambda i: f"{label}, line {_line_of_topic(data, label, 'all')}")
    return frame


def _line_of_topic(data: bytes, label: str, topic: str) -> int:
    """The first physical line whose first field is ``topic``."""
    for lineno, fields in line_fields(data, label, comments=True):
        if fields[0] == topic:
            return lineno
    return 0


_COMMENT_LINE = re.compile(rb"^[ \t\v\f]*#[^\n]*(?:\n|\Z)", re.MULTILINE)


def _read_file_fast(data: bytes, fmt: Format) -> pd.DataFrame | None:
    """Parse with pandas' C parser; return None if anything looks wrong."""
    if any(sep in data for sep in _RARE_SEPARATORS):
        return None
    if fmt.comments and b"#" in data:
        data = _COMMENT_LINE.sub(b"", data)  # whole comment lines; a '#' inside a docno is data
    dtype = {i: str for i in range(fmt.ncols)}
    for field, _, kind in fmt.numeric:
        dtype[field] = "int64" if kind == "int" else "float64"
    try:
        with warnings.catch_warnings():
            # e.g. "invalid value encountered in cast" for a rank of 1e400
            warnings.simplefilter("ignore", RuntimeWarning)
            raw = pd.read_csv(
                io.BytesIO(data),
                sep=r"\s+",
                header=None,
                engine="c",
                dtype=dtype,
                compression=None,
                quoting=csv.QUOTE_NONE,
                na_filter=False,
                encoding="utf-8",
                low_memory=False,
            )
    except Exception:  # noqa: BLE001 - any failure: the line scan explains it
        # ParserError, EmptyDataError, UnicodeDecodeError, failed conversions
        # (ValueError), huge integers (OverflowError), ...
        return None
    if raw.shape[1] != fmt.ncols or raw.empty:
        return None
    # A short line leaves its last field empty (na_filter=False) or, if that
    # field is numeric, fails its conversion above.
    last = fmt.ncols - 1
    if dtype[last] is str and (raw[last] == "").any():
        return None
    values = {}
    for field, column, kind in fmt.numeric:
        array = raw[field].to_numpy()
        if array.dtype != (np.int64 if kind == "int" else np.float64):
            return None
        if kind != "int" and not np.isfinite(array).all():
            return None
        if kind == "cost" and not (array > 0).all():
            return None
        values[column] = array
    frame = canonical_frame(raw[_TOPIC_FIELD], raw[_DOCNO_FIELD], values, fmt)
    if _has_duplicates(frame):
        return None
    return frame


def _has_duplicates(frame: pd.DataFrame) -> bool:
    """True if a ``(topic, docno)`` pair occurs twice (vectorised)."""
    topic_codes, _ = pd.factorize(frame["topic"].to_numpy())
    docno_codes, docnos = pd.factorize(frame["docno"].to_numpy())
    keys = topic_codes.astype(np.int64) * len(docnos) + docno_codes
    return len(pd.unique(keys)) != len(keys)


def _read_file_slow(data: bytes, label: str, fmt: Format) -> pd.DataFrame:
    """Scan the file line by line; raise InputError at the first bad line.

    If no line is at fault (the fast path failed for a reason the scan does
    not reproduce), the scanned values are returned.
    """
    topics: list[str] = []
    docnos: list[str] = []
    values: dict[str, list] = {column: [] for _, column, _ in fmt.numeric}
    first_seen: dict[tuple[str, str], int] = {}
    nul_seen: dict[tuple[str, str], tuple[str, int]] = {}
    for lineno, fields in line_fields(data, label, comments=fmt.comments):
        where = f"{label}, line {lineno}"
        if len(fields) < fmt.ncols or (len(fields) > fmt.ncols and not fmt.extra_columns):
            raise InputError(
                f"{where}: expected {fmt.ncols} columns ({fmt.layout}), found {len(fields)}"
            )
        parsed = {}
        for field, column, kind in fmt.numeric:
            try:
                parsed[column] = _parse_token(fields[field], column, kind)
            except _Problem as exc:
                raise InputError(f"{where}: {exc}") from None
        topic, docno = fields[_TOPIC_FIELD], fields[_DOCNO_FIELD]
        first = first_seen.setdefault((topic, docno), lineno)
        if first != lineno:
            raise InputError(
                f"{where}: docno {docno!r} appears twice for topic {topic!r} "
                f"(first at line {first})"
            )
        if "\0" in docno:
            head = nul_seen.setdefault((topic, docno.split("\0")[0]), (docno, lineno))
            if head[0] != docno:
                raise InputError(f"{where}: {nul_message(docno, head[0], topic)} (line {head[1]})")
        topics.append(topic)
        docnos.append(docno)
        for column, value in parsed.items():
            values[column].append(value)
    if not topics:
        return _empty(fmt, f"{label} is empty: no {fmt.kind} lines (expected lines of {fmt.ncols} "
                           f"whitespace-separated fields: {fmt.layout})")
    return canonical_frame(topics, docnos, values, fmt)


def _empty(fmt: Format, message: str) -> pd.DataFrame:
    """An empty source: a run with no documents scores 0 on every topic, with a warning (as pytrec_eval and
    ir_measures score it); empty qrels or costs are refused (nothing could be measured)."""
    if fmt is not RUN_FORMAT:
        raise InputError(message)
    warnings.warn(f"{message}; every topic scores 0", EmptyRunWarning, stacklevel=2)
    return canonical_frame([], [], {column: [] for _, column, _ in fmt.numeric}, fmt)


def line_fields(data: bytes, label: str, *, comments: bool = False):
    """Yield ``(line number, fields)`` of every line of a TREC file's content that is neither blank nor (with
    ``comments``) a comment, split into fields as the readers split them (module docstring)."""
    for lineno, line in _physical_lines(data, label):
        stripped = line.strip(_FIELD_SEP_CHARS)
        if stripped and not (comments and stripped.startswith("#")):
            yield lineno, _FIELD_SEP_RE.split(stripped)


def _physical_lines(data: bytes, label: str):
    """Yield ``(line number, text)`` for each physical line of the content (:func:`decoded_lines`)."""
    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM):]
    return decoded_lines(data, label, hint="; accepted: UTF-8 text")


def _parse_token(token: str, column: str, kind: str):
    """Parse one numeric field (``kind``: see :class:`Format`); raise _Problem naming the column and token."""
    if kind == "int":
        if _INT_RE.match(token):
            # more than 20 characters cannot be an int64 (and would be slow)
            value = int(token) if len(token) <= 20 else INT64_MAX + 1
        elif _FLOAT_RE.match(token) and float(token).is_integer():
            value = int(float(token))
        else:
            raise _Problem(f"{column} {token!r} is not an integer")
        if not INT64_MIN <= value <= INT64_MAX:
            raise _Problem(f"{column} {token!r} is out of the 64-bit integer range")
        return value
    rule = f"; {COST_RULE}" if kind == "cost" else ""
    if _FLOAT_RE.match(token):
        value = float(token)
        if math.isfinite(value) and (kind != "cost" or value > 0):
            return value
        if math.isfinite(value):
            raise _Problem(f"{column} {token!r} is not > 0{rule}")
    elif not _NONFINITE_RE.match(token):
        raise _Problem(f"{column} {token!r} is not a number{rule}")
    raise _Problem(f"{column} {token!r} is not a finite number{rule}")


# ---------------------------------------------------------------------------
# DataFrames and dicts
# ---------------------------------------------------------------------------


def frame_columns(frame: pd.DataFrame, fmt: Format, what: str) -> dict[str, str]:
    """Which column of ``frame`` plays each role (topic, docno, value[, rank]); a clear error if one is
    missing, appears twice, or two columns claim the same role."""
    found = list(frame.columns)
    chosen, missing = {}, []
    for role, names in fmt.names.items():
        present = [n for n in names if n in found]
        if len(present) > 1:
            raise InputError(f"{what} has columns {present}, which all name the {role}; keep one "
                             f"(accepted: {fmt.accepted_columns})")
        if present:
            chosen[role] = present[0]
        elif role != "rank":
            missing.append(role if len(names) == 1 else " or ".join(names))
    if missing:
        raise InputError(f"{what} is missing columns {missing} (found {found}); accepted: {fmt.accepted_columns}")
    duplicated = [c for c in chosen.values() if found.count(c) > 1]
    if duplicated:
        raise InputError(f"{what} has duplicate columns {duplicated}; each of {fmt.accepted_columns} must appear once")
    return chosen


def _read_frame(frame: pd.DataFrame, fmt: Format) -> pd.DataFrame:
    """Validate and canonicalise a DataFrame source."""
    what = f"{fmt.kind} DataFrame"
    chosen = frame_columns(frame, fmt, what)
    if fmt is RUN_FORMAT:
        for column in SYSTEM_COLUMNS:
            if column in frame.columns and frame[column].nunique(dropna=False) > 1:
                raise InputError(f"{what} holds several runs (column {column!r} has "
                                 f"{frame[column].nunique(dropna=False)} values); pass it to cwla.prepare, "
                                 f"cwla.read_runs or cwla.evaluate, which read one run per {column}")
    if frame.empty:
        return _empty(fmt, f"{what} is empty: no rows (expected columns {fmt.accepted_columns})")
    labels = frame.index
    by_position = not labels.is_unique  # e.g. after pd.concat: name rows by their position instead

    def short(i: int) -> str:
        return f"row {i} (by position)" if by_position else f"row {value_text(labels[i])}"

    def where(i: int) -> str:
        return f"{what}, {short(i)}"

    columns = {role: frame[name] for role, name in chosen.items()}
    return checked_columns(columns, dict(chosen), fmt, where, short)


def _read_dict(source: Mapping, fmt: Format, what: str | None = None) -> pd.DataFrame:
    """Validate and canonicalise a ``{topic: {docno: value}}`` source."""
    what = what or f"{fmt.kind} dict"
    value_name = fmt.value
    topic_keys: list = []
    docno_keys: list = []
    values: list = []
    for topic, docs in source.items():
        if not isinstance(docs, Mapping):
            raise InputError(
                f"{what}: the value for topic {topic!r} is a {type(docs).__name__}; "
                f"accepted: {{topic: {{docno: {value_name}}}}}"
            )
        for docno, value in docs.items():
            topic_keys.append(topic)
            docno_keys.append(docno)
            values.append(value)
    if not values:
        return _empty(fmt, f"{what} is empty: no (topic, docno) entries "
                           f"(expected {{topic: {{docno: {value_name}}}}})")

    def where(i: int) -> str:
        return f"{what}, topic {topic_keys[i]!r}, docno {docno_keys[i]!r}"

    def short(i: int) -> str:
        return f"topic {topic_keys[i]!r}, docno {docno_keys[i]!r}"

    columns = {
        "topic": pd.Series(topic_keys, dtype=object),
        "docno": pd.Series(docno_keys, dtype=object),
        value_name: pd.Series(values, dtype=object),
    }
    display = {"topic": "topic", "docno": "docno", value_name: value_name}
    return checked_columns(columns, display, fmt, where, short)


