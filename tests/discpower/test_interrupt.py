"""Long resampling a person can watch and stop (issue 39): at a terminal, Ctrl-C ends `compare-qrels` and `meta`
within a second of the signal (exit code 130), and while they run the trials move on one progress line."""

from __future__ import annotations

import re
import sys

import pytest


from terminal import progress_lines, run, screen
from trec_files import trec_files

pytestmark = pytest.mark.slow

B = 3_000_000


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    qrels, runs, candidate = trec_files(tmp_path_factory.mktemp("interrupt"), n_topics=50, n_runs=20, depth=50, seed=2)
    return str(qrels), [str(p) for p in runs], str(candidate)


def _commands(files, trials: int) -> dict:
    qrels, runs, cand = files
    discpower = [sys.executable, "-m", "discpower"]
    return {
        "compare-qrels": [*discpower, "compare-qrels", "--truth", qrels, "--candidate", cand, *runs,
                          "--trials", str(trials)],
        "meta": [*discpower, "meta", qrels, *runs, "-m", "nDCG@10", "-m", "P@10", "--trials", str(trials),
                 "--splits", "0"],
        "compare": [*discpower, "compare", qrels, *runs, "-m", "nDCG@10", "--trials", str(trials)],
    }


_MOVING = r"\] [1-9]\d*/\d+ trials[\s\S]*\] [1-9]\d*/\d+ trials"  # two redraws of trials under way


def _trials_seen(err: str, total: int) -> set[int]:
    """The trial counts the progress line showed, below ``total`` (within the first test)."""
    return {int(done) for done, of in re.findall(r"\] (\d+)/(\d+) trials", err) if 0 < int(done) < int(of) <= total}


@pytest.mark.parametrize("command", ["compare-qrels", "meta"])
def test_ctrl_c_ends_a_long_resampling_within_a_second(files, command):
    code, _, err, _ = run(_commands(files, 200)[command], terminal=False)  # the kernels compiled, or loaded
    assert code == 0, err
    # Ctrl-C once the trials are seen moving (not at a fixed time: under load, reading the runs may take longer)
    code, out, err, after = run(_commands(files, B)[command], interrupt_on=_MOVING)
    assert code == 130, err
    assert after < 1.0, f"{command} took {after:.2f} s to stop after Ctrl-C"
    assert out == ""  # no report of half a resampling
    lines = [line for line in screen(err) if line.strip()]
    assert lines[-1] == "discpower: interrupted" and progress_lines(err) == []
    total = B if command == "compare-qrels" else 2 * B
    assert len(_trials_seen(err, total)) >= 2, err[-500:]  # the trials moved within the first test


def test_compare_shows_its_trials_moving_on_one_line(files):
    # enough trials to span several redraws (0.2 s apart) on a fast machine: 100,000 took 0.3-0.6 s here
    code, out, err, _ = run(_commands(files, 400_000)["compare"])
    assert code == 0, err
    assert "perm-max-t [" in err and len(_trials_seen(err, 400_000)) >= 2, err[-500:]
    assert progress_lines(err) == [] and "nDCG@10" in out
