"""Input validation shared by discpower's public functions: clear errors before any kernel."""

from __future__ import annotations

import math
import numbers
import os

import numpy as np

from cwla.errors import CwlaError

__all__ = ["DiscpowerError", "score_matrix", "n_trials", "null_trials", "alpha_level", "seed_value",
           "available_memory", "check_memory", "null_memory", "finite_sums", "NULL_BYTES"]


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


#: bytes a resampling trial takes: its null statistic and the sorted copy the p-values are read from (float64)
NULL_BYTES = 16


def null_trials(value, name="n_trials"):
    """:func:`n_trials`, whose null distribution (and its sorted copy) must also fit in the available memory."""
    value = n_trials(value, name)
    null_memory(value, f"The '{name}' parameter")
    return value


def null_memory(count, what):
    """Refuse ``count`` trials whose null distribution would not fit in memory; ``what`` names the option."""
    check_memory(NULL_BYTES * count, f"{what} ({count:,} trials; the null distribution and its sorted copy take "
                 f"{NULL_BYTES} bytes a trial)", "use fewer trials", per_unit=NULL_BYTES)


def available_memory():
    """Bytes of memory a new allocation can get without swapping, or None if unknown.

    Linux: ``MemAvailable`` of /proc/meminfo, capped by the cgroup v2 limit of the process'
    container (``memory.max - memory.current``); elsewhere the free physical pages
    (``os.sysconf``).
    """
    try:
        with open("/proc/meminfo") as fh:
            fields = dict(line.split(":", 1) for line in fh if ":" in line)
        available = int(fields["MemAvailable"].split()[0]) * 1024
    except (OSError, KeyError, ValueError, IndexError):
        try:
            available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (AttributeError, OSError, ValueError):
            return None
    limit = _cgroup_room()
    return available if limit is None else min(available, limit)


def _cgroup_room():
    """Bytes left under the cgroup v2 memory limit (None without a limit or a cgroup v2 file system)."""
    try:
        with open("/sys/fs/cgroup/memory.max") as fh:
            limit = fh.read().strip()
        with open("/sys/fs/cgroup/memory.current") as fh:
            used = int(fh.read().strip())
        return None if limit == "max" else max(0, int(limit) - used)
    except (OSError, ValueError):
        return None


def _gib(n_bytes) -> str:
    return f"{n_bytes / 2**30:.1f} GiB" if n_bytes >= 2**30 / 10 else f"{n_bytes / 2**20:.1f} MiB"


def check_memory(needed, what, remedy, *, per_unit=None):
    """Refuse an allocation of ``needed`` bytes that exceeds the available memory, before it is made.

    ``what`` names the option and what the bytes hold; ``remedy`` says what to do, and with ``per_unit``
    (bytes per trial, ...) the message says how many units fit. Nothing is checked when the available
    memory is unknown (see :func:`available_memory`).
    """
    available = available_memory()
    if available is None or needed <= available:
        return
    fit = f" (about {available // per_unit:,} fit)" if per_unit else ""
    raise DiscpowerError(f"{what} needs about {_gib(needed)} of memory, but only {_gib(available)} is available; "
                         f"{remedy}{fit}")


def finite_sums(X, test, *, squares=False):
    """Refuse scores so large that a sum ``test`` forms would overflow to infinity (p-values from inf).

    Every sum the tests form over the topics -- a column sum, permuted or resampled, a difference of two,
    the grand total -- is at most ``sum |X| + sum_t (max_t - min_t)`` in absolute value, and a sum of
    squared deviations (``squares``: t-test, bootstrap, ANOVA residuals) at most
    ``X.size * (2 max_t (max_t - min_t))^2``, with max_t and min_t over topic t's scores. These bounds
    must be finite; finite scores of any realistic size pass, and results are unchanged.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        spread = X.max(axis=1) - X.min(axis=1)
        sums = float(np.sum(np.abs(X))) + float(np.sum(spread))
        widest = 2.0 * float(np.max(spread))
    if not math.isfinite(sums):
        kind = "sums"
    elif squares and not math.isfinite(X.size * widest * widest):
        kind = "sums of squares"
    else:
        return
    largest = float(np.max(np.abs(X)))
    scale = 10.0 ** math.floor(math.log10(largest))
    raise DiscpowerError(f"{test}: the scores are too large: their {kind} over the topics can overflow to "
                         f"infinity (the largest |score| is {largest:.3g}), and p-values computed from infinity "
                         f"mean nothing; rescale the scores (e.g. divide them all by {scale:.0e})")


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
