"""Where kernels are cached: in ``CWLA_CACHE_DIR/<version>``, never beside the modules, keyed by the package's
sources, not by where they are (cwla/_numba.py): two copies of the same sources at different paths share it (the
second compiles nothing), and an edit of any source file, even one that only holds functions other modules' kernels
inline, gives fresh kernels."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cwla
from conftest import ROOT

pytestmark = pytest.mark.slow  # the slow tier (pyproject.toml): deselect with -m "not slow"

#: a small evaluation of run files (the tokenizer's kernels, which inline cwla/data/_docnos.py, and the scoring
#: kernels); prints the kernels of cwla and discpower numba compiled in this process, where cwla was imported
#: from and the scores
SNIPPET = """
import json, sys

import cwla

ev = cwla.evaluate(sys.argv[1], sys.argv[2], ["P@5", "RR"])
print(json.dumps({"compiled": len(cwla.progress.compile_notice.kernels), "cwla": cwla.__file__,
                  "cache": cwla.cache_dir(), "scores": ev.values.ravel().tolist()}))
"""

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d4 1\nq2 0 d5 0\n"
RUN = ("q1 Q0 d2 1 3.0 r\nq1 Q0 d3 2 2.0 r\nq1 Q0 d9 3 1.0 r\n"
       "q2 Q0 d4 1 5.0 r\nq2 Q0 d5 2 4.0 r\n")


def _copy_packages(parent: Path) -> Path:
    """cwla and discpower, copied from the repository into ``parent``."""
    for package in ("cwla", "discpower"):
        shutil.copytree(ROOT / package, parent / package, ignore=shutil.ignore_patterns("__pycache__"))
    return parent


def _evaluate(parent: Path, cache: Path, files: Path) -> dict:
    """The snippet in a fresh process that imports cwla from ``parent``, caching its kernels in ``cache``."""
    env = {**os.environ, "PYTHONPATH": str(parent), "CWLA_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", SNIPPET, str(files / "qrels.txt"), str(files / "run.txt")],
                          capture_output=True, text=True, env=env, cwd=files, timeout=600)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(out["cwla"]).resolve() == (parent / "cwla" / "__init__.py").resolve()  # the copy, not the repository
    return out


def test_same_sources_at_another_path_share_the_cache_and_an_edit_compiles_again(tmp_path):
    files = tmp_path / "files"
    files.mkdir()
    (files / "qrels.txt").write_text(QRELS)
    (files / "run.txt").write_text(RUN)
    a = _copy_packages(tmp_path / "A")
    b = _copy_packages(tmp_path / "B")
    cache = tmp_path / "cache"

    first = _evaluate(a, cache, files)
    assert first["compiled"] > 0
    # P@5 and RR of q1 (d3 relevant at rank 2) and q2 (d4 at rank 1), metrics x runs x topics
    assert first["scores"] == [0.2, 0.2, 0.5, 1.0]
    assert Path(first["cache"]) == cache / cwla.__version__
    kernels = sorted(p.name for p in Path(first["cache"]).glob("kernels-*"))
    assert len(kernels) == 1
    # numba's index files are kept per module folder inside the package
    assert list((Path(first["cache"]) / kernels[0] / "cwla" / "data").glob("*.nbi"))
    assert list((Path(first["cache"]) / kernels[0] / "cwla" / "scoring").glob("*.nbi"))

    second = _evaluate(b, cache, files)  # the same sources at another path: everything loaded from the cache
    assert second["compiled"] == 0
    assert second["scores"] == first["scores"]
    assert sorted(p.name for p in Path(second["cache"]).glob("kernels-*")) == kernels

    # a callee-only edit (the tokenizer's kernels inline _docnos' functions; numba tracks only a kernel's own file)
    with open(b / "cwla" / "data" / "_docnos.py", "a") as file:
        file.write("\n# edited\n")
    third = _evaluate(b, cache, files)
    assert third["compiled"] > 0
    assert third["scores"] == first["scores"]
    after = sorted(p.name for p in Path(third["cache"]).glob("kernels-*"))
    assert len(after) == 2 and set(kernels) < set(after)  # a fresh folder; the old one left as it was
    # nothing beside the modules, ever: not in the copies that compiled, not in the repository's packages
    for packages in (a, b, ROOT):
        for package in ("cwla", "discpower"):
            assert not [p for p in (packages / package).rglob("*") if p.suffix in (".nbi", ".nbc")], packages
