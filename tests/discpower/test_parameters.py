"""Count-like parameters across discpower's entry points: a degenerate value is refused at the call with the one
message (the parameter, the value, what is accepted) -- never taken silently, never a cryptic error or a plan
that runs out of memory later."""

import re

import numpy as np
import pytest

import cwla
import discpower
from discpower import DiscpowerError

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

B = 50


@pytest.fixture(scope="module")
def data():
    qrels, runs = cwla.synthetic.collection(n_topics=12, n_runs=6, seed=5)
    return qrels, runs, discpower.sample_relevant(qrels, 0.5, seed=1)


@pytest.fixture(scope="module")
def X():
    return np.random.default_rng(0).random((10, 4))


# --------------------------------------------------------------------------- calibrate: n_sim planned in memory

@pytest.mark.parametrize("test, message", [
    ("tukey", "n_sim=1,000,000 with n_trials=1,000 (1 test(s) x 5 effect levels: 40 bytes a simulation, and a null "
              "distribution of 16 bytes a trial) needs about 38.2 MiB of memory, but only 1.0 MiB is available; use "
              "fewer simulations or trials"),
    ("t-test", "n_sim=1,000,000 (1 test(s) x 5 effect levels: 40 bytes a simulation) needs about 38.1 MiB of "
               "memory, but only 1.0 MiB is available; use fewer simulations"),
])
def test_calibrate_plans_the_memory_of_its_simulations(X, one_mib, test, message):
    with pytest.raises(DiscpowerError, match=re.escape(message)):
        discpower.calibrate(X, test, n_sim=10**6, n_trials=1000)


def test_calibrate_that_fits_runs_as_before(X, one_mib):
    cal = discpower.calibrate(X, "t-test", n_sim=20, deltas=[0.3], seed=1)
    again = discpower.calibrate(X, "t-test", n_sim=20, deltas=[0.3], seed=1)
    assert cal.frame.equals(again.frame) and cal.n_sim == 20


# --------------------------------------------------------------------------- the decimals of every table

def _tables(data, X):
    qrels, runs, candidate = data
    ev = cwla.evaluate(qrels, runs, ["AP", "P@5", "nDCG@5"])
    report = discpower.meta_evaluate(ev, n_trials=B, n_splits=4, seed=1)
    return {
        "PairwiseTest": report.tests["AP"].to_latex,
        "RankingSimilarity": report.similarity.to_latex,
        "MetaEvaluation": report.to_latex,
        "SplitHalfConsistency": report.consistency.to_latex,
        "FamilyConsistency": report.family_consistency.to_latex,
        "Calibration": discpower.calibrate(X, "t-test", n_sim=3, seed=1).to_latex,
        "QrelsComparison": discpower.compare_qrels(qrels, candidate, runs, n_trials=B).to_latex,
        "SystemComparison": discpower.compare_systems(ev, n_trials=B).to_latex,
    }


@pytest.mark.parametrize("digits, shown", [(-1, "-1"), (16, "16"), (2.5, "2.5"), (True, "True"), ("3", "'3'")])
def test_every_table_checks_its_digits(data, X, digits, shown):
    for name, to_latex in _tables(data, X).items():
        with pytest.raises(DiscpowerError, match=re.escape(
                f"The 'digits' parameter must be an integer in [0, 15]. Got {shown} instead.")):
            to_latex(digits=digits)
        assert "\\begin{tabular}" in to_latex(digits=0), name


def test_a_tests_table_checks_its_alpha(X):
    test = discpower.randomised_tukey_hsd(X, B, seed=1)
    with pytest.raises(DiscpowerError, match=re.escape(
            "The 'alpha' parameter must be a number in the open interval (0, 1). Got 5 instead.")):
        test.to_latex(alpha=5)
    assert test.to_latex(alpha=0.5).count("\\textbf") == int((test.pair_pvalues() < 0.5).sum())


# --------------------------------------------------------------------------- QrelsComparison.plot's max_lines

@pytest.mark.parametrize("max_lines, shown", [(-1, "-1"), (1.5, "1.5"), (None, "None")])
def test_qrels_figure_checks_max_lines(data, max_lines, shown):
    qrels, runs, candidate = data
    comparison = discpower.compare_qrels(qrels, candidate, runs, n_trials=B)
    with pytest.raises(DiscpowerError, match=re.escape(
            f"The 'max_lines' parameter must be an integer >= 0. Got {shown} instead.")):
        comparison.plot(max_lines=max_lines)
    assert len(comparison.plot(max_lines=1).get_lines()) <= 1 + 2  # the diagonal, at most one FN and one FP pair


# --------------------------------------------------------------------------- progress=

@pytest.mark.parametrize("entry", ["calibrate", "truth_stability", "run_stability", "sweep"])
@pytest.mark.parametrize("progress", [3, "yes"])
def test_progress_must_be_a_flag_or_a_callable(data, X, entry, progress):
    qrels, runs, candidate = data
    calls = {
        "calibrate": lambda: discpower.calibrate(X, "t-test", n_sim=3, progress=progress),
        "truth_stability": lambda: discpower.truth_stability(qrels, {"c": candidate}, runs, n_boot=2, n_trials=B,
                                                             progress=progress),
        "run_stability": lambda: discpower.run_stability(qrels, {"c": candidate}, runs, n_boot=2, n_trials=B,
                                                         progress=progress),
        "sweep": lambda: discpower.sweep(qrels, runs, candidates={"c": candidate}, n_trials=B, progress=progress),
    }
    with pytest.raises(DiscpowerError, match=re.escape(
            f"The 'progress' parameter must be True, False, None or a callable progress(done, total). Got "
            f"{progress!r} instead.")):
        calls[entry]()


def test_progress_flags_and_callables_are_taken(X):
    seen = []
    discpower.calibrate(X, "t-test", n_sim=3, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (3, 3)
    for flag in (False, None, np.False_):
        assert discpower.calibrate(X, "t-test", n_sim=3, progress=flag).n_sim == 3
