"""The install: the library works uncached with one warning where nothing is writable, the cache folder's default,
and the package declares what it ships. Where kernels are cached (CWLA_CACHE_DIR/<version>, never beside the
modules, loaded by a second process) is tests/project/test_cache_location.py's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

import cwla

PACKAGE = Path(cwla.__file__).resolve().parent

SNIPPET = """
import warnings, cwla
warnings.simplefilter("default")
qrels = {"t": {"a": 1, "b": 0}}
run = {"t": {"a": 2.0, "b": 1.0}}
ev = cwla.evaluate(qrels, {"r": run}, ["P@1", "RR"])
print(cwla.cache_dir(), ev.values[:, 0, 0].tolist())
"""


def _run(env_extra):
    env = {**os.environ, **env_extra}
    return subprocess.run([sys.executable, "-c", SNIPPET], capture_output=True, text=True, env=env, timeout=600,
                          cwd=ROOT)


@pytest.mark.slow
def test_unwritable_cache_warns_once_and_still_works(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    done = _run({"CWLA_CACHE_DIR": str(blocker / "cache")})  # a path under a file can never be created
    assert done.returncode == 0, done.stderr
    assert done.stdout.split(maxsplit=1) == ["None", "[1.0, 1.0]\n"]
    assert done.stderr.count("cwla cannot write its kernel cache") == 1
    assert "Traceback" not in done.stderr


def test_cache_dir_defaults_to_the_per_user_cache_folder(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "CWLA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    code = "import cwla; print(cwla.cache_dir())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    if sys.platform.startswith("linux"):
        assert Path(done.stdout.strip()) == tmp_path / "xdg" / "cwla" / cwla.__version__


def test_the_package_ships_its_marker_and_licence():
    assert (PACKAGE / "py.typed").exists() and (ROOT / "discpower" / "py.typed").exists()
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    manifest = (ROOT / "MANIFEST.in").read_text()
    for folder in ("tests", "docs", "notebooks", "benchmarks"):
        assert f"graft {folder}" in manifest


def test_version_is_declared_once():
    text = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in text and 'attr = "cwla._version.__version__"' in text
    assert "__version__ =" not in (PACKAGE / "__init__.py").read_text()


@pytest.mark.skipif(not (ROOT / ".ci" / "run").exists(), reason="no .ci/run in this tree")
def test_ci_installs_into_a_fresh_venv_and_runs_the_readme_commands_in_both_orders():
    script = (ROOT / ".ci" / "run").read_text()
    readme = (ROOT / "README.md").read_text()
    assert "python -m venv" in script and "--system-site-packages" not in script
    demo, tests = 'pip install . && cwla demo', 'pip install -e ".[test]" && python -m pytest -n auto'
    assert demo in readme and tests in readme
    assert script.index("cwla demo") < script.index("python -m pytest -q -n auto") < script.rindex("cwla demo")
    # the fast tier the README and docs/contributing.md name, on the declared minimum versions
    assert 'python -m pytest -n auto -m "not slow"' in readme and '-m "not slow"' in script
