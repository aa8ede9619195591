"""The docs that are generated from code are current, and the README's example runs."""

import re
import sys

import pytest
from conftest import ROOT



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


#: the tools some examples use, which the test extra does not install (the oracles extra installs some)
_OPTIONAL = {"ir_measures", "pytrec_eval", "pyterrier", "ranx", "dask", "distributed", "ray", "statsmodels"}


@pytest.mark.parametrize("doc, index", _EXAMPLES)
def test_python_examples_in_the_docs_run(doc, index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = _python_blocks(ROOT / doc)[index]
    for module in sorted(set(re.findall(r"^\s*(?:import|from)\s+(\w+)", code, flags=re.M)) & _OPTIONAL):
        pytest.importorskip(module)  # an example of a bridge needs the tool it bridges to
    exec(compile(code, f"{doc} block {index}", "exec"), {"__name__": "__readme__"})
