"""trec_eval's preference and judgment-group evaluation (:mod:`cwla.bridges.trec_prefs`): every ``-R prefs``,
``-R qrels_prefs`` and ``-R qrels_jg`` command of both ``Makefile.quicktest`` files (trec_eval master's and
9.0's) line for line, small examples worked out by hand, and the errors of malformed input."""

from __future__ import annotations

import re
import shlex

import pytest
from conftest import SHARED, shared_path

from cwla.bridges.trec_prefs import (
    DEFAULT_MEASURES,
    JG_MEASURES,
    PREFS_MEASURES,
    PREFS_NICKNAMES,
    REL_FORMATS,
    trec_prefs_lines,
)
from cwla.errors import InputError

#: the two suites and the convention each follows
SUITES = {"trec_eval-test": 10, "trec_eval-9.0-test": 9}


def _commands(folder: str) -> list[tuple[dict, str]]:
    """The -R prefs / qrels_prefs / qrels_jg commands of a suite: (their options, the expected output's name)."""
    makefile = SHARED / "reference-fixtures" / folder / "Makefile.quicktest"
    if not makefile.exists():
        return []
    out = []
    for line in makefile.read_text().splitlines():
        command, _, expected = line.strip().partition("| diff - ")
        args = shlex.split(command)[1:] if command.startswith("./trec_eval") else []
        if "-R" not in args:
            continue
        options = {"measures": [], "per_topic": False, "files": []}
        it = iter(args)
        for arg in it:
            if arg == "-m":
                options["measures"].append(next(it))
            elif arg == "-R":
                options["rel_format"] = next(it)
            elif arg == "-q":
                options["per_topic"] = True
            else:
                assert not arg.startswith("-"), f"an option the test does not know: {arg}"
                options["files"].append(arg.removeprefix("test/"))
        out.append((options, expected.strip().removeprefix("test/")))
    return out


def _cases():
    cases = [pytest.param(folder, options, expected, id=f"{folder}: {' '.join(options['files'])}")
             for folder in SUITES for options, expected in _commands(folder)]
    return cases or [pytest.param(None, None, None, marks=pytest.mark.skip(reason="needs ../shared"))]


@pytest.mark.parametrize("folder, options, expected", _cases())
def test_every_quicktest_command_prints_trec_evals_expected_output(folder, options, expected):
    root = shared_path("reference-fixtures", folder)
    rel, run = (root / name for name in options["files"])
    got = trec_prefs_lines(rel, run, rel_format=options["rel_format"], measures=options["measures"],
                           per_topic=options["per_topic"], convention=SUITES[folder])
    want = (root / expected).read_text()
    wrong = [(n, g, w) for n, (g, w) in enumerate(zip(got.splitlines(), want.splitlines()), 1) if g != w]
    assert not wrong, wrong[:5]
    assert got == want


def test_both_suites_have_their_prefs_and_jg_commands():
    shared_path("reference-fixtures", "trec_eval-test")
    master, old = _commands("trec_eval-test"), _commands("trec_eval-9.0-test")
    # master: prefs, prefs with comments, qrels_prefs, qrels_jg, qrels_jg with comments; 9.0: no comment files
    assert len(master) == 5 and len(old) == 3
    assert {o["rel_format"] for o, _ in master} == {o["rel_format"] for o, _ in old} == set(REL_FORMATS)
    assert sum("comment" in " ".join(o["files"]) for o, _ in master) == 2


@pytest.mark.parametrize("rel, fmt, message", [
    ("prefs.comment.test", "prefs", (r"prefs.comment.test, line 1: expected 5 fields .* found 3 \(trec_eval 9.0 has no "
                                    r"comment lines; convention=10 skips lines starting with '#'\)")),
    ("qrels.comments.123", "qrels_jg", r"qrels.comments.123, line 2: expected 4 fields .* found 3"),
])
def test_the_comment_files_of_trec_eval_10_are_malformed_for_9(rel, fmt, message):
    root = shared_path("reference-fixtures", "trec_eval-test")
    run = root / ("prefs.results.test" if fmt == "prefs" else "results.test")
    with pytest.raises(InputError, match=message):
        trec_prefs_lines(root / rel, run, rel_format=fmt, measures="all_prefs" if fmt == "prefs" else "qrels_jg",
                         convention=9)


def test_default_measures_are_each_formats_official_set():
    root = shared_path("reference-fixtures", "trec_eval-9.0-test")
    got = trec_prefs_lines(root / "prefs.test", root / "prefs.results.test", rel_format="prefs")
    names = [line.split("\t")[0].strip() for line in got.splitlines()]
    assert names == list(PREFS_NICKNAMES[DEFAULT_MEASURES["prefs"]])
    full = trec_prefs_lines(root / "prefs.test", root / "prefs.results.test", rel_format="prefs", measures="all_prefs")
    assert set(got.splitlines()) <= set(full.splitlines())


# ---------------------------------------------------------------------------
# worked by hand
# ---------------------------------------------------------------------------


def _write(path, lines) -> str:
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


def _values(text: str) -> dict:
    """{(measure, topic): printed value}."""
    return {(m.strip(), t): v for m, t, v in (line.split("\t") for line in text.splitlines())}


def test_a_one_group_topic_worked_by_hand(tmp_path):
    # One judgment group, one sub-group: A (2) > B (1) > C = D = E (0): 7 preferences
    #   A>B A>C A>D A>E B>C B>D B>E.
    # Ranking: E, B, A, C, X (X unjudged, dropped); D not retrieved. Docid ranks: E0 B1 A2 C3, D4; NJR = 4.
    #   A2>B1 not fulfilled (both retrieved)  A2>C3 fulfilled   A2>D4 implied fulfilled   A2>E0 not fulfilled
    #   B1>C3 fulfilled   B1>D4 implied fulfilled   B1>E0 not fulfilled
    # Fr = 2, Pr = 2 + 3 = 5, Fi = 2, Pi = 2, Pn = 0:
    #   num_prefs_poss = Pr+Pi+Pn = 7, num_prefs_ful = Fr+Fi = 4, num_prefs_ful_ret = 2,
    #   simp = 4/7 = .5714, simp_ret = Fr/Pr = 2/5 = .4, simp_imp = 4/(5+2) = .5714; avgjg = simp (one group).
    # prefs_pair: every pair is in one group, scores 1 (ranked right) or 0: both retrieved (E,B) (E,A) (B,A) 0,
    #   (B,C) (A,C) 1, one retrieved (B,D) (A,D) 1: pair = 4/7, pair_ret = 2/5, pair_imp = 4/7.
    # Rnonrel: R = num_rel = 2 (A, B) < N = 3 (C, D, E): recalculated. ECs [A2], [B1], [E0 C3 D4]; the new
    #   nonrel EC is the first R = 2 entries of the last EC: [0, 3]. Pairs between ECs but the last: A2 vs B1,
    #   not fulfilled. Every EC, the last one too, against [0, 3] (fulfilled when x < y and x < NJR):
    #   A2: (2,0) no, (2,3) yes; B1: (1,0) no, (1,3) yes; E0 C3 D4: (0,0) no, (0,3) yes, (3,0) (3,3) (4,0)
    #   (4,3) no. Fulfilled 3, not 8: 3 / (8 + 3) = .2727.
    # Rnonrel_ret: R = num_rel_ret = 2 >= N = num_nonrel_ret = 2 (E, C): Fr / Pr = 2/5 = .4.
    rel = _write(tmp_path / "prefs", ["t1 u1 s1 A 2", "t1 u1 s1 B 1", "t1 u1 s1 C 0", "t1 u1 s1 D 0", "t1 u1 s1 E 0"])
    run = _write(tmp_path / "run", ["t1 Q0 E 1 4.0 r", "t1 Q0 B 2 3.0 r", "t1 Q0 A 3 2.0 r", "t1 Q0 C 4 1.0 r",
                                    "t1 Q0 X 5 0.5 r"])
    got = _values(trec_prefs_lines(rel, run, rel_format="prefs", measures="all_prefs", per_topic=True))
    want = {"prefs_num_prefs_poss": "7", "prefs_num_prefs_ful": "4", "prefs_num_prefs_ful_ret": "2",
            "prefs_simp": "0.5714", "prefs_pair": "0.5714", "prefs_avgjg": "0.5714", "prefs_avgjg_Rnonrel": "0.2727",
            "prefs_simp_ret": "0.4000", "prefs_pair_ret": "0.4000", "prefs_avgjg_ret": "0.4000",
            "prefs_avgjg_Rnonrel_ret": "0.4000", "prefs_simp_imp": "0.5714", "prefs_pair_imp": "0.5714",
            "prefs_avgjg_imp": "0.5714"}
    for topic in ("t1", "all"):
        assert {m: got[(m, topic)] for m in PREFS_MEASURES} == want
    assert got[("runid", "all")] == "r" and got[("num_q", "all")] == "1"


def test_sub_groups_add_their_transitive_preferences(tmp_path):
    # Sub-group s1: A > B; s2: B > C; so A > C too: 3 preferences. Ranking C, A, B: docid ranks C0 A1 B2.
    # A1>B2 fulfilled; B2>C0 and A1>C0 not: Fr = 1, Pr = 3, simp = 1/3.
    rel = _write(tmp_path / "prefs", ["t u s1 A 2", "t u s1 B 1", "t u s2 B 2", "t u s2 C 1"])
    run = _write(tmp_path / "run", ["t Q0 C 1 3 r", "t Q0 A 2 2 r", "t Q0 B 3 1 r"])
    got = _values(trec_prefs_lines(rel, run, rel_format="prefs",
                                   measures=["prefs_num_prefs_poss", "prefs_num_prefs_ful_ret", "prefs_simp"]))
    assert got == {("prefs_num_prefs_poss", "all"): "3", ("prefs_num_prefs_ful_ret", "all"): "1",
                   ("prefs_simp", "all"): "0.3333"}


def test_prefs_pair_weighs_pairs_not_preferences(tmp_path):
    # Groups u1 and u2: A > B; u3: C > A. Ranking A, B, C. The three preferences: A>B twice fulfilled, C>A not:
    # simp = 2/3, avgjg = (1 + 1 + 0)/3 = 2/3. prefs_pair: pair {A,B} scores 2/2 = 1, pair {A,C} 0/1 = 0: 1/2.
    rel = _write(tmp_path / "prefs", ["t u1 s A 1", "t u1 s B 0", "t u2 s A 1", "t u2 s B 0", "t u3 s C 1",
                                      "t u3 s A 0"])
    run = _write(tmp_path / "run", ["t Q0 A 1 3 r", "t Q0 B 2 2 r", "t Q0 C 3 1 r"])
    got = _values(trec_prefs_lines(rel, run, rel_format="prefs", measures=["prefs_simp", "prefs_avgjg", "prefs_pair"]))
    assert got == {("prefs_simp", "all"): "0.6667", ("prefs_avgjg", "all"): "0.6667", ("prefs_pair", "all"): "0.5000"}


def test_prefs_break_score_ties_by_docno_ascending_and_jg_measures_descending(tmp_path):
    # A and B tie. Preferences rank A first (A > B fulfilled: simp 1); the qrels_jg measures rank B first
    # (B relevant: P_avgjg_1 = 1), as trec_eval's form_prefs_counts.c and form_res_rels_jg.c do.
    run = _write(tmp_path / "run", ["t Q0 A 1 1.0 r", "t Q0 B 2 1.0 r"])
    prefs = _write(tmp_path / "prefs", ["t u s A 1", "t u s B 0"])
    assert trec_prefs_lines(prefs, run, rel_format="prefs", measures="prefs_simp") == "prefs_simp            \tall\t1.0000\n"
    jg = _write(tmp_path / "jg", ["t 0 A 0", "t 0 B 1"])
    got = trec_prefs_lines(jg, run, rel_format="qrels_jg", measures="P_avgjg.1,2")
    assert got == "P_avgjg_1             \tall\t1.0000\nP_avgjg_2             \tall\t0.5000\n"


def test_convention_9_compares_scores_and_levels_as_c_floats(tmp_path):
    # 2.0000001 and 2.0 are one float32: under 9.0 they tie and A (docno ascending) comes first
    run = _write(tmp_path / "run", ["t Q0 B 1 2.0000001 r", "t Q0 A 2 2.0 r"])
    prefs = _write(tmp_path / "prefs", ["t u s A 1", "t u s B 0"])
    assert _values(trec_prefs_lines(prefs, run, rel_format="prefs", measures="prefs_simp", convention=9)) == \
        {("prefs_simp", "all"): "1.0000"}
    assert _values(trec_prefs_lines(prefs, run, rel_format="prefs", measures="prefs_simp", convention=10)) == \
        {("prefs_simp", "all"): "0.0000"}
    # a level of 1e-50 is 0 as a float32: no preference left under 9.0
    tiny = _write(tmp_path / "tiny", ["t u s A 1e-50", "t u s B 0"])
    assert trec_prefs_lines(tiny, run, rel_format="prefs", measures="prefs_num_prefs_poss", convention=9).endswith("\t0\n")
    assert trec_prefs_lines(tiny, run, rel_format="prefs", measures="prefs_num_prefs_poss", convention=10).endswith("\t1\n")


def test_qrels_jg_averages_over_groups(tmp_path):
    # Group 0: A relevant; group 1: A and B relevant, C not. Ranking A, C, B.
    # map: group 0: 1/1 = 1; group 1: (1/1 + 2/3) / 2 = .8333; topic (1 + .8333)/2 = .9167.
    # P_avgjg_2: group 0: 1/2, group 1: 1/2: .5. Rprec_mult_avgjg_1.00: cutoffs (long)(1 * R + .9) = 1 and 2:
    # group 0: P@1 = 1, group 1: P@2 = 1/2: .75.
    jg = _write(tmp_path / "jg", ["t 0 A 1", "t 1 A 1", "t 1 B 2", "t 1 C 0"])
    run = _write(tmp_path / "run", ["t Q0 A 1 3 r", "t Q0 C 2 2 r", "t Q0 B 3 1 r"])
    got = _values(trec_prefs_lines(jg, run, rel_format="qrels_jg",
                                   measures=["map_avgjg", "P_avgjg.2", "Rprec_mult_avgjg.1.0"]))
    assert got == {("map_avgjg", "all"): "0.9167", ("P_avgjg_2", "all"): "0.5000",
                   ("Rprec_mult_avgjg_1.00", "all"): "0.7500"}
    # -l 2: only B is relevant (group 1; group 0 has none): map (0 + 1/3)/2; -J keeps judged docs: the same here
    got = _values(trec_prefs_lines(jg, run, rel_format="qrels_jg", measures="map_avgjg", rel_level=2, judged_only=True))
    assert got == {("map_avgjg", "all"): "0.1667"}


def test_max_docs_and_complete(tmp_path):
    # t1: A > E, ranked A, E: fulfilled with both retrieved. -M 1 keeps A only: fulfilled, implied (E unretrieved).
    # t2 is judged but not in the run.
    rel = _write(tmp_path / "prefs", ["t1 u s A 1", "t1 u s E 0", "t2 u s A 1", "t2 u s B 0"])
    run = _write(tmp_path / "run", ["t1 Q0 A 1 2 r", "t1 Q0 E 2 1 r"])
    measures = ["num_q", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp_ret", "prefs_simp_imp"]
    assert _values(trec_prefs_lines(rel, run, rel_format="prefs", measures=measures)) == {
        ("num_q", "all"): "1", ("prefs_num_prefs_ful", "all"): "1", ("prefs_num_prefs_ful_ret", "all"): "1",
        ("prefs_simp_ret", "all"): "1.0000", ("prefs_simp_imp", "all"): "1.0000"}
    assert _values(trec_prefs_lines(rel, run, rel_format="prefs", measures=measures, max_docs=1)) == {
        ("num_q", "all"): "1", ("prefs_num_prefs_ful", "all"): "1", ("prefs_num_prefs_ful_ret", "all"): "0",
        ("prefs_simp_ret", "all"): "0.0000", ("prefs_simp_imp", "all"): "1.0000"}
    measures = ["num_q", "prefs_num_prefs_poss", "prefs_simp"]
    # -c, 9.0: averaged over both judged topics (t1's simp 1, t2 counting 0): 1/2; t2 not printed
    got = _values(trec_prefs_lines(rel, run, rel_format="prefs", measures=measures, complete=True, per_topic=True))
    assert got == {("prefs_num_prefs_poss", "t1"): "1", ("prefs_simp", "t1"): "1.0000", ("num_q", "all"): "2",
                   ("prefs_num_prefs_poss", "all"): "1", ("prefs_simp", "all"): "0.5000"}
    # -c, >= 10: t2 is evaluated against trec_eval's one-document stand-in ranking (A > B: neither retrieved,
    # possible, not occurring) and printed
    got = _values(trec_prefs_lines(rel, run, rel_format="prefs", measures=measures, complete=True, per_topic=True,
                                   convention=10))
    assert got == {("prefs_num_prefs_poss", "t1"): "1", ("prefs_simp", "t1"): "1.0000",
                   ("prefs_num_prefs_poss", "t2"): "1", ("prefs_simp", "t2"): "0.0000", ("num_q", "all"): "2",
                   ("prefs_num_prefs_poss", "all"): "2", ("prefs_simp", "all"): "0.5000"}


def test_several_runs_give_one_block_each(tmp_path):
    rel = _write(tmp_path / "prefs", ["t u s A 1", "t u s B 0"])
    one = _write(tmp_path / "one", ["t Q0 A 1 2 first", "t Q0 B 2 1 first"])
    two = _write(tmp_path / "two", ["t Q0 B 1 2 x", "t Q0 A 2 1 second"])  # the runid is the last line's
    got = trec_prefs_lines(rel, [one, two], rel_format="prefs", measures="prefs_simp")
    assert got == ("runid                 \tall\tfirst\nprefs_simp            \tall\t1.0000\n"
                   "runid                 \tall\tsecond\nprefs_simp            \tall\t0.0000\n")
    got = trec_prefs_lines(rel, [one, two], rel_format="prefs", measures=["runid", "prefs_simp"])
    assert got.count("runid") == 2


# ---------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------

RUN = ["t Q0 A 1 2 r", "t Q0 B 2 1 r"]


@pytest.mark.parametrize("fmt, lines, message", [
    ("prefs", ["t u s A 1", "t u s B"],
     r"prefs, line 2: expected 5 fields \(qid jg jsg docno rel_level\), found 4"),
    ("qrels_prefs", ["t 0 A 1 extra"], r"prefs, line 1: expected 4 fields \(qid iter docno rel\), found 5"),
    ("prefs", ["t u s A high"], r"line 1: rel_level 'high' is not a number; expected a finite decimal number"),
    ("prefs", ["t u s A 1e999"], r"line 1: rel_level '1e999' is out of range"),
    ("qrels_jg", ["t 0 A 1.5"], r"line 1: rel '1.5' is not an integer \(trec_eval reads it with atol"),
    ("prefs", ["t u s A 1", "t u s A 1"], r"line 2: qid jg jsg docno 't u s A' again \(first at line 1\)"),
    ("qrels_prefs", ["t 0 A 1", "t 0 A 0"], r"line 2: qid iter docno 't 0 A' again \(first at line 1\)"),
    ("qrels_jg", ["t 0 A 1", "t 0 A 1"], r"line 2: qid jg docno 't 0 A' again \(first at line 1\)"),
    ("prefs", ["t u s A 1", "", "t u s B 0"], r"line 2: a blank line; trec_eval reads every line"),
])
def test_malformed_judgment_lines(tmp_path, fmt, lines, message):
    rel = _write(tmp_path / "prefs", lines)
    with pytest.raises(InputError, match=message):
        trec_prefs_lines(rel, _write(tmp_path / "run", RUN), rel_format=fmt)


def test_empty_files(tmp_path):
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    rel = _write(tmp_path / "prefs", ["t u s A 1", "t u s B 0"])
    with pytest.raises(InputError, match=r"empty: the file is empty; expected lines of 5 fields"):
        trec_prefs_lines(empty, _write(tmp_path / "run", RUN), rel_format="prefs")
    with pytest.raises(InputError, match=r"empty: the run file has no lines; expected lines of 6 fields"):
        trec_prefs_lines(rel, empty, rel_format="prefs")


def test_malformed_runs_and_runs_without_judged_topics(tmp_path):
    rel = _write(tmp_path / "prefs", ["t u s A 1", "t u s B 0"])
    with pytest.raises(InputError, match=r"run, line 2: score 'x' is not a number"):
        trec_prefs_lines(rel, _write(tmp_path / "run", ["t Q0 A 1 2 r", "t Q0 B 2 x r"]), rel_format="prefs")
    with pytest.raises(InputError, match=r"docno 'A' appears twice for topic 't'"):
        trec_prefs_lines(rel, _write(tmp_path / "run", ["t Q0 A 1 2 r", "t Q0 A 2 1 r"]), rel_format="prefs")
    with pytest.raises(InputError, match=r"no topic has both results in .*other and judgments in .*prefs"):
        trec_prefs_lines(rel, _write(tmp_path / "other", ["z Q0 A 1 2 r"]), rel_format="prefs")


@pytest.mark.parametrize("fmt, lines, message", [
    ("prefs", ["# one", "# two", "t u s A 1"], r"line 2: a second comment line in a row; trec_eval >= 10 skips one"),
    ("qrels_jg", ["t 0 A 1", "# last"], r"line 2: a comment as the last line; trec_eval >= 10 then reads past"),
    ("qrels_prefs", ["# iter", "t 0 A 1"], (r"line 1: a line starting with '#': no trec_eval reads comment lines in a "
                                          r"qrels_prefs file")),
])
def test_comment_lines_trec_eval_10_does_not_read_as_comments(tmp_path, fmt, lines, message):
    rel = _write(tmp_path / "rel", lines)
    with pytest.raises(InputError, match=message):
        trec_prefs_lines(rel, _write(tmp_path / "run", RUN), rel_format=fmt, convention=10)


def test_comment_lines_are_skipped_by_convention_10(tmp_path):
    rel = _write(tmp_path / "rel", ["# a comment", "t u s A 1", "# another", "t u s B#2 0"])
    run = _write(tmp_path / "run", ["t Q0 A 1 2 r", "t Q0 B#2 2 1 r"])  # '#' past column 0 is data
    assert trec_prefs_lines(rel, run, rel_format="prefs", measures="prefs_simp", convention=10).endswith("\t1.0000\n")


@pytest.mark.parametrize("fmt, lines, measures, message", [
    # A > B in s1, B > A in s2: trec_eval aborts
    ("prefs", ["t u s1 A 2", "t u s1 B 1", "t u s2 B 2", "t u s2 A 1"], "prefs",
     r"topic 't', judgment group 'u': 'A' and 'B' are each preferred to the other through its sub-groups"),
    ("prefs", ["t u s1 A 0", "t u s1 B 1", "t u s2 A 2", "t u s2 B 3"], "prefs",
     (r"judgment group 'u': docno 'A' is nonrelevant \(0\) and relevant \(> 0\) in two of its sub-groups "
     r"\(lines 1 and 3\)")),
    # R = 3 relevant < N = 4 nonrelevant (0 and -1), and the last level (-1) holds 1 document, not R = 3:
    # trec_eval's new nonrelevant class runs past the topic's data
    ("qrels_prefs", ["t 0 A 1", "t 0 B 1", "t 0 C 1", "t 0 D 0", "t 0 E 0", "t 0 F 0", "t 0 G -1"],
     "prefs_avgjg_Rnonrel", (r"prefs_avgjg_Rnonrel, topic 't', judgment group '0': trec_eval takes 3 documents from "
                            r"the group's last level \(-1, 1 documents\) on, which runs past")),
    ("qrels_prefs", ["t 0 A -3", "t 0 B -4"], "prefs_simp",
     r"judgment group '0' \(line 1\): its highest rel_level is -3, the value trec_eval's form_prefs_counts.c uses"),
])
def test_inputs_trec_eval_stops_on_or_leaves_undefined(tmp_path, fmt, lines, measures, message):
    rel = _write(tmp_path / "rel", lines)
    with pytest.raises(InputError, match=message):
        trec_prefs_lines(rel, _write(tmp_path / "run", RUN), rel_format=fmt, measures=measures)


def test_the_undefined_rnonrel_read_is_refused_only_when_asked_for(tmp_path):
    rel = _write(tmp_path / "rel", ["t 0 A 1", "t 0 B 1", "t 0 C 1", "t 0 D 0", "t 0 E 0", "t 0 F 0", "t 0 G -1"])
    got = trec_prefs_lines(rel, _write(tmp_path / "run", RUN), rel_format="qrels_prefs", measures="prefs")
    assert "prefs_avgjg_Rnonrel" not in got and "prefs_simp" in got


@pytest.mark.parametrize("fmt, measures, error, message", [
    ("prefs", "map", ValueError, (r"measure 'map' is not a preference or judgment-group measure of trec_eval; "
                                 r"accepted: the nicknames all_prefs, prefs, qrels_jg")),
    ("prefs", ["prefs_simp", "P_avgjg"], ValueError, r"measures P_avgjg need -R qrels_jg, not rel_format='prefs'"),
    ("qrels_jg", "all_prefs", ValueError, r"measures prefs_num_prefs_poss, .* need -R prefs or -R qrels_prefs"),
    ("prefs", "prefs_simp.3", ValueError, r"measure 'prefs_simp.3': prefs_simp takes no parameters"),
    ("prefs", "all_prefs.1", ValueError, r"the nickname 'all_prefs' takes no parameters"),
    ("qrels_jg", "P_avgjg.5,5", ValueError, r"duplicate cutoffs"),
    ("qrels_jg", "P_avgjg.0,5", ValueError, r"cutoff '0' is not a positive integer"),
    ("qrels_jg", "P_avgjg.", ValueError, r"cutoff '' is not a positive integer"),
    ("qrels_jg", "Rprec_mult_avgjg.half", ValueError, r"'half' is not a number"),
    ("qrels_jg", ["P_avgjg.5", "P_avgjg.10"], ValueError, r"P_avgjg was given other cutoffs already \(5\)"),
    ("prefs", [], ValueError, r"measures is empty"),
    ("prefs", [3], TypeError, r"a measure is a trec_eval -m text \(str\), got 3"),
])
def test_measures_that_do_not_fit(tmp_path, fmt, measures, error, message):
    rel = _write(tmp_path / "rel", ["t u s A 1"] if fmt == "prefs" else ["t 0 A 1"])
    with pytest.raises(error, match=message):
        trec_prefs_lines(rel, _write(tmp_path / "run", RUN), rel_format=fmt, measures=measures)


@pytest.mark.parametrize("options, message", [
    ({"rel_format": "qrels"}, (r"'rel_format' parameter of trec_prefs_lines must be 'prefs', 'qrels_prefs' or "
                              r"'qrels_jg'. Got 'qrels'")),
    ({"convention": 11}, r"'convention' parameter .* must be 9 \(trec_eval 9.0\) or 10"),
    ({"max_docs": -1}, r"'max_docs' parameter .* must be an integer >= 0 or None. Got -1"),
    ({"rel_level": -1}, r"'rel_level' parameter .* >= 0 \(below 0 trec_eval counts documents outside the judgments"),
    ({"per_topic": 1}, r"'per_topic' parameter .* must be True or False"),
])
def test_parameters_out_of_range(tmp_path, options, message):
    rel = _write(tmp_path / "rel", ["t u s A 1"])
    with pytest.raises(ValueError, match=message):
        trec_prefs_lines(rel, _write(tmp_path / "run", RUN), **({"rel_format": "prefs"} | options))
    with pytest.raises(ValueError, match=r"no run file given"):
        trec_prefs_lines(rel, [], rel_format="prefs")


def test_the_measure_lists_are_trec_evals():
    assert len(PREFS_MEASURES) == 14 and PREFS_NICKNAMES["all_prefs"] == ("runid", "num_q", *PREFS_MEASURES)
    assert JG_MEASURES == ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg")
    assert all(re.fullmatch(r"[A-Za-z_]+", m) for m in PREFS_MEASURES + JG_MEASURES)
