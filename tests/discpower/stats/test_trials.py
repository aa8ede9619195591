"""Resampling in slices of trials (discpower.stats.trials): the slicing changes no number, and the trials' progress
goes where the analysis says."""

from __future__ import annotations

import numpy as np
import pytest

from discpower.metrics.consistency import _split_half_taus_into
from discpower.stats import trials
from discpower.stats.maxt import null_maxima_into, pair_weights, permutation_maxima_into
from discpower.stats.significance import bootstrap_null_into
from discpower.stats.trials import counted_by, in_parts, in_slices
from discpower.stats.tukey import null_ranges_into

X = np.random.default_rng(4).random((9, 5))
KERNELS = {
    "tukey": (null_ranges_into, (X,), ()),
    "max-t": (null_maxima_into, (X, pair_weights(X)), ()),
    "perm-max-t": (permutation_maxima_into, (X,), ()),
    "bootstrap": (bootstrap_null_into, (X[:, 0] - X[:, 1],), ()),
    "split-half": (_split_half_taus_into, (np.stack([X.T, X.T ** 2]), 1e-10), (2,)),
}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_slices_of_one_trial_give_the_numbers_of_one_call(name, monkeypatch):
    kernel, args, shape = KERNELS[name]
    whole = np.empty((300, *shape))
    kernel(*args, np.uint64(11), 0, whole)
    monkeypatch.setattr(trials, "_FIRST", 1)
    monkeypatch.setattr(trials, "SLICE_SECONDS", 0.0)  # every slice one trial
    calls = []
    sliced = in_slices(lambda *a: (calls.append(a[-2]), kernel(*a)), args, 11, 300, name, shape=shape)
    assert calls == list(range(300))
    assert np.array_equal(sliced, whole, equal_nan=True)
    tail = np.empty((100, *shape))
    kernel(*args, np.uint64(11), 200, tail)  # trial b is trial b, wherever its slice starts
    assert np.array_equal(tail, whole[200:], equal_nan=True)


def test_slices_grow_towards_the_target_and_stop_at_the_last_trial():
    sizes = []

    def kernel(seed, b0, out):
        sizes.append(len(out))
        out[:] = np.arange(b0, b0 + len(out))

    out = in_slices(kernel, (), 0, 100_000, "count")
    assert np.array_equal(out, np.arange(100_000)) and sum(sizes) == 100_000
    assert sizes[0] == 1  # a first slice of one trial, whatever a trial costs
    assert all(b <= a * trials._EARLY_GROWTH for a, b in zip(sizes, sizes[1:])) and len(sizes) <= 4  # then fast where it is cheap


def test_a_costly_trial_keeps_its_slices_short(monkeypatch):
    import time

    monkeypatch.setattr(trials, "SLICE_SECONDS", 0.02)
    sizes = []

    def kernel(seed, b0, out):
        sizes.append(len(out))
        time.sleep(0.004 * len(out))  # 4 ms a trial: five trials a slice
        out[:] = 0.0

    in_slices(kernel, (), 0, 40, "slow")
    assert max(sizes) <= 16 and sizes[0] == 1


def test_an_interrupt_between_slices_stops_the_resampling():
    done = []

    def kernel(seed, b0, out):
        if b0 >= 256:
            raise KeyboardInterrupt  # what Python raises between two slices after Ctrl-C
        done.append(b0)
        out[:] = 0.0

    trials_first = trials._FIRST
    try:
        trials._FIRST = 128
        with pytest.raises(KeyboardInterrupt):
            in_slices(kernel, (), 0, 10**6, "long")
    finally:
        trials._FIRST = trials_first
    assert done == [0, 128]


def test_an_analysis_counts_the_trials_of_its_tests_on_its_own_line():
    seen = []
    tick = lambda done, total: seen.append((done, total))  # noqa: E731
    with counted_by(tick, 1000, 2000, 5000):
        in_slices(null_ranges_into, (X,), 3, 500, "tukey")
    assert seen[0] == (1000, 5000) and seen[-1] == (2000, 5000)
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:])) and {t for _, t in seen} == {5000}
    seen.clear()
    with counted_by(tick, 0, 300, 300), in_parts(3, "pairs", 50) as part:  # three tests of 50 trials in 300
        for k in range(3):
            with part(k):
                in_slices(null_ranges_into, (X,), 3, 50, "tukey")
    assert {0, 100, 200, 300} <= {d for d, _ in seen} and seen[-1] == (300, 300)
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))
    seen.clear()
    with counted_by(None):
        in_slices(null_ranges_into, (X,), 3, 50, "tukey")
    assert seen == []


def test_a_resampling_stopped_early_takes_its_progress_line_away():
    import io

    import cwla.progress as progress

    out = io.StringIO()
    bars = []

    def reporter(progress_, total, label, unit=""):
        bars.append(progress.Bar(total, label, unit=unit, stream=out, enabled=True, delay=0))
        return bars[-1]

    def kernel(seed, b0, out_):
        if b0 >= 128:
            raise KeyboardInterrupt
        out_[:] = 0.0

    original = trials.reporter
    trials.reporter = reporter
    try:
        with pytest.raises(KeyboardInterrupt):
            in_slices(kernel, (), 0, 10_000, "long")
    finally:
        trials.reporter = original
    assert bars and "long [" in out.getvalue() and out.getvalue().endswith("\r\x1b[K")  # drawn, then taken away
    assert not any(owner is bars[0] for owner, _ in progress._OPEN)  # nothing left to come back later


def test_a_part_that_does_not_resample_still_moves_the_line():
    seen = []
    with counted_by(lambda done, total: seen.append(done), 0, 30, 30), in_parts(3, "pairs") as part:
        for k in range(3):
            with part(k):
                pass  # a test of the pair that draws no trials
    assert seen[:3] == [10, 20, 30]
