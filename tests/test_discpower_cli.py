"""The discpower command: tukey on a matrix file, meta on TREC files."""

import subprocess
import sys

import numpy as np
import pytest

import cwla
import discpower
from discpower.cli import main


@pytest.fixture
def matrix(tmp_path):
    X = np.random.default_rng(3).random((15, 4))
    path = tmp_path / "matrix.tsv"
    discpower.write_matrix(X, ["a", "b", "c", "d"], path)
    return path, X


def test_tukey_prints_every_pair(matrix, capsys):
    path, X = matrix
    assert main(["tukey", str(path), "--trials", "2000", "--seed", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "system_a\tsystem_b\tdiff\tpvalue"
    assert len(lines) == 1 + 6
    expected = discpower.randomised_tukey_hsd(X, 2000, seed=3, systems=list("abcd")).to_frame()
    for line, row in zip(lines[1:], expected.itertuples()):
        a, b, diff, p = line.split("\t")
        assert (a, b) == (row.system_a, row.system_b)
        assert float(diff) == pytest.approx(row.diff, abs=1e-6) and float(p) == pytest.approx(row.pvalue, abs=1e-6)


def test_tukey_plus_one(matrix, capsys):
    path, _ = matrix
    main(["tukey", str(path), "--trials", "10", "--seed", "1", "--plus-one"])
    pvalues = [float(line.split("\t")[3]) for line in capsys.readouterr().out.splitlines()[1:]]
    assert all(round(p * 11) == pytest.approx(p * 11, abs=1e-4) for p in pvalues)  # multiples of 1/11


@pytest.mark.parametrize("content, message", [
    ("a\tb\n0.1\t0.2\n0.3\n", "line 3"),
    ("a\n0.1\n0.2\n", "at least 2"),
    ("a\tb\n0.1\tx\n", "line 2"),
])
def test_tukey_bad_matrix_is_a_clear_error(tmp_path, capsys, content, message):
    path = tmp_path / "bad.tsv"
    path.write_text(content)
    assert main(["tukey", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("discpower: error:") and message in err


def test_tukey_bad_trials(matrix, capsys):
    path, _ = matrix
    assert main(["tukey", str(path), "--trials", "0"]) == 2
    assert "The 'n_trials' parameter must be an integer >= 1. Got 0 instead." in capsys.readouterr().err


def test_meta_report_and_figures(tmp_path, capsys):
    qrels, runs = cwla.synthetic.collection(n_topics=20, n_runs=8, seed=2)
    qrels_path, run_paths = cwla.synthetic.write_trec(qrels, runs, tmp_path / "data")
    code = main(["meta", str(qrels_path), *map(str, run_paths), "-m", "nDCG@10", "-m", "RBP_ERG", "-m", "INST_PE",
                 "--trials", "300", "--splits", "40", "--seed", "4", "--quiet", "--figures", str(tmp_path / "fig")])
    out = capsys.readouterr()
    assert code == 0, out.err
    lines = out.out.splitlines()
    assert lines[0].startswith("# meta-evaluation: 3 metrics, 8 runs, 20 topics")
    assert lines[1] == ("metric\tdp\tsignificant_pairs\tpairs\tdelta\tmean_tau\toutperforms\tfamily\t"
                        "family_dp_rank\tfamily_tau_rank\tfamily_outperforms")
    assert [line.split("\t")[0] for line in lines[2:5]] == ["nDCG@10", "RBP_ERG", "INST_PE"]
    assert "# Kendall tau-b between the metrics' system rankings" in lines
    # one family of the three (nDCG@10 is not a Chen & Sakai name), its Table 3 block printed
    table3 = lines.index(next(line for line in lines if line.startswith("# split-half consistency within")))
    assert lines[table3 + 1] == "family\trank\tmetric\tmean_tau\toutperforms\tbeaten_ranks"
    assert {line.split("\t")[0] for line in lines[table3 + 2:table3 + 5]} == {"all"}
    assert (tmp_path / "fig" / "asl.png").stat().st_size > 1000
    assert (tmp_path / "fig" / "similarity.png").stat().st_size > 1000


def test_meta_families_per_model(tmp_path, capsys):
    qrels, runs = cwla.synthetic.collection(n_topics=16, n_runs=7, seed=3)
    qrels_path, run_paths = cwla.synthetic.write_trec(qrels, runs, tmp_path / "data")
    args = ["meta", str(qrels_path), *map(str, run_paths), "-m", "RBP_ERG", "-m", "RBP_max", "-m", "INST_ERG",
            "-m", "INST_fin", "--trials", "200", "--splits", "30", "--quiet"]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("# split-half consistency within"))
    families = [line.split("\t")[0] for line in lines[start + 2:start + 6]]
    assert families == ["RBP", "RBP", "INST", "INST"]  # the paper's names: one family per browsing model
    assert main(args + ["--families", "all"]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("# split-half consistency within"))
    assert [line.split("\t")[0] for line in lines[start + 2:start + 6]] == ["all"] * 4


def test_meta_needs_a_metric(tmp_path, capsys):
    qrels, runs = cwla.synthetic.collection(n_topics=10, n_runs=6, seed=2)
    qrels_path, run_paths = cwla.synthetic.write_trec(qrels, runs, tmp_path)
    assert main(["meta", str(qrels_path), *map(str, run_paths)]) == 2
    assert "no metric given" in capsys.readouterr().err


def test_console_entry_point():
    out = subprocess.run([sys.executable, "-m", "discpower", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("discpower ")
