"""Compile (or load from numba's on-disk cache) discpower's resampling kernels."""

from __future__ import annotations

import time

import numpy as np

__all__ = ["warmup"]


def warmup() -> float:
    """Compile or load the Tukey HSD, bootstrap, Fisher and split-half kernels; returns the seconds taken
    (a few seconds the first time on a machine, well under a second afterwards)."""
    from .metrics.consistency import split_half_consistency
    from .stats.significance import fisher_randomisation, paired_bootstrap
    from .stats.tukey import randomised_tukey_hsd

    t0 = time.perf_counter()
    X = np.arange(24.0).reshape(6, 4) % 5
    randomised_tukey_hsd(X, 4, seed=0)
    paired_bootstrap(X[:, 0], X[:, 1], n_trials=4, seed=0)
    fisher_randomisation(X[:, 0], X[:, 1], exact=True)
    split_half_consistency(np.stack([X.T, X.T[::-1]]), ["a", "b"], n_splits=2, n_trials=4, seed=0)
    return time.perf_counter() - t0
