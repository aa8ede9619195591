"""LaTeX output shared by every ``to_latex`` of cwla and discpower (no jinja2, no pandas Styler).

:func:`escape` makes any label safe in LaTeX text (``RBP_ERG`` -> ``RBP\\_ERG``);
:func:`tabular` writes a DataFrame as a ``tabular`` with ``\\hline`` rules: numbers
right-aligned with a fixed number of decimals, integers as integers, NaN as ``--``,
text left-aligned and escaped.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

__all__ = ["escape", "tabular", "number"]

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


def number(value, digits: int) -> str:
    """A cell: integers as integers, floats with ``digits`` decimals, NaN as ``--``, text escaped."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        value = float(value)
        if np.isnan(value):
            return "--"
        text = f"{value:.{digits}f}"
        return "0." + "0" * digits if digits and text == "-0." + "0" * digits else text
    return escape(value)


def tabular(frame: pd.DataFrame, digits: int = 4, *, index: bool = False) -> str:
    """``frame`` as a LaTeX ``tabular`` (with the index as the first column if ``index``)."""
    if index:
        frame = frame.reset_index()
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
               for c in frame.columns]
    spec = "".join("r" if is_num else "l" for is_num in numeric)
    lines = [f"\\begin{{tabular}}{{{spec}}}", "\\hline",
             " & ".join(escape(c) for c in frame.columns) + " \\\\", "\\hline"]
    for row in frame.itertuples(index=False):
        lines.append(" & ".join(number(v, digits) for v in row) + " \\\\")
    lines += ["\\hline", "\\end{tabular}"]
    return "\n".join(lines)
