"""The discpower command: tukey on a matrix file, meta on TREC files."""

import io
import subprocess
import sys

import numpy as np
import pandas as pd
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


# ----------------------------------------------------------------------------- discpower compare

@pytest.fixture(scope="module")
def trec(tmp_path_factory):
    """A synthetic collection written as TREC files: (qrels path, run paths)."""
    qrels, runs = cwla.synthetic.collection(n_topics=18, n_runs=5, seed=6)
    qrels_path, run_paths = cwla.synthetic.write_trec(qrels, runs, tmp_path_factory.mktemp("compare"))
    return str(qrels_path), [str(p) for p in run_paths]


def test_compare_tsv_is_the_tidy_frame(trec, capsys):
    from discpower.compare import compare_systems

    qrels, runs = trec
    assert main(["compare", qrels, *runs, "-m", "nDCG@10", "-m", "RBP_ERG", "--trials", "1500", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    got = pd.read_csv(io.StringIO(out), sep="\t", keep_default_na=False, dtype={"significance": str})
    expected = compare_systems(qrels, runs, ["nDCG@10", "RBP_ERG"], n_trials=1500, seed=2).to_frame()
    assert list(got.columns) == list(expected.columns)
    assert got.metric.tolist() == expected.metric.tolist() and got.system.tolist() == expected.system.tolist()
    assert got.significance.tolist() == expected.significance.tolist()
    np.testing.assert_allclose(got["mean"], expected["mean"], atol=1e-6)
    np.testing.assert_allclose(got.ci_low, expected.ci_low, atol=1e-6)
    assert got.wins.tolist() == expected.wins.tolist()


@pytest.mark.parametrize("fmt", ["markdown", "latex"])
def test_compare_tables_with_a_baseline(trec, capsys, fmt):
    from discpower.compare import compare_systems

    qrels, runs = trec
    args = ["compare", qrels, *runs, "-m", "P@5", "--baseline", runs[2], "--test", "t-test", "--correction", "holm",
            "--alpha", "0.1", "--format", fmt, "--digits", "3"]
    assert main(args) == 0
    out = capsys.readouterr().out
    expected = compare_systems(qrels, runs, ["P@5"], baseline="run03", test="t-test", correction="holm", alpha=0.1)
    assert out == (expected.to_markdown(3) if fmt == "markdown" else expected.to_latex(3) + "\n")
    assert "run03 (baseline)" in out and "Holm" in out


def test_compare_baseline_by_name_equals_by_path(trec, capsys):
    qrels, runs = trec
    outputs = []
    for baseline in ("run02", runs[1]):
        assert main(["compare", qrels, *runs, "-m", "P@5", "--baseline", baseline, "--test", "randomisation",
                     "--trials", "800", "--correction", "bh"]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    assert "\tpvalue_raw\tpvalue" in outputs[0].splitlines()[0]


@pytest.mark.parametrize("extra, message", [
    (["--baseline", "run9"], "unknown baseline 'run9': the runs are 'run01', 'run02'"),
    (["--correction", "holm"], "--correction holm with --test tukey"),
    (["--alpha", "1.5"], "The 'alpha' parameter must be a number in the open interval (0, 1)"),
    (["--trials", "0"], "The 'n_trials' parameter must be an integer >= 1"),
    (["--test", "anova"], "invalid choice: 'anova'"),
    (["--format", "html"], "invalid choice: 'html'"),
    (["--digits", "-2"], "--digits must be an integer in [0, 15], got -2"),
])
def test_compare_errors(trec, capsys, extra, message):
    qrels, runs = trec
    assert main(["compare", qrels, *runs, "-m", "P@5", *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and ("discpower: error:" in err or "usage:" in err)


def test_compare_needs_two_runs_and_a_metric(trec, capsys):
    qrels, runs = trec
    assert main(["compare", qrels, runs[0], "-m", "P@5"]) == 2
    assert "at least 2 runs; got 1" in capsys.readouterr().err
    assert main(["compare", qrels, *runs]) == 2
    assert "no metric given" in capsys.readouterr().err
