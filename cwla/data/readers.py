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
import decimal
import io
import math
import os
import re
import warnings
import itertools
import operator
from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple

import numpy as np
import pandas as pd

from .._validate import PATH, check
from ..errors import EmptyRunWarning, InputError, ParameterError
from ..typing import PathLike, QrelsLike, RunLike
from .files import UTF8_BOM, decoded_lines, read_bytes
from .trec_format import FLOAT_RE as _FLOAT_RE
from .trec_format import INT_RE as _INT_RE
from .trec_format import NONFINITE_RE as _NONFINITE_RE
from .trec_format import COSTS_LAYOUT, QRELS_LAYOUT, RUN_LAYOUT

__all__ = ["read_qrels", "read_run", "read_costs", "run_name"]


class _Format(NamedTuple):
    """Layout of one input kind (qrels or run)."""

    kind: str  # "qrels" or "run"
    layout: str  # the fields of a file line, for messages
    ncols: int  # number of fields of a file line (a run line may have more: the first ncols are used)
    extra_columns: bool  # lines may have more than ncols fields (trec_eval reads the first 6 of a run line)
    comments: bool  # lines whose first field starts with '#' are comments (trec_eval 10's qrels)
    # (file field, column, kind): kind "float" (a finite number), "cost" (a finite number > 0) or "int" (an
    # integer in the 64-bit range)
    numeric: tuple[tuple[int, str, str], ...]
    value: str  # the canonical name of the value column: "grade", "score" or "cost"
    # names an in-memory source may give each column (DataFrame columns, record attributes), preferred first:
    # ours, ir_datasets / ir_measures', PyTerrier's
    names: dict[str, tuple[str, ...]]
    output: tuple[str, ...]  # columns of the canonical frame, in order

    @property
    def accepted_columns(self) -> str:
        """The accepted column names, for messages."""
        parts = [" or ".join(self.names[role]) for role in ("topic", "docno", self.value)]
        rank = "[, rank]" if "rank" in self.names else ""
        return ", ".join(parts) + rank


_TOPIC_NAMES = ("topic", "query_id", "qid")
_DOCNO_NAMES = ("docno", "doc_id")

_QRELS = _Format(
    kind="qrels",
    layout=QRELS_LAYOUT,
    ncols=4,
    extra_columns=False,
    comments=True,
    numeric=((3, "grade", "float"),),
    value="grade",
    names={"topic": _TOPIC_NAMES, "docno": _DOCNO_NAMES, "grade": ("grade", "relevance", "label")},
    output=("topic", "docno", "grade"),
)

# a costs file is a qrels file whose fourth field is the cost; a qrels frame with the cost in its grade column
# is a costs frame too
_COSTS = _QRELS._replace(
    kind="costs",
    layout=COSTS_LAYOUT,
    numeric=((3, "cost", "cost"),),
    value="cost",
    names={"topic": _TOPIC_NAMES, "docno": _DOCNO_NAMES, "cost": ("cost", *_QRELS.names["grade"])},
    output=("topic", "docno", "cost"),
)

#: what a cost must be, for the messages
_COST_RULE = "costs must be finite and > 0 (cwl_eval: no free lunches)"

_RUN = _Format(
    kind="run",
    layout=RUN_LAYOUT,
    ncols=6,
    extra_columns=True,
    comments=False,
    numeric=((3, "rank", "int"), (4, "score", "float")),
    value="score",
    names={"topic": _TOPIC_NAMES, "docno": _DOCNO_NAMES, "score": ("score",), "rank": ("rank",)},
    output=("topic", "docno", "score", "rank"),
)

#: columns that name the system of each row: a frame with one holds several runs
SYSTEM_COLUMNS = ("name", "run", "system")

_TOPIC_FIELD = 0
_DOCNO_FIELD = 2

# Field separators: C's isspace() within a line (space, \t, \v, \f), as in
# trec_eval. pandas' C parser splits on spaces and tabs only, so files with
# \v or \f go to the line scan.
_FIELD_SEP_CHARS = " \t\v\f"
_FIELD_SEP_RE = re.compile(r"[ \t\v\f]+")
# \v and \f separate fields only in the line scan; a NUL byte needs its checks (see _nul_clash)
_RARE_SEPARATORS = (b"\v", b"\f", b"\0")

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1


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
    return _read(source, _QRELS, "read_qrels")


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
    return _read(source, _RUN, "read_run")


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
        source = source.drop(columns=[c for c in _COSTS.names["cost"][1:] if c in source.columns])
    return _read(source, _COSTS, "read_costs")


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


def accepted_forms(fmt: _Format, func: str) -> str:
    """The sentence that lists every accepted form of a qrels or run source."""
    fields = "query_id, doc_id, " + ("relevance" if fmt.value == "grade" else fmt.value)
    return (
        f"{func}() accepts a path to a TREC {fmt.kind} file ({fmt.layout}; str or os.PathLike), "
        f"a pandas DataFrame with columns {fmt.accepted_columns} (PyTerrier's and ir_datasets' names "
        f"included), a dict {{topic: {{docno: {fmt.value}}}}}, an object with to_dict() giving that dict "
        f"(ranx), or an iterable of records with attributes {fields} (ir_datasets' namedtuples)"
    )


def _read(source, fmt: _Format, func: str) -> pd.DataFrame:
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
    return any(n in names for n in _TOPIC_NAMES) and any(n in names for n in _DOCNO_NAMES)


def _record_fields(item) -> tuple:
    fields = getattr(type(item), "_fields", None)
    if fields is not None:
        return tuple(fields)
    if isinstance(item, (str, bytes, Mapping, tuple, list, pd.DataFrame, pd.Series)) or item is None \
            or callable(getattr(item, "to_dict", None)):
        return ()  # a run or a qrels (a frame, a ranx object), not one record of it
    values = ("relevance", "grade", "label", "score", "rank", "cost")
    return tuple(n for n in _TOPIC_NAMES + _DOCNO_NAMES + values if hasattr(item, n))


def _read_records(records, fmt: _Format, func: str) -> pd.DataFrame:
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
    return _validate(series, dict(chosen), fmt, where, short)


def _short_repr(item) -> str:
    text = repr(item)
    return text if len(text) <= 80 else text[:77] + "..."


def _check_encodable(values: np.ndarray, column: str, fmt: _Format) -> None:
    """Refuse a string UTF-8 cannot encode (a lone surrogate such as ``'\\ud800'``, which only Python
    strings can hold, never text decoded from a file): it has no bytes to compare, hash or write."""
    values = values.tolist()
    if "".join(values).isascii():  # the usual case, at C speed
        return
    for i, value in enumerate(values):
        try:
            value.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            raise InputError(f"{fmt.kind} {column} {value!r} (row {i} by position) is not text UTF-8 can encode "
                             f"(a lone surrogate); accepted: str values that are valid Unicode") from None


def _canonical(topic, docno, values: dict, fmt: _Format) -> pd.DataFrame:
    """Assemble the output frame (fresh RangeIndex, canonical dtypes).

    `topic` and `docno` are arrays or Series with a RangeIndex; `values` maps
    the numeric output columns to arrays.
    """
    data = {"topic": pd.Series(topic, dtype=str), "docno": pd.Series(docno, dtype=str)}
    kinds = {column: kind for _, column, kind in fmt.numeric}
    for column in fmt.output[2:]:
        dtype = np.int64 if kinds[column] == "int" else np.float64
        data[column] = pd.Series(np.asarray(values[column], dtype=dtype))
    return pd.DataFrame(data)


# ---------------------------------------------------------------------------
# files
# ---------------------------------------------------------------------------


def _read_file(path, fmt: _Format) -> pd.DataFrame:
    """Read a qrels or run file: fast path, falling back to the precise scan."""
    label = os.fsdecode(path)
    data = read_bytes(path, fmt.kind, layout=fmt.layout)
    frame = _read_file_fast(data, fmt)
    if frame is None:
        frame = _read_file_slow(data, label, fmt)
    if fmt is _QRELS:
        _refuse_topic_all(frame, lambda i: f"{label}, line {_line_of_topic(data, label, 'all')}")
    return frame


def _line_of_topic(data: bytes, label: str, topic: str) -> int:
    """The first physical line whose first field is ``topic``."""
    for lineno, fields in line_fields(data, label, comments=True):
        if fields[0] == topic:
            return lineno
    return 0


_COMMENT_LINE = re.compile(rb"^[ \t\v\f]*#[^\n]*(?:\n|\Z)", re.MULTILINE)


def _read_file_fast(data: bytes, fmt: _Format) -> pd.DataFrame | None:
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
    frame = _canonical(raw[_TOPIC_FIELD], raw[_DOCNO_FIELD], values, fmt)
    if _has_duplicates(frame):
        return None
    return frame


def _has_duplicates(frame: pd.DataFrame) -> bool:
    """True if a ``(topic, docno)`` pair occurs twice (vectorised)."""
    topic_codes, _ = pd.factorize(frame["topic"].to_numpy())
    docno_codes, docnos = pd.factorize(frame["docno"].to_numpy())
    keys = topic_codes.astype(np.int64) * len(docnos) + docno_codes
    return len(pd.unique(keys)) != len(keys)


def _read_file_slow(data: bytes, label: str, fmt: _Format) -> pd.DataFrame:
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
                raise InputError(f"{where}: {_nul_message(docno, head[0], topic)} (line {head[1]})")
        topics.append(topic)
        docnos.append(docno)
        for column, value in parsed.items():
            values[column].append(value)
    if not topics:
        return _empty(fmt, f"{label} is empty: no {fmt.kind} lines (expected lines of {fmt.ncols} "
                           f"whitespace-separated fields: {fmt.layout})")
    return _canonical(topics, docnos, values, fmt)


def _empty(fmt: _Format, message: str) -> pd.DataFrame:
    """An empty source: a run with no documents scores 0 on every topic, with a warning (as pytrec_eval and
    ir_measures score it); empty qrels or costs are refused (nothing could be measured)."""
    if fmt is not _RUN:
        raise InputError(message)
    warnings.warn(f"{message}; every topic scores 0", EmptyRunWarning, stacklevel=2)
    return _canonical([], [], {column: [] for _, column, _ in fmt.numeric}, fmt)


def _nul_message(docno: str, other: str, topic: str) -> str:
    return (f"docnos {docno!r} and {other!r} of topic {topic!r} differ only after a NUL byte, where trec_eval "
            f"(which compares docnos as C strings) sees one docno twice; remove the NUL bytes")


def _nul_clash(topic: np.ndarray, docno: np.ndarray):
    """``(i, j)``: rows whose docnos (same topic) are equal up to a NUL byte but differ, or None."""
    docnos = docno.tolist()
    if "\0" not in "\n".join(docnos):  # the usual case, at C speed
        return None
    seen = {}
    heads = [d.split("\0")[0] for d in docnos]
    for i in range(len(docno)):
        first = seen.setdefault((topic[i], heads[i]), i)
        if docno[first] != docno[i]:
            return i, first
    return None


def _refuse_topic_all(frame: pd.DataFrame, where) -> None:
    """The per-topic outputs (trec_eval's ``-q``, cwla's TSV) use ``all`` for the mean; a qrels topic of
    that name would be mistaken for it."""
    rows = np.flatnonzero(frame["topic"].to_numpy() == "all")
    if len(rows):
        raise InputError(f"{where(int(rows[0]))}: a qrels topic is named 'all', the name trec_eval's and cwla's "
                         f"per-topic outputs give the mean over topics; rename the topic")


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
    """Parse one numeric field (``kind``: see :class:`_Format`); raise _Problem naming the column and token."""
    if kind == "int":
        if _INT_RE.match(token):
            # more than 20 characters cannot be an int64 (and would be slow)
            value = int(token) if len(token) <= 20 else _INT64_MAX + 1
        elif _FLOAT_RE.match(token) and float(token).is_integer():
            value = int(float(token))
        else:
            raise _Problem(f"{column} {token!r} is not an integer")
        if not _INT64_MIN <= value <= _INT64_MAX:
            raise _Problem(f"{column} {token!r} is out of the 64-bit integer range")
        return value
    rule = f"; {_COST_RULE}" if kind == "cost" else ""
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


def frame_columns(frame: pd.DataFrame, fmt: _Format, what: str) -> dict[str, str]:
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


def _read_frame(frame: pd.DataFrame, fmt: _Format) -> pd.DataFrame:
    """Validate and canonicalise a DataFrame source."""
    what = f"{fmt.kind} DataFrame"
    chosen = frame_columns(frame, fmt, what)
    if fmt is _RUN:
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
        return f"row {i} (by position)" if by_position else f"row {_show(labels[i])}"

    def where(i: int) -> str:
        return f"{what}, {short(i)}"

    columns = {role: frame[name] for role, name in chosen.items()}
    return _validate(columns, dict(chosen), fmt, where, short)


def _read_dict(source: Mapping, fmt: _Format, what: str | None = None) -> pd.DataFrame:
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
    return _validate(columns, display, fmt, where, short)


def _validate(
    columns: dict[str, pd.Series],
    display: dict[str, str],
    fmt: _Format,
    where: Callable[[int], str],
    short: Callable[[int], str],
) -> pd.DataFrame:
    """Check in-memory columns and build the canonical frame.

    Parameters
    ----------
    columns : dict of str to pandas.Series
        ``topic``, ``docno``, the value column and optionally ``rank``.
    display : dict of str to str
        The user's name of each column, for messages.
    fmt : _Format
        Qrels or run.
    where, short : callable
        Map a row position to a long / short description for messages.
    """
    topic = _string_column(columns["topic"], display["topic"], where)
    docno = _string_column(columns["docno"], display["docno"], where)
    for column, strings in (("topic", topic), ("docno", docno)):
        _check_encodable(strings, column, fmt)
    values = {}
    for _, column, kind in fmt.numeric:
        if column not in columns:
            continue
        series = columns[column]
        if kind == "int":
            values[column] = _int_column(series, display[column], where)
        else:
            values[column] = _float_column(series, display[column], where, kind)
    if fmt is _RUN and "rank" not in values:
        values["rank"] = pd.Series(topic).groupby(topic, sort=False).cumcount().to_numpy() + 1
    frame = _canonical(topic, docno, values, fmt)
    dup = frame.duplicated(["topic", "docno"]).to_numpy()
    if dup.any():
        i = int(np.argmax(dup))
        t, d = frame.at[i, "topic"], frame.at[i, "docno"]
        same = (frame["topic"].to_numpy() == t) & (frame["docno"].to_numpy() == d)
        j = int(np.argmax(same))
        raise InputError(
            f"{where(i)}: docno {d!r} appears twice for topic {t!r} (first at {short(j)})"
        )
    clash = _nul_clash(frame["topic"].to_numpy(), frame["docno"].to_numpy())
    if clash:
        i, j = clash
        raise InputError(f"{where(i)}: {_nul_message(frame.at[i, 'docno'], frame.at[j, 'docno'], frame.at[i, 'topic'])}"
                         f" (first at {short(j)})")
    if fmt is _QRELS:
        _refuse_topic_all(frame, where)
    return frame


def _string_column(series: pd.Series, name: str, where) -> np.ndarray:
    """Convert topic or docno values to str; reject missing and empty ids."""
    if pd.api.types.is_float_dtype(series.dtype):
        # integer qids that went through a float column: 301.0 -> '301' (each value on its own)
        series = series.map(lambda x: str(int(x)) if np.isfinite(x) and float(x).is_integer() else x)
    missing = series.isna().to_numpy()
    if missing.any():
        i = int(np.argmax(missing))
        raise InputError(
            f"{where(i)}: {name} is missing ({_show(series.iloc[i])}); "
            f"accepted: a non-empty string or an integer"
        )
    text = series.astype(str).to_numpy()
    empty = text == ""
    if empty.any():
        i = int(np.argmax(empty))
        raise InputError(f"{where(i)}: {name} is an empty string; accepted: a non-empty string")
    return text


def _float_column(series: pd.Series, name: str, where, kind: str = "float") -> np.ndarray:
    """Convert values to float64; reject non-numbers, non-real and non-finite numbers, and (``kind="cost"``)
    numbers that are not > 0."""
    numbers = _to_float_array(series)
    rule = f"; {_COST_RULE}" if kind == "cost" else ""
    bad = ~np.isfinite(numbers)
    if bad.any():
        i = int(np.argmax(bad))
        raw = series.iloc[i]
        problem = ("is not a real number" if _is_complex(raw) else
                   "is not a finite number" if _is_numberlike(raw) else "is not a number")
        raise InputError(f"{where(i)}: {name} {_show(raw)} {problem}{rule}")
    if kind == "cost" and not (numbers > 0).all():
        i = int(np.argmax(~(numbers > 0)))
        raise InputError(f"{where(i)}: {name} {_show(series.iloc[i])} is not > 0{rule}")
    return numbers


def _int_column(series: pd.Series, name: str, where) -> np.ndarray:
    """Convert values to int64; reject anything that is not an integer, or not in the 64-bit integer range."""
    numbers = _to_float_array(series)
    bad = ~np.isfinite(numbers) | (numbers != np.floor(numbers))
    if bad.any():
        i = int(np.argmax(bad))
        raw = series.iloc[i]
        problem = ("is not a real number" if _is_complex(raw) else
                   "is out of the 64-bit integer range" if _is_huge_int(raw) else "is not an integer")
        raise InputError(f"{where(i)}: {name} {_show(raw)} {problem}")
    if pd.api.types.is_signed_integer_dtype(series.dtype):
        return series.to_numpy(dtype=np.int64)
    if pd.api.types.is_unsigned_integer_dtype(series.dtype):
        values = series.to_numpy(dtype=np.uint64)
        above = values > _INT64_MAX
        if above.any():
            i = int(np.argmax(above))
            raise InputError(f"{where(i)}: {name} {_show(series.iloc[i])} is out of the 64-bit integer range")
        return values.astype(np.int64)
    # as floats, every value outside the int64 range is >= 2**63 or <= -2**63; so are a few inside it (2**63 - 1
    # rounds to 2**63), which the exact value decides
    edge = (numbers >= 2.0**63) | (numbers <= -(2.0**63))
    out = np.where(edge, 0, numbers).astype(np.int64)
    for i in np.flatnonzero(edge):
        value = _exact_int(series.iloc[i])
        if not _INT64_MIN <= value <= _INT64_MAX:
            raise InputError(f"{where(i)}: {name} {_show(series.iloc[i])} is out of the 64-bit integer range")
        out[i] = value
    return out


def _exact_int(value) -> int:
    """The integer an integral number (int, float, numeric str; complex with no imaginary part) stands for,
    exactly (``"9223372036854775807.0"`` is 2**63 - 1, not the float 2**63)."""
    if isinstance(value, str):
        token = value.strip()
        return int(token) if _INT_RE.match(token) else int(decimal.Decimal(token))
    if isinstance(value, (complex, np.complexfloating)):
        value = value.real
    return int(value)


def _is_huge_int(value) -> bool:
    """True for an int, or a string of an int, too large for a float64 (which the float conversion makes NaN)."""
    if isinstance(value, str):
        return bool(_INT_RE.match(value.strip()))
    return isinstance(value, int) and not isinstance(value, bool)


def _to_float_array(series: pd.Series) -> np.ndarray:
    """Numeric conversion where anything unparsable becomes NaN, and so does a complex number unless its
    imaginary part is 0 (then it is its real part)."""
    if pd.api.types.is_bool_dtype(series.dtype):
        return series.to_numpy(dtype=np.float64)
    try:
        numbers = pd.to_numeric(series, errors="coerce")
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int beyond float64's range
        numbers = series.map(_float_or_nan)
    if pd.api.types.is_complex_dtype(numbers.dtype):
        values = numbers.to_numpy()
        return np.where(values.imag == 0, values.real, np.nan)
    return numbers.to_numpy(dtype=np.float64, na_value=np.nan)


def _is_complex(value) -> bool:
    """True for a complex number with a nonzero imaginary part (which no grade, score, cost or rank is)."""
    return isinstance(value, (complex, np.complexfloating)) and value.imag != 0


def _float_or_nan(value) -> float:
    """``float(value)`` for numbers and numeric strings, NaN for anything else (a complex number: as
    :func:`_to_float_array`)."""
    if isinstance(value, (complex, np.complexfloating)):
        return math.nan if value.imag else float(value.real)
    if isinstance(value, (str, int, float, np.number)):
        try:
            return float(value)
        except (TypeError, ValueError, OverflowError):
            return math.nan
    return math.nan


def _is_numberlike(value) -> bool:
    """True for numbers (including nan/inf) and strings that spell one."""
    if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        return True
    if isinstance(value, str):
        token = value.strip()
        return bool(_FLOAT_RE.match(token) or _NONFINITE_RE.match(token))
    return False


def _show(value) -> str:
    """Format a value for a message: strings quoted, anything else plain; the middle of one over 60
    characters cut, with its length."""
    if isinstance(value, np.generic):
        value = value.item()
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 60 else f"{text[:30]}...{text[-10:]} ({len(text)} characters)"
