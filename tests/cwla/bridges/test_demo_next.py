"""``cwla demo``'s "Next:" commands reproduce the numbers the demo prints (issue 22).

The demo scores Chen & Sakai's grid at its own setting (cutoff 10, depth 10, stop); a paper name alone
(``-m RBP_PE``) is scored at ``cwla eval``'s defaults. The commands it suggests must therefore carry the
setting, and running them (its collection written as files first) must print the demo's values.
"""

from __future__ import annotations

import re
import shlex

import pytest
from report_text import without_header

from cwla.bridges.cli import main

ARGS = ("demo", "--topics", "8", "--runs", "3", "--seed", "2")


def _demo(capsys) -> str:
    assert main(list(ARGS)) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


def _table(out: str) -> dict[str, str]:
    """The demo's printed value of each metric for run01 (3 decimals, as printed)."""
    values = {}
    header = None
    for line in out.splitlines():
        if line.startswith("run "):
            header = line.split()[1:]
        elif line.startswith("run01 ") and header:
            values.update(zip(header, line.split()[1:]))
    return values


def _eval(capsys, argv: list[str]) -> dict[str, float]:
    """``cwla eval argv``'s run01 mean of each metric."""
    assert main(argv) == 0
    out, _ = capsys.readouterr()
    rows = [line.split("\t") for line in without_header(out).splitlines()[1:]]
    return {metric: float(value) for run, topic, metric, value, _ in rows if run == "run01" and topic == "all"}


def test_the_demos_suggested_commands_print_its_values(capsys, tmp_path, monkeypatch):
    out = _demo(capsys)
    printed = _table(out)
    assert len(printed) == 39
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Next: the demo's numbers"))
    block = lines[start:lines.index("Your runs:")]

    monkeypatch.chdir(tmp_path)
    python = next(line for line in block if line.startswith("  python -c "))
    exec(shlex.split(python)[2], {})  # the suggested line writes the demo's collection as TREC files
    assert (tmp_path / "cwla-demo" / "qrels.txt").exists() and (tmp_path / "cwla-demo" / "run01").exists()

    commands = [line for line in block if line.startswith("  cwla eval ")]
    assert len(commands) == 2
    checked = 0
    for line in commands:
        command, said = re.split(r" {4,}", line.strip())
        argv = shlex.split(command)[1:]
        got = _eval(capsys, argv)
        names = [argv[i + 1] for i, a in enumerate(argv) if a == "-m"]
        expected = re.findall(r"\d\.\d{3}", said)
        assert len(names) == len(expected) == len(got)
        for name, value in zip(names, expected):
            paper = name.split("[")[0]
            assert f"{got[name]:.3f}" == value == printed[paper], (command, name)
            checked += 1
    assert checked == 3


def test_the_demo_says_what_a_paper_name_alone_gives(capsys, tmp_path, monkeypatch):
    out = _demo(capsys)
    printed = _table(out)
    text = " ".join(out.split())
    m = re.search(r"'-m RBP_PE' gives run01 (\d\.\d{3}), not (\d\.\d{3})", text)
    assert m and m.group(2) == printed["RBP_PE"] and m.group(1) != m.group(2)
    monkeypatch.chdir(tmp_path)
    python = next(line for line in out.splitlines() if line.startswith("  python -c "))
    exec(shlex.split(python)[2], {})
    got = _eval(capsys, ["eval", "cwla-demo/qrels.txt", "cwla-demo/run01", "-m", "RBP_PE"])
    assert f"{got['RBP_PE']:.3f}" == m.group(1)
    # and the suggested spelling is the demo's metric exactly
    setting = _eval(capsys, ["eval", "cwla-demo/qrels.txt", "cwla-demo/run01", "-m",
                             "RBP_PE[cutoff=10, depth=10, stop=true]"])
    assert f"{setting['RBP_PE[cutoff=10, depth=10, stop=true]']:.3f}" == printed["RBP_PE"]
    assert got["RBP_PE"] != pytest.approx(setting["RBP_PE[cutoff=10, depth=10, stop=true]"], abs=1e-4)
