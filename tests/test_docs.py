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


_EXAMPLES = [(doc, i) for doc in ("README.md", "docs/ecosystem.md") for i in range(len(_python_blocks(ROOT / doc)))]


@pytest.mark.parametrize("doc, index", _EXAMPLES)
def test_python_examples_in_the_docs_run(doc, index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = _python_blocks(ROOT / doc)[index]
    exec(compile(code, f"{doc} block {index}", "exec"), {"__name__": "__readme__"})
