"""The discpower command: tukey on a matrix file, meta on TREC files."""

import io
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from report_text import header_facts, without_header

import cwla
import discpower
from discpower.reports.cli import main
import math
from conftest import shared_path
import os
from trec_files import trec_files


@pytest.fixture
def matrix(tmp_path):
    X = np.random.default_rng(3).random((15, 4))
    path = tmp_path / "matrix.tsv"
    discpower.write_matrix(X, ["a", "b", "c", "d"], path)
    return path, X


def test_tukey_prints_every_pair(matrix, capsys):
    path, X = matrix
    assert main(["tukey", str(path), "--trials", "2000", "--seed", "3"]) == 0
    lines = without_header(capsys.readouterr().out).splitlines()
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
    pvalues = [float(line.split("\t")[3]) for line in without_header(capsys.readouterr().out).splitlines()[1:]]
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
    assert "discpower: error: --trials must be an integer >= 1. Got 0 instead." in capsys.readouterr().err


def test_tukey_too_many_trials_names_the_flag_with_the_memory_advice(matrix, capsys, monkeypatch):
    """Issue 41: 10^10 trials named 'n_trials' and lost the memory advice; the command names --trials, with the
    memory it needs and how many fit, and above the hard limit with that limit."""
    from discpower.stats import memory

    path, _ = matrix
    monkeypatch.setattr(memory, "available_memory", lambda: 2**34)  # 16 GiB
    assert main(["tukey", str(path), "--trials", "10000000000"]) == 2
    err = capsys.readouterr().err
    assert "--trials (10,000,000,000 trials" in err and "needs about 149.0 GiB" in err and "fit)" in err
    assert "n_trials" not in err
    monkeypatch.setattr(memory, "available_memory", lambda: 2**50)
    assert main(["tukey", str(path), "--trials", "10000000000"]) == 2
    assert "--trials must be at most 1,000,000,000" in capsys.readouterr().err


def test_meta_report_and_figures(tmp_path, capsys):
    qrels, runs = cwla.synthetic.collection(n_topics=20, n_runs=8, seed=2)
    qrels_path, run_paths = cwla.synthetic.write_trec(qrels, runs, tmp_path / "data")
    code = main(["meta", str(qrels_path), *map(str, run_paths), "-m", "nDCG@10", "-m", "RBP_ERG", "-m", "INST_PE",
                 "--trials", "300", "--splits", "40", "--seed", "4", "--quiet", "--figures", str(tmp_path / "fig")])
    out = capsys.readouterr()
    assert code == 0, out.err
    lines = out.out.splitlines()
    assert lines[0] == "# discpower meta: meta-evaluation of 3 metrics"
    assert header_facts(out.out)["runs"] == "8" and header_facts(out.out)["topics"] == "20"
    lines = without_header(out.out).splitlines()
    assert lines[0] == ("metric\tdp\tsignificant_pairs\tpairs\tdelta\tmean_tau\toutperforms\tfamily\t"
                        "family_dp_rank\tfamily_tau_rank\tfamily_outperforms")
    assert [line.split("\t")[0] for line in lines[1:4]] == ["nDCG@10", "RBP_ERG", "INST_PE"]
    assert "# Kendall tau-b between the metrics' system rankings" in lines
    # one family of the three (nDCG@10 is not a Chen & Sakai name), its Table 3 block printed
    table3 = lines.index(next(line for line in lines if line.startswith("# split-half consistency within")))
    assert lines[table3 + 1] == "family\trank\tmetric\tmean_tau\toutperforms\tbeaten_ranks"
    assert {line.split("\t")[0] for line in lines[table3 + 2:table3 + 5]} == {"all"}
    assert (tmp_path / "fig" / "asl.png").stat().st_size > 1000
    assert (tmp_path / "fig" / "similarity.png").stat().st_size > 1000


def test_meta_one_metric_without_splits(tmp_path, capsys):
    """One metric and --splits 0 (as the error for one metric with splits suggests): its discriminative power,
    no families -- a family compares at least 2 metrics."""
    qrels, runs = cwla.synthetic.collection(n_topics=12, n_runs=6, seed=2)
    qrels_path, run_paths = cwla.synthetic.write_trec(qrels, runs, tmp_path / "data")
    code = main(["meta", str(qrels_path), *map(str, run_paths), "-m", "AP", "--trials", "100", "--splits", "0",
                 "--quiet"])
    out = capsys.readouterr()
    assert code == 0, out.err
    lines = without_header(out.out).splitlines()
    assert lines[0] == "metric\tdp\tsignificant_pairs\tpairs\tdelta" and lines[1].startswith("AP\t")
    assert not any(line.startswith("# split-half consistency within") for line in lines)
    code = main(["meta", str(qrels_path), *map(str, run_paths), "-m", "AP", "--splits", "0", "--families", "all"])
    assert code == 2
    assert "discpower: error: family 'all' has 1 metric(s); a family compares at least 2" in capsys.readouterr().err


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


@pytest.mark.slow
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
    from discpower.reports.systems import compare_systems

    qrels, runs = trec
    assert main(["compare", qrels, *runs, "-m", "nDCG@10", "-m", "RBP_ERG", "--trials", "1500", "--seed", "2"]) == 0
    out = without_header(capsys.readouterr().out)
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
    from discpower.reports.systems import compare_systems

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
    assert "\tpvalue_raw\tpvalue" in without_header(outputs[0]).splitlines()[0]


@pytest.mark.parametrize("extra, message", [
    (["--baseline", "run9"], "unknown baseline 'run9': the runs are 'run01', 'run02'"),
    (["--correction", "holm"], "test 'perm-max-t' controls the family-wise error over all pairs itself; it takes no "
                               "correction"),
    (["--test", "tukey", "--correction", "holm"], "test 'tukey' controls the family-wise error"),
    (["--test", "t-test-holm", "--correction", "bh"], "test 't-test-holm' names the correction 'holm'"),
    (["--test", "fisher", "--correction", "holm", "--trials", "10"], "test 'fisher-holm' at B = 10 can find no pair "
                                                                     "significant"),
    (["--alpha", "1.5"], "--alpha must be a number in the open interval (0, 1). Got 1.5 instead."),
    (["--trials", "0"], "--trials must be an integer >= 1. Got 0 instead."),
    (["--test", "anova"], "unknown test 'anova'; accepted: 'tukey'"),
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


def test_compare_qrels_command(tmp_path, capsys):
    qrels, runs = cwla.synthetic.collection(n_topics=25, n_runs=8, seed=11)
    qrels_path, run_paths = cwla.synthetic.write_trec(qrels, runs, tmp_path)
    candidate = tmp_path / "cand.txt"
    half = qrels[qrels.index % 2 == 0]
    candidate.write_text("".join(f"{t} 0 {d} {int(g)}\n" for t, d, g in half.itertuples(index=False)))
    code = main(["compare-qrels", "--truth", str(qrels_path), "--candidate", str(candidate), *map(str, run_paths),
                 "-m", "nDCG@10", "--trials", "1000", "--seed", "2", "--pairs", str(tmp_path / "pairs.tsv")])
    out = without_header(capsys.readouterr().out).splitlines()
    assert code == 0 and out[0] == "measure\tvalue"
    values = dict(line.split("\t") for line in out[1:])
    expected = discpower.compare_qrels(qrels_path, candidate, run_paths, "nDCG@10", n_trials=1000, seed=2)
    for key in ("TP", "TN", "FP", "FN"):
        assert int(values[key]) == expected.measures[key]
    assert float(values["MCC"]) == pytest.approx(expected.measures["MCC"], abs=1e-6)
    pairs = pd.read_csv(tmp_path / "pairs.tsv", sep="\t")
    assert len(pairs) == 28 and set(pairs.outcome) <= {"TP", "TN", "FP", "FN"}


def test_compare_qrels_command_errors(tmp_path, capsys):
    assert main(["compare-qrels", "--truth", str(tmp_path / "missing"), "--candidate", "x", "run"]) == 2
    assert "discpower: error:" in capsys.readouterr().err


@pytest.mark.slow
def test_dl19_compare_qrels_command_end_to_end_is_stable_across_seeds(tmp_path, capsys):
    root = shared_path("trec-dl-2019-passage")
    runs = [str(p) for p in sorted((root / "runs").glob("*.gz"))]
    truth = str(root / "qrels" / "qrels.dl19-passage.txt")
    candidate = str(root / "candidate-qrels" / "llm" / "dl2019_test_4prompts_llama70b.txt")
    outputs = []
    for seed in (1, 2):
        pairs = tmp_path / f"pairs{seed}.tsv"
        assert main(["compare-qrels", "--truth", truth, "--candidate", candidate, *runs, "-m", "nDCG@10",
                     "--trials", "10000", "--seed", str(seed), "--pairs", str(pairs)]) == 0
        measures = dict(line.split("\t") for line in without_header(capsys.readouterr().out).splitlines()[1:])
        outputs.append((measures, pd.read_csv(pairs, sep="\t")))
    (m1, p1), (m2, p2) = outputs
    mc = 4 * math.sqrt(0.05 * 0.95 / 10_000)
    near = sum(((p[col] - 0.05).abs() < mc) for p in (p1, p2) for col in ("p_truth", "p_candidate")) > 0
    for key in ("TP", "TN", "FP", "FN"):
        assert abs(int(m1[key]) - int(m2[key])) <= int(near.sum()), key
    assert int(m1["pairs"]) == 666


@pytest.fixture(scope="module")
def cli_files(tmp_path_factory):
    """Synthetic TREC files (qrels path, run paths) and a candidate qrels (every other judgement)."""
    return trec_files(tmp_path_factory.mktemp("safety"), n_topics=10, n_runs=6, depth=20, seed=3)


def _run(capsys, *argv):
    """(exit code, stdout, stderr) of ``discpower argv``."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, without_header(out), err


def _refused(code, err, *fragments):
    assert code == 2
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, err


@pytest.mark.parametrize("which", ["truth", "candidate", "run"])
def test_compare_qrels_pairs_cannot_overwrite_an_input(cli_files, capsys, which):
    qrels_path, run_paths, candidate = cli_files
    target = {"truth": qrels_path, "candidate": candidate, "run": run_paths[2]}[which]
    label = {"truth": "--truth", "candidate": "--candidate", "run": "RUN"}[which]
    before = target.read_bytes()
    code, out, err = _run(capsys, "compare-qrels", "--truth", qrels_path, "--candidate", candidate, *run_paths,
                          "--trials", "100", "--pairs", target)
    _refused(code, err, f"discpower: error: --pairs {target} is the {label} file {target}: writing it would "
                        f"destroy an input")
    assert out == "" and target.read_bytes() == before


def test_compare_qrels_pairs_written_atomically(cli_files, capsys, tmp_path):
    qrels_path, run_paths, candidate = cli_files
    pairs = tmp_path / "pairs.tsv"
    code, _, err = _run(capsys, "compare-qrels", "--truth", qrels_path, "--candidate", candidate, *run_paths,
                        "--trials", "100", "--pairs", pairs)
    assert code == 0, err
    assert pairs.read_text().startswith("system_a\t") and os.listdir(tmp_path) == ["pairs.tsv"]


def test_meta_figures_cannot_overwrite_an_input(cli_files, capsys, tmp_path):
    qrels_path, run_paths, _ = cli_files
    run = tmp_path / "asl.png"  # a run that happens to be called asl.png, in the figures folder
    run.write_bytes(run_paths[0].read_bytes())
    before = run.read_bytes()
    code, out, err = _run(capsys, "meta", qrels_path, run, *run_paths[1:], "-m", "AP", "-m", "P@10",
                          "--trials", "50", "--splits", "10", "--quiet", "--figures", tmp_path)
    _refused(code, err, f"--figures {tmp_path / 'asl.png'} is the RUN file {run}")
    assert out == "" and run.read_bytes() == before


def test_meta_figures_in_a_file_is_refused_before_scoring(cli_files, capsys):
    qrels_path, run_paths, _ = cli_files
    code, out, err = _run(capsys, "meta", qrels_path, *run_paths, "-m", "AP", "-m", "P@10", "--quiet",
                          "--figures", qrels_path)
    _refused(code, err, f"{qrels_path} is a file, not a folder")
    assert out == ""


def test_compare_qrels_a_metric_or_candidate_given_twice(cli_files, capsys):
    qrels_path, run_paths, candidate = cli_files
    code, out, err = _run(capsys, "compare-qrels", "--truth", qrels_path, "--candidate", candidate, *run_paths,
                          "--metric", "AP", "-m", "AP")
    _refused(code, err, "discpower: error: -m 'AP' given twice; give each value once")
    code, out, err = _run(capsys, "compare-qrels", "--truth", qrels_path, "--candidate", candidate, "--candidate",
                          candidate, *run_paths)
    _refused(code, err, f"discpower: error: --candidate '{candidate}' given twice; give each value once")
    assert out == ""


def test_compare_qrels_several_candidates_and_metrics_read_the_runs_once_into_one_table(cli_files, capsys,
                                                                                        tmp_path, monkeypatch):
    qrels_path, run_paths, candidate = cli_files
    other = tmp_path / "third.txt"
    other.write_text("".join(line for k, line in enumerate(open(qrels_path)) if k % 3))
    import cwla.scoring.evaluator as evaluator_module

    reads = []
    real = evaluator_module.read_runs
    monkeypatch.setattr(evaluator_module, "read_runs", lambda *a, **k: reads.append(1) or real(*a, **k))
    code, out, err = _run(capsys, "compare-qrels", "--truth", qrels_path, "--candidate", candidate, "--candidate",
                          other, "--candidate", qrels_path, *run_paths, "-m", "nDCG@10", "-m", "P@10",
                          "--trials", "500", "--seed", "3")
    assert code == 0, err
    assert len(reads) == 1  # the runs are read once for the 3 candidates x 2 metrics
    table = pd.read_csv(io.StringIO(out), sep="\t")
    assert list(table.columns) == ["candidate", "metric", "measure", "value"]
    assert table[["candidate", "metric"]].drop_duplicates().shape[0] == 6
    for cand in (candidate, other):
        for metric in ("nDCG@10", "P@10"):
            alone = discpower.compare_qrels(qrels_path, cand, run_paths, metric, n_trials=500, seed=3)
            rows = table[(table.candidate == str(cand)) & (table.metric == metric)].set_index("measure")["value"]
            assert [int(rows[k]) for k in ("TP", "TN", "FP", "FN")] == [alone.measures[k] for k in
                                                                        ("TP", "TN", "FP", "FN")]
    truth_itself = table[table.candidate == str(qrels_path)].set_index(["metric", "measure"])["value"]
    assert float(truth_itself[("nDCG@10", "MCC")]) == pytest.approx(1.0)  # the truth against itself agrees


def test_sweep_command_prints_the_mean_of_each_measure_per_cell(cli_files, capsys, tmp_path):
    qrels_path, run_paths, candidate = cli_files
    frame_path = tmp_path / "frame.tsv"
    code, out, err = _run(capsys, "sweep", "--truth", qrels_path, *run_paths, "--parameters", "0.4,1",
                          "--repetitions", "2", "--trials", "300", "--candidate", candidate, "--frame", frame_path)
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out), sep="\t")
    assert list(table.columns[:2]) == ["generator", "parameter"] and {"MCC", "BAC", "FN"} <= set(table.columns)
    expected = discpower.sweep(qrels_path, run_paths, "nDCG@10", generators="sampling", parameters=[0.4, 1],
                               repetitions=2, candidates={str(candidate): str(candidate)}, n_trials=300,
                               progress=False).table().reset_index()
    assert table["MCC"].to_numpy() == pytest.approx(expected["MCC"].to_numpy(), abs=1e-6)
    assert len(pd.read_csv(frame_path, sep="\t")) > len(table)
    code, _, err = _run(capsys, "sweep", "--truth", qrels_path, *run_paths, "--generator", "nope")
    assert code == 2 and "unknown generator 'nope'; accepted: sampling, " in err
    code, _, err = _run(capsys, "sweep", "--truth", qrels_path, *run_paths, "--frame", qrels_path)
    assert code == 2 and "--frame" in err


@pytest.mark.parametrize("extra, option, values", [
    (["--truth", "other.txt"], "--truth", "("),
    (["--pairs", "a.tsv", "--pairs", "b.tsv"], "--pairs", "('a.tsv' and 'b.tsv')"),
])
def test_compare_qrels_single_value_options_given_twice(cli_files, capsys, extra, option, values):
    qrels_path, run_paths, candidate = cli_files
    code, out, err = _run(capsys, "compare-qrels", "--truth", qrels_path, "--candidate", candidate, *run_paths,
                          *extra)
    _refused(code, err, f"discpower compare-qrels: error: argument {option}: given twice {values}",
             "this option takes one value (run the command once per value)")
    assert out == ""


def test_meta_figures_given_twice(cli_files, capsys):
    qrels_path, run_paths, _ = cli_files
    code, _, err = _run(capsys, "meta", qrels_path, *run_paths, "-m", "AP", "--figures", "a", "--figures", "b")
    _refused(code, err, "argument --figures: given twice ('a' and 'b')")


def test_commands_check_trials_before_reading(one_mib, capsys, tmp_path, cli_files):
    qrels_path, run_paths, candidate = cli_files
    missing = tmp_path / "not-read.tsv"  # the check comes first: the file is never opened
    code, out, err = _run(capsys, "tukey", missing, "--trials", 10**6)
    _refused(code, err, "discpower: error: --trials (1,000,000 trials; the null distribution and its sorted copy "
                        "take 16 bytes a trial) needs about 15.3 MiB of memory, but only 1.0 MiB is available; use "
                        "fewer trials (about 65,536 fit)")
    code, _, err = _run(capsys, "compare-qrels", "--truth", missing, "--candidate", candidate, *run_paths,
                        "--trials", 10**6)
    _refused(code, err, "discpower: error: --trials (1,000,000 trials; the null distribution and its "
                        "sorted copy take 16 bytes a trial, 2 tests at once) needs about 30.5 MiB")
    code, _, err = _run(capsys, "meta", missing, *run_paths, "-m", "AP", "-m", "P@5", "--trials", 50_000,
                        "--splits", 10_000)
    _refused(code, err, "discpower: error: n_trials=50,000 for 2 metrics and n_splits=10,000 (every metric's null "
                        "distribution is kept) needs about 2.8 MiB of memory, but only 1.0 MiB is available; use "
                        "fewer trials or splits, or fewer metrics at a time")


def test_memory_error_is_a_message_not_a_traceback(monkeypatch, capsys, tmp_path):
    import discpower.stats.tukey

    path = tmp_path / "m.tsv"
    discpower.write_matrix(np.random.default_rng(0).random((5, 3)), ["a", "b", "c"], path)
    monkeypatch.setattr(discpower.stats.tukey, "tukey_test", lambda *a, **k: np.empty(2**55))
    code, out, err = _run(capsys, "tukey", path)
    _refused(code, err, "discpower: error: out of memory while running 'discpower tukey': one array needed about "
                        "268,435,456.0 GiB; ask for less at a time")
    assert out == ""


def test_the_command_says_so(capsys, tmp_path):
    path = tmp_path / "m.tsv"
    path.write_text("a\tb\tc\n1e308\t0.1\t0.2\n1e308\t0.3\t0.1\n0.5\t0.2\t0.4\n")
    code, _, err = _run(capsys, "tukey", path, "--trials", 100)
    _refused(code, err, "discpower: error: randomised Tukey HSD: the scores are too large")


def test_compare_qrels_command_takes_every_scoring_option(cli_files, capsys):
    """--order, --ties, -M, -J, -l, --cutoff reach the one Evaluator, as compare_qrels' options do."""
    qrels_path, run_paths, candidate = cli_files
    flags = ["--order", "file", "--ties", "float64", "-M", "8", "-J", "-l", "2", "--cutoff", "5"]
    code, out, _ = _run(capsys, "compare-qrels", "--truth", qrels_path, "--candidate", candidate, *run_paths,
                        "-m", "RBP_ERG", "--trials", 300, *flags)
    assert code == 0
    printed = dict(line.split("\t") for line in out.splitlines()[1:])
    expected = discpower.compare_qrels(qrels_path, candidate, run_paths, "RBP_ERG", n_trials=300, seed=0,
                                       order="file", ties="float64", max_docs=8, judged_only=True, rel=2, cutoff=5)
    for measure in ("TP", "FN", "FP", "TN", "pairs"):
        assert int(printed[measure]) == expected.measures[measure]
    assert float(printed["tau"]) == pytest.approx(expected.measures["tau"], abs=1e-6)


def test_compare_takes_a_test_with_its_correction_in_the_name(trec, capsys):
    from discpower.reports.systems import compare_systems

    qrels, runs = trec
    assert main(["compare", qrels, *runs, "-m", "P@5", "--test", "t-test-holm"]) == 0
    got = pd.read_csv(io.StringIO(without_header(capsys.readouterr().out)), sep="\t", keep_default_na=False,
                      dtype={"significance": str})
    expected = compare_systems(qrels, runs, ["P@5"], test="t-test", correction="holm").to_frame()
    assert got.significance.tolist() == expected.significance.tolist()
    assert main(["compare", qrels, *runs, "-m", "P@5", "--test", "t-test", "--correction", "holm"]) == 0
    again = pd.read_csv(io.StringIO(without_header(capsys.readouterr().out)), sep="\t", keep_default_na=False,
                        dtype={"significance": str})
    assert again.significance.tolist() == got.significance.tolist()


def test_compare_qrels_takes_the_correction_apart_or_in_the_test_name(trec, capsys):
    qrels, runs = trec
    candidate = qrels  # the same qrels as the candidate: the two spellings must print the same report
    outputs = []
    for extra in (["--test", "t-test-holm"], ["--test", "t-test", "--correction", "holm"]):
        assert main(["compare-qrels", "--truth", qrels, "--candidate", candidate, *runs, *extra]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] and "# test: paired t-test (holm)" in outputs[0]
    assert main(["compare-qrels", "--truth", qrels, "--candidate", candidate, *runs, "--test", "fisher",
                 "--correction", "bonferroni", "--trials", "50"]) == 2
    assert "B >= 200 can" in capsys.readouterr().err  # 10 pairs: 10 / (B + 1) < .05


def test_the_correction_takes_statsmodels_aliases_on_the_command_line(cli_files, capsys):
    qrels_path, run_paths, _ = cli_files
    outs = []
    for correction in ("holm-sidak", "hs", "holm_sidak"):
        code, out, err = _run(capsys, "compare", qrels_path, *run_paths, "-m", "P@10", "--test", "t-test",
                              "--correction", correction)
        assert code == 0, err
        outs.append(out)
    assert outs[0] == outs[1] == outs[2]
    code, _, err = _run(capsys, "compare", qrels_path, *run_paths, "-m", "P@10", "--test", "t-test",
                        "--correction", "bonferoni")
    assert code == 2 and "did you mean 'bonferroni'" in err and "accepted: none (default), holm" in err


def test_the_resampling_options_are_declared_once():
    """Issue 40: --trials, --alpha and --seed mean the same in every command that has them (one declaration,
    discpower.reports.cli.add_resampling_arguments): their type, metavar and, for --alpha and --seed, default."""
    import argparse

    from discpower.reports.cli import _parser

    commands = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    seen = {}
    for name, sub in commands.items():
        options = {o: a for a in sub._actions for o in a.option_strings}
        if "--trials" not in options:
            continue
        seen[name] = sorted(o for o in ("--trials", "--alpha", "--seed") if o in options)
        trials, seed = options["--trials"], options["--seed"]
        assert (trials.type, trials.metavar, seed.type, seed.metavar, seed.default) == (int, "B", int, "S", 0), name
        assert f"(default {trials.default})" in trials.help, name
        if "--alpha" in options:
            alpha = options["--alpha"]
            assert (alpha.type, alpha.metavar, alpha.default) == (float, "A", 0.05) and "0.05" in alpha.help, name
    assert seen == {"tukey": ["--seed", "--trials"], **{c: ["--alpha", "--seed", "--trials"] for c in
                                                         ("meta", "compare-qrels", "sweep", "compare")}}


def test_a_message_is_put_in_the_commands_flags_only_for_the_entry_points_parameters():
    import argparse

    from cwla.bridges.cli import in_flags
    from discpower.reports.cli import _parser

    parser, args = _parser(), argparse.Namespace(command="sweep")
    assert in_flags("The 'n_trials' parameter must be an integer >= 1. Got 0 instead.", parser, args) == \
        "--trials must be an integer >= 1. Got 0 instead."
    # a generator's depth (named with its function) is not the sweep's --depth (the evaluation's)
    message = "The 'depth' parameter of depth_pool must be an integer >= 1. Got 2.5 instead."
    assert in_flags(message, parser, args) == message
