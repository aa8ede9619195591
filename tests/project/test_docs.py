"""The docs that are generated from code are current, and the README's example runs."""

import re
import sys

import pytest
from conftest import ROOT, site_hooks



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


@pytest.mark.slow
@pytest.mark.parametrize("doc, index", _EXAMPLES)
def test_python_examples_in_the_docs_run(doc, index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = _python_blocks(ROOT / doc)[index]
    for module in sorted(set(re.findall(r"^\s*(?:import|from)\s+(\w+)", code, flags=re.M)) & _OPTIONAL):
        pytest.importorskip(module)  # an example of a bridge needs the tool it bridges to
    exec(compile(code, f"{doc} block {index}", "exec"), {"__name__": "__readme__"})


# --- the site's home page, the page on user-defined models, and the API reference's entry points --------------

def _run_blocks(doc: str, tmp_path) -> str:
    """Every python block of ``doc``, in order, as one script in a fresh interpreter; its stdout."""
    import subprocess

    script = tmp_path / "blocks.py"
    script.write_text("\n".join(_python_blocks(ROOT / doc)))
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{doc}'s code does not run as written:\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.mark.slow
def test_the_home_page_quick_start_runs_and_prints_what_the_page_shows(tmp_path):
    home = ROOT / "docs" / "index.md"
    text = home.read_text()
    assert "## Install" in text and "pip install ." in text and "## Quick start" in text
    assert len(_python_blocks(home)) == 1
    quick = _python_blocks(home)[0]
    assert 5 <= len([line for line in quick.splitlines() if line.strip()]) <= 12  # a quick start, not a tutorial
    shown = re.search(r"```python\n.*?```\s*\nprints\s*\n\s*```text\n(.*?)```", text, flags=re.S)
    assert shown, "the quick start's output follows it in a ```text block"
    printed = _run_blocks("docs/index.md", tmp_path)
    assert [line.rstrip() for line in printed.strip().splitlines()] == \
        [line.rstrip() for line in shown.group(1).strip().splitlines()]


@pytest.mark.slow
def test_the_models_page_runs_as_written(tmp_path):
    pytest.importorskip("hypothesis")  # its last block property-tests the model (the testing extra)
    text = (ROOT / "docs" / "models.md").read_text()
    for step in ("cwla.Param", "register_model", "parse_metric", "cwla.testing", "check_invariants"):
        assert step in text, step
    printed = _run_blocks("docs/models.md", tmp_path)
    assert "Patient(p=0.7, boost=0.1)" in printed
    assert "'p' of Patient must be a finite number in [0, 1): 1.5" in printed
    assert "Patient(p=0.6, boost=0.1)+ERG[cutoff=10]" in printed


def test_param_is_public_and_the_old_path_still_works():
    import cwla
    import cwla.metrics
    from cwla.metrics._declare import Param

    assert cwla.Param is cwla.metrics.Param is Param
    assert "Param" in cwla.__all__ and "Param" in cwla.metrics.__all__


def test_discpower_has_cwla_s_version():
    import cwla
    import discpower

    assert discpower.__version__ == cwla.__version__ and "__version__" in discpower.__all__


def _entry_points():
    hooks = site_hooks()
    return [(package, name) for package in hooks.PACKAGES for name in hooks.ENTRY_POINTS[package]]


@pytest.mark.slow
@pytest.mark.parametrize("package, name", _entry_points(), ids=lambda v: v)
def test_every_entry_point_has_examples_that_run(package, name):
    import doctest
    import importlib
    import inspect

    obj = getattr(importlib.import_module(package), name)
    doc = inspect.getdoc(obj) or ""
    assert re.search(r"^Examples\n-{8}\n", doc, flags=re.M), f"{package}.{name} has no Examples section"
    tests = [t for t in doctest.DocTestFinder(recurse=False).find(obj, f"{package}.{name}",
                                                                   globs=dict(vars(inspect.getmodule(obj))))
             if t.examples]
    assert tests, f"{package}.{name}'s Examples hold no >>> example"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    failures = []
    for test in tests:
        runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)


def test_the_extras_and_the_documentation_url():
    pyproject = (ROOT / "pyproject.toml").read_text()
    section = pyproject.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    extras = dict(re.findall(r"^([A-Za-z0-9_.-]+) = (\[.*?\])$", section, flags=re.M | re.S))
    # the extras' names as pip normalises them (PEP 685: lower case, '-'): the spelling every pip matches
    assert len(extras) >= 9 and all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name) for name in extras), extras
    for extra, package in [("ir-measures", "ir-measures"), ("pyterrier", "python-terrier"),
                           ("dask", "dask[distributed]"), ("ray", "ray"), ("docs", "playwright")]:
        assert f'"{package}' in extras.get(extra, ""), extra
    url = re.search(r'^Documentation = "([^"]+)"', pyproject, flags=re.M).group(1)
    site_url = re.search(r"^site_url: (\S+)", (ROOT / "mkdocs.yml").read_text(), flags=re.M).group(1)
    assert url == site_url and url.startswith("https://") and "tree/main" not in url
