"""Nothing lost, stricter: outputs never overwrite inputs, writes are atomic, file names stay in their
folder, memory is checked before it is allocated, overflowing sums are refused."""

import os
import re
import stat

import numpy as np
import pytest

import cwla
import discpower
from cwla import synthetic
from cwla._files import atomic_write, atomic_write_text, check_outputs
from cwla.cli import main as cwla_main
from cwla.errors import InputError
from discpower import DiscpowerError
from discpower.stats import memory as _validate
from discpower.cli import main


@pytest.fixture(scope="module")
def trec(tmp_path_factory):
    """Synthetic TREC files (qrels path, run paths) and a candidate qrels (every other judgement)."""
    root = tmp_path_factory.mktemp("safety")
    qrels, runs = synthetic.collection(n_topics=10, n_runs=6, depth=20, seed=3)
    qrels_path, run_paths = synthetic.write_trec(qrels, runs, root / "data")
    candidate = root / "cand.txt"
    half = qrels[qrels.index % 2 == 0]
    candidate.write_text("".join(f"{t} 0 {d} {int(g)}\n" for t, d, g in half.itertuples(index=False)))
    return qrels_path, run_paths, candidate


def _run(capsys, *argv):
    """(exit code, stdout, stderr) of ``discpower argv``."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _refused(code, err, *fragments):
    assert code == 2
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, err


# ---------------------------------------------------------------------------
# cwla._files
# ---------------------------------------------------------------------------


def test_check_outputs_refuses_an_input_naming_both(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d 1\n")
    with pytest.raises(InputError, match=re.escape(f"--pairs {qrels} is the --truth file {qrels}: writing it "
                                                   f"would destroy an input; give another output file")):
        check_outputs([("--pairs", qrels)], [("--truth", qrels)])


def test_check_outputs_sees_other_spellings_and_links(tmp_path):
    run = tmp_path / "run1"
    run.write_text("1 Q0 d 1 1.0 r\n")
    (tmp_path / "sub").mkdir()
    os.symlink(run, tmp_path / "link")
    for spelling in (tmp_path / "sub" / ".." / "run1", tmp_path / "link"):
        with pytest.raises(InputError, match="is the RUN file"):
            check_outputs([("--pairs", str(spelling))], [("RUN", str(run))])


def test_check_outputs_skips_stdout_none_and_new_files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d 1\n")
    check_outputs([("--pairs", "-"), ("--pairs", None), ("--pairs", tmp_path / "new.tsv")],
                  [("--truth", qrels), ("frame", object())])


def test_check_outputs_refuses_a_folder_or_a_file_as_folder(tmp_path):
    with pytest.raises(InputError, match=re.escape(f"--pairs {tmp_path} is a folder: give a file name")):
        check_outputs([("--pairs", tmp_path)], [])
    (tmp_path / "f").write_text("x")
    with pytest.raises(InputError, match=re.escape(f"cannot write --figures {tmp_path / 'f' / 'asl.png'}: "
                                                   f"{tmp_path / 'f'} is a file, not a folder")):
        check_outputs([("--figures", tmp_path / "f" / "asl.png")], [])


def test_atomic_write_replaces_whole_and_keeps_the_mode(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("old\n")
    path.chmod(0o640)
    atomic_write_text(path, "new\n")
    assert path.read_text() == "new\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert os.listdir(tmp_path) == ["out.txt"]


def test_atomic_write_error_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("old\n")
    with pytest.raises(RuntimeError):
        with atomic_write(path) as fh:
            fh.write("half")
            raise RuntimeError("disk full")
    assert path.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["out.txt"]


def test_atomic_write_follows_a_link(tmp_path):
    target = tmp_path / "target.txt"
    target.write_text("old\n")
    os.symlink(target, tmp_path / "link.txt")
    atomic_write_text(tmp_path / "link.txt", "new\n")
    assert (tmp_path / "link.txt").is_symlink() and target.read_text() == "new\n"


def test_atomic_write_errors_name_the_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="folder .* does not exist") as info:
        atomic_write_text(tmp_path / "nope" / "x.txt", "x")
    assert info.value.filename == str(tmp_path / "nope" / "x.txt")
    with pytest.raises(IsADirectoryError, match="is a folder"):
        atomic_write_text(tmp_path, "x")


# ---------------------------------------------------------------------------
# synthetic.write_trec: file names stay inside the folder
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name, message", [
    ("../x.txt", "run name '../x.txt' is a path, not a file name"),
    ("/tmp/abs.txt", "run name '/tmp/abs.txt' is a path, not a file name"),
    ("a/b", "run name 'a/b' is a path, not a file name"),
    ("", "run name '' is not a file name"),
    (".", "run name '.' is not a file name"),
    ("..", "run name '..' is not a file name"),
    ("qrels.txt", "run name 'qrels.txt' is the name of the qrels file write_trec writes"),
    ("my run", "run name 'my run' contains whitespace"),
])
def test_write_trec_refuses_names_outside_the_folder(tmp_path, name, message):
    qrels, runs = synthetic.collection(n_topics=3, n_runs=2, depth=5, seed=0)
    runs = {"ok": runs["run01"], name: runs["run02"]}
    with pytest.raises(InputError, match=re.escape(message)):
        synthetic.write_trec(qrels, runs, tmp_path / "out")
    assert not (tmp_path / "out").exists() and os.listdir(tmp_path) == []  # nothing written


def test_write_trec_refuses_names_that_collide(tmp_path):
    qrels, runs = synthetic.collection(n_topics=3, n_runs=2, depth=5, seed=0)
    with pytest.raises(InputError, match=re.escape("run names ['1'] repeat once written as file names")):
        synthetic.write_trec(qrels, {1: runs["run01"], "1": runs["run02"]}, tmp_path)


# ---------------------------------------------------------------------------
# the commands: no output is an input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["truth", "candidate", "run"])
def test_compare_qrels_pairs_cannot_overwrite_an_input(trec, capsys, which):
    qrels_path, run_paths, candidate = trec
    target = {"truth": qrels_path, "candidate": candidate, "run": run_paths[2]}[which]
    label = {"truth": "--truth", "candidate": "--candidate", "run": "RUN"}[which]
    before = target.read_bytes()
    code, out, err = _run(capsys, "compare-qrels", "--truth", qrels_path, "--candidate", candidate, *run_paths,
                          "--trials", "100", "--pairs", target)
    _refused(code, err, f"discpower: error: --pairs {target} is the {label} file {target}: writing it would "
                        f"destroy an input")
    assert out == "" and target.read_bytes() == before


def test_compare_qrels_pairs_written_atomically(trec, capsys, tmp_path):
    qrels_path, run_paths, candidate = trec
    pairs = tmp_path / "pairs.tsv"
    code, _, err = _run(capsys, "compare-qrels", "--truth", qrels_path, "--candidate", candidate, *run_paths,
                        "--trials", "100", "--pairs", pairs)
    assert code == 0, err
    assert pairs.read_text().startswith("system_a\t") and os.listdir(tmp_path) == ["pairs.tsv"]


def test_meta_figures_cannot_overwrite_an_input(trec, capsys, tmp_path):
    qrels_path, run_paths, _ = trec
    run = tmp_path / "asl.png"  # a run that happens to be called asl.png, in the figures folder
    run.write_bytes(run_paths[0].read_bytes())
    before = run.read_bytes()
    code, out, err = _run(capsys, "meta", qrels_path, run, *run_paths[1:], "-m", "AP", "-m", "P@10",
                          "--trials", "50", "--splits", "10", "--quiet", "--figures", tmp_path)
    _refused(code, err, f"--figures {tmp_path / 'asl.png'} is the RUN file {run}")
    assert out == "" and run.read_bytes() == before


def test_meta_figures_in_a_file_is_refused_before_scoring(trec, capsys):
    qrels_path, run_paths, _ = trec
    code, out, err = _run(capsys, "meta", qrels_path, *run_paths, "-m", "AP", "-m", "P@10", "--quiet",
                          "--figures", qrels_path)
    _refused(code, err, f"{qrels_path} is a file, not a folder")
    assert out == ""


# ---------------------------------------------------------------------------
# options given once
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("extra, option, values", [
    (["-m", "AP", "-m", "P@10"], "-m/--metric", "('AP' and 'P@10')"),
    (["--metric", "AP", "-m", "AP"], "-m/--metric", "('AP' and 'AP')"),
    (["--truth", "other.txt"], "--truth", "("),
    (["--pairs", "a.tsv", "--pairs", "b.tsv"], "--pairs", "('a.tsv' and 'b.tsv')"),
])
def test_compare_qrels_single_value_options_given_twice(trec, capsys, extra, option, values):
    qrels_path, run_paths, candidate = trec
    code, out, err = _run(capsys, "compare-qrels", "--truth", qrels_path, "--candidate", candidate, *run_paths,
                          *extra)
    _refused(code, err, f"discpower compare-qrels: error: argument {option}: given twice {values}",
             "this option takes one value (run the command once per value)")
    assert out == ""


def test_meta_figures_given_twice(trec, capsys):
    qrels_path, run_paths, _ = trec
    code, _, err = _run(capsys, "meta", qrels_path, *run_paths, "-m", "AP", "--figures", "a", "--figures", "b")
    _refused(code, err, "argument --figures: given twice ('a' and 'b')")


# ---------------------------------------------------------------------------
# memory: checked before it is allocated; MemoryError is a message
# ---------------------------------------------------------------------------


@pytest.fixture
def one_mib(monkeypatch):
    """Pretend 1 MiB of memory is available."""
    monkeypatch.setattr(_validate, "available_memory", lambda: 2**20)


def test_available_memory_is_known_here():
    available = _validate.available_memory()
    assert available is None or available > 0


def test_memory_unknown_skips_the_check(monkeypatch):
    monkeypatch.setattr(_validate, "available_memory", lambda: None)
    _validate.check_memory(2**80, "anything", "nothing")


TRIALS_MESSAGE = ("The 'n_trials' parameter (1,000,000 trials; the null distribution and its sorted copy take 16 "
                  "bytes a trial) needs about 15.3 MiB of memory, but only 1.0 MiB is available; use fewer trials "
                  "(about 65,536 fit)")


@pytest.mark.parametrize("call", [
    lambda X: discpower.randomised_tukey_hsd(X, 10**6, seed=1),
    lambda X: discpower.fisher_randomisation(X[:, :2], n_trials=10**6, seed=1),
    lambda X: discpower.paired_bootstrap(X[:, :2], n_trials=10**6, seed=1),
], ids=["tukey", "fisher", "bootstrap"])
def test_trials_checked_against_memory(one_mib, call):
    X = np.random.default_rng(0).random((10, 3))
    with pytest.raises(DiscpowerError, match=re.escape(TRIALS_MESSAGE)):
        call(X)


def test_trials_that_fit_run(one_mib):
    X = np.random.default_rng(0).random((10, 3))
    assert discpower.randomised_tukey_hsd(X, 10_000, seed=1).n_resamples == 10_000


def test_split_half_checked_against_memory(one_mib):
    V = np.random.default_rng(0).random((3, 6, 10))
    with pytest.raises(DiscpowerError, match=re.escape(
            "n_splits=50,000 for 3 metrics with n_trials=100 (the splits x metrics tau matrix and the null "
            "distribution of its Tukey HSD) needs about 2.3 MiB of memory, but only 1.0 MiB is available; use "
            "fewer splits or trials")):
        discpower.split_half_consistency(V, ["a", "b", "c"], n_splits=50_000, n_trials=100, seed=1)


def test_meta_evaluate_checked_against_memory(one_mib):
    qrels, runs = synthetic.collection(n_topics=6, n_runs=5, depth=10, seed=1)
    ev = cwla.evaluate(qrels, runs, ["AP", "P@5", "nDCG@5"])
    with pytest.raises(DiscpowerError, match=re.escape(
            "n_trials=50,000 for 3 metrics and n_splits=0 (every metric's null distribution is kept) needs about "
            "1.5 MiB of memory, but only 1.0 MiB is available; use fewer trials or splits, or fewer metrics at a "
            "time")):
        discpower.meta_evaluate(ev, n_trials=50_000, n_splits=0)


def test_commands_check_trials_before_reading(one_mib, capsys, tmp_path, trec):
    qrels_path, run_paths, candidate = trec
    missing = tmp_path / "not-read.tsv"  # the check comes first: the file is never opened
    code, out, err = _run(capsys, "tukey", missing, "--trials", 10**6)
    _refused(code, err, "discpower: error: --trials (1,000,000 trials; the null distribution and its sorted copy "
                        "take 16 bytes a trial) needs about 15.3 MiB of memory, but only 1.0 MiB is available; use "
                        "fewer trials (about 65,536 fit)")
    code, _, err = _run(capsys, "compare-qrels", "--truth", missing, "--candidate", candidate, *run_paths,
                        "--trials", 10**6)
    _refused(code, err, "discpower: error: The 'n_trials' parameter (1,000,000 trials; the null distribution and its "
                        "sorted copy take 16 bytes a trial, 2 tests at once) needs about 30.5 MiB")
    code, _, err = _run(capsys, "meta", missing, *run_paths, "-m", "AP", "-m", "P@5", "--trials", 50_000,
                        "--splits", 10_000)
    _refused(code, err, "discpower: error: n_trials=50,000 for 2 metrics and n_splits=10,000 (every metric's null "
                        "distribution is kept) needs about 3.0 MiB of memory, but only 1.0 MiB is available; use "
                        "fewer trials or splits, or fewer metrics at a time")


def test_memory_error_is_a_message_not_a_traceback(monkeypatch, capsys, tmp_path):
    import discpower.tukey

    path = tmp_path / "m.tsv"
    discpower.write_matrix(np.random.default_rng(0).random((5, 3)), ["a", "b", "c"], path)
    monkeypatch.setattr(discpower.tukey, "tukey_test", lambda *a, **k: np.empty(2**55))
    code, out, err = _run(capsys, "tukey", path)
    _refused(code, err, "discpower: error: out of memory while running 'discpower tukey': one array needed about "
                        "268,435,456.0 GiB; ask for less at a time")
    assert out == ""


def test_memory_error_without_a_size(monkeypatch, capsys, tmp_path):
    import cwla.evaluation

    def fail(*args, **kwargs):
        raise MemoryError("Allocation failed (probably too large).")

    qrels, runs = synthetic.collection(n_topics=3, n_runs=1, depth=5, seed=0)
    qrels_path, run_paths = synthetic.write_trec(qrels, runs, tmp_path)
    monkeypatch.setattr(cwla.evaluation, "evaluate", fail)
    code = cwla_main(["eval", str(qrels_path), str(run_paths[0])])
    err = capsys.readouterr().err
    _refused(code, err, "cwla: error: out of memory while running 'cwla eval' (Allocation failed (probably too "
                        "large).); ask for less at a time")


# ---------------------------------------------------------------------------
# sums that overflow
# ---------------------------------------------------------------------------


HUGE = np.array([[1e308, 0.1, 0.2], [1e308, 0.3, 0.1], [0.5, 0.2, 0.4]])
LARGE = np.array([[1e200, 0.1, 0.2], [3e200, 0.3, 0.1], [0.5, 0.2, 0.4]])


@pytest.mark.parametrize("test, call", [
    ("randomised Tukey HSD", lambda X: discpower.randomised_tukey_hsd(X, 100, seed=1)),
    ("paired t-test", discpower.paired_t_test),
    ("parametric Tukey HSD", discpower.parametric_tukey_hsd),
    ("Fisher randomisation", lambda X: discpower.fisher_randomisation(X[:, :2], n_trials=100, seed=1)),
    ("Fisher randomisation", lambda X: discpower.fisher_randomisation(X[:, :2], exact=True)),
    ("paired bootstrap", lambda X: discpower.paired_bootstrap(X[:, :2], n_trials=100, seed=1)),
])
def test_overflowing_sums_are_refused(test, call):
    with pytest.raises(DiscpowerError, match=re.escape(
            f"{test}: the scores are too large: their sums over the topics can overflow to infinity (the largest "
            f"|score| is 1e+308), and p-values computed from infinity mean nothing; rescale the scores (e.g. "
            f"divide them all by 1e+308)")):
        call(HUGE)


@pytest.mark.parametrize("test, call", [
    ("paired t-test", discpower.paired_t_test),
    ("parametric Tukey HSD", discpower.parametric_tukey_hsd),
    ("paired bootstrap", lambda X: discpower.paired_bootstrap(X[:, :2], n_trials=100, seed=1)),
])
def test_overflowing_sums_of_squares_are_refused(test, call):
    with pytest.raises(DiscpowerError, match=re.escape(
            f"{test}: the scores are too large: their sums of squares over the topics can overflow to infinity "
            f"(the largest |score| is 3e+200)")):
        call(LARGE)


def test_large_scores_without_squares_still_test():
    res = discpower.randomised_tukey_hsd(LARGE, 200, seed=1)
    assert np.isfinite(res.null_distribution).all() and np.isfinite(res.pvalue[0, 1])
    assert np.isfinite(discpower.fisher_randomisation(LARGE[:, :2], exact=True).pvalue[0, 1])


def test_the_command_says_so(capsys, tmp_path):
    path = tmp_path / "m.tsv"
    path.write_text("a\tb\tc\n1e308\t0.1\t0.2\n1e308\t0.3\t0.1\n0.5\t0.2\t0.4\n")
    code, _, err = _run(capsys, "tukey", path, "--trials", 100)
    _refused(code, err, "discpower: error: randomised Tukey HSD: the scores are too large")
