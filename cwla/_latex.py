"""LaTeX output shared by every ``to_latex`` of cwla and discpower (no jinja2, no pandas Styler).

:func:`escape` makes any label safe in LaTeX text (``RBP_ERG`` -> ``RBP\\_ERG``);
:func:`tabular` writes a DataFrame as a ``tabular`` with ``\\hline`` rules: numbers
right-aligned with a fixed number of decimals, integers as integers, NaN as ``--``,
text left-aligned and escaped.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence
from .errors import CwlaError

import numpy as np
import pandas as pd

__all__ = ["escape", "tabular", "number", "bold", "superscript", "row", "grid", "table", "inline_math"]

_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def escape(text) -> str:
    """``text`` with LaTeX's special characters escaped, so it prints as written."""
    return "".join(_SPECIAL.get(ch, ch) for ch in str(text))


def cell_text(value, real, nan: str, booleans: tuple[str, str], other) -> str:
    """A table cell as text: a boolean as ``booleans`` (true, false), an integer as an integer, another real
    number as ``real(float)`` (NaN as ``nan``), anything else as ``other(value)``; numpy's scalars as Python's."""
    if isinstance(value, (bool, np.bool_)):
        return booleans[0] if value else booleans[1]
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        value = float(value)
        return nan if value != value else real(value)
    return other(value)


def number(value, digits: int) -> str:
    """A cell: integers as integers, floats with ``digits`` decimals (-0.00 as 0.00), NaN as ``--``, text
    escaped."""

    def fixed(v: float) -> str:
        text = f"{v:.{digits}f}"
        return "0." + "0" * digits if digits and text == "-0." + "0" * digits else text

    return cell_text(value, fixed, "--", ("true", "false"), escape)


def tabular(frame: pd.DataFrame, digits: int = 4, *, index: bool = False) -> str:
    """``frame`` as a LaTeX ``tabular`` (with the index as the first column if ``index``)."""
    if index:
        frame = frame.reset_index()
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
               for c in frame.columns]
    spec = "".join("r" if is_num else "l" for is_num in numeric)
    return grid(spec, [escape(c) for c in frame.columns],
                ([number(v, digits) for v in values] for values in frame.itertuples(index=False)))


def bold(latex: str) -> str:
    """``\\textbf{latex}`` (``latex`` is LaTeX already: escape plain text first)."""
    return f"\\textbf{{{latex}}}"


def superscript(latex: str) -> str:
    """``\\textsuperscript{latex}``, or nothing for empty ``latex`` (escape plain text first)."""
    return f"\\textsuperscript{{{latex}}}" if latex else ""


def row(cells) -> str:
    """One tabular row: the cells (LaTeX) joined by ``&`` and ended by ``\\\\``."""
    return " & ".join(cells) + " \\\\"


def inline_math(latex: str) -> str:
    """``$latex$``: LaTeX math in running text (a caption)."""
    return f"${latex}$"


def grid(spec: str, header: Sequence[str], rows: Iterable[Sequence[str]], *, rules: Iterable[int] = (),
         after: Sequence[str] = (), booktabs: bool = False) -> str:
    """A ``tabular`` with column ``spec`` (``"llrr"``), one ``header`` row and the ``rows``, all cells
    LaTeX already, between ``\\hline`` rules; also a rule after each row index in ``rules`` (blocks), and the
    ``after`` lines (LaTeX comments, say) after the tabular. Every row must have one cell per column.

    ``booktabs=True``: the rules are booktabs' ``\\toprule`` (above the header), ``\\midrule`` (below it and
    between blocks) and ``\\bottomrule``, which need ``\\usepackage{booktabs}``."""
    width = len(spec)
    rules = set(rules)
    header = list(header)
    rows = [list(r) for r in rows]
    for k, cells in enumerate([header, *rows]):
        if len(cells) != width:
            what = "the header" if k == 0 else f"row {k}"
            raise CwlaError(f"{what} has {len(cells)} cells for the {width} columns of {spec!r}")
    top, mid, bottom = ("\\toprule", "\\midrule", "\\bottomrule") if booktabs else ("\\hline",) * 3
    lines = [f"\\begin{{tabular}}{{{spec}}}", top, row(header), mid]
    for k, cells in enumerate(rows):
        lines.append(row(cells))
        if k in rules and k != len(rows) - 1:
            lines.append(mid)
    lines += [bottom, "\\end{tabular}", *after]
    return "\n".join(lines)


def table(body: str, caption: str | None = None, *, label: str | None = None, placement: str = "ht") -> str:
    """``body`` (a tabular) in a centred ``table`` float with a ``caption`` (LaTeX) and an optional
    ``label`` (written with LaTeX's special characters and spaces replaced by ``-``)."""
    lines = [f"\\begin{{table}}[{placement}]", "\\centering"]
    if caption:
        lines.append(f"\\caption{{{caption}}}")
    if label:
        lines.append(f"\\label{{{_label(label)}}}")
    lines += [body, "\\end{table}"]
    return "\n".join(lines)


def _label(text: str) -> str:
    """A label key: LaTeX's special characters (and spaces) replaced by '-'."""
    return "".join("-" if ch in _SPECIAL or ch.isspace() else ch for ch in str(text))
