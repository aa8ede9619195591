"""The memory a resampling plan needs, checked once, before the work, where the work is planned.

Each entry point that runs resampling tests (a test called directly, :func:`discpower.meta_evaluate`,
:func:`discpower.compare_qrels`, :func:`discpower.sweep`, :func:`discpower.calibrate`, ...) works out what
its plan keeps at once -- the null distributions and their sorted copies, and what it keeps per simulation
(:func:`discpower.calibrate`'s power shares) -- and calls :func:`check_memory` once with that; the tests it
then runs do not check again. The known-truth simulation checks its population
(:func:`discpower.known_truth_collection`) and the rows of its result (:func:`discpower.known_truth_errors`,
before anything is scored; its tests' null distributions are checked where its comparer is built) the same way.
"""

from __future__ import annotations

import os

from .._params import count, n_trials
from ..errors import DiscpowerError

__all__ = ["available_memory", "check_memory", "null_memory", "null_trials", "NULL_BYTES"]

#: what a memory message names when the trials are the ``n_trials`` parameter
_TRIALS = "The 'n_trials' parameter"

#: bytes a resampling trial takes: its null statistic and the sorted copy the p-values are read from (float64)
NULL_BYTES = 16


def available_memory() -> int | None:
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


def _cgroup_room() -> int | None:
    """Bytes left under the cgroup v2 memory limit (None without a limit or a cgroup v2 file system)."""
    try:
        with open("/sys/fs/cgroup/memory.max") as fh:
            limit = fh.read().strip()
        with open("/sys/fs/cgroup/memory.current") as fh:
            used = int(fh.read().strip())
        return None if limit == "max" else max(0, int(limit) - used)
    except (OSError, ValueError):
        return None


def _gib(n_bytes: int) -> str:
    return f"{n_bytes / 2**30:.1f} GiB" if n_bytes >= 2**30 / 10 else f"{n_bytes / 2**20:.1f} MiB"


def check_memory(needed: int, what: str, remedy: str, *, per_unit: int | None = None) -> None:
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


def null_memory(count: int, what: str = _TRIALS, tests: int = 1) -> None:
    """Refuse ``count`` trials whose null distributions (``tests`` of them kept at once) would not fit in
    memory; ``what`` names the option."""
    check_memory(NULL_BYTES * count * tests, f"{what} ({count:,} trials; the null distribution and its sorted copy "
                 f"take {NULL_BYTES} bytes a trial" + (f", {tests} tests at once)" if tests > 1 else ")"),
                 "use fewer trials", per_unit=NULL_BYTES * tests)


def null_trials(value: object) -> int:
    """A checked number of trials (:func:`discpower._params.n_trials`) whose null distribution fits in memory
    (:func:`null_memory`): the check of a test that runs alone."""
    trials = count(value, "n_trials")
    null_memory(trials)  # first: a count that does not fit gets the memory advice
    return n_trials(trials)
