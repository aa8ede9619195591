"""cwla and discpower called from several Python threads, under every numba threading layer.

numba's ``workqueue`` layer (its fallback without TBB or OpenMP) aborts the whole process when two
threads launch parallel kernels at once; cwla's jit wrapper makes the parallel kernels take turns
there (cwla._numba). The layer is fixed per process, hence the subprocesses.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from conftest import ROOT

import cwla
import cwla._numba
from discpower.stats.tukey import null_ranges_into, randomised_tukey_hsd

TAKING_TURNS = "numba's workqueue threading layer does not accept parallel kernels from several threads"

SCRIPT = """
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
import pandas as pd

import cwla
import discpower

qrels, runs = cwla.synthetic.collection(seed=3)
grid = dict(generators="sampling", parameters=[0.3, 0.6], repetitions=2, n_trials=200, seed=1)
alone = discpower.sweep(qrels, runs, "nDCG@10", **grid)
with ThreadPoolExecutor(2) as pool:
    threaded = discpower.sweep(qrels, runs, "nDCG@10", executor=pool, chunk_size=1, **grid)
pd.testing.assert_frame_equal(alone.frame, threaded.frame)

metrics = ["nDCG@10", "AP", "RBP_ERG"]
expected = cwla.evaluate(qrels, runs, metrics).values
with ThreadPoolExecutor(2) as pool:
    for values in pool.map(lambda _: cwla.evaluate(qrels, runs, metrics).values, range(8)):
        np.testing.assert_array_equal(values, expected)
print(numba.threading_layer())
"""


@pytest.fixture(scope="module")
def fresh_cache(tmp_path_factory):
    """One kernel cache for both layers: the first run compiles (in its threads), the second loads it."""
    return tmp_path_factory.mktemp("kernels")


@pytest.mark.slow
@pytest.mark.parametrize("layer", ["workqueue", None])
def test_thread_pools_are_safe_under_the_threading_layer(layer, fresh_cache):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_THREADING_LAYER"}
    env["CWLA_CACHE_DIR"] = str(fresh_cache)
    if layer is not None:
        env["NUMBA_THREADING_LAYER"] = layer
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=900,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    used = done.stdout.strip().splitlines()[-1]
    if layer is not None:
        assert used == layer
    # said at most once, and only where the kernels had to take turns
    assert done.stderr.count(TAKING_TURNS) <= (1 if used == "workqueue" else 0), done.stderr


def test_parallel_kernels_take_turns_and_say_so_once(monkeypatch):
    """The lock itself, in this process: forced on (safe under any layer), a thread that has to wait for
    another's kernel says so once and gets the same answer."""
    monkeypatch.setattr(cwla._numba, "_thread_safe_layer", False)
    monkeypatch.setattr(cwla._numba, "_said_serialised", False)
    X = np.random.default_rng(0).random((15, 5))
    expected = randomised_tukey_hsd(X, 300, seed=2).pvalue
    results = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with cwla._numba._PARALLEL_LOCK:  # a kernel "running" in this thread: the others must wait
            threads = [threading.Thread(target=lambda: results.append(randomised_tukey_hsd(X, 300, seed=2).pvalue))
                       for _ in range(3)]
            for t in threads:
                t.start()
            time.sleep(0.5)
            assert results == []
        for t in threads:
            t.join()
        with ThreadPoolExecutor(2) as pool:  # more turns taken: nothing more said
            results += pool.map(lambda _: randomised_tukey_hsd(X, 300, seed=2).pvalue, range(4))
    assert len(results) == 7 and all(np.array_equal(p, expected, equal_nan=True) for p in results)
    said = [w for w in caught if TAKING_TURNS in str(w.message)]
    assert len(said) == 1 and issubclass(said[0].category, cwla.CwlaWarning)
    assert not cwla._numba._PARALLEL_LOCK.locked()


def test_a_wrapped_kernel_is_still_the_numba_dispatcher():
    assert null_ranges_into.__name__ == "null_ranges_into" and callable(null_ranges_into.py_func)
    randomised_tukey_hsd(np.arange(12.0).reshape(4, 3) % 5, 10, seed=0)
    assert null_ranges_into.signatures  # compiled (or loaded from the cache) through the wrapper
    # cwla's cache locator is kept (cache_dir(), not beside the module)
    assert isinstance(null_ranges_into.dispatcher._cache, cwla._numba._Cache) == (cwla.cache_dir() is not None)
