"""Without matplotlib every figure -- the Python API's plot functions and ``discpower meta --figures`` -- is a
clear error that names the extra to install, never a traceback. matplotlib is made unimportable here (a None
in sys.modules), not uninstalled."""

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import cwla
import discpower
from discpower import DiscpowerError
from discpower.errors import MissingDependencyError
from discpower.reports.cli import main

ROOT = Path(__file__).resolve().parents[2]
B = 50


def needs(what: str) -> str:
    return re.escape(f"{what} needs matplotlib (the 'plots' extra): pip install 'cwla[plots]'. Importing it failed: ")


def block_matplotlib(monkeypatch) -> None:
    """``import matplotlib`` (and of any of its modules) raises ImportError until the test ends."""
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError):
        import matplotlib.pyplot  # noqa: F401


@pytest.fixture
def no_matplotlib(monkeypatch):
    block_matplotlib(monkeypatch)


@pytest.fixture(scope="module")
def data():
    qrels, runs = cwla.synthetic.collection(n_topics=12, n_runs=6, seed=5)
    return qrels, runs, discpower.sample_relevant(qrels, 0.5, seed=1)


def _figures(data):
    """(what the message names, a call that draws) for every plotting entry point of the API."""
    qrels, runs, candidate = data
    ev = cwla.evaluate(qrels, runs, ["AP", "P@5", "nDCG@5"])
    report = discpower.meta_evaluate(ev, n_trials=B, n_splits=4, seed=1)
    comparison = discpower.compare_qrels(qrels, candidate, runs, n_trials=B)
    swept = discpower.sweep(qrels, runs, generators="sampling", parameters=[0.5], repetitions=1, n_trials=B)
    systems = discpower.compare_systems(ev, n_trials=B)
    return [
        ("plot_asl_curves", lambda: discpower.plot_asl_curves(report.tests)),
        ("MetaEvaluation.plot_asl", report.plot_asl),
        ("MetaEvaluation.plot_similarity", report.plot_similarity),
        ("RankingSimilarity.plot", report.similarity.plot),
        ("SplitHalfConsistency.plot", report.consistency.plot),
        ("QrelsComparison.plot", comparison.plot),
        ("Sweep.plot", swept.plot),
        ("SystemComparison.plot", systems.plot),
    ]


def test_every_figure_names_the_extra(data, no_matplotlib):
    for what, draw in _figures(data):  # the results are computed without matplotlib; only the drawing needs it
        with pytest.raises(MissingDependencyError, match=needs(what)) as caught:
            draw()
        # an ImportError for Python code, a DiscpowerError for the command (printed, not a traceback)
        assert isinstance(caught.value, ImportError) and isinstance(caught.value, DiscpowerError)


def test_the_extra_named_holds_matplotlib():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == "cwla"
    assert any(dep.startswith("matplotlib") for dep in project["optional-dependencies"]["plots"])


def test_figures_option_without_matplotlib_is_an_error_before_any_work(tmp_path, capsys, no_matplotlib):
    qrels, runs = cwla.synthetic.collection(n_topics=12, n_runs=6, seed=2)
    qrels_path, run_paths = cwla.synthetic.write_trec(qrels, runs, tmp_path / "data")
    code = main(["meta", str(qrels_path), *map(str, run_paths), "-m", "AP", "-m", "P@5", "--trials", "50",
                 "--splits", "0", "--quiet", "--figures", str(tmp_path / "fig")])
    out = capsys.readouterr()
    assert code == 2
    assert re.fullmatch("discpower: error: " + needs("discpower meta --figures") + ".*\n", out.err)
    assert "Traceback" not in out.err
    assert out.out == "" and not (tmp_path / "fig").exists()  # refused before the analysis, nothing written


def test_the_report_alone_needs_no_matplotlib(tmp_path, capsys, no_matplotlib):
    qrels, runs = cwla.synthetic.collection(n_topics=12, n_runs=6, seed=2)
    qrels_path, run_paths = cwla.synthetic.write_trec(qrels, runs, tmp_path / "data")
    code = main(["meta", str(qrels_path), *map(str, run_paths), "-m", "AP", "-m", "P@5", "--trials", "50",
                 "--splits", "0", "--quiet"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert out.out.startswith("# discpower meta: meta-evaluation of 2 metrics\n")
    assert "\n# runs: 6\n# topics: 12\n" in out.out
    report = discpower.meta_evaluate(cwla.evaluate(qrels, runs, ["AP", "P@5"]), n_trials=B, n_splits=0)
    assert np.isfinite(report.to_frame()["dp"]).all()
