"""Random numbers in discpower: the seed a user gives, what is derived from it, and the kernels' streams.

**Seeds.** Every randomised function takes ``seed`` (an integer in [0, 2**64), a numpy Generator, of
which one draw is taken, or None, drawn from the OS and recorded in the result: :func:`seed_value`).
Whatever a procedure draws from it comes by one derivation, numpy's ``SeedSequence([seed, *key])``
with a key of its own: :func:`child_seeds` for seeds to pass on, :func:`stream` for a numpy Generator
(the topic bootstrap's resamples, the calibration's simulated data sets, the sweep's repetitions, the
known-truth experiments each have their key), so no two parts of one analysis share a stream.

**Kernel streams.** Every resampling trial b draws from its own stream, seeded by hashing
(seed, b) with SplitMix64 (Steele, Lea & Flood, OOPSLA 2014), so a trial's
numbers do not depend on which thread runs it or on what ran before: results
are bit-identical for a given seed whatever the number of threads.
Each 64-bit output is split into two 32-bit draws; a bounded draw in [0, k) is
``(u32 * k) >> 32`` (Lemire's multiply-shift; bias below k / 2^32, far under
the Monte-Carlo error of any practical number of trials).
"""

from __future__ import annotations

import numpy as np

from cwla._shared import Constraint, Interval, check, jit

from ..errors import DiscpowerError

__all__ = ["seed_value", "child_seeds", "stream", "mix", "trial_state", "next_u64", "below", "next_below", "shuffle", "SEED",
           "SEED_OR_INHERITED", "SEED_AS_GIVEN"]


_SEED_INT = Interval("int", 0, 2**64, closed="left")


class _Seed(Constraint):
    """A seed: an integer in [0, 2**64), a numpy Generator (one draw from it) or None (one drawn from the OS),
    converted to the integer that is used and recorded; ``inherited``: None stays None (the seed of the result
    the function continues)."""

    def __init__(self, inherited: bool = False, as_given: bool = False) -> None:
        self.inherited = inherited
        self.as_given = as_given  # checked only: the function it is passed to draws from it

    def accepts(self, value: object) -> bool:
        return value is None or isinstance(value, np.random.Generator) or _SEED_INT.accepts(value)

    def convert(self, value: object) -> int:
        if self.as_given:
            return value if value is None or isinstance(value, np.random.Generator) else int(value)
        if value is None:
            return None if self.inherited else int(np.random.SeedSequence().entropy % (2**63))
        if isinstance(value, np.random.Generator):
            return int(value.integers(0, 2**63))
        return int(value)

    def refused(self) -> list:
        return [v for v in _SEED_INT.refused() if v is not None]

    def example(self) -> int:
        return 0

    def __str__(self) -> str:
        return "an integer in [0, 2**64), a numpy Generator or None" + (" (the result's)" if self.inherited else "")


#: a seed (same seed, same numbers, whatever the number of threads)
SEED = _Seed()
#: a seed, or None for the seed of the result a function continues
SEED_OR_INHERITED = _Seed(inherited=True)
#: a seed checked and passed on as given (a function that draws one for each test it runs)
SEED_AS_GIVEN = _Seed(as_given=True)


def seed_value(seed) -> int:
    """A seed as a non-negative integer (None draws one from the OS and returns it, so it can be reported;
    a numpy Generator gives one draw): :data:`SEED`."""
    return check(seed, "seed", SEED, error=DiscpowerError)


def _sequence(seed: int, key: tuple) -> np.random.SeedSequence:
    """The one derivation: ``SeedSequence([seed, *key])`` (``SeedSequence(seed)`` is the same for no key)."""
    return np.random.SeedSequence([int(seed), *(int(k) for k in key)])


def child_seeds(seed: int, *key: int, n: int = 1) -> list[int]:
    """``n`` seeds derived from ``seed`` under ``key`` (integers in [0, 2**64))."""
    return [int(s) for s in _sequence(seed, key).generate_state(n, dtype=np.uint64)]


def stream(seed: int, *key: int) -> np.random.Generator:
    """A numpy Generator derived from ``seed`` under ``key``."""
    return np.random.default_rng(_sequence(seed, key))

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_TRIAL = np.uint64(0xD1B54A32D192ED03)
_S30, _S27, _S31, _S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)


@jit()
def mix(z):
    """SplitMix64's output function (a bijection of uint64)."""
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@jit()
def trial_state(seed, b):
    """The starting state of trial b's stream."""
    return mix(np.uint64(seed) ^ (np.uint64(b) * _TRIAL) ^ _GOLDEN)


@jit(inline=True)
def trial_stream(seed, b):
    """Trial b's stream with its buffer of random bits empty: ``(state, bits, have)``, as :func:`next_below`
    reads them (``have``: the units of ``bits`` left, none yet)."""
    return trial_state(seed, b), np.uint64(0), 0


@jit()
def next_u64(state):
    """Advance the stream: (new state, 64 random bits)."""
    state = state + _GOLDEN
    return state, mix(state)


@jit()
def below(u32, k):
    """A draw in [0, k) from 32 random bits."""
    return np.int64((u32 * np.uint64(k)) >> _S32)


@jit()
def next_below(state, bits, have, k):
    """A draw in [0, k), taking 32 bits from the buffer ``bits`` (``have`` halves left) and
    refilling it from the stream when empty; returns (state, bits, have, draw)."""
    if have == 0:
        state, bits = next_u64(state)
        have = 2
    u = bits & _LOW32
    return state, bits >> _S32, have - 1, below(u, k)


#: trials per parallel task of a resampling kernel: a fixed size, so the split of the work never depends on the
#: number of threads (nor, with each trial's own stream, the numbers)
TRIALS_PER_TASK = 64


@jit(inline=True)
def n_tasks(n_trials, per_task=TRIALS_PER_TASK):
    """The parallel tasks of ``per_task`` trials each that ``n_trials`` trials make (the last one shorter)."""
    return (n_trials + per_task - 1) // per_task


@jit(inline=True)
def task_span(c, n_trials, per_task=TRIALS_PER_TASK):
    """``(first, end)``: task c's trials are first..end-1 of the ``n_trials``."""
    first = c * per_task
    return first, min(first + per_task, n_trials)


@jit()
def shuffle(perm, state):
    """Fisher-Yates shuffle of ``perm`` in place (two draws per 64-bit output); returns the state."""
    n = perm.shape[0]
    bits = np.uint64(0)
    have = 0
    for i in range(n - 1, 0, -1):
        state, bits, have, j = next_below(state, bits, have, i + 1)
        tmp = perm[i]
        perm[i] = perm[j]
        perm[j] = tmp
    return state
