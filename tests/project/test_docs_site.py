"""The documentation site: ``mkdocs build --strict`` passes, the API reference lists every public
name of both packages, and the notebooks, the catalogue and the decisions are pages of it.

Skips without the ``docs`` extra (``pip install -e ".[docs]"``). CI builds the site once with
``mkdocs build --strict`` and hands it over in ``CWLA_SITE_DIR``; without it the test builds its own.
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest

import cwla
import discpower
from conftest import ROOT

for module in ("mkdocs", "mkdocstrings_handlers.python", "mkdocs_jupyter", "material"):
    pytest.importorskip(module)



@pytest.fixture(scope="module")
def site(tmp_path_factory) -> pathlib.Path:
    given = os.environ.get("CWLA_SITE_DIR")
    if given:
        return pathlib.Path(given)
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=ROOT,
                          capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def _ids(page: pathlib.Path) -> set[str]:
    return set(re.findall(r'id="([^"]+)"', page.read_text(encoding="utf-8")))


@pytest.mark.parametrize("package", [cwla, discpower], ids=lambda p: p.__name__)
def test_the_api_reference_lists_every_public_name(site, package):
    ids = _ids(site / "api" / package.__name__ / "index.html")
    names = [n for n in package.__all__ if n != "__version__"]
    assert len(names) > 40
    assert [n for n in names if f"{package.__name__}.{n}" not in ids] == []


def test_api_entries_carry_their_docstrings_and_signatures(site):
    html = (site / "api" / "cwla" / "index.html").read_text(encoding="utf-8")
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    # evaluate's signature and the first line of its docstring; reST roles rendered as code, not left raw
    # annotations as written (the aliases by name, not griffe's evaluation of them: "Union")
    assert "evaluate ( qrels : QrelsLike | Collection , runs : RunsLike | None = None" in text
    assert "Union" not in text and "int([x])" not in text
    assert cwla.evaluate.__doc__.split("\n")[0].strip() in text
    assert ":func:" not in text and "``" not in text
    # a declared browsing model shows its formula and its typed parameter
    assert "C/A: 1 / (1 + rate)" in text and "rate: float" in text.replace(" : ", ": ")


def test_the_bridges_and_the_testing_kit_are_in_the_api_reference(site):
    # the bridge is documented where it lives (cwla.ir_measures, its short path, is the same module)
    assert {"cwla.bridges.ir_measures.measure", "cwla.bridges.ir_measures.measures",
            "cwla.testing.check_invariants"} <= \
        _ids(site / "api" / "cwla" / "index.html")


@pytest.mark.parametrize("page", ["metrics", "decisions", "ecosystem", "discpower", "qrels", "calibration", "compare",
                                  "clusters"])
def test_each_docs_page_is_on_the_site(site, page):
    assert (site / page / "index.html").is_file()


def test_the_notebooks_are_rendered_with_their_outputs(site):
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        html = site / "notebooks" / notebook.stem / "index.html"
        assert html.is_file(), notebook.name
        assert "jp-OutputArea" in html.read_text(encoding="utf-8"), f"{notebook.name} has no rendered output"
