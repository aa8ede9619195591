"""Resampling kernels run in slices of their trials, so that a person can watch them and stop them.

A resampling kernel ``kernel(*args, seed, b0, out)`` writes trials ``b0 .. b0 + len(out) - 1`` into ``out``.
Every trial b draws from its own stream (:func:`discpower.stats.rng.trial_state` of ``(seed, b)``), so a
trial's value does not depend on which slice, thread or call computes it: slicing changes nothing in the
numbers (the tests check it, bit for bit).

:func:`in_slices` calls a kernel on consecutive slices of the trials, each sized to take about
:data:`SLICE_SECONDS`. A numba kernel does not return to Python until it is done, and Python acts on Ctrl-C
(SIGINT) only between bytecodes: between two slices a KeyboardInterrupt is raised within a slice's time, and
the progress of the trials is reported there.

Where the progress goes: a call inside :func:`counted_by` (an analysis that runs many tests, and
draws its own progress line over all of them) reports its trials there; otherwise a resampling that runs
longer than the progress delay draws its own line on a terminal (:mod:`cwla.progress`).
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Callable, Iterator

import numpy as np

from .._progress import reporter

__all__ = ["in_slices", "counted_by", "in_parts", "SLICE_SECONDS"]

#: the seconds a slice of trials aims at: Ctrl-C is acted on, and progress redrawn, within about this
SLICE_SECONDS = 0.1
_FIRST = 128   # trials of the first slice (it also pays for a compile, if the kernel is not cached)
_GROWTH = 8    # a slice is at most this many times the one before

#: where the trials of the resamplings run now are counted: None (each draws its own progress line) or
#: ``(tick, start, end, total)``: a resampling's fraction f done is reported as ``tick(start + f (end - start), total)``
_COUNTER: contextvars.ContextVar = contextvars.ContextVar("discpower_trials", default=None)


@contextlib.contextmanager
def counted_by(tick: Callable | None, start: int = 0, end: int | None = None, total: int | None = None
               ) -> Iterator[None]:
    """While the block runs, its resampling's progress moves ``tick(done, total)`` from ``start`` to ``end``
    (an analysis that runs many tests draws one progress line over all of them), instead of drawing a line
    of its own; ``tick`` None: not reported at all."""
    token = _COUNTER.set((tick, start, end, total))
    try:
        yield
    finally:
        _COUNTER.reset(token)


@contextlib.contextmanager
def in_parts(n_parts: int, label: str, trials: int | None = None
             ) -> Iterator[Callable[[int], contextlib.AbstractContextManager]]:
    """Several resamplings counted as one: yields ``part(k)``, a context in which a resampling counts as part
    k of ``n_parts`` of the enclosing count, or of a progress line of its own (of ``n_parts * trials``
    trials, each part's resampling having ``trials``; or of ``n_parts`` parts)."""
    counter = _COUNTER.get()
    if counter is None:
        total = n_parts * (trials or 1)
        counter = (reporter(None, total, label, unit="trials" if trials else ""), 0, total, total)
    tick, start, end, total = counter
    width = (end - start) / n_parts
    yield lambda k: counted_by(tick, start + k * width, start + (k + 1) * width, total)
    if tick is not None:
        tick(int(round(end)), total)


def _ticker(n_trials: int, label: str) -> Callable[[int], None]:
    """``tick(done)``: the progress of trial ``done`` of ``n_trials``, where :data:`_COUNTER` says."""
    counter = _COUNTER.get()
    if counter is None:
        bar = reporter(None, n_trials, label, unit="trials")
        return lambda done: bar(done, n_trials)
    tick, start, end, total = counter
    if tick is None:
        return lambda done: None
    width = (n_trials if end is None else end) - start
    return lambda done: tick(int(round(start + width * done / n_trials)), total)


def in_slices(kernel: Callable, args: tuple, seed: int, n_trials: int, label: str, *,
              shape: tuple = ()) -> np.ndarray:
    """``out[b]`` for b in 0..n_trials-1, ``out`` of shape ``(n_trials, *shape)``, computed by
    ``kernel(*args, seed, b0, out[b0:b1])`` over consecutive slices [b0, b1) of about
    :data:`SLICE_SECONDS` each (Ctrl-C and progress between slices); ``label`` names the resampling
    in its progress line."""
    out = np.empty((n_trials, *shape))
    tick = _ticker(n_trials, label)
    seed = np.uint64(seed)
    b0, size = 0, _FIRST
    tick(0)
    while b0 < n_trials:
        b1 = min(n_trials, b0 + size)
        start = time.perf_counter()
        kernel(*args, seed, b0, out[b0:b1])
        elapsed = time.perf_counter() - start
        tick(b1)
        scale = SLICE_SECONDS / elapsed if elapsed > 0 else _GROWTH
        size = max(1, int(size * min(scale, _GROWTH)))
        b0 = b1
    return out
