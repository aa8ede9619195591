"""Progress on long work: drawn on a terminal (a pseudo-terminal here), never into a pipe, off with --quiet."""

from __future__ import annotations

import io
import sys

import pytest

import cwla.progress as progress
from cwla.errors import CwlaError

from terminal import progress_lines, run, screen
from trec_files import trec_files


def _run(argv, *, terminal: bool, env=None, timeout=600) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``argv``, with stderr a pseudo-terminal (``terminal``) or a pipe."""
    return run(argv, terminal=terminal, env=env, timeout=timeout)[:3]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    qrels, runs, candidate = trec_files(tmp_path_factory.mktemp("progress"), n_topics=8, n_runs=6, depth=20, seed=5)
    return [str(qrels)], [str(p) for p in runs], str(candidate)


def _compare_qrels(files, *extra):
    qrels, runs, cand = files
    return [sys.executable, "-m", "discpower", "compare-qrels", "--truth", *qrels, "--candidate", cand, *runs,
            "--trials", "200", *extra]


@pytest.mark.slow
def test_compare_qrels_shows_progress_on_a_terminal_only(files):
    code, out, err = _run(_compare_qrels(files), terminal=True)
    assert code == 0, err
    assert "reading runs [" in err and "/6 files" in err
    assert "tukey [" in err and "/200 trials" in err
    assert progress_lines(err) == []  # every bar took its line away when done
    code, out_pipe, err_pipe = _run(_compare_qrels(files), terminal=False)
    assert code == 0 and "reading runs" not in err_pipe and "\r" not in err_pipe
    assert out_pipe == out  # the report itself does not depend on where stderr goes
    code, _, err_quiet = _run(_compare_qrels(files, "--quiet"), terminal=True)
    assert code == 0 and "reading runs" not in err_quiet


@pytest.mark.slow
def test_meta_counts_trials_and_splits(files):
    qrels, runs, _ = files
    argv = [sys.executable, "-m", "discpower", "meta", *qrels, *runs, "-m", "nDCG@10", "-m", "RBP_ERG",
            "--trials", "300", "--splits", "40"]
    code, _, err = _run(argv, terminal=True)
    assert code == 0, err
    assert "tukey [" in err and "/600 trials" in err
    assert "split-half consistency [" in err and "/40 splits" in err
    assert progress_lines(err) == []
    code, _, err = _run(argv, terminal=False)
    assert code == 0 and "trials" not in err


SWEEP = """
import discpower
from cwla import synthetic
qrels, runs = synthetic.collection(n_topics=8, n_runs=6, depth=20, seed=5)
discpower.sweep(qrels, runs, "nDCG@10", generators="sampling", parameters=[0.5, 0.7], repetitions=2,
                chunk_size=1, n_trials=100, progress={progress})
"""


@pytest.mark.slow
def test_sweep_progress_follows_the_terminal_and_the_argument():
    code, _, err = _run([sys.executable, "-c", SWEEP.format(progress=None)], terminal=True)
    assert code == 0, err
    assert "qrels sweep [" in err
    code, _, err = _run([sys.executable, "-c", SWEEP.format(progress=False)], terminal=True)
    assert code == 0 and "qrels sweep" not in err, err
    code, _, err = _run([sys.executable, "-c", SWEEP.format(progress=None)], terminal=False)
    assert code == 0 and "qrels sweep" not in err, err


COMPILE = """
import numpy as np
from discpower.stats.tukey import column_sums
column_sums(np.ones((3, 2)))
"""


@pytest.mark.slow
def test_a_cold_compile_says_so_and_how_long_it_took(tmp_path):
    env = {"CWLA_CACHE_DIR": str(tmp_path / "cold")}
    code, _, err = _run([sys.executable, "-c", COMPILE], terminal=True, env=env)
    assert code == 0, err
    assert "cwla: compiling kernels (once, then cached): 0 done" in err and " s ..." in err
    assert progress_lines(err) == []  # the notice goes when the compile is done
    code, _, err = _run([sys.executable, "-c", COMPILE], terminal=True, env=env)  # now cached: nothing to say
    assert code == 0 and "compiling" not in err, err
    env = {"CWLA_CACHE_DIR": str(tmp_path / "cold-pipe")}
    code, _, err = _run([sys.executable, "-c", COMPILE], terminal=False, env=env)
    assert code == 0 and "compiling" not in err, err


def test_bar_draws_and_ends_its_line():
    out = io.StringIO()
    bar = progress.Bar(4, "work", unit="items", stream=out, enabled=True, delay=0)
    for k in range(1, 5):
        bar(k)
    text = out.getvalue()
    assert "1/4 items" in text and text.endswith("\r\x1b[K") and screen(text) == [""]
    quiet = io.StringIO()
    off = progress.Bar(4, "work", stream=quiet, enabled=False, delay=0)
    off(4)
    assert quiet.getvalue() == ""


def test_reporter_refuses_what_is_not_a_progress_choice():
    with pytest.raises(CwlaError, match="The 'progress' parameter must be True, False, None or a callable"):
        progress.reporter("yes", 3, "x")
    seen = []
    tick = progress.reporter(lambda done, total: seen.append((done, total)), 3, "x")
    tick(1, 3)
    assert seen == [(1, 3)]
    assert progress.enabled(None, io.StringIO()) is False  # not a terminal
    with progress.scope(False):
        assert progress.enabled(None) is False
    with pytest.raises(CwlaError, match="configure"):
        progress.configure(enabled="on")
