"""A call at several numba thread counts: the library promises the same numbers for the same seed whatever the
number of threads."""

from __future__ import annotations

from collections.abc import Callable

import numba
import pytest


def at_thread_counts(run: Callable[[], object], counts: tuple[int, ...] = (1, 2)) -> list:
    """``[run() with n numba threads for n in counts]``, the thread count restored after; the test is skipped
    where numba has fewer threads than the largest count."""
    if numba.config.NUMBA_NUM_THREADS < max(counts):
        pytest.skip(f"needs at least {max(counts)} numba threads")
    before = numba.get_num_threads()
    try:
        results = []
        for n in counts:
            numba.set_num_threads(n)
            results.append(run())
        return results
    finally:
        numba.set_num_threads(before)
