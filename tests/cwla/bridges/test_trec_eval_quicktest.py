"""trec_eval's own test suite: every command of both ``Makefile.quicktest`` files (trec_eval master's whole
``test/``, and 9.0's) through ``cwla eval --format trec`` with the matching convention, diffed against the
expected output: every line equal, none skipped."""

from __future__ import annotations

import io
import re
import shlex
from contextlib import redirect_stderr, redirect_stdout

import pytest

from cwla.bridges.cli import main
from conftest import SHARED, shared_path

#: the two suites and the convention each follows
SUITES = {"trec_eval-test": 10, "trec_eval-9.0-test": 9}


def _commands(folder: str) -> list[tuple[list[str], str]]:
    """The quicktest commands of a suite: (trec_eval's arguments, the expected output's file name)."""
    makefile = SHARED / "reference-fixtures" / folder / "Makefile.quicktest"
    if not makefile.exists():
        return []
    out = []
    for line in makefile.read_text().splitlines():
        line = line.strip()
        if line.startswith("./trec_eval"):
            command, _, expected = line.partition("| diff - ")
            out.append((shlex.split(command)[1:], expected.strip().removeprefix("test/")))
    return out


def _cases():
    cases = [(folder, argv, expected) for folder in SUITES for argv, expected in _commands(folder)]
    return cases or [pytest.param(None, None, None, marks=pytest.mark.skip(reason="needs ../shared"))]


def _argv(folder: str, argv: list[str]) -> list[str]:
    """trec_eval's arguments for cwla: test/ paths into the fixtures folder, glued options (-mX, -l2) split."""
    root = shared_path("reference-fixtures", folder)
    out = []
    for arg in argv:
        arg = arg.replace("test/", f"{root}/") if arg.startswith("test/") else arg
        glued = re.fullmatch(r"-([mlMNZR])(.+)", arg)
        out += ["-" + glued.group(1), glued.group(2)] if glued else [arg]
    return out


@pytest.mark.slow
@pytest.mark.parametrize("folder, argv, expected", _cases(),
                         ids=lambda v: v if isinstance(v, str) else (" ".join(v)[:60] if v else "x"))
def test_every_quicktest_command_prints_trec_evals_expected_output(folder, argv, expected):
    root = shared_path("reference-fixtures", folder)
    want = (root / expected).read_text()
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["eval", "--format", "trec", "--trec-eval", str(SUITES[folder]), *_argv(folder, argv)])
    assert code == 0, err.getvalue()
    got = out.getvalue()
    wrong = [(g, w) for g, w in zip(got.splitlines(), want.splitlines()) if g != w]
    assert not wrong, wrong[:5]
    assert got == want


def test_both_suites_are_there_when_shared_is():
    shared_path("reference-fixtures", "trec_eval-test")
    assert len(_commands("trec_eval-test")) == 15 and len(_commands("trec_eval-9.0-test")) == 11
