"""``cwla cwl``'s inputs: a cost file that prices none of the results' element types is cwl_eval's default
cost, and every bad or missing input file is ``cwla: error: ...`` (exit 2) naming the file, its line and, for a
missing file, its argument; never a traceback."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys

import pytest

from cwla.bridges.cli import main
from cwla.bridges.cwl import cwl_frame

GAINS = "q1 0 a 1\nq1 0 b 0.5\nq2 0 c 1\n"
RESULTS = "q1 E1 a 1 3 R\nq1 E2 b 2 2 R\nq1 E1 u 3 1 R\nq2 E2 c 1 2 R\nq2 E1 d 2 1 R\n"
METRICS = "RBPCWLMetric(0.5)\nBPMCWLMetric(1.0,2)\nTBGCWLMetric(2)\n"
CHEAP = ["--max_cost", "3", "--min_cost", "0.5"]


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(map(str, argv)))
    assert "Traceback" not in err.getvalue()
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path):
    (tmp_path / "g").write_text(GAINS)
    (tmp_path / "r").write_text(RESULTS)
    (tmp_path / "m").write_text(METRICS)
    return tmp_path


def _error(*argv):
    code, out, err = _cli(*argv)
    assert code == 2 and out == ""
    assert err.startswith("cwla: error: ") and err.count("\n") == 1
    return err[len("cwla: error: "):].rstrip("\n")


# ---------------------------------------------------------------------------
# a cost file that prices none of the element types
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("cost_text", ["E9 2.0\nE8 0.25\n", ""])
def test_a_cost_file_pricing_no_element_type_of_the_results_is_the_default_cost(files, cost_text):
    """cwl_eval gives an element type the cost file does not price max_cost (min_cost in the residuals): the
    numbers are those without a cost file."""
    (files / "c").write_text(cost_text)
    common = [files / "g", files / "r", "-m", files / "m", "-r", "-n"] + CHEAP
    code, priced, _ = _cli("cwl", *common, "-c", files / "c")
    assert code == 0
    assert priced == _cli("cwl", *common)[1]
    frame = cwl_frame(files / "g", files / "r", files / "m", files / "c", max_cost=3.0, min_cost=0.5)
    assert (frame["EC"].round(12) == 3.0).all()  # every document at max_cost: EC = max_cost


def test_a_cost_file_pricing_no_element_type_matches_cwl_eval(files):
    exe = shutil.which("cwl-eval") or shutil.which("cwl-eval", path=os.path.dirname(sys.executable))
    if exe is None:
        pytest.skip("cwl-eval is not installed (pip install cwl-eval==1.0.12)")
    (files / "c").write_text("E9 2.0\n")
    args = [files / "g", files / "r", "-m", files / "m", "-c", files / "c", "-r", "-n"] + CHEAP
    done = subprocess.run([exe] + list(map(str, args)), capture_output=True, text=True, cwd=files, check=True)
    assert _cli("cwl", *args)[1] == done.stdout


def test_element_types_are_read_as_the_results_are_read(files):
    """The element type and docno of a line are the fields the run reader sees: a quote is a character like
    any other, and a no-break space belongs to its field (it separates nothing, as in trec_eval)."""
    (files / "r").write_text('q1 E1 a 1 3 R\nq1 "E2 b 2 2 R\nq1 E3 c\u00a0d 3 1 R\n', encoding="utf-8")
    (files / "c").write_text('"E2 2.5\nE1 0.5\nE3 4\n')
    (files / "g").write_text("q1 0 a 1\nq1 0 b 0.5\nq1 0 c\u00a0d 1\n", encoding="utf-8")
    (files / "r2").write_text("q1 E1 a 1 3 R\nq1 X2 b 2 2 R\nq1 E3 cd 3 1 R\n")
    (files / "c2").write_text("X2 2.5\nE1 0.5\nE3 4\n")
    (files / "g2").write_text("q1 0 a 1\nq1 0 b 0.5\nq1 0 cd 1\n")
    odd = cwl_frame(files / "g", files / "r", files / "m", files / "c")
    plain = cwl_frame(files / "g2", files / "r2", files / "m", files / "c2")
    columns = ["EU", "ETU", "EC", "ETC", "ED"]
    assert odd[columns].equals(plain[columns])
    # RBP(0.5) at depth 1000: W = (.5, .25, .125, ...) on costs 0.5, 2.5, 4, then 1 past the ranking
    assert odd["EC"].iloc[0] == pytest.approx(0.5 * 0.5 + 0.25 * 2.5 + 0.125 * 4 + 0.125)


# ---------------------------------------------------------------------------
# bad files: named with the line
# ---------------------------------------------------------------------------

def test_a_metrics_file_that_is_not_utf8_names_file_and_line(files):
    (files / "m").write_bytes(b"RBPCWLMetric(0.5)\nRBPCWLMetric(0.8) caf\xe9\n")
    assert _error("cwl", files / "g", files / "r", "-m", files / "m") == \
        f"{files / 'm'}, line 2: not valid UTF-8 text (unexpected end of data at byte 21 of the line); accepted: " \
        f"UTF-8 text"


def test_a_cost_file_that_is_not_utf8_names_file_and_line(files):
    (files / "c").write_bytes(b"E1 0.5\n\xe9t\xe9 2\n")
    assert _error("cwl", files / "g", files / "r", "-c", files / "c") == \
        f"{files / 'c'}, line 2: not valid UTF-8 text (invalid continuation byte at byte 0 of the line); accepted: " \
        f"UTF-8 text"


@pytest.mark.parametrize("line, problem", [
    ("RBPCWLMetric(" + "1" * 5000 + ")",
     "RBPCWLMetric: argument '11111111111111111111...11111' (5000 characters) is out of the 64-bit integer range"),
    ("PrecisionCWLMetric(9223372036854775808)",
     "PrecisionCWLMetric: argument '9223372036854775808' is out of the 64-bit integer range"),
    ("RBPCWLMetric(" + "9" * 400 + ".0)",
     "RBPCWLMetric: argument '99999999999999999999...999.0' (402 characters) is not a finite number"),
    ("RBPCWLMetric(1e999)", "RBPCWLMetric: argument '1e999' is not a finite number"),
])
def test_a_huge_metric_argument_names_file_and_line(files, line, problem):
    (files / "m").write_text(f"RBPCWLMetric(0.5)\n\n{line}\n")
    assert _error("cwl", files / "g", files / "r", "-m", files / "m") == f"{files / 'm'}, line 3: {problem}"


def test_a_gain_outside_0_1_names_file_and_line(files):
    (files / "g").write_text("# gains\nq1 0 a 1\n\nq1 0 b 1.50\nq2 0 c -1\n")
    assert _error("cwl", files / "g", files / "r") == \
        f"{files / 'g'}, line 4: cwl_eval's gains must lie in [0, 1]; found 1.50"


def test_a_bad_cost_names_file_and_line(files):
    (files / "c").write_text("E1 1\nE2 -3\n")
    assert _error("cwl", files / "g", files / "r", "-c", files / "c") == \
        f"{files / 'c'}, line 2: costs must be finite and > 0, found '-3'"


# ---------------------------------------------------------------------------
# missing and garbled paths: the file and its argument
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("which, message", [
    ("gain", ("{path}: gain file does not exist (given as GAIN_FILE: TREC qrels whose fourth column is the gain, "
              "qid iter docno gain)")),
    ("results", "{path}: results file does not exist (given as RESULT_FILE: topic element_type docno rank score run)"),
    ("metrics", ("{path}: cwl_eval metrics file does not exist (given as -m/--metrics_file: one metric a line, "
                 "e.g. RBPCWLMetric(0.8))")),
    ("costs", "{path}: cwl_eval cost file does not exist (given as -c/--cost_file: element_type cost a line)"),
])
def test_a_missing_input_names_the_file_and_its_argument(files, which, message):
    (files / "c").write_text("E1 2\n")
    paths = {"gain": files / "g", "results": files / "r", "metrics": files / "m", "costs": files / "c"}
    paths[which] = files / "nope"
    argv = ["cwl", paths["gain"], paths["results"], "-m", paths["metrics"], "-c", paths["costs"]]
    assert _error(*argv) == message.format(path=files / "nope")


def test_a_path_with_a_nul_byte_is_shown_escaped(files):
    assert _error("cwl", files / "g", "r\0un") == "'r\\x00un': results file does not exist (given as RESULT_FILE: " \
                                                 "topic element_type docno rank score run)"


@pytest.mark.parametrize("option, what", [("-m", "cwl_eval metrics"), ("-c", "cwl_eval cost")])
def test_a_folder_given_as_metrics_or_cost_file_is_named(files, option, what):
    assert _error("cwl", files / "g", files / "r", option, files) == f"{files} is a directory, not a {what} file"


def test_a_results_file_that_is_not_a_run_names_file_and_line(files):
    (files / "r").write_text("q1 E1 a 1 3 R\nq1 E1 b 2\n")
    assert _error("cwl", files / "g", files / "r", "-c", files / "g") == \
        f"{files / 'r'}, line 2: expected 6 columns (qid Q0 docno rank score tag), found 4"


def test_an_empty_results_file_warns_once_and_prints_nothing(tmp_path, capsys):
    """Issue 41: the reader says the file is empty; the run frame built from it is not a second, unasked-for
    "run DataFrame" warning; cwl_eval scores the results file's topics, and it has none."""
    gains, results = tmp_path / "gains", tmp_path / "results"
    gains.write_text("q1 0 d1 1\n")
    results.write_text("")
    assert main(["cwl", str(gains), str(results)]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("warning:") == 1 and "is empty: no run lines" in err and "DataFrame" not in err


@pytest.mark.parametrize("flags, message", [
    (["--max_depth", "0"], "--max_depth must be an integer >= 1 (at most 1,000,000). Got 0 instead."),
    (["--max_cost", "0"], "--max_cost must be a finite number > 0. Got 0.0 instead."),
    (["--min_cost", "inf"], "--min_cost must be a finite number > 0. Got inf instead."),
])
def test_cwl_evals_options_are_checked_as_declared_and_named_by_their_flags(files, flags, message):
    assert _error("cwl", files / "g", files / "r", *flags) == message
    name = flags[0].lstrip("-")
    with pytest.raises(ValueError, match=rf"The '{name}' parameter must be"):
        cwl_frame(files / "g", files / "r", **{name: float(flags[1])})
