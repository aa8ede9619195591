"""The argument types of discpower's public API, named once (cwla's input types are in :mod:`cwla.typing`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Union

import numpy as np

from cwla.typing import ArrayLike, Matrix, MetricLike, MetricsLike, PathLike, QrelsLike, RunsLike

__all__ = ["Seed", "Progress", "Tests", "Matrix", "ArrayLike", "MetricLike", "MetricsLike", "PathLike", "QrelsLike",
           "RunsLike", "Families"]

#: a seed: an integer in [0, 2**64), a numpy Generator (one draw is taken), or None (drawn from the OS, reported)
Seed = Union[int, np.random.Generator, None]
#: progress reporting: None (a line on stderr when it is a terminal), True (always), False (none), or a callable
#: (done, total): :mod:`cwla.progress`
Progress = Union[bool, None, Callable[[int, int], object]]
#: pairwise tests: one, a list, or ``{label: test}`` (a forward reference: this module sits under every other)
Tests = Union["PairwiseTest", Sequence["PairwiseTest"], Mapping[str, "PairwiseTest"]]
#: test families: ``"model"``, ``"all"``, or ``{family: [labels]}``
Families = Union[str, Mapping[str, Sequence[str]], None]
