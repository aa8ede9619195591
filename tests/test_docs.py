"""The docs that are generated from code are current, and the README's example runs."""

import re
import runpy
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_metric_catalogue_is_current():
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        from make_catalogue import OUT, catalogue
    finally:
        sys.path.pop(0)
    assert OUT.read_text() == catalogue(), "run: python docs/make_catalogue.py"


def _python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


@pytest.mark.parametrize("index", range(len(_python_blocks(ROOT / "README.md"))))
def test_readme_python_examples_run(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = _python_blocks(ROOT / "README.md")[index]
    exec(compile(code, f"README.md block {index}", "exec"), {"__name__": "__readme__"})
