"""trec_eval's preference and judgment-group evaluation: ``-R prefs``, ``-R qrels_prefs`` and ``-R qrels_jg``.

:func:`trec_prefs_lines` prints what ``trec_eval -R FORMAT [-m ...] [-q] [-c] [-M n] [-l n] [-J] REL RUN``
prints, line for line, for trec_eval 9.0 (``convention=9``) or trec_eval >= 10 (``convention=10``). It is
checked against trec_eval's own test suite (``Makefile.quicktest``: out.test.prefs, out.test.qrels_prefs,
out.test.qrels_jg, with the comment variants of 10).

Files
-----
``-R prefs`` (trec_eval's get_prefs.c): five fields a line, ``qid jg jsg docno rel_level``.
    ``jg`` is a judgment group (one user's consistent judgments of the topic), ``jsg`` a sub-group of it:
    every document of a sub-group is preferred to every document of the same sub-group with a lower
    ``rel_level`` (equal levels: no preference). The sub-groups of one group give a partial order whose
    transitive preferences count too (A>B in one sub-group and B>C in another give A>C); different groups
    may contradict each other. Only the order of the levels matters, except that ``0`` means nonrelevant
    and ``> 0`` relevant (negative levels are allowed).
``-R qrels_prefs`` (get_qrels_prefs.c): an ordinary qrels file, ``qid iter docno rel``, read as prefs: the
    ``iter`` column is the judgment group, the sub-group is ``"0"``, ``rel`` the level. A topic is then one
    group with one sub-group: every document of a higher grade is preferred to every one of a lower grade.
``-R qrels_jg`` (get_qrels_jg.c): ``qid jg docno rel``, a qrels file whose second column is the judgment
    group; ``rel`` is an integer, ``rel < 0`` "in the pool but not judged".
Run files: TREC runs, ``qid Q0 docno rank score tag`` (read by :func:`cwla.data.readers.read_run`, so the
    rank must be an integer as everywhere in cwla; trec_eval ignores it). The run's ``runid`` is the sixth
    field of its last line, as in trec_eval.

Fields are separated by spaces, tabs, ``\\v``, ``\\f`` or ``\\r`` (C's ``isspace``); files may be gzip, UTF-8;
strings compare as trec_eval's ``strcmp`` (code point order is UTF-8 byte order). As in trec_eval every line
of a judgment file is data: a blank line is an error. ``convention=10`` skips a line of a prefs or qrels_jg
file whose first byte is ``#``, as trec_eval >= 10 does (a ``#`` elsewhere is data: ``CR93E-10505#37`` is a
docno); trec_eval >= 10 skips only one such line before parsing the next unconditionally, so two comment
lines in a row and a comment as the very last line (where trec_eval reads past its buffer) are errors here.
No version of get_qrels_prefs.c that could be read skips comments: with ``convention=10`` a qrels_prefs line
starting with ``#`` is refused rather than guessed at; with ``convention=9`` it is data, as in trec_eval 9.0.

cwla refuses what trec_eval reads with undefined or surprising results, always naming the file and line:
a wrong number of fields, a level that is not a finite decimal number (trec_eval's ``atof`` would read
``abc`` as 0), a non-integral qrels_jg level (``atol`` would cut ``1.5`` to 1), the same (topic, group,
sub-group, docno) twice (trec_eval counts such a document's preferences twice in a one-sub-group group, or
stops), a docno twice in one topic of a run, an empty file.

How preferences meet the ranking (form_prefs_counts.c)
------------------------------------------------------
The run is ranked by score descending, **ties by docno ascending** (``comp_sim_docno`` of
form_prefs_counts.c; trec_eval's other paths, and the qrels_jg measures here, break ties by docno
descending), and cut to ``max_docs`` (-M). Every judged docno of the topic then gets a docid rank: the
retrieved ones 0..NJR-1 in rank order, the others NJR..NJ-1 in docno order; unjudged retrieved documents are
dropped (only the relative order of judged documents matters). A preference A>B with docid ranks a, b falls
in one of five areas (trec_format.h):

==========================  =====================  =======================
a, b                        counted as             name below
==========================  =====================  =======================
a < b < NJR                 fulfilled, retrieved   Fr (in Pr too)
b < a < NJR                 possible, retrieved    Pr
a < NJR <= b                fulfilled, implied     Fi (in Pi too)
b < NJR <= a                possible, implied      Pi
a, b >= NJR                 possible, not occurring Pn
==========================  =====================  =======================

so an unretrieved judged document ranks below every retrieved one. A group with one sub-group is a list of
equivalence classes (ECs: one per level, highest first); with several sub-groups its preferences are the
transitive closure of theirs (a cycle is an error, trec_eval aborts). A group's ``num_rel`` counts its
documents with level > 0, ``num_nonrel`` the others of an EC group but only the level-0 ones of a closure
group (negative levels count as neither there); ``_ret`` counts the retrieved ones.

Measures (m_prefs_*.c), per topic, with Fr, Pr, ... summed over the topic's groups (fr, pr, ... of one group)
-------------------------------------------------------------------------------------------------------------
- ``prefs_num_prefs_poss`` = Pr + Pi + Pn, ``prefs_num_prefs_ful`` = Fr + Fi, ``prefs_num_prefs_ful_ret`` =
  Fr: counts, printed as integers, **summed** over topics in the summary.
- ``prefs_simp`` = (Fr+Fi) / (Pr+Pi+Pn), ``prefs_simp_ret`` = Fr / Pr, ``prefs_simp_imp`` = (Fr+Fi) / (Pr+Pi)
  (0 when the denominator is 0).
- ``prefs_avgjg``, ``prefs_avgjg_ret``, ``prefs_avgjg_imp``: the same ratios per group, summed over the
  groups whose denominator is not 0 and divided by the number of groups (0 unless the sum is > 0).
- ``prefs_pair``, ``prefs_pair_ret``, ``prefs_pair_imp``: over document pairs {i, j} preferred in some
  group, the share c(i>j) / (c(i>j) + c(j>i)) of the groups agreeing with the ranking (i above j; c counts
  groups), averaged over the pairs with both documents retrieved (``_ret``), also those with one retrieved
  (``_imp``), also those with none retrieved, scoring 0 (``prefs_pair``).
- ``prefs_avgjg_Rnonrel``: per group with R = num_rel, N = num_nonrel: if R >= N, (fr + fi + num_rel_ret
  (R-N)) / (pr + pi + pn + num_rel (R-N)); else the preferences are counted again with the nonrelevant
  documents cut to R, as trec_eval does it (``recalculate``): an EC group counts the pairs between ECs but
  the last (fulfilled when x < y and x < NJR) and every EC, the last one included, against the R entries
  that start at the last EC (which run on into the following EC groups of the topic when the last EC is
  shorter); a closure group drops every level-0 document from the (R+1)-th level-0 document on (in docid
  rank order). The topic value is the sum over groups divided by their number, 0 unless the sum is > 0 (a
  group with 0/0 makes the sum NaN, hence the topic 0).
- ``prefs_avgjg_Rnonrel_ret``: the same with R = num_rel_ret, N = num_nonrel_ret, only retrieved documents
  (fulfilled when x < y), with trec_eval's two quirks kept: the R >= N branch adds ``num_rel`` (not
  num_rel_ret) (R-N) possible preferences, and a closure group's cut counts up to ``num_rel + 1``.

Judgment-group measures (form_res_rels_jg.c, m_map_avgjg.c, m_P_avgjg.c, m_Rprec_mult_avgjg.c)
----------------------------------------------------------------------------------------------
The run is ranked by score descending, ties by docno descending, cut to ``max_docs``; ``judged_only`` (-J)
drops the documents that are not judged (level >= 0) in a group. Per group, with a document relevant when
its level >= ``rel_level`` (-l) and num_rel its relevant judged documents, retrieved or not:

- ``map_avgjg``: sum over the relevant retrieved documents of (relevant so far / rank), divided by num_rel;
- ``P_avgjg_k`` (default k = 5, 10, 15, 20, 30, 100, 200, 500, 1000): relevant in the top k / k;
- ``Rprec_mult_avgjg_m`` (default m = 0.2, 0.4, ..., 2.0): precision at rank c = (long)(m num_rel + 0.9)
  (num_rel_ret / c past the last retrieved document, 0 for c = 0).

A topic's value is the mean over its groups (every group counts, a group with num_rel = 0 scores 0). Every
measure but the counts is averaged over the topics in the summary.

Topics, summary, output (trec_eval.c, meas_*.c)
-----------------------------------------------
The topics of both the judgments and the run are evaluated, in ``strcmp`` order; ``complete`` (-c) divides
by the number of judged topics instead (and counts them in ``num_q``), and trec_eval >= 10 also evaluates
and prints each judged topic the run lacks, against its one-document stand-in ranking
(``ceci_nest_pas_un_docno``, so the counts of such a topic are not 0; read from trec_eval.c, not in the
fixtures). Lines are ``"%-22s\\t%s\\t%6.4f"`` (counts ``%ld``), measures in trec_eval's order, ``runid`` and
``num_q`` in the summary only. Without measures trec_eval asks for its ``official`` set, which needs
``-R qrels`` and fails on these formats: cwla then takes each format's own official set, ``prefs`` (named
``prefs_off_name`` in measures.c) and ``qrels_jg`` (:data:`DEFAULT_MEASURES`).

Results trec_eval leaves undefined raise :class:`~cwla.errors.InputError` instead of being guessed: the
``_Rnonrel`` read past the topic's data (trec_eval reads stale memory), a highest EC level of exactly -3
(trec_eval's "no level yet" marker: it miscounts the group's ECs), more than 65535 groups preferring one
pair (trec_eval's unsigned short counts wrap) and the comment lines above.

Conventions
-----------
``convention=9`` follows trec_eval 9.0, which keeps scores and levels as C floats: both are rounded to
float32 before they are compared (scores 2.1000001 and 2.1 tie, a level of 1e-50 is 0), and its files
have no comment lines. ``convention=10`` follows trec_eval >= 10 (doubles, ``#`` comment lines, ``-c``
printing the missing topics). ``rel_level`` and ``judged_only`` have no effect on the preference measures,
as in trec_eval.
"""

from __future__ import annotations

import itertools
import math
import os
import re
import warnings

import attrs
import numpy as np

from .._validate import FLAG, NONE, Interval, Options, Predicate, check
from ..data.files import read_bytes
from ..data.readers import read_run
from ..data.trec_format import FLOAT_RE, RUN_LAYOUT
from ..errors import CwlaError, EmptyRunWarning, InputError, ParameterError
from .trec_eval import run_tag

__all__ = ["DEFAULT_MEASURES", "JG_CUTOFFS", "JG_MEASURES", "PREFS_LAYOUT", "PREFS_MEASURES", "PREFS_NICKNAMES",
           "QRELS_JG_LAYOUT", "QRELS_PREFS_LAYOUT", "REL_FORMATS", "trec_prefs_lines"]

#: the rel_info formats (trec_eval's -R) this module reads
REL_FORMATS = ("prefs", "qrels_prefs", "qrels_jg")
#: the preference measures (-R prefs, -R qrels_prefs), in trec_eval's order (measures.c)
PREFS_MEASURES = ("prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
                  "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
                  "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp")
#: the judgment-group measures (-R qrels_jg), in trec_eval's order
JG_MEASURES = ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg")
#: the default cutoffs of the judgment-group measures that take them (``-m P_avgjg.5,10`` replaces them)
JG_CUTOFFS = {"P_avgjg": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
              "Rprec_mult_avgjg": (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)}
#: trec_eval's nicknames of these measures (measures.c)
PREFS_NICKNAMES = {
    "all_prefs": ("runid", "num_q") + PREFS_MEASURES,
    "prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
              "prefs_simp", "prefs_pair", "prefs_avgjg"),
    "qrels_jg": ("runid", "num_q") + JG_MEASURES,
}
#: the measures asked for when none is given, per rel_format (each format's official set; see the module text)
DEFAULT_MEASURES = {"prefs": "prefs", "qrels_prefs": "prefs", "qrels_jg": "qrels_jg"}
#: the fields of a line of each judgment file
PREFS_LAYOUT = "qid jg jsg docno rel_level"
QRELS_PREFS_LAYOUT = "qid iter docno rel"
QRELS_JG_LAYOUT = "qid jg docno rel"

_ORDER = ("runid", "num_q") + PREFS_MEASURES + JG_MEASURES
_COUNTS = PREFS_MEASURES[:3]
_FUNC = "trec_prefs_lines"
_FIELD_SEP = re.compile(r"[ \t\v\f\r]+")
_NO_LEVEL = -3.0  # form_prefs_counts.c's "illegal rel_level", the level before a group's first line
_MAX_COUNT = 65535  # trec_eval counts the groups preferring a pair in an unsigned short
#: trec_eval >= 10's ranking of a judged topic the run lacks (-c)
_STAND_IN = (np.array(["ceci_nest_pas_un_docno"], dtype=object), np.array([1.0]))
_INT_LEVEL = re.compile(r"[+-]?\d+(?:\.0*)?\Z")


# ---------------------------------------------------------------------------
# the public function
# ---------------------------------------------------------------------------


def trec_prefs_lines(rel_file, run_files, *, rel_format: str, measures=None, per_topic: bool = False,
                     complete: bool = False, max_docs: int | None = None, rel_level: int = 1,
                     judged_only: bool = False, convention: int = 9) -> str:
    """What ``trec_eval -R REL_FORMAT`` prints for each run file: the preference or judgment-group measures.

    Parameters
    ----------
    rel_file : str or os.PathLike
        The judgments: a prefs, qrels (read as prefs) or qrels_jg file, as ``rel_format`` says.
    run_files : str, os.PathLike or a list of them
        TREC run files; one block of lines per file, each after a ``runid`` line naming the run when there
        are several and ``runid`` is not asked for (as :func:`cwla.bridges.trec_eval.trec_eval_lines`).
    rel_format : {'prefs', 'qrels_prefs', 'qrels_jg'}
        trec_eval's ``-R``.
    measures : str or list of str, optional
        trec_eval's ``-m`` texts: nicknames (``all_prefs``, ``prefs``, ``qrels_jg``), names (``prefs_simp``,
        ``runid``, ``num_q``, ...), cutoffs (``P_avgjg.5,10``, ``Rprec_mult_avgjg.0.5,1``). Default: the
        format's official set (:data:`DEFAULT_MEASURES`).
    per_topic : bool
        ``-q``: the topics' lines before the summary.
    complete : bool
        ``-c``: average over every judged topic.
    max_docs : int, optional
        ``-M``: the documents of each ranking kept (default: all).
    rel_level : int
        ``-l``: the lowest relevant level of the qrels_jg measures (>= 0).
    judged_only : bool
        ``-J``: drop the documents a group has not judged (qrels_jg measures).
    convention : {9, 10}
        trec_eval 9.0 or trec_eval >= 10 (see the module text).

    Returns
    -------
    str
        trec_eval's lines, each ending with a newline.

    Raises
    ------
    InputError
        A malformed file (naming the file, the line and what is accepted), or an input whose result
        trec_eval leaves undefined.
    ValueError
        An unknown measure, parameters a measure does not take, measures of the other format, a parameter
        out of range.
    """
    rel_format = check(rel_format, "rel_format", Options(REL_FORMATS), func=_FUNC)
    convention = check(convention, "convention", Predicate(lambda v: not isinstance(v, bool) and v in (9, 10),
                       "9 (trec_eval 9.0) or 10 (trec_eval >= 10)"), func=_FUNC)
    per_topic = check(per_topic, "per_topic", FLAG, func=_FUNC)
    complete = check(complete, "complete", FLAG, func=_FUNC)
    judged_only = check(judged_only, "judged_only", FLAG, func=_FUNC)
    max_docs = check(max_docs, "max_docs", Interval("int", 0, None), NONE, func=_FUNC)
    rel_level = check(rel_level, "rel_level", Interval("int", 0, None), func=_FUNC,
                      rule="an integer >= 0 (below 0 trec_eval counts documents outside the judgments as "
                           "relevant)")
    names, cutoffs = _selection(measures, rel_format)
    runs = [run_files] if isinstance(run_files, (str, os.PathLike)) else list(run_files)
    if not runs:
        raise CwlaError(f"{_FUNC}: no run file given (run_files is empty)")
    opts = _Options(rel_format, convention, complete, max_docs, rel_level, judged_only)
    rel = _read_rel(rel_file, rel_format, convention)
    out: list[str] = []
    for run in runs:
        tag = run_tag(run)
        if len(runs) > 1 and "runid" not in names:
            out.append(f"{'runid':<22}\tall\t{tag}")
        out += _run_lines(rel_file, rel, run, tag, names, cutoffs, per_topic, opts)
    return "".join(line + "\n" for line in out)


@attrs.frozen(eq=False)
class _Options:
    rel_format: str
    convention: int
    complete: bool
    max_docs: int | None
    rel_level: int
    judged_only: bool


# ---------------------------------------------------------------------------
# measure selection
# ---------------------------------------------------------------------------


def _selection(measures, rel_format: str) -> tuple[list[str], dict]:
    """The measures asked for, in trec_eval's order, and the cutoffs of P_avgjg and Rprec_mult_avgjg."""
    if measures is None:
        texts = [DEFAULT_MEASURES[rel_format]]
    elif isinstance(measures, str):
        texts = [measures]
    else:
        texts = list(measures)
    if not texts:
        raise CwlaError(f"{_FUNC}: measures is empty; give trec_eval -m texts (e.g. 'all_prefs') or None")
    marked, cutoffs = set(), {}
    for text in texts:
        if not isinstance(text, str):
            raise ParameterError(f"{_FUNC}: a measure is a trec_eval -m text (str), got {text!r}")
        name, dot, given = text.strip().partition(".")
        if name in PREFS_NICKNAMES:
            if dot:
                raise CwlaError(f"measure {text!r}: the nickname {name!r} takes no parameters")
            marked.update(PREFS_NICKNAMES[name])
            continue
        if name not in _ORDER:
            raise CwlaError(f"measure {text!r} is not a preference or judgment-group measure of trec_eval; "
                             f"accepted: the nicknames {', '.join(PREFS_NICKNAMES)}, the names "
                             f"{', '.join(_ORDER)}, and cutoffs as in P_avgjg.5,10 (trec_eval's qrels measures, "
                             f"such as map or P, are cwla.bridges.trec_eval's)")
        if dot:
            if name not in JG_CUTOFFS:
                raise CwlaError(f"measure {text!r}: {name} takes no parameters (only "
                                 f"{' and '.join(JG_CUTOFFS)} take cutoffs)")
            values = _cutoffs(name, given, text)
            if cutoffs.setdefault(name, values) != values:
                raise CwlaError(f"measure {text!r}: {name} was given other cutoffs already "
                                 f"({','.join(map(str, cutoffs[name]))}); give them in one -m text")
        marked.add(name)
    other = PREFS_MEASURES if rel_format == "qrels_jg" else JG_MEASURES
    wrong = [m for m in _ORDER if m in marked and m in other]
    if wrong:
        need = "-R prefs or -R qrels_prefs" if rel_format == "qrels_jg" else "-R qrels_jg"
        raise CwlaError(f"measures {', '.join(wrong)} need {need}, not rel_format={rel_format!r} (trec_eval: "
                         f"\"rel_info format not ...\"); ask for the measures of one format at a time")
    return [m for m in _ORDER if m in marked], cutoffs


def _cutoffs(name: str, given: str, text: str) -> tuple:
    """The cutoffs of ``-m NAME.GIVEN``, sorted: positive integers (P_avgjg) or finite numbers
    (Rprec_mult_avgjg), no duplicates (trec_eval's te_init_meas_a_float_cut_*)."""
    parts = given.split(",")
    values = []
    for part in parts:
        part = part.strip()
        if name == "P_avgjg":
            if not re.fullmatch(r"\+?\d+", part) or int(part) <= 0:
                raise CwlaError(f"measure {text!r}: cutoff {part!r} is not a positive integer (P_avgjg.5,10)")
            values.append(int(part))
        else:
            if not FLOAT_RE.match(part):
                raise CwlaError(f"measure {text!r}: {part!r} is not a number (Rprec_mult_avgjg.0.5,1.0)")
            values.append(float(part))
    values.sort()
    if any(a == b for a, b in itertools.pairwise(values)):
        raise CwlaError(f"measure {text!r}: duplicate cutoffs (trec_eval refuses them)")
    return tuple(values)


def _slots(names: list[str], cutoffs: dict) -> list[tuple[str, str]]:
    """(measure, printed name) of every value line but runid, in trec_eval's order."""
    out = []
    for name in names:
        if name == "runid":
            continue
        if name == "P_avgjg":
            out += [(name, f"P_avgjg_{k}") for k in cutoffs.get(name, JG_CUTOFFS[name])]
        elif name == "Rprec_mult_avgjg":
            out += [(name, f"Rprec_mult_avgjg_{m:3.2f}") for m in cutoffs.get(name, JG_CUTOFFS[name])]
        else:
            out.append((name, name))
    return out


# ---------------------------------------------------------------------------
# reading the judgments
# ---------------------------------------------------------------------------


@attrs.frozen(eq=False)
class _PrefLines:
    """One topic's preference lines (prefs, qrels_prefs), in file order."""

    jg: np.ndarray  # str objects
    jsg: np.ndarray
    docno: np.ndarray
    level: np.ndarray  # float64 (float32 values under convention 9)
    line: np.ndarray  # physical line numbers


@attrs.frozen(eq=False)
class _JudgedGroup:
    """One judgment group of a topic (qrels_jg): its docnos sorted, their levels."""

    name: str
    docno: np.ndarray
    level: np.ndarray  # int64


def _read_rel(path, rel_format: str, convention: int) -> dict:
    """{topic: _PrefLines} (prefs, qrels_prefs) or {topic: [_JudgedGroup, ...] in strcmp order} (qrels_jg)."""
    label = os.fsdecode(path)
    if rel_format == "prefs":
        layout, comments = PREFS_LAYOUT, ("skip" if convention == 10 else "none")
    elif rel_format == "qrels_prefs":
        layout, comments = QRELS_PREFS_LAYOUT, ("refuse" if convention == 10 else "none")
    else:
        layout, comments = QRELS_JG_LAYOUT, ("skip" if convention == 10 else "none")
    ncols = len(layout.split())
    topics: dict[str, list] = {}
    seen: dict[tuple, int] = {}
    for n, fields in _data_lines(path, rel_format, layout, comments, convention):
        if len(fields) == 5:
            qid, jg, jsg, docno, text = fields
        else:
            qid, jg, docno, text = fields
            jsg = "0"
        level = _int_level(text, label, n) if rel_format == "qrels_jg" else _float_level(text, label, n, layout)
        key = (qid, jg, jsg, docno) if ncols == 5 else (qid, jg, docno)
        first = seen.setdefault(key, n)
        if first != n:
            fields_named = " ".join(layout.split()[:-1])
            raise InputError(f"{label}, line {n}: {fields_named} {' '.join(key)!r} again (first at line {first}); "
                             f"each document is judged once per {'sub-group' if ncols == 5 else 'group'} "
                             f"({layout})")
        topics.setdefault(qid, []).append((jg, jsg, docno, level, n))
    f32 = convention == 9 and rel_format != "qrels_jg"  # trec_eval 9.0 keeps levels as C floats
    out = {}
    for qid, rows in topics.items():
        jg, jsg, docno, level, line = zip(*rows)
        if rel_format == "qrels_jg":
            out[qid] = _judged_groups(np.array(jg, dtype=object), np.array(docno, dtype=object),
                                      np.array(level, dtype=np.int64))
            continue
        levels = np.array(level, dtype=np.float64)
        if f32:
            with np.errstate(over="ignore"):  # beyond float32: inf, as C's (float) cast
                levels = levels.astype(np.float32).astype(np.float64)
        out[qid] = _PrefLines(np.array(jg, dtype=object), np.array(jsg, dtype=object),
                              np.array(docno, dtype=object), levels, np.array(line, dtype=np.int64))
    return out


def _judged_groups(jg: np.ndarray, docno: np.ndarray, level: np.ndarray) -> list[_JudgedGroup]:
    names, codes = np.unique(jg, return_inverse=True)
    out = []
    for g, name in enumerate(names):
        mine = np.flatnonzero(codes == g)
        order = mine[np.argsort(docno[mine], kind="stable")]
        out.append(_JudgedGroup(str(name), docno[order], level[order]))
    return out


def _data_lines(path, rel_format: str, layout: str, comments: str, convention: int):
    """``(line number, fields)`` of every data line of a judgment file; every malformed line raises."""
    label = os.fsdecode(path)
    ncols = len(layout.split())
    data = bytes(read_bytes(path, f"{rel_format} judgments", layout=layout))
    if not data:
        raise InputError(f"{label}: the file is empty; expected lines of {ncols} fields ({layout})")
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()  # the last newline (a missing one is tolerated, as in trec_eval)
    previous_comment = False
    for n, raw in enumerate(lines, start=1):
        if comments != "none" and raw.startswith(b"#"):
            if comments == "refuse":
                raise InputError(f"{label}, line {n}: a line starting with '#': no trec_eval reads comment lines in "
                                 f"a qrels_prefs file that could be checked (get_qrels_prefs.c), so cwla does not "
                                 f"guess; remove it (convention=9 reads it as data, as trec_eval 9.0)")
            if previous_comment:
                raise InputError(f"{label}, line {n}: a second comment line in a row; trec_eval >= 10 skips one "
                                 f"'#' line before each data line and reads this one as data: keep one comment line "
                                 f"between data lines")
            if n == len(lines):
                raise InputError(f"{label}, line {n}: a comment as the last line; trec_eval >= 10 then reads past "
                                 f"the end of its buffer (undefined): end the file with a data line")
            previous_comment = True
            continue
        previous_comment = False
        if b"\0" in raw:
            raise InputError(f"{label}, line {n}: a NUL byte (trec_eval's C strings end there); expected text "
                             f"lines of {ncols} fields ({layout})")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{label}, line {n}: not valid UTF-8 text ({exc.reason} at byte {exc.start} of the "
                             f"line); accepted: UTF-8 text") from None
        stripped = text.strip(" \t\v\f\r")
        if not stripped:
            raise InputError(f"{label}, line {n}: a blank line; trec_eval reads every line of a {rel_format} file "
                             f"as data ({layout}): remove it")
        fields = _FIELD_SEP.split(stripped)
        if len(fields) != ncols:
            hint = ""
            if stripped.startswith("#") and convention == 9 and rel_format != "qrels_prefs":
                hint = " (trec_eval 9.0 has no comment lines; convention=10 skips lines starting with '#')"
            raise InputError(f"{label}, line {n}: expected {ncols} fields ({layout}), found {len(fields)}{hint}")
        yield n, fields


def _float_level(text: str, label: str, n: int, layout: str) -> float:
    name = layout.split()[-1]
    if not FLOAT_RE.match(text):
        raise InputError(f"{label}, line {n}: {name} {text!r} is not a number; expected a finite decimal number "
                         f"such as 2, 0 or 0.5 ({layout})")
    value = float(text)
    if not math.isfinite(value):
        raise InputError(f"{label}, line {n}: {name} {text!r} is out of range; expected a finite number")
    return value


def _int_level(text: str, label: str, n: int) -> int:
    if not _INT_LEVEL.match(text):
        extra = " (trec_eval reads it with atol, which would cut it to an integer)" if FLOAT_RE.match(text) else ""
        raise InputError(f"{label}, line {n}: rel {text!r} is not an integer{extra}; expected an integer level, "
                         f"< 0 for 'in the pool, not judged' ({QRELS_JG_LAYOUT})")
    return int(text.split(".")[0])


# ---------------------------------------------------------------------------
# reading a run
# ---------------------------------------------------------------------------


def _read_rankings(path, convention: int) -> dict:
    """{topic: (docnos, scores)} of a run file, scores as trec_eval compares them (float32 under 9.0)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyRunWarning)
        frame = read_run(path)
    if frame.empty:
        raise InputError(f"{os.fsdecode(path)}: the run file has no lines; expected lines of 6 fields "
                         f"({RUN_LAYOUT}) (trec_eval: cannot read results file)")
    topics = frame["topic"].to_numpy(dtype=object)
    docnos = frame["docno"].to_numpy(dtype=object)
    scores = frame["score"].to_numpy(dtype=np.float64)
    if convention == 9:
        with np.errstate(over="ignore"):  # beyond float32: inf, as trec_eval 9.0's (float) atof(text)
            scores = scores.astype(np.float32).astype(np.float64)
    names, codes = np.unique(topics, return_inverse=True)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(names) + 1))
    return {str(t): (docnos[order[bounds[i]:bounds[i + 1]]], scores[order[bounds[i]:bounds[i + 1]]])
            for i, t in enumerate(names)}


def _ranked(docnos: np.ndarray, scores: np.ndarray, *, docno_ascending: bool, max_docs: int | None) -> np.ndarray:
    """The docnos by score descending, ties by docno ascending or descending, the first ``max_docs``."""
    _, code = np.unique(docnos, return_inverse=True)
    order = np.lexsort((code if docno_ascending else -code, -scores))
    if max_docs is not None:
        order = order[:max_docs]
    return docnos[order]


# ---------------------------------------------------------------------------
# evaluation of one run
# ---------------------------------------------------------------------------


def _run_lines(rel_file, rel: dict, run, tag: str, names: list[str], cutoffs: dict, per_topic: bool,
               opts: _Options) -> list:
    """trec_eval's lines for one run file."""
    rankings = _read_rankings(run, opts.convention)
    slots = _slots(names, cutoffs)
    topics = sorted(rel) if (opts.complete and opts.convention == 10) else sorted(set(rel) & set(rankings))
    if not topics:
        raise InputError(f"no topic has both results in {os.fsdecode(run)} and judgments in {os.fsdecode(rel_file)} "
                         f"(trec_eval: No queries with both results and relevance info)")
    rows = []
    for topic in topics:
        docnos, scores = rankings.get(topic, _STAND_IN)
        values = _topic_values(topic, rel[topic], docnos, scores, names, cutoffs, opts)
        rows.append([1.0 if m == "num_q" else values[printed] for m, printed in slots])
    table = np.array(rows, dtype=np.float64).reshape(len(topics), len(slots))
    out = []
    if per_topic:
        for t, topic in enumerate(topics):
            out += [_line(printed, topic, table[t, s], m) for s, (m, printed) in enumerate(slots) if m != "num_q"]
    if "runid" in names:
        out.append(f"{'runid':<22}\tall\t{tag}")
    averaged = len(rel) if opts.complete else len(topics)
    for s, (m, printed) in enumerate(slots):
        if m == "num_q":
            total = float(averaged)
        else:
            total = _c_sum(table[:, s])  # topic by topic, as trec_eval accumulates
            if m not in _COUNTS:
                total /= averaged
        out.append(_line(printed, "all", total, m))
    return out


def _line(name: str, topic: str, value: float, measure: str) -> str:
    if measure in _COUNTS or measure == "num_q":
        return f"{name:<22}\t{topic}\t{int(value)}"  # C's (long) cast
    return f"{name:<22}\t{topic}\t{value:6.4f}"


def _c_sum(values) -> float:
    """The left-to-right sum of C's loops (Python's sum() compensates, numpy's sum pairs)."""
    values = np.asarray(values, dtype=np.float64)
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


def _topic_values(topic: str, judged, docnos, scores, names, cutoffs, opts: _Options) -> dict:
    if opts.rel_format == "qrels_jg":
        ranked = _ranked(docnos, scores, docno_ascending=False, max_docs=opts.max_docs)
        return _jg_values(judged, ranked, cutoffs, opts)
    if not any(m in PREFS_MEASURES for m in names):
        return {}
    ranked = _ranked(docnos, scores, docno_ascending=True, max_docs=opts.max_docs)
    return _prefs_values(_form_prefs(topic, judged, ranked), names)


# ---------------------------------------------------------------------------
# preferences against a ranking (form_prefs_counts.c)
# ---------------------------------------------------------------------------


@attrs.frozen(eq=False)
class _Group:
    """One judgment group of a topic against the ranking: its preferences (docid ranks, ``better`` preferred
    to ``worse``), their five counts, its relevant and nonrelevant documents, and what _Rnonrel needs."""

    name: str
    kind: str  # "EC" (one sub-group) or "PA" (several: the transitive closure)
    better: np.ndarray
    worse: np.ndarray
    ful_ret: int
    poss_ret: int
    ful_imp: int
    poss_imp: int
    poss_notoccur: int
    num_rel: int
    num_rel_ret: int
    num_nonrel: int
    num_nonrel_ret: int
    ecs: tuple = ()  # EC: the docid ranks of each level, highest first, each ascending
    levels: tuple = ()  # EC: the level of each EC
    pool_start: int = 0  # EC: where the group's first EC starts in the topic's rank pool
    docs: np.ndarray | None = None  # PA: the group's docid ranks, ascending
    doc_levels: np.ndarray | None = None  # PA: each doc's level (the last one read: trec_eval's rel_array)


@attrs.frozen(eq=False)
class _TopicPrefs:
    topic: str
    num_judged: int
    num_judged_ret: int
    groups: tuple
    pool: np.ndarray  # the docid ranks of the EC groups' ECs back to back (trec_eval's rank_pool)
    pair_keys: np.ndarray  # better * num_judged + worse, sorted, over every group
    pair_counts: np.ndarray  # the number of groups with each preference


def _form_prefs(topic: str, lines: _PrefLines, ranked: np.ndarray) -> _TopicPrefs:
    judged, line_doc = np.unique(lines.docno, return_inverse=True)
    nj = len(judged)
    pos = np.minimum(np.searchsorted(judged, ranked), nj - 1)
    hit = judged[pos] == ranked
    retrieved = pos[np.asarray(hit, dtype=bool)]  # judged docs in rank order
    njr = len(retrieved)
    docid = np.empty(nj, dtype=np.int64)
    docid[retrieved] = np.arange(njr)
    unretrieved = np.ones(nj, dtype=bool)
    unretrieved[retrieved] = False
    docid[unretrieved] = np.arange(njr, nj)  # in docno order
    rank = docid[line_doc]
    _, jg_code = np.unique(lines.jg, return_inverse=True)
    _, jsg_code = np.unique(lines.jsg, return_inverse=True)
    order = np.lexsort((rank, -lines.level, jsg_code, jg_code))
    starts = np.flatnonzero(np.r_[True, jg_code[order][1:] != jg_code[order][:-1]])
    ends = np.r_[starts[1:], len(order)]
    where = _Where(topic, lines, judged[np.argsort(docid)])
    groups, pool = [], []
    pool_size = 0
    for s, e in zip(starts, ends):
        rows = order[s:e]
        sub = jsg_code[rows]
        if np.all(sub == sub[0]):
            group = _ec_group(rows, rank[rows], lines.level[rows], njr, pool_size, where)
            pool.append(rank[rows])
            pool_size += len(rows)
        else:
            group = _pa_group(rows, rank[rows], lines.level[rows], sub, njr, where)
        groups.append(group)
    keys = np.sort(np.concatenate([g.better * nj + g.worse for g in groups]))
    first = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if len(keys) else np.zeros(0, np.int64)
    pair_keys, pair_counts = keys[first], np.diff(np.r_[first, len(keys)])
    if len(pair_counts) and pair_counts.max() > _MAX_COUNT:
        k = int(pair_keys[np.argmax(pair_counts)])
        raise InputError(f"topic {topic!r}: more than {_MAX_COUNT} judgment groups prefer {where.names[k // nj]!r} "
                         f"to {where.names[k % nj]!r}; trec_eval counts them in an unsigned short, which wraps")
    return _TopicPrefs(topic, nj, njr, tuple(groups), np.concatenate(pool) if pool else np.zeros(0, np.int64),
                       pair_keys, pair_counts)


@attrs.frozen(eq=False)
class _Where:
    """What an error message names: the topic, its lines, the docno of each docid rank."""

    topic: str
    lines: _PrefLines
    names: np.ndarray


def _below(ranks: np.ndarray, levels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every preference of one sub-group (entries sorted by level descending): each entry over every later
    entry of a lower level."""
    n = len(levels)
    starts = np.flatnonzero(np.r_[True, levels[1:] != levels[:-1]])
    tie_end = np.repeat(np.r_[starts[1:], n], np.diff(np.r_[starts, n]))  # first entry below each one's level
    counts = n - tie_end
    better = np.repeat(ranks, counts)
    first = np.repeat(np.cumsum(counts) - counts, counts)
    worse = ranks[np.arange(len(better)) - first + np.repeat(tie_end, counts)]
    return better, worse


def _areas(better: np.ndarray, worse: np.ndarray, njr: int) -> tuple[int, int, int, int, int]:
    """(ful_ret, poss_ret, ful_imp, poss_imp, poss_notoccur) of preferences better > worse; the possible
    counts include the fulfilled ones, as in trec_eval."""
    ret_b, ret_w = better < njr, worse < njr
    ful_ret = int(np.count_nonzero((better < worse) & ret_w))
    not_ret = int(np.count_nonzero((better > worse) & ret_b))
    ful_imp = int(np.count_nonzero(ret_b & ~ret_w))
    not_imp = int(np.count_nonzero(~ret_b & ret_w))
    notoccur = int(np.count_nonzero(~ret_b & ~ret_w))
    return ful_ret, ful_ret + not_ret, ful_imp, ful_imp + not_imp, notoccur


def _ec_group(rows, ranks, levels, njr: int, pool_start: int, where: _Where) -> _Group:
    name = str(where.lines.jg[rows[0]])
    if levels[0] == _NO_LEVEL:
        raise InputError(f"topic {where.topic!r}, judgment group {name!r} (line {where.lines.line[rows[0]]}): its "
                         f"highest rel_level is -3, the value trec_eval's form_prefs_counts.c uses for 'no level yet': "
                         f"trec_eval miscounts the group's levels and reads undefined memory; shift the levels")
    starts = np.flatnonzero(np.r_[True, levels[1:] != levels[:-1]])
    ecs = tuple(np.split(ranks, starts[1:]))
    better, worse = _below(ranks, levels)
    rel, ret = levels > 0.0, ranks < njr
    return _Group(name, "EC", better, worse, *_areas(better, worse, njr),
                  num_rel=int(rel.sum()), num_rel_ret=int((rel & ret).sum()),
                  num_nonrel=int((~rel).sum()), num_nonrel_ret=int((~rel & ret).sum()),
                  ecs=ecs, levels=tuple(float(v) for v in levels[starts]), pool_start=pool_start)


def _pa_group(rows, ranks, levels, sub, njr: int, where: _Where) -> _Group:
    name = str(where.lines.jg[rows[0]])
    docs, local = np.unique(ranks, return_inverse=True)
    # each doc's levels in sub-group order: 0 next to > 0 is an error, the last one is its level
    by_doc = np.argsort(local, kind="stable")
    same = local[by_doc][1:] == local[by_doc][:-1]
    prev, cur = levels[by_doc][:-1], levels[by_doc][1:]
    clash = np.flatnonzero(same & (((prev > 0) & (cur == 0)) | ((prev == 0) & (cur > 0))))
    if len(clash):
        k = clash[np.argmin(by_doc[clash + 1])]  # the clash trec_eval meets first (it reads the group in order)
        a, b = rows[by_doc[k]], rows[by_doc[k + 1]]
        raise InputError(f"topic {where.topic!r}, judgment group {name!r}: docno {where.lines.docno[b]!r} is nonrelevant "
                         f"(0) and relevant (> 0) in two of its sub-groups (lines {where.lines.line[a]} and "
                         f"{where.lines.line[b]}); a group is one user's consistent judgments (trec_eval stops)")
    last = np.r_[~same, True]
    doc_levels = np.empty(len(docs), dtype=np.float64)
    doc_levels[local[by_doc][last]] = levels[by_doc][last]
    adj = np.zeros((len(docs), len(docs)), dtype=bool)
    bounds = np.flatnonzero(np.r_[True, sub[1:] != sub[:-1], True])
    for s, e in itertools.pairwise(bounds):
        b, w = _below(local[s:e], levels[s:e])
        adj[b, w] = True
    reach = _closure(adj)
    conflict = np.argwhere(reach & reach.T)
    if len(conflict):
        i, j = conflict[0]
        raise InputError(f"topic {where.topic!r}, judgment group {name!r}: {where.names[docs[i]]!r} and "
                         f"{where.names[docs[j]]!r} are each preferred to the other through its sub-groups; a "
                         f"group's preferences must have no cycle (trec_eval aborts)")
    li, lj = np.nonzero(reach)
    better, worse = docs[li], docs[lj]
    rel, nonrel, ret = doc_levels > 0.0, doc_levels == 0.0, docs < njr
    return _Group(name, "PA", better, worse, *_areas(better, worse, njr),
                  num_rel=int(rel.sum()), num_rel_ret=int((rel & ret).sum()),
                  num_nonrel=int(nonrel.sum()), num_nonrel_ret=int((nonrel & ret).sum()),
                  docs=docs, doc_levels=doc_levels)


def _closure(adj: np.ndarray) -> np.ndarray:
    """The transitive closure of a preference relation, its diagonal cleared (add_transitives)."""
    reach = adj.copy()
    while True:
        as_float = reach.astype(np.float32)
        wider = reach | ((as_float @ as_float) > 0)
        if np.array_equal(wider, reach):
            break
        reach = wider
    np.fill_diagonal(reach, False)
    return reach


# ---------------------------------------------------------------------------
# the preference measures (m_prefs_*.c)
# ---------------------------------------------------------------------------


def _total(tp: _TopicPrefs, *fields: str) -> int:
    return sum(getattr(g, f) for g in tp.groups for f in fields)


_FUL = ("ful_ret", "ful_imp")
_POSS = ("poss_ret", "poss_imp", "poss_notoccur")
_POSS_IMP = ("poss_ret", "poss_imp")


def _ratio(tp: _TopicPrefs, ful: tuple, poss: tuple) -> float:
    f, p = _total(tp, *ful), _total(tp, *poss)
    return f / p if p else 0.0


def _avgjg(tp: _TopicPrefs, ful: tuple, poss: tuple) -> float:
    s = 0.0
    for g in tp.groups:
        p = sum(getattr(g, f) for f in poss)
        if p:
            s += sum(getattr(g, f) for f in ful) / p
    return s / len(tp.groups) if s > 0.0 else 0.0


def _pair(table: tuple, reach: str) -> float:
    """prefs_pair (``reach="all"``), _imp ("imp"), _ret ("ret") from :func:`_pair_table`."""
    score, both, one, none = table
    parts = [score[both]] if reach == "ret" else [score[both], score[one]]
    n = sum(len(p) for p in parts) + (int(none.sum()) if reach == "all" else 0)
    return _c_sum(np.concatenate(parts)) / n if n else 0.0


def _pair_table(tp: _TopicPrefs) -> tuple:
    """Over the document pairs {i < j} some group orders, in trec_eval's row-major order: the share
    c(i>j) / (c(i>j) + c(j>i)) of the groups agreeing with the ranking, and whether both, one or none of the
    two are retrieved."""
    nj, njr = tp.num_judged, tp.num_judged_ret
    keys, counts = tp.pair_keys, tp.pair_counts
    a, b = keys // nj, keys % nj
    pairs = np.sort(np.minimum(a, b) * nj + np.maximum(a, b))
    pairs = pairs[np.r_[True, pairs[1:] != pairs[:-1]]] if len(pairs) else pairs
    lo, hi = pairs // nj, pairs % nj

    def count(k):
        if not len(keys):
            return np.zeros(0, np.int64)
        i = np.minimum(np.searchsorted(keys, k), len(keys) - 1)
        return np.where(keys[i] == k, counts[i], 0)

    forward, backward = count(lo * nj + hi), count(hi * nj + lo)
    return forward / (forward + backward), hi < njr, (lo < njr) & (hi >= njr), lo >= njr


def _pool_entries(tp: _TopicPrefs, g: _Group, count: int, ret_only: bool, measure: str) -> np.ndarray:
    """The 'new nonrel EC' of recalculate(): ``count`` entries of the rank pool from the group's last EC on
    (running on into the topic's later EC groups, as trec_eval does); ``ret_only``: up to the first
    unretrieved one. Past the topic's data trec_eval reads stale memory: an error."""
    start = g.pool_start + sum(len(ec) for ec in g.ecs[:-1])
    entries = tp.pool[start:start + count]
    if ret_only:
        stop = np.flatnonzero(entries >= tp.num_judged_ret)
        if len(stop):
            return entries[:stop[0]]
    if len(entries) < count:
        raise InputError(f"{measure}, topic {tp.topic!r}, judgment group {g.name!r}: trec_eval takes {count} "
                         f"documents from the group's last level ({g.levels[-1]:g}, {len(g.ecs[-1])} documents) on, "
                         f"which runs past the topic's judgments into stale memory (m_{measure}.c): trec_eval's "
                         f"value is undefined for this input")
    return entries


def _ordered_pairs(x: np.ndarray, y: np.ndarray, njr: int | None) -> tuple[int, int]:
    """(fulfilled, not fulfilled) over the pairs x by y: fulfilled when x < y (and x < njr when given)."""
    ys = np.sort(y)
    xs = x if njr is None else x[x < njr]
    ful = int((len(ys) - np.searchsorted(ys, xs, side="right")).sum())
    return ful, len(x) * len(y) - ful


def _recalc_ec(tp: _TopicPrefs, g: _Group, ret_only: bool, measure: str) -> tuple[int, int]:
    njr = tp.num_judged_ret
    count = g.num_rel_ret if ret_only else g.num_rel
    new = _pool_entries(tp, g, count, ret_only, measure)
    ecs = [ec[ec < njr] for ec in g.ecs] if ret_only else list(g.ecs)  # each ascending: the loops' early stop
    rule = None if ret_only else njr
    ful = poss = 0
    for e1 in range(len(ecs)):
        for e2 in range(e1 + 1, len(ecs) - 1):  # every pair of ECs but the last (whatever their levels)
            f, p = _ordered_pairs(ecs[e1], ecs[e2], rule)
            ful, poss = ful + f, poss + p
    for ec in ecs:  # every EC, the last one too, against the new nonrel EC
        f, p = _ordered_pairs(ec, new, rule)
        ful, poss = ful + f, poss + p
    return ful, poss + ful


def _recalc_pa(tp: _TopicPrefs, g: _Group, ret_only: bool) -> tuple[int, int]:
    njr = tp.num_judged_ret
    limit = njr if ret_only else tp.num_judged
    zero = g.doc_levels == 0.0
    counted = g.docs[zero & (g.docs < limit)]  # ascending docid ranks
    first_dropped = counted[g.num_rel] if len(counted) > g.num_rel else limit  # num_rel + 1, also for _ret
    dropped = zero & (g.docs >= first_dropped)
    keep = ~dropped[np.searchsorted(g.docs, g.better)] & ~dropped[np.searchsorted(g.docs, g.worse)]
    ful_ret, poss_ret, ful_imp, poss_imp, notoccur = _areas(g.better[keep], g.worse[keep], njr)
    if ret_only:
        return ful_ret, poss_ret
    return ful_ret + ful_imp, poss_ret + poss_imp + notoccur


def _rnonrel(tp: _TopicPrefs, ret_only: bool) -> float:
    measure = "prefs_avgjg_Rnonrel_ret" if ret_only else "prefs_avgjg_Rnonrel"
    s = 0.0
    for g in tp.groups:
        r, n = (g.num_rel_ret, g.num_nonrel_ret) if ret_only else (g.num_rel, g.num_nonrel)
        if r >= n:
            if ret_only:
                ful, poss = g.ful_ret, g.poss_ret
            else:
                ful, poss = g.ful_ret + g.ful_imp, g.poss_ret + g.poss_imp + g.poss_notoccur
            ful += g.num_rel_ret * (r - n)
            poss += g.num_rel * (r - n)  # num_rel in the _ret variant too, as trec_eval
        elif g.kind == "EC":
            ful, poss = _recalc_ec(tp, g, ret_only, measure)
        else:
            ful, poss = _recalc_pa(tp, g, ret_only)
        s += ful / poss if poss else math.nan  # C's 0/0: NaN, which makes the topic 0 below
    return s / len(tp.groups) if s > 0.0 else 0.0


def _prefs_values(tp: _TopicPrefs, names) -> dict:
    """The asked-for preference measures of one topic."""
    table = _pair_table(tp) if any(m.startswith("prefs_pair") for m in names) else None
    compute = {
        "prefs_num_prefs_poss": lambda: float(_total(tp, *_POSS)),
        "prefs_num_prefs_ful": lambda: float(_total(tp, *_FUL)),
        "prefs_num_prefs_ful_ret": lambda: float(_total(tp, "ful_ret")),
        "prefs_simp": lambda: _ratio(tp, _FUL, _POSS),
        "prefs_pair": lambda: _pair(table, "all"),
        "prefs_avgjg": lambda: _avgjg(tp, _FUL, _POSS),
        "prefs_avgjg_Rnonrel": lambda: _rnonrel(tp, False),
        "prefs_simp_ret": lambda: _ratio(tp, ("ful_ret",), ("poss_ret",)),
        "prefs_pair_ret": lambda: _pair(table, "ret"),
        "prefs_avgjg_ret": lambda: _avgjg(tp, ("ful_ret",), ("poss_ret",)),
        "prefs_avgjg_Rnonrel_ret": lambda: _rnonrel(tp, True),
        "prefs_simp_imp": lambda: _ratio(tp, _FUL, _POSS_IMP),
        "prefs_pair_imp": lambda: _pair(table, "imp"),
        "prefs_avgjg_imp": lambda: _avgjg(tp, _FUL, _POSS_IMP),
    }
    return {m: compute[m]() for m in names if m in compute}


# ---------------------------------------------------------------------------
# the judgment-group measures (form_res_rels_jg.c, m_*_avgjg.c)
# ---------------------------------------------------------------------------


def _jg_values(groups: list[_JudgedGroup], ranked: np.ndarray, cutoffs: dict, opts: _Options) -> dict:
    """map_avgjg, P_avgjg_k and Rprec_mult_avgjg_m of one topic: each group's value, summed in group order and
    divided by the number of groups."""
    rl = opts.rel_level
    p_cuts = cutoffs.get("P_avgjg", JG_CUTOFFS["P_avgjg"])
    r_mults = cutoffs.get("Rprec_mult_avgjg", JG_CUTOFFS["Rprec_mult_avgjg"])
    ap = 0.0
    p_sums = np.zeros(len(p_cuts))
    r_sums = np.zeros(len(r_mults))
    for g in groups:
        labels = np.full(len(ranked), -1, dtype=np.int64)  # not in the group's judgments
        if len(ranked):
            pos = np.minimum(np.searchsorted(g.docno, ranked), len(g.docno) - 1)
            found = np.asarray(g.docno[pos] == ranked, dtype=bool)
            labels[found] = np.where(g.level[pos[found]] >= 0, g.level[pos[found]], -2)  # -2: in pool, not judged
        if opts.judged_only:
            labels = labels[labels >= 0]
        num_ret = len(labels)
        hits = labels >= rl
        num_rel_ret = int(np.count_nonzero(hits & (labels >= 0)))
        num_rel = int(np.count_nonzero((g.level >= 0) & (g.level >= rl)))
        seen = np.cumsum(hits)
        if hits.any():
            at = np.flatnonzero(hits)
            ap += _c_sum(seen[at] / (at + 1.0)) / num_rel
        for c, k in enumerate(p_cuts):
            p_sums[c] += (seen[min(k, num_ret) - 1] if num_ret else 0) / k  # k > 0
        after = np.r_[np.cumsum(hits[::-1])[::-1], 0]  # relevant at or after each position
        for c, m in enumerate(r_mults):
            cut = int(m * num_rel + 0.9)  # C's (long) cast
            if cut > num_ret:
                r_sums[c] += num_rel_ret / cut
            elif cut > 0:
                left = num_rel_ret - int(after[cut])
                r_sums[c] += left / cut if left > 0 else 0.0
    n = len(groups)
    if n > 1:
        ap, p_sums, r_sums = ap / n, p_sums / n, r_sums / n
    values = {"map_avgjg": ap}
    values.update({f"P_avgjg_{k}": float(v) for k, v in zip(p_cuts, p_sums)})
    values.update({f"Rprec_mult_avgjg_{m:3.2f}": float(v) for m, v in zip(r_mults, r_sums)})
    return values
