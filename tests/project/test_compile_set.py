"""The compile set: which kernels a first ``cwla demo`` and a first ``cwla eval`` compile (docs/performance.md).

Each runs in a fresh process with an empty kernel cache; ``cwla.progress.compile_notice.kernels`` records every
top-level numba compile of a cwla or discpower function with its argument types. On one core the set is the one
the docs list, each kernel compiles for one set of argument types (plain and gzip files alike); on two, a second
process compiles the kernels of ``cwla._ahead.AHEAD`` and the first only the reader's, for the same output; and
after a demo a first ``cwla eval`` of gzip runs compiles nothing more.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT
from cwla._ahead import _cores

pytestmark = pytest.mark.slow  # the slow tier (pyproject.toml): deselect with -m "not slow"

RECORDER = """
import contextlib, io, json, os, sys
if os.environ.pop("ONE_CORE", None):
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
import cwla
from cwla.bridges.cli import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "compiled": cwla.progress.compile_notice.kernels, "out": out.getvalue()}))
"""

#: the kernels of a first evaluation of run files that the first process compiles itself, whatever the cores
READER = ["cwla.data._docnos._gather", "cwla.data._docnos.intern_spans", "cwla.data._tokenize._scan",
          "cwla.data._tokenize.check_bytes"]
PINNABLE = hasattr(os, "sched_setaffinity")  # a process can be put on one core here


def _documented() -> list:
    """The kernels listed in docs/performance.md's compile-set block."""
    text = (ROOT / "docs" / "performance.md").read_text()
    block = re.search(r"<!-- compile set -->\s*```text\n(.*?)```", text, re.S)
    assert block, "docs/performance.md has no compile-set block"
    return sorted(line.strip() for line in block.group(1).splitlines() if line.strip())


def _first_run(args: list, cache, cwd, *, one_core: bool = False) -> dict:
    """The command in a fresh process (on one core of this machine's: ``one_core``, where the platform can say)."""
    env = {**os.environ, "CWLA_CACHE_DIR": str(cache), "CWLA_PROGRESS_DELAY": "1000"}
    env.pop("CWLA_COMPILE_AHEAD", None)
    if one_core and PINNABLE:
        env["ONE_CORE"] = "1"
    elif one_core:
        env["CWLA_COMPILE_AHEAD"] = "0"  # what one core means for it
    done = subprocess.run([sys.executable, "-c", RECORDER, *args], capture_output=True, text=True, env=env,
                          timeout=900, cwd=cwd)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["code"] == 0, done.stderr[-3000:]
    return out


def _names(out: dict) -> list:
    return sorted({name for name, _ in out["compiled"]})


def _write_collection(folder) -> list:
    """A qrels file, a plain run file and a gzip one (two topics, ties in the scores)."""
    import gzip

    (folder / "qrels").write_text("1 0 a 2\n1 0 b 0\n2 0 c 1\n2 0 d 3\n")
    lines = "".join(f"{t} Q0 {d} {r} {s} x\n" for t, d, r, s in
                    [(1, "a", 1, 2.5), (1, "b", 2, 2.5), (1, "e", 3, 1.0), (2, "d", 1, 0.5), (2, "c", 2, 0.25)])
    (folder / "plain").write_text(lines)
    with gzip.open(folder / "packed.gz", "wt") as f:
        f.write(lines.replace(" x\n", " y\n"))
    return [str(folder / "qrels"), str(folder / "plain"), str(folder / "packed.gz")]


MEASURES = ["-m", "map", "-m", "P.10", "-m", "ndcg_cut.10"]


def test_the_kernels_of_the_second_process_and_the_readers_make_up_the_documented_set():
    from cwla._ahead import AHEAD

    assert sorted(AHEAD) == [name for name in _documented() if name not in READER]


def test_a_first_eval_on_one_core_compiles_the_documented_set_once_each(tmp_path):
    files = _write_collection(tmp_path)
    out = _first_run(["eval", *files, *MEASURES], tmp_path / "cache", tmp_path, one_core=True)
    # the demo's set, but for the hashing of strings that come from Python objects (its runs are frames)
    assert _names(out) == [name for name in _documented() if name != "cwla.data._docnos._hash_all"]
    twice = sorted({name for name, _ in out["compiled"] if sum(n == name for n, _ in out["compiled"]) > 1})
    assert twice == [], f"compiled for more than one set of argument types: {twice}"


def test_after_a_demo_a_first_eval_of_gzip_runs_compiles_nothing(tmp_path):
    demo = _first_run(["demo"], tmp_path / "cache", tmp_path)
    # on two cores or more (POSIX) the second process compiles the rest, and the demo waits for it
    assert _names(demo) == (READER if _cores() > 1 and os.name == "posix" else _documented())
    folder = next((tmp_path / "cache").glob("*/kernels-*"))
    indexed = {p.name.split("-")[0] for p in folder.rglob("*.nbi")}  # numba's <module>.<qualname>-<line>...nbi
    assert {".".join(name.split(".")[-2:]) for name in _documented()} <= indexed  # all cached, the rest read there
    files = _write_collection(tmp_path)
    again = _first_run(["eval", files[0], files[2], *MEASURES], tmp_path / "cache", tmp_path)
    assert again["compiled"] == [] and "ndcg_cut_10" in again["out"]
