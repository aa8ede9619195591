"""A counter-based random stream for resampling kernels.

Every resampling trial b draws from its own stream, seeded by hashing
(seed, b) with SplitMix64 (Steele, Lea & Flood, OOPSLA 2014), so a trial's
numbers do not depend on which thread runs it or on what ran before: results
are bit-identical for a given seed whatever the number of threads.
Each 64-bit output is split into two 32-bit draws; a bounded draw in [0, k) is
``(u32 * k) >> 32`` (Lemire's multiply-shift; bias below k / 2^32, far under
the Monte-Carlo error of any practical number of trials).
"""

from __future__ import annotations

import numpy as np

from ._numba import jit

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
