"""Score-matrix files: a simple matrix TSV and Sakai's Discpower formats.

Matrix file (:func:`read_matrix`, :func:`write_matrix`)
    The first line names the systems; each following line holds the scores of
    one topic, one per system, in the header's order (no topic-id column)::

        bm25    dense   splade
        0.7     0.5     0.0
        0.3     0.1     0.0

    If the header contains a tab the file is tab-separated (a system name may
    then contain spaces, and an empty cell is an error); otherwise fields are
    separated by any run of whitespace. This is what ``discpower tukey
    MATRIX.tsv`` reads.

Discpower input (:func:`read_discpower`)
    Sakai's Discpower tool reads a *run list* (one run name per line) and a
    *topic-by-run matrix* (one line per topic, whitespace-separated scores in
    run-list order, no header).

Discpower output (:func:`write_pairs`)
    One line per system pair (i < j, in run order)::

        runA runB absdiff p

    space-separated, ``absdiff`` = |mean(runA) - mean(runB)|; both numbers are
    written with 4 decimals (``%.4f``, a parameter). The column layout follows
    third-party scripts that post-process Discpower's p-value files (they read
    four space-separated columns: left run, right run, absolute difference,
    p-value). The number of decimals of Sakai's own tool could not be checked;
    4 is our choice (the precision at which Sakai's book reports p-values).

Every reader accepts plain text or gzip (recognised by its magic bytes), UTF-8,
skips blank lines (line numbers in errors are physical, 1-based) and raises
:class:`discpower.DiscpowerError` naming the file, the line and the problem.
A missing file raises :class:`FileNotFoundError`. The writers write a temporary file in
the target's folder and rename it into place (an error never leaves half a file).
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Sequence

import numpy as np

from cwla._shared import NONE, PATH, validate_params
from cwla.errors import ParameterError
from cwla.data.files import atomic_write_text, text_lines

from .._params import DIGITS
from ..errors import DiscpowerError
from ..stats.matrix import score_matrix
from ..stats.result import A_TEST_RESULT, PairwiseTest
from ..typing import Matrix, PathLike

#: the readers' and writers' declared parameters: their messages name the function and raise cwla's ParameterError
_validated = functools.partial(validate_params, error=ParameterError, named=True)

__all__ = ["read_matrix", "read_discpower", "write_pairs", "write_matrix"]

def _lines(path, what):
    """(label, [(line number, text)]) of the non-blank lines of a text or gzip file, decoded as UTF-8
    (cwla's opener: the same errors as every reader's)."""
    return os.fsdecode(path), text_lines(path, what, error=DiscpowerError)


def _split(text, tabs):
    return [f.strip() for f in text.rstrip("\r\n").split("\t")] if tabs else text.split()


def _scores(fields, where, names):
    """The floats of one topic line, or a DiscpowerError naming the bad field."""
    row = []
    for k, token in enumerate(fields):
        column = f"column {k + 1}" + (f" ({names[k]})" if names is not None and k < len(names) else "")
        if token == "":
            raise DiscpowerError(f"{where}: {column} is empty; every system needs a score")
        try:
            value = float(token)
        except ValueError:
            raise DiscpowerError(f"{where}: {column}: {token!r} is not a number") from None
        if not math.isfinite(value):
            raise DiscpowerError(f"{where}: {column}: {token!r} is not a finite number")
        row.append(value)
    return row


@_validated({"path": PATH})
def read_matrix(path: PathLike) -> tuple[np.ndarray, tuple[str, ...]]:
    """Read a topics x systems score matrix with a header of system names.

    Parameters
    ----------
    path : str or path-like
        The file: a header line of system names, then one line of scores per
        topic (tab- or whitespace-separated; see the module docstring).

    Returns
    -------
    X : ndarray of shape (n_topics, n_systems)
    systems : tuple of str

    Raises
    ------
    DiscpowerError
        An empty file, a header with a repeated name, a line with the wrong number
        of scores, a non-numeric or non-finite score, fewer than 2 systems or
        topics -- each naming the file and line.
    """
    label, lines = _lines(path, "score matrix")
    if not lines:
        raise DiscpowerError(f"{label} is empty: expected a header line of system names, then one line "
                             f"of scores per topic")
    head_no, head = lines[0]
    tabs = "\t" in head
    names = _split(head, tabs)
    if any(name == "" for name in names):
        k = names.index("")
        raise DiscpowerError(f"{label}, line {head_no}: header column {k + 1} is an empty system name")
    repeated = sorted({s for s in names if names.count(s) > 1})
    if repeated:
        raise DiscpowerError(f"{label}, line {head_no}: the header repeats system name(s) {repeated}; "
                             f"system names must be unique")
    if len(lines) == 1:
        raise DiscpowerError(f"{label} has a header but no topic lines: expected one line of "
                             f"{len(names)} scores per topic after the header")
    X = _parse(label, lines[1:], names, tabs,
               f"expected {len(names)} scores (one per system in the header on line {head_no}, "
               f"no topic-id column)")
    return _check(X, names, label)


@_validated({"runlist_path": PATH, "matrix_path": PATH})
def read_discpower(runlist_path: PathLike, matrix_path: PathLike) -> tuple[np.ndarray, tuple[str, ...]]:
    """Read Sakai's Discpower input: a run list and a topic-by-run matrix.

    Parameters
    ----------
    runlist_path : str or path-like
        One run name per line (blank lines skipped; leading and trailing
        whitespace stripped).
    matrix_path : str or path-like
        One line per topic with one whitespace-separated score per run, in
        run-list order; no header.

    Returns
    -------
    X : ndarray of shape (n_topics, n_runs)
    systems : tuple of str
        The run names in run-list order.

    Raises
    ------
    DiscpowerError
        An empty run list or matrix, a repeated run name, a matrix line whose
        number of scores differs from the number of runs, a non-numeric score --
        naming the file and line.
    """
    run_label, run_lines = _lines(runlist_path, "run list")
    if not run_lines:
        raise DiscpowerError(f"{run_label} is empty: expected one run name per line")
    names = [text.strip() for _, text in run_lines]
    first = {}
    for lineno, name in zip((no for no, _ in run_lines), names):
        if name in first:
            raise DiscpowerError(f"{run_label}, line {lineno}: run name {name!r} repeats line {first[name]}; "
                                 f"run names must be unique")
        first[name] = lineno
    label, lines = _lines(matrix_path, "topic-by-run matrix")
    if not lines:
        raise DiscpowerError(f"{label} is empty: expected one line of {len(names)} scores per topic "
                             f"(one per run in {run_label})")
    X = _parse(label, lines, names, False,
               f"expected {len(names)} scores, one per run in {run_label}")
    return _check(X, names, label)


def _parse(label, lines, names, tabs, expectation):
    rows = []
    for lineno, text in lines:
        fields = _split(text, tabs)
        where = f"{label}, line {lineno}"
        if len(fields) != len(names):
            raise DiscpowerError(f"{where}: {expectation}; found {len(fields)}")
        rows.append(_scores(fields, where, names))
    return np.array(rows, dtype=np.float64)


def _check(X, names, label):
    """The matrix checks every discpower test makes (>= 2 systems, >= 2 topics), naming the file."""
    return score_matrix(X, systems=names, name=label)


@_validated({"path": PATH})
def write_matrix(X: Matrix, systems: Sequence[str], path: PathLike) -> str:
    """Write a topics x systems matrix in :func:`read_matrix`'s tab-separated format.

    Scores are written with ``repr`` (17 significant digits at most), so
    ``read_matrix(path)`` returns exactly ``X``.

    Parameters
    ----------
    X : array-like of shape (n_topics, n_systems)
    systems : sequence of str
        System names (no tabs or line breaks; unique).
    path : str or path-like

    Returns
    -------
    str
        The text written.
    """
    X, names = score_matrix(X, systems=systems)
    for name in names:
        if name != name.strip() or not name or any(ch in name for ch in "\t\r\n"):
            raise DiscpowerError(f"system name {name!r} cannot be written to a TSV header: no tabs, line "
                                 f"breaks or leading/trailing spaces")
    lines = ["\t".join(names)]
    lines += ["\t".join(repr(float(v)) for v in row) for row in X]
    text = "\n".join(lines) + "\n"
    atomic_write_text(path, text)
    return text


@_validated({"result": A_TEST_RESULT, "path": (PATH, NONE), "digits": DIGITS})
def write_pairs(result: PairwiseTest, path: PathLike | None = None, *, digits: int = 4) -> str:
    """Discpower's pairwise output: one line ``runA runB absdiff p`` per pair.

    Pairs come in run order (i < j); ``absdiff`` = |mean(runA) - mean(runB)|;
    both numbers with ``digits`` decimals (default 4, Discpower's precision).

    Parameters
    ----------
    result : PairwiseTest
        Any discpower test result.
    path : str or path-like, optional
        Where to write the text (nothing is written when None).
    digits : int
        Decimals of absdiff and p.

    Returns
    -------
    str
        The text (one line per pair, each ending with a newline).
    """
    for name in result.systems:
        if not name or any(ch.isspace() for ch in name):
            raise DiscpowerError(f"run name {name!r} cannot be written to Discpower's space-separated "
                                 f"output: names must be non-empty and contain no whitespace")
    i, j = result.pairs()
    names = result.systems
    lines = [f"{names[a]} {names[b]} {abs(result.diff[a, b]):.{digits}f} {result.pvalue[a, b]:.{digits}f}"
             for a, b in zip(i.tolist(), j.tolist())]
    text = "".join(line + "\n" for line in lines)
    if path is not None:
        atomic_write_text(path, text)
    return text
