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
from conftest import ROOT, site_hooks

pytestmark = pytest.mark.slow  # the slow tier (pyproject.toml): deselect with -m "not slow"

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
                                  "clusters", "models"])
def test_each_docs_page_is_on_the_site(site, page):
    assert (site / page / "index.html").is_file()


def test_the_notebooks_are_rendered_with_their_outputs(site):
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        html = site / "notebooks" / notebook.stem / "index.html"
        assert html.is_file(), notebook.name
        assert "jp-OutputArea" in html.read_text(encoding="utf-8"), f"{notebook.name} has no rendered output"


def _article(page: pathlib.Path) -> str:
    """The visible text of a page's article (tags dropped, entities decoded, whitespace collapsed)."""
    import html

    source = page.read_text(encoding="utf-8")
    article = source[source.index("<article"):source.index("</article>")]
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", article)))


@pytest.mark.parametrize("package", [cwla, discpower], ids=lambda p: p.__name__)
def test_the_api_reference_starts_with_the_entry_points(site, package):
    html = (site / "api" / package.__name__ / "index.html").read_text(encoding="utf-8")
    entry = [f"{package.__name__}.{name}" for name in site_hooks().ENTRY_POINTS[package.__name__]]
    assert len(entry) >= 8 and all(name.split(".")[1] in package.__all__ for name in entry)
    assert re.findall(r'<h2 id="([^"]+)"', html)[0] == "entry-points"
    assert re.findall(r'<h3 id="([^"]+)"', html)[:len(entry)] == entry
    # the table at the top links each entry point's entry
    table = html[html.index('id="entry-points"'):html.index(f'id="{entry[0]}"')]
    assert [f'href="#{name}"' in table for name in entry] == [True] * len(entry)


@pytest.mark.parametrize("package", [cwla, discpower], ids=lambda p: p.__name__)
def test_the_api_reference_names_no_private_module_and_no_attrs_boilerplate(site, package):
    page = site / "api" / package.__name__ / "index.html"
    html = page.read_text(encoding="utf-8")
    headings = re.findall(r'<h[1-4] id="([^"]+)"', html)
    assert [h for h in headings if re.search(r"(^|\.)_[a-z]", h)] == []
    assert "generated by attrs" not in html
    assert "Bases: " in _article(page) or package is discpower  # bases are shown, the private ones left out
    private = sorted(set(re.findall(r"\b(?:cwla|discpower)(?:\.\w+)*\._[a-z]\w*", _article(page))))
    assert private == [], f"the API reference names private modules (in docstrings): {private}"


@pytest.mark.parametrize("package", [cwla, discpower], ids=lambda p: p.__name__)
def test_api_signatures_are_wrapped(site, package):
    """ruff (the docs extra) formats every signature to 80 columns: evaluate's parameters one a line."""
    import html as entities

    html = (site / "api" / package.__name__ / "index.html").read_text(encoding="utf-8")
    blocks = [entities.unescape(re.sub(r"<[^>]+>", "", b))
              for b in re.findall(r'<div class="doc-signature[^"]*"[^>]*>\s*<pre>(.*?)</pre>', html, flags=re.S)]
    assert len(blocks) > 100
    assert max(len(line) for block in blocks for line in block.splitlines()) <= 80
    if package is cwla:
        evaluate = next(b for b in blocks if b.startswith("evaluate("))
        assert "\n    qrels: QrelsLike | Collection,\n    runs: RunsLike | None = None,\n" in evaluate


def test_module_values_show_their_comment_and_no_memory_address(site):
    text = _article(site / "api" / "discpower" / "index.html") + _article(site / "api" / "cwla" / "index.html")
    assert " at 0x" not in text and "<class " not in text
    assert "What an evaluation uses for options that neither the metric nor the call sets." in text


def test_the_home_page_starts_a_newcomer_off(site):
    text = _article(site / "index.html")
    for part in ("Install", "pip install .", "Quick start", "Where to go next"):
        assert part in text, part
    assert "cwla.synthetic.collection(seed=1)" in text.replace(" ", "")  # the code is split into highlighted tokens
    assert text.index("Install") < text.index("Quick start") < text.index("Where to go next")
