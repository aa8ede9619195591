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
from .prefs_counts import PrefLines, c_sum, form_prefs, prefs_values
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
class _JudgedGroup:
    """One judgment group of a topic (qrels_jg): its docnos sorted, their levels."""

    name: str
    docno: np.ndarray
    level: np.ndarray  # int64


def _read_rel(path, rel_format: str, convention: int) -> dict:
    """{topic: PrefLines} (prefs, qrels_prefs) or {topic: [_JudgedGroup, ...] in strcmp order} (qrels_jg)."""
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
        out[qid] = PrefLines(np.array(jg, dtype=object), np.array(jsg, dtype=object),
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
            total = c_sum(table[:, s])  # topic by topic, as trec_eval accumulates
            if m not in _COUNTS:
                total /= averaged
        out.append(_line(printed, "all", total, m))
    return out


def _line(name: str, topic: str, value: float, measure: str) -> str:
    if measure in _COUNTS or measure == "num_q":
        return f"{name:<22}\t{topic}\t{int(value)}"  # C's (long) cast
    return f"{name:<22}\t{topic}\t{value:6.4f}"


def _topic_values(topic: str, judged, docnos, scores, names, cutoffs, opts: _Options) -> dict:
    if opts.rel_format == "qrels_jg":
        ranked = _ranked(docnos, scores, docno_ascending=False, max_docs=opts.max_docs)
        return _jg_values(judged, ranked, cutoffs, opts)
    if not any(m in PREFS_MEASURES for m in names):
        return {}
    ranked = _ranked(docnos, scores, docno_ascending=True, max_docs=opts.max_docs)
    return prefs_values(form_prefs(topic, judged, ranked), names)


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
            ap += c_sum(seen[at] / (at + 1.0)) / num_rel
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
