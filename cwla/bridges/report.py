"""What a command prints: a report that says what was computed, what its names mean, and its tables.

Every table-printing command of ``cwla`` and ``discpower`` builds one :class:`Report` and prints it with
:func:`render` in the format its ``--format`` asks for:

``tsv`` (the default)
    ``#`` lines first (what was computed, then what the measures mean), then each table as TSV: a header
    line, one line per row. ``pandas.read_csv(path, sep="\\t", comment="#")`` reads a one-table report back.
``jsonl``
    one JSON object a line: first ``{"record": "header", "report": ..., <facts>, "glossary": {...}}``, then
    ``{"record": "row", "table": ..., <columns>}`` per row (NaN as ``null``): ``jq 'select(.record == "row")'``.
``markdown``
    the facts as a list, the glossary, and each table as a pipe table, for a notebook, an issue or a paper's
    notes.

Examples
--------
>>> import pandas as pd
>>> r = Report("demo", facts=(("metric", "nDCG@10"),), glossary=(("value", "the mean over topics"),),
...            tables=(("means", pd.DataFrame({"run": ["a"], "value": [0.5]})),))
>>> print(render(r, "tsv"))
# demo
# metric: nDCG@10
# value: the mean over topics
run	value
a	0.500000
<BLANKLINE>
"""

from __future__ import annotations

import json
import math

import attrs
import numpy as np
import pandas as pd

from .._display import markdown_text
from ..errors import CwlaError

__all__ = ["Report", "render", "FORMATS"]

#: the formats :func:`render` writes (what ``--format`` accepts beside a command's own)
FORMATS = ("tsv", "jsonl", "markdown")


@attrs.frozen
class Report:
    """A command's output as plain data.

    Attributes
    ----------
    title : str
        What the command computed, in a few words (``"discpower compare-qrels: candidate qrels against the
        ground truth"``).
    facts : tuple of (name, value)
        The settings and sizes a reader needs to interpret the numbers (metric, test, B, alpha, seed, topics,
        runs, files).
    glossary : tuple of (term, meaning)
        What each measure or column means, said once.
    tables : tuple of (caption, DataFrame)
        The tables, each with a caption (printed when there are several).
    """

    title: str
    facts: tuple = attrs.field(converter=tuple, default=())
    glossary: tuple = attrs.field(converter=tuple, default=())
    tables: tuple = attrs.field(converter=tuple, default=())


def render(report: Report, fmt: str = "tsv", *, digits: int = 6, header: bool = True) -> str:
    """The report as text in ``fmt`` (:data:`FORMATS`), numbers with ``digits`` decimals (tsv, markdown);
    ``header=False`` leaves out the title, facts and glossary (tsv: the bare tables).

    Examples
    --------
    >>> import pandas as pd
    >>> r = Report("t", tables=(("x", pd.DataFrame({"a": [1], "b": [float("nan")]})),))
    >>> print(render(r, "jsonl"))
    {"record": "header", "report": "t"}
    {"record": "row", "table": "x", "a": 1, "b": null}
    <BLANKLINE>
    """
    if not header:
        report = Report(report.title, tables=report.tables)
    if fmt == "tsv":
        return _tsv(report, digits, header)
    if fmt == "jsonl":
        return _jsonl(report)
    if fmt == "markdown":
        return _markdown(report, digits)
    raise CwlaError(f"unknown report format {fmt!r}: accepted are {', '.join(FORMATS)}")


def _cell(value, digits: int) -> str:
    """A value as text: integers as they are, floats with ``digits`` decimals, NaN as ``nan``, no ``-0``,
    a missing value (None, pandas' NA) as an empty cell."""
    if value is None or value is pd.NA:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value):
            return "nan"
        text = f"{value:.{digits}f}"
        return text[1:] if text.startswith("-") and float(text) == 0 else text
    return str(value)


def _json_value(value):
    if value is None or value is pd.NA:
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return None if not math.isfinite(float(value)) else float(value)
    return value if value is None or isinstance(value, str) else str(value)


def _rows(frame: pd.DataFrame) -> list[list]:
    return [list(row) for row in frame.itertuples(index=False, name=None)]


def _tsv(report: Report, digits: int, header: bool = True) -> str:
    lines = [f"# {report.title}"] if header else []
    lines += [f"# {name}: {value}" for name, value in report.facts]
    lines += [f"# {term}: {meaning}" for term, meaning in report.glossary]
    several = len(report.tables) > 1
    for k, (caption, frame) in enumerate(report.tables):
        if several:
            lines += ([""] if k else []) + [f"# {caption}"]
        lines.append("\t".join(str(c) for c in frame.columns))
        lines += ["\t".join(_cell(v, digits) for v in row) for row in _rows(frame)]
    return "\n".join(lines) + "\n"


def _jsonl(report: Report) -> str:
    header = {"record": "header", "report": report.title}
    header.update({str(name): _json_value(value) for name, value in report.facts})
    if report.glossary:
        header["glossary"] = {str(term): str(meaning) for term, meaning in report.glossary}
    lines = [json.dumps(header)]
    for caption, frame in report.tables:
        columns = [str(c) for c in frame.columns]
        for row in _rows(frame):
            record = {"record": "row", "table": caption}
            record.update({c: _json_value(v) for c, v in zip(columns, row)})
            lines.append(json.dumps(record))
    return "\n".join(lines) + "\n"


def _markdown(report: Report, digits: int) -> str:
    out = [f"**{markdown_text(report.title)}**", ""]
    out += [f"- {markdown_text(name)}: {markdown_text(value)}" for name, value in report.facts]
    if report.glossary:
        out += ["", "Where:", ""] + [f"- **{markdown_text(t)}**: {markdown_text(m)}" for t, m in report.glossary]
    for caption, frame in report.tables:
        out += ["", f"*{markdown_text(caption)}*", ""] if caption else [""]
        numeric = [pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns]
        out.append("| " + " | ".join(markdown_text(c) for c in frame.columns) + " |")
        out.append("|" + "|".join("---:" if n else ":---" for n in numeric) + "|")
        out += ["| " + " | ".join(markdown_text(_cell(v, digits)) for v in row) + " |" for row in _rows(frame)]
    return "\n".join(out) + "\n"
