"""The memory a resampling plan needs: the probe, and the checks every entry point makes once, before its work."""

import re
import numpy as np
import pytest
import cwla
import discpower
from cwla import synthetic
from discpower import DiscpowerError
from discpower.stats import memory as _validate


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
            "distribution of its Tukey HSD) needs about 1.3 MiB of memory, but only 1.0 MiB is available; use "
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
