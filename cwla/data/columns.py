"""A reader's columns checked and made canonical: what every source of qrels, runs and costs ends as.

Whatever a reader was given -- a file, a DataFrame, a dict, records -- its columns come here as arrays:
topics and docnos become strings (numbers as their text, never ``1.0``), a grade or score a finite float, a
rank an integer in the 64-bit range, a cost a finite float > 0; a value that is none of these is refused with
the column, the row and the accepted forms. Docnos with a NUL byte, the topic ``all`` (trec_eval's summary
line) and strings a UTF-8 file could not hold are refused where they would otherwise be misread.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable

import numpy as np
import pandas as pd

from ..errors import InputError
from .trec_format import FLOAT_RE, INT_RE, NONFINITE_RE
from .trec_format import COST_RULE, INT64_MAX, INT64_MIN, QRELS_FORMAT, RUN_FORMAT, Format

__all__ = ["checked_columns", "canonical_frame", "check_encodable", "nul_clash", "nul_message", "refuse_topic_all",
           "value_text"]

def check_encodable(values: np.ndarray, column: str, fmt: Format) -> None:
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


def canonical_frame(topic, docno, values: dict, fmt: Format) -> pd.DataFrame:
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


def nul_message(docno: str, other: str, topic: str) -> str:
    return (f"docnos {docno!r} and {other!r} of topic {topic!r} differ only after a NUL byte, where trec_eval "
            f"(which compares docnos as C strings) sees one docno twice; remove the NUL bytes")


def nul_clash(topic: np.ndarray, docno: np.ndarray):
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


def refuse_topic_all(frame: pd.DataFrame, where) -> None:
    """The per-topic outputs (trec_eval's ``-q``, cwla's TSV) use ``all`` for the mean; a qrels topic of
    that name would be mistaken for it."""
    rows = np.flatnonzero(frame["topic"].to_numpy() == "all")
    if len(rows):
        raise InputError(f"{where(int(rows[0]))}: a qrels topic is named 'all', the name trec_eval's and cwla's "
                         f"per-topic outputs give the mean over topics; rename the topic")


def checked_columns(
    columns: dict[str, pd.Series],
    display: dict[str, str],
    fmt: Format,
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
    fmt : Format
        Qrels or run.
    where, short : callable
        Map a row position to a long / short description for messages.
    """
    topic = _string_column(columns["topic"], display["topic"], where)
    docno = _string_column(columns["docno"], display["docno"], where)
    for column, strings in (("topic", topic), ("docno", docno)):
        check_encodable(strings, column, fmt)
    values = {}
    for _, column, kind in fmt.numeric:
        if column not in columns:
            continue
        series = columns[column]
        if kind == "int":
            values[column] = _int_column(series, display[column], where)
        else:
            values[column] = _float_column(series, display[column], where, kind)
    if fmt is RUN_FORMAT and "rank" not in values:
        values["rank"] = pd.Series(topic).groupby(topic, sort=False).cumcount().to_numpy() + 1
    frame = canonical_frame(topic, docno, values, fmt)
    dup = frame.duplicated(["topic", "docno"]).to_numpy()
    if dup.any():
        i = int(np.argmax(dup))
        t, d = frame.at[i, "topic"], frame.at[i, "docno"]
        same = (frame["topic"].to_numpy() == t) & (frame["docno"].to_numpy() == d)
        j = int(np.argmax(same))
        raise InputError(
            f"{where(i)}: docno {d!r} appears twice for topic {t!r} (first at {short(j)})"
        )
    clash = nul_clash(frame["topic"].to_numpy(), frame["docno"].to_numpy())
    if clash:
        i, j = clash
        raise InputError(f"{where(i)}: {nul_message(frame.at[i, 'docno'], frame.at[j, 'docno'], frame.at[i, 'topic'])}"
                         f" (first at {short(j)})")
    if fmt is QRELS_FORMAT:
        refuse_topic_all(frame, where)
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
            f"{where(i)}: {name} is missing ({value_text(series.iloc[i])}); "
            f"accepted: a non-empty string or an integer"
        )
    text = series.astype(str).to_numpy()
    empty = text == ""
    if empty.any():
        i = int(np.argmax(empty))
        raise InputError(f"{where(i)}: {name} is an empty string; accepted: a non-empty string")
    return text


def _refuse_first(series: pd.Series, bad: np.ndarray, name: str, where, rule: str, problem) -> None:
    """An InputError at the first ``bad`` value, saying where, the value and what is wrong with it (a complex
    number is not a real one; else ``problem(value)``), then ``rule``."""
    if bad.any():
        i = int(np.argmax(bad))
        raw = series.iloc[i]
        what = "is not a real number" if _is_complex(raw) else problem(raw)
        raise InputError(f"{where(i)}: {name} {value_text(raw)} {what}{rule}")


def _float_column(series: pd.Series, name: str, where, kind: str = "float") -> np.ndarray:
    """Convert values to float64; reject non-numbers, non-real and non-finite numbers, and (``kind="cost"``)
    numbers that are not > 0."""
    numbers = _to_float_array(series)
    rule = f"; {COST_RULE}" if kind == "cost" else ""
    _refuse_first(series, ~np.isfinite(numbers), name, where, rule,
                  lambda raw: "is not a finite number" if _is_numberlike(raw) else "is not a number")
    if kind == "cost" and not (numbers > 0).all():
        i = int(np.argmax(~(numbers > 0)))
        raise InputError(f"{where(i)}: {name} {value_text(series.iloc[i])} is not > 0{rule}")
    return numbers


def _int_column(series: pd.Series, name: str, where) -> np.ndarray:
    """Convert values to int64; reject anything that is not an integer, or not in the 64-bit integer range."""
    numbers = _to_float_array(series)
    _refuse_first(series, ~np.isfinite(numbers) | (numbers != np.floor(numbers)), name, where, "",
                  lambda raw: "is out of the 64-bit integer range" if _is_huge_int(raw) else "is not an integer")
    if pd.api.types.is_signed_integer_dtype(series.dtype):
        return series.to_numpy(dtype=np.int64)
    if pd.api.types.is_unsigned_integer_dtype(series.dtype):
        values = series.to_numpy(dtype=np.uint64)
        above = values > INT64_MAX
        if above.any():
            i = int(np.argmax(above))
            raise InputError(f"{where(i)}: {name} {value_text(series.iloc[i])} is out of the 64-bit integer range")
        return values.astype(np.int64)
    # as floats, every value outside the int64 range is >= 2**63 or <= -2**63; so are a few inside it (2**63 - 1
    # rounds to 2**63), which the exact value decides
    edge = (numbers >= 2.0**63) | (numbers <= -(2.0**63))
    out = np.where(edge, 0, numbers).astype(np.int64)
    for i in np.flatnonzero(edge):
        value = _exact_int(series.iloc[i])
        if not INT64_MIN <= value <= INT64_MAX:
            raise InputError(f"{where(i)}: {name} {value_text(series.iloc[i])} is out of the 64-bit integer range")
        out[i] = value
    return out


def _exact_int(value) -> int:
    """The integer an integral number (int, float, numeric str; complex with no imaginary part) stands for,
    exactly (``"9223372036854775807.0"`` is 2**63 - 1, not the float 2**63)."""
    if isinstance(value, str):
        token = value.strip()
        return int(token) if INT_RE.match(token) else int(decimal.Decimal(token))
    if isinstance(value, (complex, np.complexfloating)):
        value = value.real
    return int(value)


def _is_huge_int(value) -> bool:
    """True for an int, or a string of an int, too large for a float64 (which the float conversion makes NaN)."""
    if isinstance(value, str):
        return bool(INT_RE.match(value.strip()))
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
        return bool(FLOAT_RE.match(token) or NONFINITE_RE.match(token))
    return False


def value_text(value) -> str:
    """Format a value for a message: strings quoted, anything else plain; the middle of one over 60
    characters cut, with its length."""
    if isinstance(value, np.generic):
        value = value.item()
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 60 else f"{text[:30]}...{text[-10:]} ({len(text)} characters)"
