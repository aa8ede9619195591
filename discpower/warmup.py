"""Compile (or load from numba's on-disk cache) discpower's resampling kernels."""

from __future__ import annotations

import time

import numpy as np

__all__ = ["warmup"]


def warmup() -> float:
    """Compile or load the kernels of every resampling test of the registry, the exact Fisher test, the
    studentised range distribution of the parametric Tukey HSD and the split-half analysis; returns the seconds taken (a few seconds the first time on a machine, well under a
    second afterwards)."""
    from .metrics.consistency import split_half_consistency
    from .stats.registry import RESAMPLING, run_test
    from .stats.significance import fisher_randomisation, parametric_tukey_hsd

    t0 = time.perf_counter()
    X = np.arange(24.0).reshape(6, 4) % 5
    names = ("a", "b", "c", "d")
    for test in RESAMPLING:
        run_test(X, names, test, 4, 0)
    fisher_randomisation(X[:, 0], X[:, 1], exact=True)
    parametric_tukey_hsd(X)
    split_half_consistency(np.stack([X.T, X.T[::-1]]), ["a", "b"], n_splits=2, n_trials=4, seed=0)
    return time.perf_counter() - t0
