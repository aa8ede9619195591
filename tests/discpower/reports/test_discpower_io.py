"""discpower.reports.io: the matrix TSV, Sakai's Discpower run list + topic-by-run matrix, and the pairs output."""

import gzip

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import naive_discpower as naive
from discpower import DiscpowerError, randomised_tukey_hsd
from discpower.reports.io import read_discpower, read_matrix, write_matrix, write_pairs
from discpower.stats.significance import parametric_tukey_hsd

X51 = naive.table_5_1()


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- round trips


def test_matrix_round_trip_table_5_1(tmp_path):
    path = tmp_path / "m.tsv"
    text = write_matrix(X51, ["A", "B", "C"], path)
    assert text.splitlines()[0] == "A\tB\tC" and text.splitlines()[1] == "0.7\t0.5\t0.0"
    assert path.read_text() == text
    X, systems = read_matrix(path)
    assert systems == ("A", "B", "C") and np.array_equal(X, X51) and X.flags.c_contiguous


@given(X=hnp.arrays(np.float64, st.tuples(st.integers(2, 6), st.integers(2, 4)),
                    elements=st.floats(-1e6, 1e6, allow_nan=False)))
def test_matrix_round_trip_is_exact(tmp_path_factory, X):
    path = tmp_path_factory.mktemp("rt") / "m.tsv"
    names = [f"run {k}" for k in range(X.shape[1])]  # spaces are fine in a TSV header
    write_matrix(X, names, path)
    Y, systems = read_matrix(path)
    assert systems == tuple(names) and np.array_equal(X, Y)


def test_whitespace_matrix_gzip_and_blank_lines(tmp_path):
    path = tmp_path / "m.txt.gz"
    path.write_bytes(gzip.compress(b"\xef\xbb\xbfbm25  dense splade\n\n0.7 0.5 0\r\n 0.3   0.1 0 \n\n"))
    X, systems = read_matrix(path)
    assert systems == ("bm25", "dense", "splade")
    assert np.array_equal(X, [[0.7, 0.5, 0.0], [0.3, 0.1, 0.0]])


def test_discpower_round_trip(tmp_path):
    runs = write(tmp_path / "runlist", "A\nB\n\nC\n")
    matrix = write(tmp_path / "AP.topicbyrun", "\n".join(" ".join(f"{v:.2f}" for v in row) for row in X51) + "\n")
    X, systems = read_discpower(runs, matrix)
    assert systems == ("A", "B", "C") and np.array_equal(X, X51)
    # the same result as the TSV route
    write_matrix(X, systems, tmp_path / "m.tsv")
    Y, names = read_matrix(tmp_path / "m.tsv")
    assert names == systems and np.array_equal(X, Y)


def test_write_pairs_format(tmp_path):
    res = parametric_tukey_hsd(X51, systems=["A", "B", "C"])
    text = write_pairs(res)
    assert text == "A B 0.0750 0.2567\nA C 0.1000 0.0957\nB C 0.0250 0.8550\n"
    path = tmp_path / "pairs.txt"
    assert write_pairs(res, path) == text and path.read_text() == text
    # the four space-separated columns parse back
    rows = [line.split(" ") for line in text.splitlines()]
    assert all(len(r) == 4 for r in rows)
    np.testing.assert_allclose([float(r[3]) for r in rows], res.pair_pvalues(), atol=5e-5)


def test_write_pairs_randomised_result_and_digits():
    res = randomised_tukey_hsd(X51, n_trials=1000, seed=1, systems=["A", "B", "C"])
    lines = write_pairs(res, digits=6).splitlines()
    assert len(lines) == 3 and lines[0].startswith("A B 0.075000 ")
    assert float(lines[0].split()[3]) == round(res.pvalue[0, 1], 6)


# ----------------------------------------------------------------------------- read_matrix errors


@pytest.mark.parametrize("text, match", [
    ("", r"m\.tsv is empty: expected a header line of system names"),
    ("\n  \n", r"m\.tsv is empty"),
    ("A\tB\n", r"m\.tsv has a header but no topic lines: expected one line of 2 scores per topic"),
    ("A\tB\tA\n0.1\t0.2\t0.3\n", r"m\.tsv, line 1: the header repeats system name\(s\) \['A'\]"),
    ("A\t\tC\n0.1\t0.2\t0.3\n", r"m\.tsv, line 1: header column 2 is an empty system name"),
    ("A\tB\n0.1\t0.2\n\n0.3\n", r"m\.tsv, line 4: expected 2 scores \(one per system in the header on line 1, "
                                r"no topic-id column\); found 1"),
    ("A\tB\nq1\t0.1\t0.2\n", r"m\.tsv, line 2: expected 2 scores .*; found 3"),
    ("A\tB\n0.1\t0.2\n0.3\tx\n", r"m\.tsv, line 3: column 2 \(B\): 'x' is not a number"),
    ("A\tB\n0.1\t0.2\n0.3\tnan\n", r"m\.tsv, line 3: column 2 \(B\): 'nan' is not a finite number"),
    ("A\tB\n0.1\t\n", r"m\.tsv, line 2: column 2 \(B\) is empty; every system needs a score"),
    ("A B\n0.1 0.2\n", r"m\.tsv has 1 topic\(s\) \(rows\); a paired test needs at least 2"),
    ("A\n0.1\n0.2\n", r"m\.tsv has 1 system\(s\) \(columns\); comparing systems needs at least 2"),
])
def test_read_matrix_errors(tmp_path, text, match):
    path = write(tmp_path / "m.tsv", text)
    with pytest.raises(DiscpowerError, match=match):
        read_matrix(path)


def test_read_matrix_missing_file_and_directory(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"score matrix file does not exist"):
        read_matrix(tmp_path / "nope.tsv")
    with pytest.raises(DiscpowerError, match=r"is a directory, not a score matrix file"):
        read_matrix(tmp_path)


def test_read_matrix_bad_bytes(tmp_path):
    path = tmp_path / "m.tsv"
    path.write_bytes(b"A\tB\n0.1\t0.2\n\xff\xfe\t0.3\n")
    with pytest.raises(DiscpowerError, match=r"m\.tsv, line 3: not valid UTF-8 text"):
        read_matrix(path)
    path.write_bytes(b"\x1f\x8bnot really gzip")
    with pytest.raises(DiscpowerError, match=r"starts like a gzip file but cannot be decompressed"):
        read_matrix(path)


# ----------------------------------------------------------------------------- read_discpower errors


def test_read_discpower_errors(tmp_path):
    runs = write(tmp_path / "runs", "A\nB\nC\n")
    good = write(tmp_path / "good", "0.1 0.2 0.3\n0.2 0.3 0.4\n")

    with pytest.raises(DiscpowerError, match=r"runs_empty is empty: expected one run name per line"):
        read_discpower(write(tmp_path / "runs_empty", "\n"), good)
    with pytest.raises(DiscpowerError, match=r"runs_dup, line 3: run name 'A' repeats line 1; run names must be "
                                             r"unique"):
        read_discpower(write(tmp_path / "runs_dup", "A\nB\nA\n"), good)
    with pytest.raises(DiscpowerError, match=r"m_empty is empty: expected one line of 3 scores per topic "
                                             r"\(one per run in .*runs\)"):
        read_discpower(runs, write(tmp_path / "m_empty", ""))
    with pytest.raises(DiscpowerError, match=r"m_short, line 3: expected 3 scores, one per run in .*runs; "
                                             r"found 2"):
        read_discpower(runs, write(tmp_path / "m_short", "0.1 0.2 0.3\n\n0.2 0.3\n"))
    with pytest.raises(DiscpowerError, match=r"m_long, line 1: expected 3 scores, one per run in .*runs; found 4"):
        read_discpower(runs, write(tmp_path / "m_long", "0.1 0.2 0.3 0.4\n"))
    with pytest.raises(DiscpowerError, match=r"m_text, line 2: column 1 \(A\): '0,5' is not a number"):
        read_discpower(runs, write(tmp_path / "m_text", "0.1 0.2 0.3\n0,5 0.2 0.3\n"))
    with pytest.raises(DiscpowerError, match=r"m_inf, line 1: column 3 \(C\): 'inf' is not a finite number"):
        read_discpower(runs, write(tmp_path / "m_inf", "0.1 0.2 inf\n"))
    with pytest.raises(DiscpowerError, match=r"m_one has 1 topic\(s\)"):
        read_discpower(runs, write(tmp_path / "m_one", "0.1 0.2 0.3\n"))
    with pytest.raises(FileNotFoundError, match=r"run list file does not exist"):
        read_discpower(tmp_path / "missing", good)
    with pytest.raises(FileNotFoundError, match=r"topic-by-run matrix file does not exist"):
        read_discpower(runs, tmp_path / "missing")


def test_run_names_are_stripped(tmp_path):
    X, systems = read_discpower(write(tmp_path / "runs", "  A \r\nB\t\n"),
                                write(tmp_path / "m", "1 2\n3 4\n"))
    assert systems == ("A", "B") and np.array_equal(X, [[1.0, 2.0], [3.0, 4.0]])


# ----------------------------------------------------------------------------- writer errors


def test_writer_errors(tmp_path):
    with pytest.raises(DiscpowerError, match=r"system name 'a\\tb' cannot be written to a TSV header"):
        write_matrix(X51[:, :2], ["a\tb", "c"], tmp_path / "x.tsv")
    with pytest.raises(DiscpowerError, match=r"system name ' a' cannot be written"):
        write_matrix(X51[:, :2], [" a", "c"], tmp_path / "x.tsv")
    with pytest.raises(DiscpowerError, match=r"non-finite score"):
        write_matrix([[0.1, np.nan], [0.2, 0.3]], ["a", "b"], tmp_path / "x.tsv")
    with pytest.raises(DiscpowerError, match=r"2 system names for 3 columns"):
        write_matrix(X51, ["a", "b"], tmp_path / "x.tsv")
    res = parametric_tukey_hsd(X51, systems=["run A", "B", "C"])
    with pytest.raises(DiscpowerError, match=r"run name 'run A' cannot be written to Discpower's space-separated "
                                             r"output"):
        write_pairs(res)
    assert not (tmp_path / "x.tsv").exists()
