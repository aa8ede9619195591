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
import functools
import time
from collections.abc import Callable, Iterator

import numpy as np

from .._progress import reporter

__all__ = ["in_slices", "counted_by", "counts_its_own", "in_parts", "SLICE_SECONDS"]

#: the seconds a slice of trials aims at: Ctrl-C is acted on, and progress redrawn, within about this
SLICE_SECONDS = 0.1
_FIRST = 1     # trials of the first slice: one, whatever a trial costs (a huge matrix's may take seconds)
_GROWTH = 8    # a slice is at most this many times the one before, once slices take a measurable time
_MEASURABLE = 0.005  # seconds under which a slice's time is mostly the call's own: the next may grow more
_EARLY_GROWTH = 256  # ... up to this many times the one before

#: where the trials of the resamplings run now are counted: None (each draws its own progress line) or
#: ``(tick, start, end, total)``: a resampling's fraction f done is reported as ``tick(start + f (end - start), total)``
_COUNTER: contextvars.ContextVar = contextvars.ContextVar("discpower_trials", default=None)


@contextlib.contextmanager
def counted_by(tick: Callable | None, start: float = 0, end: float | None = None, total: int | None = None
               ) -> Iterator[None]:
    """While the block runs, its resampling's progress moves ``tick(done, total)`` from ``start`` to ``end``
    (None: ``start`` plus the resampling's own trials), instead of drawing a line of its own (an analysis that
    runs many tests draws one progress line over all of them); ``tick`` None: not reported at all."""
    token = _COUNTER.set((tick, start, end, total))
    try:
        yield
    finally:
        _COUNTER.reset(token)


def counts_its_own(func: Callable) -> Callable:
    """An analysis that draws its own progress line (over its simulations, samples or chunks): the trials of
    the tests it runs are not drawn as well (:func:`counted_by` None while it runs)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with counted_by(None):
            return func(*args, **kwargs)

    return wrapper


@contextlib.contextmanager
def _own_line(bar) -> Iterator[None]:
    """A progress line of a resampling's own: taken away if the block ends early (an error, Ctrl-C), so that
    no later report brings it back."""
    try:
        yield
    except BaseException:
        getattr(bar, "close", lambda: None)()
        raise


def _counter(units: int, label: str, unit: str) -> tuple[tuple, object]:
    """(the enclosing count as ``(tick, start, end, total)``, the own progress line or None): the one set by
    :func:`counted_by`, or a new line of ``units`` (when no analysis counts this work)."""
    counter = _COUNTER.get()
    if counter is not None:
        tick, start, end, total = counter
        return (tick, start, start + units if end is None else end, total), None
    bar = reporter(None, units, label, unit=unit)
    return (bar, 0, units, units), bar


@contextlib.contextmanager
def in_parts(n_parts: int, label: str, trials: int | None = None
             ) -> Iterator[Callable[[int], contextlib.AbstractContextManager]]:
    """Several resamplings counted as one: yields ``part(k)``, a context in which a resampling counts as part
    k of ``n_parts`` of the enclosing count, or of a progress line of its own (of ``n_parts * trials``
    trials, each part's resampling having ``trials``; or of ``n_parts`` parts); each part moves the line
    to its end when it ends (a part that does not resample, too)."""
    units = n_parts * (trials or 1)
    (tick, start, end, total), bar = _counter(units, label, "trials" if trials else "")
    width = (end - start) / max(n_parts, 1)

    @contextlib.contextmanager
    def part(k: int) -> Iterator[None]:
        with counted_by(tick, start + k * width, start + (k + 1) * width, total):
            yield
        if tick is not None:
            tick(int(round(start + (k + 1) * width)), total)

    with _own_line(bar):
        yield part
        if tick is not None:
            tick(int(round(end)), total)


def _ticker(n_trials: int, label: str) -> tuple[Callable[[int], None], object]:
    """(``tick(done)``: the progress of trial ``done`` of ``n_trials`` where :data:`_COUNTER` says, the own
    progress line or None)."""
    (tick, start, end, total), bar = _counter(n_trials, label, "trials")
    if tick is None:
        return (lambda done: None), bar
    width = (end - start) / max(n_trials, 1)
    return (lambda done: tick(int(round(start + width * done)), total)), bar


def in_slices(kernel: Callable, args: tuple, seed: int, n_trials: int, label: str, *,
              shape: tuple = ()) -> np.ndarray:
    """``out[b]`` for b in 0..n_trials-1, ``out`` of shape ``(n_trials, *shape)``, computed by
    ``kernel(*args, seed, b0, out[b0:b1])`` over consecutive slices [b0, b1) of about
    :data:`SLICE_SECONDS` each (Ctrl-C and progress between slices); ``label`` names the resampling
    in its progress line."""
    out = np.empty((n_trials, *shape))
    tick, bar = _ticker(n_trials, label)
    seed = np.uint64(seed)
    b0, size = 0, _FIRST
    with _own_line(bar):
        tick(0)
        while b0 < n_trials:
            b1 = min(n_trials, b0 + size)
            start = time.perf_counter()
            kernel(*args, seed, b0, out[b0:b1])
            elapsed = time.perf_counter() - start
            tick(b1)
            scale = SLICE_SECONDS / elapsed if elapsed > 0 else _GROWTH
            size = max(1, int(size * (min(scale, _GROWTH) if elapsed >= _MEASURABLE else min(scale, _EARLY_GROWTH))))
            b0 = b1
    return out
