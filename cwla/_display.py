"""How every result object of cwla and discpower shows itself: a short ``repr``, a small HTML table for
notebooks and a ``summary()`` frame of its headline numbers, declared once.

A result type derives from :class:`Displayed` (its attrs decorator says ``repr=False``, so that attrs does
not write a ``__repr__`` of every array over it) and says what it is in one method, ``_shown``, returning a
:class:`Shown`: its kind, its shape in words (``"6 metrics x 12 runs x 30 topics"``), a few facts
(``"alpha=0.05"``) and its headline numbers as a labelled DataFrame. From that one description:

* ``repr(x)``: ``<Kind: shape; facts>`` and the first rows of the headline table, fitted to 80 columns
  and always under :data:`REPR_LIMIT` characters;
* ``x._repr_html_()``: the same as a small HTML table (every text escaped with :func:`html.escape`; at most
  :data:`HTML_ROWS` rows and :data:`HTML_COLUMNS` columns);
* ``x.summary()``: the headline table itself, whole (types with a ``summary`` of their own keep it).

Long canonical metric texts (``INST(T=2.5)+PE(beta=0.5)[cutoff=10, depth=10, stop=true]``) are shown by a
short label (:func:`short_labels`: ``INST+PE@10``), with a legend. Every type deriving from
:class:`Displayed` is recorded in :data:`RESULT_TYPES` (tests/project/test_reprs.py checks that every
result type is, and shows itself this way).
"""

from __future__ import annotations

import html
import math
import re
import textwrap

import attrs
import numpy as np
import pandas as pd

from ._latex import cell_text

__all__ = ["Displayed", "Shown", "RESULT_TYPES", "short_labels", "legend", "count_text", "markdown_text", "repr_text", "html_text",
           "html_table", "REPR_LIMIT", "WIDTH", "LABEL_WIDTH", "PREVIEW_ROWS", "HTML_ROWS", "HTML_COLUMNS", "CELL_WIDTH"]

#: every repr is shorter than this many characters
REPR_LIMIT = 1000
#: the repr's lines are at most this wide (the table drops columns to fit)
WIDTH = 80
#: a label longer than this is shown abbreviated (:func:`short_labels`)
LABEL_WIDTH = 20
#: the rows of the headline table the repr shows at most
PREVIEW_ROWS = 5
#: the rows and columns of the headline table the HTML shows at most
HTML_ROWS, HTML_COLUMNS = 20, 12
#: a text cell or an index label of the repr's table is clipped to this many characters
CELL_WIDTH = 24

#: ``"module.QualName" -> class``: every type that derives from :class:`Displayed`
RESULT_TYPES: dict = {}


@attrs.frozen
class Shown:
    """What a result object shows of itself (see the module docstring).

    Attributes
    ----------
    kind : str
        The type's name.
    shape : str
        Its shape in words, e.g. ``"6 metrics x 12 runs x 30 topics"``.
    table : DataFrame
        The headline numbers, axes named (what ``summary()`` returns).
    facts : tuple of str
        A few short facts, e.g. ``("alpha=0.05", "seed=1")``.
    legend : tuple of (str, str)
        ``(short label, full text)`` of every abbreviated label in the table.
    preview : int
        The rows of the table the repr shows (0: none, the header line says it all).
    """

    kind: str
    shape: str
    table: pd.DataFrame
    facts: tuple = ()
    legend: tuple = ()
    preview: int = PREVIEW_ROWS


class Displayed:
    """The mixin of every result type: ``repr``, ``_repr_html_`` and ``summary`` from one ``_shown()``.

    A subclass defines ``_shown(self) -> Shown``; an attrs subclass is declared with ``repr=False``.
    Equality and hashing are the subclass's own (the mixin defines neither).
    """

    __slots__ = ()

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        RESULT_TYPES[f"{cls.__module__}.{cls.__qualname__}"] = cls  # attrs' slotted copy replaces the first

    def _shown(self) -> Shown:  # pragma: no cover - every subclass defines it
        raise NotImplementedError(f"{type(self).__name__} does not say what it shows (define _shown)")

    def __repr__(self) -> str:
        return repr_text(self._shown())

    def _repr_html_(self) -> str:
        return html_text(self._shown())

    def summary(self) -> pd.DataFrame:
        """The headline numbers as a labelled DataFrame (named index and columns): what the ``repr``
        shows the first rows of. Long metric labels are abbreviated there (the ``repr`` gives the legend);
        the other views (``to_frame``, ``means``, ...) keep the full labels.

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> import cwla
        >>> qrels, runs = cwla.synthetic.collection(seed=1)
        >>> cwla.evaluate(qrels, runs, ["nDCG@10", "map"]).summary().shape  # runs x metrics: the means
        (12, 2)
        """
        return self._shown().table.copy()


# --------------------------------------------------------------------------- labels

def _cutoff(match: re.Match) -> str:
    found = re.search(r"\bcutoff=(\d+)", match.group(1))
    return f"@{found.group(1)}" if found else ""


def _abbreviations(text: str, width: int) -> list[str]:
    """Ever shorter forms of ``text``: as it is; the options ``[...]`` as ``@cutoff``; without the
    parameters ``(...)``; clipped to ``width`` with ``~``."""
    options = re.sub(r"\[([^\]]*)\]", _cutoff, text)
    bare = options
    while True:  # parameters nest at most a level or two: drop the innermost until none is left
        shorter = re.sub(r"\([^()]*\)", "", bare)
        if shorter == bare:
            break
        bare = shorter
    clipped = bare if len(bare) <= width else bare[:width - 1] + "~"
    return [text, options, bare, clipped]


def short_labels(labels: tuple | list, width: int = LABEL_WIDTH) -> tuple:
    """A label of at most ``width`` characters for each of ``labels``, distinct when the labels are.

    A label that fits stays as it is; a longer one is abbreviated (:func:`_abbreviations`: the options
    ``[cutoff=10, depth=10, stop=true]`` become ``@10``, then the parameters go:
    ``INST(T=2.5)+PE(beta=0.5)[cutoff=10, ...]`` is ``INST+PE@10``). An abbreviation that another label
    already is (or that two labels share) takes its 1-based position as a suffix: ``nDCG@10#3``.

    Examples
    --------
    >>> short_labels(["INST(T=2.5)+PE(beta=0.5)[cutoff=10, depth=10, stop=true]", "nDCG@10"])
    ('INST+PE@10', 'nDCG@10')
    """
    texts = [str(label) for label in labels]
    out = [next(a for a in _abbreviations(t, width) if len(a) <= width) for t in texts]
    kept = {t for t, s in zip(texts, out) if t == s}
    seen: dict = {}
    for s in out:
        seen[s] = seen.get(s, 0) + 1
    for i, (t, s) in enumerate(zip(texts, out)):
        if t != s and (s in kept or seen[s] > 1):
            suffix = f"#{i + 1}"
            out[i] = s[:width - len(suffix)] + suffix
    return tuple(out)


def legend(labels: tuple | list, shorts: tuple | list) -> tuple:
    """``(short, full)`` for every label that :func:`short_labels` abbreviated."""
    return tuple((s, str(t)) for t, s in zip(labels, shorts) if s != str(t))


def count_text(n: int, noun: str, plural: str | None = None) -> str:
    """``"1 run"``, ``"12 runs"``: a count with its noun."""
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"


# --------------------------------------------------------------------------- text

_MARKDOWN_SPECIAL = {"\\": "\\\\", "|": "\\|", "*": "\\*", "_": "\\_", "`": "\\`", "<": "&lt;", ">": "&gt;", "\n": " "}
# the characters Markdown reads as markup; an underscore inside a word (RBP_ERG) is text in CommonMark
_MARKUP = re.compile(r"[\\|*`<>\n]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def markdown_text(text: object) -> str:
    """``text`` safe in a Markdown table cell or line: backslash, ``|``, ``*``, the backtick and an underscore
    that could open or close emphasis (not one inside a word: ``RBP_ERG`` stays as it is) escaped, ``< >`` as
    HTML entities, a line break as a space."""
    return _MARKUP.sub(lambda m: _MARKDOWN_SPECIAL[m.group()], str(text))

def _clip(value: object, width: int = CELL_WIDTH) -> object:
    if isinstance(value, str) and len(value) > width:
        return value[:width - 1] + "~"
    return value


def _number(value: object, decimals: int | None = None) -> str:
    """A cell as text: integers as integers, floats with ``decimals`` decimals (None: 4 significant
    digits), NaN empty, the rest as it prints."""
    return cell_text(value, lambda v: f"{v:.4g}" if decimals is None or not math.isfinite(v) else f"{v:.{decimals}f}",
                     "", ("True", "False"), lambda other: "" if other is None or other is pd.NA else str(other))


def _column(values: pd.Series) -> list[str]:
    """One column's cells as text, its floats with the same number of decimals: 4 below 10, 3 below 100, 2
    below 1000 (then 4 significant digits)."""
    decimals = None
    if pd.api.types.is_float_dtype(values.dtype):
        finite = values.to_numpy(dtype=np.float64)
        finite = finite[np.isfinite(finite)]
        top = float(np.abs(finite).max()) if finite.size else 0.0
        if top < 1000:
            decimals = 4 if top < 10 else 3 if top < 100 else 2
    return [_number(v, decimals) for v in values]


def _clipped_index(index: pd.Index) -> pd.Index:
    if isinstance(index, pd.MultiIndex):
        return pd.MultiIndex.from_tuples([tuple(_clip(v) for v in row) for row in index], names=index.names)
    return pd.Index([_clip(v) for v in index], name=index.name)


def _table_lines(table: pd.DataFrame, rows: int) -> list[str]:
    """The first ``rows`` rows of ``table`` as text, with as many columns as fit in :data:`WIDTH`."""
    head = table.head(rows)
    # every cell and column label with a leading space: two between columns, as pandas prints numbers
    head = pd.DataFrame({k: [" " + str(_clip(v)) for v in _column(head.iloc[:, k])] for k in range(head.shape[1])},
                        index=_clipped_index(head.index))
    head.columns = pd.Index([" " + str(_clip(_number(c))) for c in table.columns], name=table.columns.name)
    k = head.shape[1]
    lines = head.to_string().splitlines() if k else [f"({count_text(len(table), 'row')}, no columns)"]
    while k > 1 and max(map(len, lines)) > WIDTH:
        k -= 1
        lines = head.iloc[:, :k].to_string().splitlines()
    rest = _left_out(table, rows, k)
    if rest:
        lines.append(f"({rest}: .summary())")
    return lines


def _left_out(table: pd.DataFrame, rows: int, columns: int) -> str:
    """What a preview of ``table``'s first ``rows`` rows and ``columns`` columns leaves out, in words
    ("2 more rows, 1 more column"; empty if nothing)."""
    rest = []
    if len(table) > rows:
        rest.append(count_text(len(table) - rows, "more row"))
    if table.shape[1] > columns:
        rest.append(count_text(table.shape[1] - columns, "more column"))
    return ", ".join(rest)


def _header(shown: Shown) -> list[str]:
    facts = ", ".join(shown.facts)
    one = f"<{shown.kind}: {shown.shape}" + (f"; {facts}" if facts else "") + ">"
    if len(one) <= WIDTH:
        return [one]
    return (textwrap.wrap(f"<{shown.kind}: {shown.shape}>", WIDTH, subsequent_indent="  ", max_lines=2)
            + textwrap.wrap(facts, WIDTH, initial_indent="  ", subsequent_indent="  ", max_lines=3))


def _legend_lines(shown: Shown, entries: int = 3) -> list[str]:
    lines = [_clip(f"  {short} = {full}", WIDTH) for short, full in shown.legend[:entries]]
    if len(shown.legend) > entries:
        lines.append(f"  (and {count_text(len(shown.legend) - entries, 'more abbreviation')})")
    return lines


def repr_text(shown: Shown) -> str:
    """The ``repr`` of a result: its header line, the first rows of its table and the legend of the
    abbreviated labels, under :data:`REPR_LIMIT` characters."""
    header, tail = _header(shown), _legend_lines(shown)
    text = ""
    for rows in range(min(shown.preview, len(shown.table)), -1, -1):
        body = _table_lines(shown.table, rows) if rows else []
        text = "\n".join(header + body + (tail if body else []))
        if len(text) < REPR_LIMIT:
            return text
    return text[:REPR_LIMIT - 4] + " ..."


# --------------------------------------------------------------------------- html

def _cell(tag: str, text: object) -> str:
    return f"<{tag}>{html.escape(str(text))}</{tag}>"


def html_table(table: pd.DataFrame, rows: int = HTML_ROWS, columns: int = HTML_COLUMNS) -> str:
    """``table`` as a small HTML table (its first ``rows`` rows and ``columns`` columns), text escaped."""
    head = table.iloc[:rows, :columns]
    names = [n for n in head.index.names if n is not None]
    corner = " / ".join(map(str, names))
    if head.columns.name is not None:
        corner = f"{corner} \\ {head.columns.name}" if corner else str(head.columns.name)
    out = ["<table><thead><tr>", _cell("th", corner), *(_cell("th", _number(c)) for c in head.columns),
           "</tr></thead><tbody>"]
    cells = [_column(head.iloc[:, k]) for k in range(head.shape[1])]
    for r, key in enumerate(head.index):
        label = ", ".join(map(str, key)) if isinstance(key, tuple) else key
        out.append("<tr>" + _cell("th", label) + "".join(_cell("td", column[r]) for column in cells) + "</tr>")
    out.append("</tbody></table>")
    rest = _left_out(table, rows, columns)
    if rest:
        out.append(f"<p><small>{html.escape(rest)}: .summary()</small></p>")
    return "".join(out)


def html_text(shown: Shown) -> str:
    """The ``_repr_html_`` of a result: its kind, shape and facts, its table (at most :data:`HTML_ROWS` rows
    and :data:`HTML_COLUMNS` columns) and the legend of the abbreviated labels."""
    parts = [f'<div class="cwla-result"><p><strong>{html.escape(shown.kind)}</strong>: {html.escape(shown.shape)}']
    if shown.facts:
        parts.append(f"; {html.escape(', '.join(shown.facts))}")
    parts.append("</p>")
    parts.append(html_table(shown.table))
    if shown.legend:
        items = "".join(f"<li><code>{html.escape(s)}</code>: <code>{html.escape(f)}</code></li>"
                        for s, f in shown.legend[:HTML_ROWS])
        parts.append(f"<ul>{items}</ul>")
    parts.append("</div>")
    return "".join(parts)
