"""Every notebook under notebooks/ runs from top to bottom (with ../shared or its synthetic fallback)."""


import pytest
from conftest import ROOT

pytestmark = pytest.mark.slow  # the slow tier (pyproject.toml): deselect with -m "not slow"

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    notebook = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}}).execute()
