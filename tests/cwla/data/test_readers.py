"""Tests of cwla.data.readers: TREC qrels and run readers."""

from __future__ import annotations

import gzip
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cwla
from cwla.errors import InputError
from cwla.data.readers import read_qrels, read_run, run_name
from cwla.data.trec_format import RUN_FORMAT
from conftest import SHARED

SHARED_DATA = SHARED

RUN_TEXT = (
    "301 Q0 D1 1 2.5 sys\n"
    "301\tQ0\tD2\t2\t1.5\tsys\n"
    "\n"
    "302  Q0 \t 0123 1 -0.25 sys  \n"
    "   \t  \n"
    "302 Q0 D1 2 -1e-3 sys\n"
)
RUN_EXPECTED = pd.DataFrame(
    {
        "topic": pd.Series(["301", "301", "302", "302"], dtype=str),
        "docno": pd.Series(["D1", "D2", "0123", "D1"], dtype=str),
        "score": np.array([2.5, 1.5, -0.25, -0.001]),
        "rank": np.array([1, 2, 1, 2], dtype=np.int64),
    }
)

QRELS_TEXT = (
    "301 0 D1 1\n"
    "301\t0\t0042\t0.428571\n"
    "\n"
    "302 0  D1\t-1\n"
    "0302 iter D7 3\n"
)
QRELS_EXPECTED = pd.DataFrame(
    {
        "topic": pd.Series(["301", "301", "302", "0302"], dtype=str),
        "docno": pd.Series(["D1", "0042", "D1", "D7"], dtype=str),
        "grade": np.array([1.0, 0.428571, -1.0, 3.0]),
    }
)


def _write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    """Write `text` to tmp_path/name, gzip-compressed if the name ends in .gz."""
    path = tmp_path / name
    data = text.encode("utf-8") if isinstance(text, str) else text
    if name.endswith(".gz"):
        data = gzip.compress(data)
    path.write_bytes(data)
    return path


def _raises(reader, source, message: str):
    """Check that reading `source` raises InputError containing `message`."""
    with pytest.raises(InputError, match=re.escape(message)):
        reader(source)


def _check_canonical(frame: pd.DataFrame, columns: list[str]) -> None:
    assert list(frame.columns) == columns
    assert isinstance(frame.index, pd.RangeIndex) and frame.index.start == 0
    assert pd.api.types.is_string_dtype(frame["topic"].dtype)
    assert pd.api.types.is_string_dtype(frame["docno"].dtype)


# ---------------------------------------------------------------------------
# round trips on files
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["run.txt", "run.gz", "run"])
def test_read_run_file_round_trip(tmp_path, name):
    frame = read_run(_write(tmp_path, name, RUN_TEXT))
    _check_canonical(frame, ["topic", "docno", "score", "rank"])
    assert frame["score"].dtype == np.float64
    assert frame["rank"].dtype == np.int64
    pd.testing.assert_frame_equal(frame, RUN_EXPECTED)


@pytest.mark.parametrize("name", ["qrels.txt", "qrels.gz"])
def test_read_qrels_file_round_trip(tmp_path, name):
    frame = read_qrels(_write(tmp_path, name, QRELS_TEXT))
    _check_canonical(frame, ["topic", "docno", "grade"])
    assert frame["grade"].dtype == np.float64
    pd.testing.assert_frame_equal(frame, QRELS_EXPECTED)


def test_gzip_detected_by_magic_bytes_without_suffix(tmp_path):
    path = tmp_path / "run.txt"
    path.write_bytes(gzip.compress(RUN_TEXT.encode()))
    pd.testing.assert_frame_equal(read_run(path), RUN_EXPECTED)


def test_path_as_str_and_pathlike(tmp_path):
    path = _write(tmp_path, "run.txt", RUN_TEXT)
    pd.testing.assert_frame_equal(read_run(str(path)), read_run(path))


def test_crlf_line_endings_and_bom(tmp_path):
    text = "\ufeff" + RUN_TEXT.replace("\n", "\r\n")
    pd.testing.assert_frame_equal(read_run(_write(tmp_path, "run.txt", text)), RUN_EXPECTED)


def test_no_trailing_newline(tmp_path):
    frame = read_qrels(_write(tmp_path, "qrels.txt", QRELS_TEXT.rstrip("\n")))
    pd.testing.assert_frame_equal(frame, QRELS_EXPECTED)


def test_ids_are_strings_not_numbers(tmp_path):
    # Leading zeros kept; NA-like docnos are not turned into missing values.
    text = "007 Q0 0123 1 1 t\n007 Q0 NA 2 0.5 t\n007 Q0 nan 3 0 t\n007 Q0 1e5 4 0 t\n"
    frame = read_run(_write(tmp_path, "run.txt", text))
    assert frame["topic"].tolist() == ["007"] * 4
    assert frame["docno"].tolist() == ["0123", "NA", "nan", "1e5"]


def test_quotes_hashes_and_commas_are_ordinary_characters(tmp_path):
    text = '1 Q0 "a 1 1 t\n1 Q0 b" 2 1 t\n#1 Q0 #c 3 1 t\n1 Q0 d,e 4 1 t\n'
    frame = read_run(_write(tmp_path, "run.txt", text))
    assert frame["docno"].tolist() == ['"a', 'b"', "#c", "d,e"]
    assert frame["topic"].tolist() == ["1", "1", "#1", "1"]


def test_run_keeps_file_order_and_given_ranks(tmp_path):
    text = "2 Q0 a 5 0.1 t\n1 Q0 b 1 0.9 t\n2 Q0 c 3 0.7 t\n"
    frame = read_run(_write(tmp_path, "run.txt", text))
    assert frame["topic"].tolist() == ["2", "1", "2"]
    assert frame["rank"].tolist() == [5, 1, 3]
    assert frame["score"].tolist() == [0.1, 0.9, 0.7]


def test_rank_written_as_integral_float_is_accepted(tmp_path):
    frame = read_run(_write(tmp_path, "run.txt", "1 Q0 a 1.0 0.5 t\n1 Q0 b 2 0.4 t\n"))
    assert frame["rank"].tolist() == [1, 2]
    assert frame["rank"].dtype == np.int64


def test_same_docno_in_different_topics_is_fine(tmp_path):
    frame = read_run(_write(tmp_path, "run.txt", "1 Q0 a 1 1 t\n2 Q0 a 1 1 t\n"))
    assert len(frame) == 2


def test_score_ties_and_scientific_notation(tmp_path):
    text = "1 Q0 a 1 1E+2 t\n1 Q0 b 2 +1e2 t\n1 Q0 c 3 .5 t\n1 Q0 d 4 5. t\n"
    frame = read_run(_write(tmp_path, "run.txt", text))
    assert frame["score"].tolist() == [100.0, 100.0, 0.5, 5.0]


def test_slow_path_result_matches_fast_path(tmp_path):
    # A valid file is parsed identically by the fast path and the line scan.
    from cwla import readers

    data = RUN_TEXT.encode()
    fast = readers._read_file_fast(data, RUN_FORMAT)
    slow = readers._read_file_slow(data, "run.txt", RUN_FORMAT)
    pd.testing.assert_frame_equal(fast, slow)
    pd.testing.assert_frame_equal(fast, RUN_EXPECTED)


# ---------------------------------------------------------------------------
# DataFrame and dict inputs
# ---------------------------------------------------------------------------


def test_run_dataframe_native_names(tmp_path):
    frame = pd.DataFrame(
        {
            "topic": ["301", "301", "302", "302"],
            "docno": ["D1", "D2", "0123", "D1"],
            "score": [2.5, 1.5, -0.25, -0.001],
            "rank": [1, 2, 1, 2],
            "tag": "sys",
        },
        index=[10, 11, 12, 13],
    )
    pd.testing.assert_frame_equal(read_run(frame), read_run(_write(tmp_path, "r", RUN_TEXT)))


def test_run_dataframe_ir_measures_names_numbers_ranks():
    frame = pd.DataFrame(
        {
            "query_id": [301, 301, 302, 302],
            "doc_id": ["D1", "D2", "0123", "D1"],
            "score": [2.5, 1.5, -0.25, -0.001],
        }
    )
    pd.testing.assert_frame_equal(read_run(frame), RUN_EXPECTED)


def test_run_dataframe_without_rank_numbers_within_topic_in_input_order():
    frame = pd.DataFrame({"topic": ["a", "b", "a", "b", "a"], "docno": list("vwxyz"), "score": 0.0})
    assert read_run(frame)["rank"].tolist() == [1, 1, 2, 2, 3]


def test_run_dict_matches_file(tmp_path):
    run = {"301": {"D1": 2.5, "D2": 1.5}, "302": {"0123": -0.25, "D1": -0.001}}
    pd.testing.assert_frame_equal(read_run(run), read_run(_write(tmp_path, "r", RUN_TEXT)))


def test_qrels_dataframe_both_namings_and_dict_match_file(tmp_path):
    from_file = read_qrels(_write(tmp_path, "q.gz", QRELS_TEXT))
    native = pd.DataFrame(
        {
            "topic": ["301", "301", "302", "0302"],
            "docno": ["D1", "0042", "D1", "D7"],
            "grade": [1, 0.428571, -1, 3],
        }
    )
    irm = native.rename(columns={"topic": "query_id", "docno": "doc_id", "grade": "relevance"})
    as_dict = {"301": {"D1": 1, "0042": 0.428571}, "302": {"D1": -1}, "0302": {"D7": 3}}
    for source in (native, irm, as_dict):
        pd.testing.assert_frame_equal(read_qrels(source), from_file)


def test_dataframe_integer_ids_become_strings():
    frame = pd.DataFrame({"topic": [301, 302], "docno": [5, 6], "grade": [1, 0]})
    result = read_qrels(frame)
    assert result["topic"].tolist() == ["301", "302"]
    assert result["docno"].tolist() == ["5", "6"]


def test_dict_with_integer_keys_and_empty_topic():
    result = read_qrels({301: {"a": 1}, 302: {}})
    assert result["topic"].tolist() == ["301"]


def test_input_dataframe_is_not_modified():
    frame = pd.DataFrame({"query_id": [1], "doc_id": ["a"], "relevance": [2]})
    before = frame.copy()
    read_qrels(frame)
    pd.testing.assert_frame_equal(frame, before)


# ---------------------------------------------------------------------------
# run_name
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("runs/p_bert.gz", "p_bert"),
        ("p_bert", "p_bert"),
        ("/a/b/run.txt", "run.txt"),
        ("dir/run.txt.gz", "run.txt"),
        (Path("runs") / "DoRA_Large.gz", "DoRA_Large"),
    ],
)
def test_run_name(path, expected):
    assert run_name(path) == expected


# ---------------------------------------------------------------------------
# errors: files
# ---------------------------------------------------------------------------


def test_run_wrong_column_count_too_few(tmp_path):
    path = _write(tmp_path, "run.txt", "1 Q0 a 1 1 t\n1 Q0 b 2 1 t\n1 Q0 c 3 1\n")
    _raises(read_run, path, f"{path}, line 3: expected 6 columns (qid Q0 docno rank score tag), found 5")


def test_run_lines_with_more_than_six_columns_use_the_first_six(tmp_path):
    # as trec_eval does (its own results.trunc has lines of 7 to 9 columns)
    path = _write(tmp_path, "run.txt", "1 Q0 a 1 1 t\n\n1 Q0 b 2 0.5 t extra more\n")
    frame = read_run(path)
    assert frame["docno"].tolist() == ["a", "b"] and frame["score"].tolist() == [1.0, 0.5]
    assert cwla.prepare({"1": {"a": 1}}, [path]).lengths.tolist() == [2]  # the bulk reader too


def test_qrels_comment_lines_are_skipped_but_a_hash_inside_a_docno_is_data(tmp_path):
    # trec_eval's qrels.test.with-comments: whole lines starting with '#' are comments
    path = _write(tmp_path, "qrels.txt", "# a comment\n1 0 a 1\n  # indented comment\n1 0 C#93 0\n#\n")
    frame = read_qrels(path)
    assert frame["docno"].tolist() == ["a", "C#93"]
    # a comment line in a file that goes to the line scan keeps physical line numbers
    bad = _write(tmp_path, "bad.txt", "# comment\n1 0 a 1\n1 0 b\n")
    _raises(read_qrels, bad, f"{bad}, line 3: expected 4 columns (qid iter docno grade), found 3")


def test_run_wrong_column_count_on_first_line(tmp_path):
    # a qrels file given as a run
    path = _write(tmp_path, "run.txt", "1 0 a 1\n1 0 b 0\n")
    _raises(read_run, path, f"{path}, line 1: expected 6 columns (qid Q0 docno rank score tag), found 4")


def test_qrels_wrong_column_count(tmp_path):
    path = _write(tmp_path, "qrels.txt", "1 0 a 1\n1 0 b\n")
    _raises(read_qrels, path, f"{path}, line 2: expected 4 columns (qid iter docno grade), found 3")


def test_qrels_too_many_columns(tmp_path):
    path = _write(tmp_path, "qrels.txt", "1 0 a 1\n1 0 b 1 x\n")
    _raises(read_qrels, path, f"{path}, line 2: expected 4 columns (qid iter docno grade), found 5")


def test_error_names_the_path_as_given(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, "run.txt", "1 Q0 a 1 1 t\n1 Q0 b 2 1 t\n1 Q0 c 3 1\n")
    _raises(read_run, "run.txt", "run.txt, line 3: expected 6 columns (qid Q0 docno rank score tag), found 5")


def test_run_non_numeric_score(tmp_path):
    path = _write(tmp_path, "run.txt", "1 Q0 a 1 1 t\n1 Q0 b 2 abc t\n")
    _raises(read_run, path, f"{path}, line 2: score 'abc' is not a number")


@pytest.mark.parametrize("token", ["nan", "NaN", "inf", "-inf", "Infinity", "1e999"])
def test_run_non_finite_score(tmp_path, token):
    path = _write(tmp_path, "run.txt", f"1 Q0 a 1 1 t\n1 Q0 b 2 {token} t\n")
    _raises(read_run, path, f"{path}, line 2: score '{token}' is not a finite number")


@pytest.mark.parametrize("token", ["1_0", "0x10", "1,5", "١"])
def test_run_score_outside_the_number_grammar(tmp_path, token):
    path = _write(tmp_path, "run.txt", f"1 Q0 a 1 {token} t\n")
    _raises(read_run, path, f"{path}, line 1: score '{token}' is not a number")


@pytest.mark.parametrize("token", ["abc", "1.5", "nan"])
def test_run_rank_not_an_integer(tmp_path, token):
    path = _write(tmp_path, "run.txt", f"1 Q0 a 1 1 t\n1 Q0 b {token} 1 t\n")
    _raises(read_run, path, f"{path}, line 2: rank '{token}' is not an integer")


@pytest.mark.parametrize(
    ("token", "problem"),
    [
        ("9223372036854775808", "is out of the 64-bit integer range"),
        ("9" * 5000, "is out of the 64-bit integer range"),
        ("1e400", "is not an integer"),
    ],
)
def test_run_rank_too_large(tmp_path, token, problem):
    path = _write(tmp_path, "run.txt", f"1 Q0 a {token} 1 t\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning from pandas leaks out
        _raises(read_run, path, f"{path}, line 1: rank '{token}' {problem}")


def test_qrels_non_numeric_grade(tmp_path):
    path = _write(tmp_path, "qrels.txt", "1 0 a 1\n1 0 b 0\n2 0 a 1\n\n2 0 c x\n")
    _raises(read_qrels, path, f"{path}, line 5: grade 'x' is not a number")


def test_qrels_non_finite_grade(tmp_path):
    path = _write(tmp_path, "qrels.txt", "1 0 a inf\n")
    _raises(read_qrels, path, f"{path}, line 1: grade 'inf' is not a finite number")


def test_run_duplicate_docno(tmp_path):
    lines = [
        "301 Q0 D0 1 9 t",
        "301 Q0 D9 2 8 t",
        "",
        "301 Q0 D1 3 7 t",
        "302 Q0 D1 1 7 t",
        "301 Q0 D2 4 6 t",
        "",
        "301 Q0 D3 5 5 t",
        "301 Q0 D1 6 4 t",
        "301 Q0 D1 7 3 t",
    ]
    path = _write(tmp_path, "run.txt", "\n".join(lines) + "\n")
    _raises(read_run, path, f"{path}, line 9: docno 'D1' appears twice for topic '301' (first at line 4)")


def test_run_duplicate_docno_gz(tmp_path):
    path = _write(tmp_path, "run.gz", "1 Q0 a 1 1 t\n1 Q0 b 2 1 t\n1 Q0 a 3 1 t\n")
    _raises(read_run, path, f"{path}, line 3: docno 'a' appears twice for topic '1' (first at line 1)")


def test_qrels_duplicate_pair(tmp_path):
    path = _write(tmp_path, "qrels.txt", "1 0 a 1\n2 0 a 1\n\n1 1 a 0\n")
    _raises(read_qrels, path, f"{path}, line 4: docno 'a' appears twice for topic '1' (first at line 1)")


def test_first_offending_line_wins(tmp_path):
    # a duplicate on line 2 comes before the bad score on line 3
    path = _write(tmp_path, "run.txt", "1 Q0 a 1 1 t\n1 Q0 a 2 1 t\n1 Q0 b 3 x t\n")
    _raises(read_run, path, f"{path}, line 2: docno 'a' appears twice for topic '1' (first at line 1)")


def _empty_run(source, message: str) -> None:
    """An empty run reads as no documents, with a warning (every topic then scores 0, as in pytrec_eval)."""
    with pytest.warns(cwla.EmptyRunWarning, match=re.escape(message) + ".*every topic scores 0"):
        frame = read_run(source)
    assert len(frame) == 0 and list(frame.columns) == ["topic", "docno", "score", "rank"]


@pytest.mark.parametrize("text", ["", "\n\n", "  \t \n\n"])
def test_run_empty_file(tmp_path, text):
    path = _write(tmp_path, "run.txt", text)
    _empty_run(path, f"{path} is empty: no run lines")


def test_qrels_empty_gz_file(tmp_path):
    path = _write(tmp_path, "qrels.gz", "")
    _raises(read_qrels, path, f"{path} is empty: no qrels lines")


def test_missing_file(tmp_path):
    path = tmp_path / "nope.txt"
    with pytest.raises(FileNotFoundError, match=re.escape(str(path))) as info:
        read_run(path)
    assert "run file does not exist" in str(info.value)
    with pytest.raises(FileNotFoundError, match="qrels file does not exist"):
        read_qrels(str(path))


def test_directory_instead_of_file(tmp_path):
    _raises(read_run, tmp_path, f"{tmp_path} is a directory, not a TREC run file")


def test_corrupt_gzip(tmp_path):
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(RUN_TEXT.encode())[:-12])
    _raises(read_run, path, f"{path}: starts like a gzip file but cannot be decompressed")


def test_invalid_utf8_line(tmp_path):
    path = _write(tmp_path, "run.txt", b"1 Q0 a 1 1 t\n\n1 Q0 \xff 2 1 t\n")
    _raises(read_run, path, f"{path}, line 3: not valid UTF-8 text")


def test_line_numbers_count_physical_lines_with_crlf(tmp_path):
    path = _write(tmp_path, "run.txt", "1 Q0 a 1 1 t\r\n\r\n\r\n1 Q0 b 2 x t\r\n")
    _raises(read_run, path, f"{path}, line 4: score 'x' is not a number")


def test_no_break_space_is_not_a_separator(tmp_path):
    # A no-break space is part of the docno (as in pandas and trec_eval).
    path = _write(tmp_path, "run.txt", "1 Q0 a\u00a0b 1 1 t\n")
    assert read_run(path)["docno"].tolist() == ["a\u00a0b"]


def test_vertical_tab_and_form_feed_separate_fields(tmp_path):
    # C's isspace() (trec_eval) treats \v and \f as blanks; pandas does not,
    # so such files are read by the line scan, with the same result.
    text = RUN_TEXT.replace("sys\n", "\x0bsys\x0c\n", 1).replace("302 Q0 D1", "302\x0cQ0 D1")
    path = _write(tmp_path, "run.txt", text)
    pd.testing.assert_frame_equal(read_run(path), RUN_EXPECTED)
    bad = _write(tmp_path, "bad.txt", "1 Q0 a\x0b1 1 t\n1 Q0 b\x0c2 1\n")
    _raises(read_run, bad, f"{bad}, line 2: expected 6 columns (qid Q0 docno rank score tag), found 5")


# ---------------------------------------------------------------------------
# errors: DataFrames and dicts
# ---------------------------------------------------------------------------


def test_run_dataframe_missing_columns():
    frame = pd.DataFrame({"topic": ["1"], "docno": ["a"]})
    _raises(
        read_run,
        frame,
        "run DataFrame is missing columns ['score'] (found ['topic', 'docno']); "
        "accepted: topic or query_id or qid, docno or doc_id, score[, rank]",
    )


def test_run_dataframe_missing_columns_ir_measures_naming():
    frame = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"]})
    _raises(read_run, frame, "run DataFrame is missing columns ['score'] (found ['query_id', 'doc_id'])")


def test_qrels_dataframe_missing_columns():
    frame = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "rel": [1]})
    _raises(
        read_qrels,
        frame,
        "qrels DataFrame is missing columns ['grade or relevance or label'] (found ['query_id', 'doc_id', 'rel']); "
        "accepted: topic or query_id or qid, docno or doc_id, grade or relevance or label",
    )


def test_dataframe_with_two_columns_for_one_role():
    frame = pd.DataFrame({"topic": ["1"], "qid": ["1"], "docno": ["a"], "grade": [1]})
    _raises(read_qrels, frame, "qrels DataFrame has columns ['topic', 'qid'], which all name the topic; keep one")


def test_run_dataframe_non_numeric_score():
    frame = pd.DataFrame({"topic": ["1", "1"], "docno": ["a", "b"], "score": [1.0, "abc"]}, index=[7, 8])
    _raises(read_run, frame, "run DataFrame, row 8: score 'abc' is not a number")


def test_run_dataframe_non_finite_score():
    frame = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [np.inf, 1.0]})
    _raises(read_run, frame, "run DataFrame, row 0: score inf is not a finite number")


def test_qrels_dataframe_nan_grade_names_column():
    frame = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1, np.nan]})
    _raises(read_qrels, frame, "qrels DataFrame, row 1: relevance nan is not a finite number")


def test_run_dataframe_rank_not_integer():
    frame = pd.DataFrame({"topic": ["1", "1"], "docno": ["a", "b"], "score": 1.0, "rank": [1, 1.5]})
    _raises(read_run, frame, "run DataFrame, row 1: rank 1.5 is not an integer")


def test_run_dataframe_duplicates():
    frame = pd.DataFrame(
        {"topic": ["301", "302", "301", "301"], "docno": ["D1", "D1", "D2", "D1"], "score": 1.0},
        index=["w", "x", "y", "z"],
    )
    _raises(read_run, frame, "run DataFrame, row 'z': docno 'D1' appears twice for topic '301' (first at row 'w')")


def test_qrels_dataframe_duplicates_after_str_conversion():
    frame = pd.DataFrame({"topic": [1, 1], "docno": ["a", "a"], "grade": [1, 0]})
    _raises(read_qrels, frame, "qrels DataFrame, row 1: docno 'a' appears twice for topic '1' (first at row 0)")


def test_dataframe_missing_topic():
    frame = pd.DataFrame({"topic": ["1", None], "docno": ["a", "b"], "grade": [1, 0]})
    _raises(read_qrels, frame, "qrels DataFrame, row 1: topic is missing")


def test_dataframe_empty():
    _empty_run(pd.DataFrame(columns=["topic", "docno", "score"]), "run DataFrame is empty: no rows")
    _raises(read_qrels, pd.DataFrame(columns=["query_id", "doc_id", "relevance"]), "qrels DataFrame is empty: no rows")


def test_dict_non_numeric_value():
    _raises(read_run, {"1": {"a": 1.0, "b": "x"}}, "run dict, topic '1', docno 'b': score 'x' is not a number")


def test_dict_non_finite_value():
    _raises(read_qrels, {"1": {"a": float("nan")}}, "qrels dict, topic '1', docno 'a': grade nan is not a finite number")


def test_dict_duplicates_after_str_conversion():
    _raises(
        read_qrels,
        {1: {"a": 1}, "1": {"a": 0}},
        "qrels dict, topic '1', docno 'a': docno 'a' appears twice for topic '1' (first at topic 1, docno 'a')",
    )


def test_dict_inner_value_not_a_dict():
    _raises(read_run, {"1": [("a", 1.0)]}, "run dict: the value for topic '1' is a list; accepted: {topic: {docno: score}}")


def test_dict_empty():
    _empty_run({}, "run dict is empty: no (topic, docno) entries")
    _raises(read_qrels, {"1": {}}, "qrels dict is empty: no (topic, docno) entries")


@pytest.mark.parametrize("source", [42, None, [("1", "a", 1)], b"run.txt"])
def test_wrong_source_type(source):
    with pytest.raises(TypeError, match=r"a path to a TREC run file .*a pandas DataFrame.*a dict.*to_dict\(\).*"
                                        r"iterable of records"):
        read_run(source)
    with pytest.raises(TypeError, match=r"read_qrels\(\) accepts a path to a TREC qrels file"):
        read_qrels(source)


def test_input_error_is_a_value_error(tmp_path):
    path = _write(tmp_path, "run.txt", "1 Q0 a 1 x t\n")
    with pytest.raises(ValueError):
        read_run(path)


# ---------------------------------------------------------------------------
# properties: valid files round trip; one corrupted line is always located
# ---------------------------------------------------------------------------

_ID = st.text(alphabet="0123456789abcXYZ-_.", min_size=1, max_size=6)
_SEP = st.text(alphabet=" \t", min_size=1, max_size=3)


@st.composite
def _run_files(draw):
    """A valid run as (physical lines, expected frame, data line numbers)."""
    topics = draw(st.lists(_ID, min_size=1, max_size=3, unique=True))
    rows = []
    for topic in topics:
        docnos = draw(st.lists(_ID, min_size=1, max_size=5, unique=True))
        for rank, docno in enumerate(docnos, start=1):
            score = draw(st.floats(allow_nan=False, allow_infinity=False, width=64))
            rows.append((topic, docno, rank, score))
    rows = draw(st.permutations(rows))
    lines, numbers = [], []
    for topic, docno, rank, score in rows:
        while draw(st.booleans()) and draw(st.booleans()):
            lines.append(draw(st.sampled_from(["", " ", "\t \t"])))
        fields = [topic, "Q0", docno, str(rank), repr(score), "tag"]
        seps = [draw(_SEP) for _ in range(5)]
        line = fields[0] + "".join(sep + field for sep, field in zip(seps, fields[1:]))
        lines.append(draw(st.sampled_from(["", " ", "\t"])) + line + draw(st.sampled_from(["", " "])))
        numbers.append(len(lines))
    expected = pd.DataFrame(
        {
            "topic": pd.Series([r[0] for r in rows], dtype=str),
            "docno": pd.Series([r[1] for r in rows], dtype=str),
            "score": np.array([r[3] for r in rows], dtype=np.float64),
            "rank": np.array([r[2] for r in rows], dtype=np.int64),
        }
    )
    return lines, expected, numbers


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(run=_run_files(), gz=st.booleans())
def test_property_valid_run_files_round_trip(tmp_path, run, gz):
    lines, expected, _ = run
    path = _write(tmp_path, "prop.gz" if gz else "prop.txt", "\n".join(lines) + "\n")
    pd.testing.assert_frame_equal(read_run(path), expected)


_CORRUPTIONS = ["drop_field", "extra_field", "bad_score", "nan_score", "bad_rank", "duplicate"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(run=_run_files(), kind=st.sampled_from(_CORRUPTIONS), data=st.data())
def test_property_corrupted_line_is_located(tmp_path, run, kind, data):
    lines, expected, numbers = run
    i = data.draw(st.integers(0, len(numbers) - 1))
    lineno = numbers[i]
    fields = lines[lineno - 1].split()
    if kind == "drop_field":
        fields.pop()
        message = f"line {lineno}: expected 6 columns (qid Q0 docno rank score tag), found 5"
    elif kind == "extra_field":  # allowed in a run, as in trec_eval: the first 6 columns are read
        fields.append("junk")
        message = None
    elif kind == "bad_score":
        fields[4] = "abc"
        message = f"line {lineno}: score 'abc' is not a number"
    elif kind == "nan_score":
        fields[4] = "nan"
        message = f"line {lineno}: score 'nan' is not a finite number"
    elif kind == "bad_rank":
        fields[3] = "x"
        message = f"line {lineno}: rank 'x' is not an integer"
    else:
        earlier = [j for j in range(i) if expected.at[j, "topic"] == fields[0]]
        if not earlier:
            return
        j = earlier[0]
        fields[2] = expected.at[j, "docno"]
        message = (
            f"line {lineno}: docno {fields[2]!r} appears twice for topic {fields[0]!r} "
            f"(first at line {numbers[j]})"
        )
    lines = list(lines)
    lines[lineno - 1] = " ".join(fields)
    path = _write(tmp_path, "prop.txt", "\n".join(lines) + "\n")
    if message is None:
        pd.testing.assert_frame_equal(read_run(path), expected)
    else:
        _raises(read_run, path, f"{path}, {message}")


# ---------------------------------------------------------------------------
# real data (skipped without /work/shared)
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    return SHARED_DATA


def test_real_qrels_dl19_mini(shared_data):
    path = shared_data / "trec-dl-2019-passage-mini" / "qrels" / "qrels.dl19-passage.txt"
    qrels = read_qrels(path)
    assert len(qrels) == 9260
    assert qrels["topic"].nunique() == 43
    assert qrels["grade"].isin([0.0, 1.0, 2.0, 3.0]).all()


def test_real_run_dl19_gz(shared_data):
    runs = sorted((shared_data / "trec-dl-2019-passage" / "runs").glob("*.gz"))
    if not runs:
        pytest.skip("no DL19 runs found")
    path = runs[0]
    with gzip.open(path, "rt") as fh:
        n_lines = sum(1 for line in fh if line.strip())
    run = read_run(path)
    assert len(run) == n_lines
    _check_canonical(run, ["topic", "docno", "score", "rank"])
    assert not run.duplicated(["topic", "docno"]).any()


def test_real_fixture_qrels_with_negative_grades(shared_data):
    path = shared_data / "reference-fixtures" / "trec_eval-test" / "qrels.rel_level"
    if not path.exists():
        pytest.skip("trec_eval fixtures not found")
    qrels = read_qrels(path)
    assert qrels["grade"].min() == -1.0


def test_real_cwl_gain_file_float_grades(shared_data):
    path = shared_data / "reference-fixtures" / "cwl_eval-test" / "gain_file"
    if not path.exists():
        pytest.skip("cwl_eval fixtures not found")
    qrels = read_qrels(path)
    assert (qrels["grade"] % 1 != 0).any()


@pytest.mark.parametrize("name", ["run\tone", "run\none", "run\rone", "a\x00b"])
def test_a_run_name_with_a_control_character_is_refused(tmp_path, name):
    """Issue 41: a tab or a line break in a run name broke the TSV outputs (one field became two, one line two);
    it is refused with the name shown escaped, from a file name or a dict key alike."""
    qrels = pd.DataFrame({"topic": ["q1"], "docno": ["d1"], "grade": [1]})
    run = pd.DataFrame({"topic": ["q1"], "docno": ["d1"], "score": [1.0]})
    with pytest.raises(cwla.InputError, match=r"run name .* holds a control character"):
        cwla.evaluate(qrels, {name: run, "other": run}, ["P@1"])
    if "\x00" not in name:
        path = tmp_path / f"{name}.txt"
        path.write_text("q1 Q0 d1 1 1.0 r\n")
        with pytest.raises(cwla.InputError, match=re.escape(repr(f"{name}.txt"))):
            cwla.evaluate(qrels, [path], ["P@1"])


BOMB_READER = """
import resource, sys
import cwla
try:
    cwla.read_run(sys.argv[1])
    print("read")
except cwla.InputError as err:
    print("refused:", err)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


@pytest.mark.slow
def test_a_gzip_bomb_is_refused_by_its_decompressed_size_in_bounded_memory(tmp_path):
    """Issue 41: a small gzip file of one repeated run line, 512 MiB decompressed (about 160x), allocated 9 GiB
    of parsed arrays before it was refused; it is refused while decompressing, once the output passes 100x the
    compressed size, with the process' peak memory under 1 GiB."""
    import subprocess
    import sys
    import zlib

    compressor = zlib.compressobj(1, zlib.DEFLATED, 31)
    chunk = b"q1 Q0 d1 1 1.0 r\n" * (2**22 // 17)
    path = tmp_path / "bomb.gz"
    with open(path, "wb") as fh:
        for _ in range(2**29 // len(chunk)):
            fh.write(compressor.compress(chunk))
        fh.write(compressor.flush())
    size = path.stat().st_size
    assert 2**29 / size > 100  # a bomb by the rule
    done = subprocess.run([sys.executable, "-c", BOMB_READER, str(path)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    message, peak = done.stdout.strip().splitlines()
    assert message.startswith(f"refused: {path}: this gzip file of {size:,} bytes decompresses to more than")
    assert "gzip bomb" in message and int(peak) < 2**30


def test_a_highly_compressible_but_small_file_is_read(tmp_path):
    """The ratio is not checked below 64 MiB of text: a small file of repeated lines (over 100x) is read."""
    from cwla.data.files import read_bytes

    path = tmp_path / "repeated.gz"
    text = b"q1 Q0 d1 1 1.0 r\n" * 600_000  # 10 MB, about 400x
    path.write_bytes(gzip.compress(text))
    assert len(text) / path.stat().st_size > 100
    assert read_bytes(path, "run") == text
    real = tmp_path / "real.gz"  # and a run of distinct lines, about 5x
    real.write_bytes(gzip.compress("".join(f"q1 Q0 d{i} {i} 1.0 r\n" for i in range(1, 100_001)).encode()))
    assert len(cwla.read_run(real)) == 100_000


def test_gzip_members_padding_and_damage_read_as_gzip_decompress_reads_them(tmp_path):
    """cwla's gunzip (with its bomb limit) against the standard library on the shapes gzip files take: several
    members, zero padding after a member and between members, an empty member; a truncated file and trailing
    bytes that are not a member are refused."""
    from cwla.data.files import read_bytes

    a, b = gzip.compress(b"q1 Q0 d1 1 1.0 r\n"), gzip.compress(b"q2 Q0 d2 1 2.0 r\n")
    for name, data in {"members": a + b, "padding": a + b"\0" * 7, "padding between": a + b"\0" * 3 + b,
                       "empty member": gzip.compress(b"") + a}.items():
        path = tmp_path / f"{name}.gz"
        path.write_bytes(data)
        assert read_bytes(path, "run") == gzip.decompress(data), name
    for name, data in {"truncated": a[:-3], "trailing": a + b"junk"}.items():
        path = tmp_path / f"{name}.gz"
        path.write_bytes(data)
        with pytest.raises(InputError, match="starts like a gzip file but cannot be decompressed"):
            read_bytes(path, "run")
