"""Input validation shared by discpower's public functions: clear errors before any kernel."""

from __future__ import annotations

import numbers

import numpy as np

from cwla.errors import CwlaError

__all__ = ["DiscpowerError", "score_matrix", "n_trials", "alpha_level", "seed_value"]


class DiscpowerError(CwlaError):
    """Bad input to a discpower function."""


def score_matrix(X, *, name="X", min_systems=2, min_topics=2, systems=None):
    """A (topics x systems) float64 C-contiguous matrix, checked: rectangular, finite,
    at least ``min_systems`` columns and ``min_topics`` rows. Returns (X, system names)."""
    if hasattr(X, "to_numpy") and hasattr(X, "columns"):  # a DataFrame: columns are systems
        systems = [str(c) for c in X.columns] if systems is None else systems
        X = X.to_numpy()
    if isinstance(X, (list, tuple)) and X and all(isinstance(row, (list, tuple, np.ndarray)) for row in X):
        widths = [len(row) for row in X]
        bad = next((i for i, w in enumerate(widths) if w != widths[0]), None)
        if bad is not None:
            raise DiscpowerError(f"{name} is ragged: topic row {bad} has {widths[bad]} scores, row 0 has "
                                 f"{widths[0]}; every topic needs one score per system")
    try:
        X = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise DiscpowerError(f"{name} must be a topics x systems matrix of numbers: {err}") from None
    if X.ndim != 2:
        raise DiscpowerError(f"{name} must be 2-dimensional (topics x systems), got {X.ndim} dimension(s) "
                             f"with shape {X.shape}")
    n, m = X.shape
    if m < min_systems:
        raise DiscpowerError(f"{name} has {m} system(s) (columns); comparing systems needs at least "
                             f"{min_systems}")
    if n < min_topics:
        raise DiscpowerError(f"{name} has {n} topic(s) (rows); a paired test needs at least {min_topics}")
    bad = ~np.isfinite(X)
    if bad.any():
        t, j = map(int, np.argwhere(bad)[0])
        raise DiscpowerError(f"{name} has a non-finite score ({X[t, j]}) at topic row {t}, system column {j}; "
                             f"scores must be finite numbers (drop or impute the missing ones)")
    if systems is None:
        systems = [f"S{j + 1}" for j in range(m)]
    systems = [str(s) for s in systems]
    if len(systems) != m:
        raise DiscpowerError(f"{len(systems)} system names for {m} columns of {name}")
    if len(set(systems)) != m:
        raise DiscpowerError(f"system names must be unique; repeated: {sorted({s for s in systems if systems.count(s) > 1})}")
    return np.ascontiguousarray(X), tuple(systems)


#: the most resampling trials one call may ask for (the null distribution is kept: 8 bytes a trial)
MAX_TRIALS = 10**9


def n_trials(value, name="n_trials"):
    """A positive integer number of resampling trials, at most :data:`MAX_TRIALS`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise DiscpowerError(f"The '{name}' parameter must be an integer >= 1. Got {value!r} instead.")
    if value > MAX_TRIALS:
        raise DiscpowerError(f"The '{name}' parameter must be at most {MAX_TRIALS:,} (the null distribution is "
                             f"kept in memory). Got {value!r} instead.")
    return int(value)


def alpha_level(value, name="alpha"):
    """A significance level in the open interval (0, 1)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 < float(value) < 1.0:
        raise DiscpowerError(f"The '{name}' parameter must be a number in the open interval (0, 1). "
                             f"Got {value!r} instead.")
    return float(value)


def seed_value(seed):
    """A seed as a non-negative integer (None draws one from the OS and returns it, so it can be reported)."""
    if seed is None:
        return int(np.random.SeedSequence().entropy % (2**63))
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 2**63))
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed < 2**64:
        raise DiscpowerError(f"The 'seed' parameter must be an integer in [0, 2**64), a numpy Generator or None. "
                             f"Got {seed!r} instead.")
    return int(seed)
