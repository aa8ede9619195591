"""The known-truth simulation's bounds: its counts checked, its memory planned before anything is drawn or scored,
its progress reported -- and its numbers for a run that fits the same as before the bounds."""

import re

import numpy as np
import pandas as pd
import pytest

import discpower
from discpower import DiscpowerError
from discpower.qrels import simulation
from discpower.stats import memory


@pytest.fixture(scope="module")
def population():
    return discpower.known_truth_collection(n_topics=300, quality=(0.5, 1.5), per_level=3, docs=25, seed=2)


@pytest.fixture
def unscored(monkeypatch):
    """Fail the test if known_truth_errors gets as far as scoring the runs."""
    def build(*args, **kwargs):
        raise AssertionError("the runs were scored before the request was refused")

    monkeypatch.setattr(simulation.QrelsComparer, "build", build)


def test_numbers_are_those_before_the_bounds(population):
    """The frame of a small run, as the code before the memory plan and the column arrays gave it."""
    res = discpower.known_truth_errors(
        population, {"truth": population.qrels, "sampled": lambda q: discpower.sample_relevant(q, 0.3, seed=0)},
        sample_topics=15, experiments=4, n_trials=300, seed=4)
    before = pd.DataFrame({
        "experiment": [0, 0, 1, 1, 2, 2, 3, 3],
        "candidate": ["truth", "sampled"] * 4,
        "S_gt": [9, 9, 6, 6, 8, 8, 9, 9],
        "true_differences": [9] * 8,
        "type_II_sgt": [0.0, 8 / 9, 0.0, 0.5, 0.0, 1.0, 0.0, 1.0],
        "type_II_true": [0.0, 8 / 9, 1 / 3, 2 / 3, 1 / 9, 1.0, 0.0, 1.0],
        "type_I_sgt": [0.0] * 7 + [1 / 6],
        "type_I_true": [0.0] * 7 + [1 / 6],
        "type_II_truth": [0.0, 0.0, 1 / 3, 1 / 3, 1 / 9, 1 / 9, 0.0, 0.0],
        "type_I_truth": [0.0] * 8,
    })
    pd.testing.assert_frame_equal(res.frame, before, check_exact=True)
    assert res.summary()["experiments"].tolist() == [4, 4]


def test_a_billion_experiments_are_refused_before_anything_is_scored(population, monkeypatch, unscored):
    monkeypatch.setattr(memory, "available_memory", lambda: 64 * 2**30)  # a large workstation
    with pytest.raises(DiscpowerError, match=re.escape(
            "experiments=1,000,000,000 for 1 candidate(s) (a row of the result per experiment and candidate, 160 "
            "bytes each) needs about 149.0 GiB of memory, but only 64.0 GiB is available; use fewer candidates at a "
            "time, or fewer experiments (about 429,496,729 fit)")):
        discpower.known_truth_errors(population, {"truth": population.qrels}, experiments=10**9)
    with pytest.raises(DiscpowerError, match=re.escape("experiments=300,000,000 for 2 candidate(s)")):
        discpower.known_truth_errors(population, {"a": population.qrels, "b": population.qrels},
                                     experiments=3 * 10**8)


def test_the_rows_planned_are_those_kept(population):
    """ROW_BYTES is the frame's 8-byte columns, twice (filled in, then the frame made of them)."""
    res = discpower.known_truth_errors(population, {"truth": population.qrels}, sample_topics=5, experiments=3,
                                       n_trials=50, seed=1)
    assert simulation.ROW_BYTES == 2 * 8 * res.frame.shape[1] == 160


@pytest.mark.parametrize("experiments, shown", [(0, "0"), (-3, "-3"), (2.5, "2.5"), (True, "True"), ("10", "'10'")])
def test_experiments_must_be_a_positive_integer(population, unscored, experiments, shown):
    with pytest.raises(DiscpowerError, match=re.escape(
            f"The 'experiments' parameter must be an integer >= 1. Got {shown} instead.")):
        discpower.known_truth_errors(population, {"truth": population.qrels}, experiments=experiments)


def test_progress_is_reported_per_experiment(population):
    calls = []
    discpower.known_truth_errors(population, {"truth": population.qrels}, sample_topics=5, experiments=3,
                                 n_trials=50, seed=1, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 3), (2, 3), (3, 3)]


def test_progress_bar_on_stderr(population, capsys):
    discpower.known_truth_errors(population, {"truth": population.qrels}, sample_topics=5, experiments=2,
                                 n_trials=50, seed=1, progress=True)
    err = capsys.readouterr().err
    assert "known-truth experiments [" in err and "1/2" in err and err.endswith("\r\x1b[K")  # then taken away


def test_a_bad_progress_is_refused_before_anything_is_scored(population, unscored):
    with pytest.raises(DiscpowerError, match=re.escape(
            "The 'progress' parameter must be True, False, None or a callable progress(done, total). Got 'x' "
            "instead.")):
        discpower.known_truth_errors(population, {"truth": population.qrels}, progress="x")


@pytest.mark.parametrize("kwargs, message", [
    # a population an experiment can draw from: 2 topics at least (sample_topics >= 2)
    (dict(n_topics=1), "The 'n_topics' parameter must be an integer >= 2. Got 1 instead."),
    (dict(n_topics=2.0), "The 'n_topics' parameter must be an integer >= 2. Got 2.0 instead."),
    (dict(docs=0), "The 'docs' parameter must be an integer >= 1. Got 0 instead."),
    (dict(per_level=True), "The 'per_level' parameter must be an integer >= 1. Got True instead."),
    (dict(max_grade=0), "The 'max_grade' parameter must be an integer >= 1. Got 0 instead."),
])
def test_population_counts(kwargs, message):
    with pytest.raises(DiscpowerError, match=re.escape(message)):
        discpower.known_truth_collection(**kwargs)


@pytest.mark.parametrize("kwargs, message", [
    (dict(n_topics=10**9), "n_topics=1,000,000,000 x docs=40 for 9 systems (the qrels and every run, about 150 "
                           "bytes a document each) needs about 55879.4 GiB of memory, but only 1.0 MiB is available; "
                           "use fewer topics, documents or systems"),
    (dict(n_topics=10, docs=10**9), "n_topics=10 x docs=1,000,000,000 for 9 systems (the qrels and every run, "
                                    "about 150 bytes a document each) needs about 13969.8 GiB of memory"),
    (dict(n_topics=10, docs=5, per_level=10**6), "n_topics=10 x docs=5 for 3,000,000 systems"),
])
def test_a_population_that_does_not_fit_is_refused_before_it_is_drawn(one_mib, kwargs, message):
    with pytest.raises(DiscpowerError, match=re.escape(message)):
        discpower.known_truth_collection(**kwargs)


def test_a_population_that_fits_is_drawn(one_mib):
    pop = discpower.known_truth_collection(n_topics=20, quality=(0.5, 2.0), per_level=2, docs=10, seed=1)
    assert len(pop.qrels) == 200 and sorted(pop.runs) == ["L0S0", "L0S1", "L1S0", "L1S1"]
    assert simulation.CELL_BYTES * 20 * 10 * (4 + 1) <= 2**20
    assert np.isin(pop.qrels["grade"].unique(), [0, 1, 2, 3]).all()
