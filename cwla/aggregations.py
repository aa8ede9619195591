"""Gain aggregations A(i): what the user has when stopping at rank i.

The score of a metric is sum_{i<=H} L(i) A(i) (Moffat et al., SIGIR 2022;
Chen & Sakai 2023 name the seven below). cg(i) = sum_{j<=i} r_j, E = sum_{i<=H} V(i).

=============  =========================================  ==================================
aggregation    A(i)                                       reading
=============  =========================================  ==================================
``ERG``        cg(i) / E                                  expected rate of gain (cwl EU)
``ETG``        cg(i)                                      expected total gain (cwl ETU)
``avg``        cg(i) / i                                  average gain of what was read
``max``        max_{j<=i} r_j                             the best document seen
``fin``        r_i                                        the last document seen
``PE(beta)``   beta max_{j<=i} r_j + (1 - beta) r_i       peak-end rule (Kahneman)
``ERR``        1 / i                                      reciprocal rank of the stop
=============  =========================================  ==================================
"""

from __future__ import annotations

from typing import ClassVar

import attrs

from .gains import _fmt

__all__ = ["Aggregation", "ERG", "ETG", "Avg", "Max", "Fin", "PE", "ERRAgg", "AGGREGATIONS"]


class Aggregation:
    """Base class of the aggregations. ``code`` and ``params`` are what the kernels see."""

    code: ClassVar[int]
    name: ClassVar[str]
    #: True when A(i) does not depend on the gains (only the ERR aggregation).
    gain_free: ClassVar[bool] = False

    @property
    def params(self) -> tuple:
        return (0.0,)

    def __str__(self):
        return self.name


@attrs.frozen
class ERG(Aggregation):
    """Expected rate of gain: A(i) = cg(i) / E."""

    code: ClassVar[int] = 0
    name: ClassVar[str] = "ERG"


@attrs.frozen
class ETG(Aggregation):
    """Expected total gain: A(i) = cg(i)."""

    code: ClassVar[int] = 1
    name: ClassVar[str] = "ETG"


@attrs.frozen
class Avg(Aggregation):
    """Average gain: A(i) = cg(i) / i."""

    code: ClassVar[int] = 2
    name: ClassVar[str] = "avg"


@attrs.frozen
class Max(Aggregation):
    """Maximum gain seen: A(i) = max_{j<=i} r_j."""

    code: ClassVar[int] = 3
    name: ClassVar[str] = "max"


@attrs.frozen
class Fin(Aggregation):
    """Final gain: A(i) = r_i."""

    code: ClassVar[int] = 4
    name: ClassVar[str] = "fin"


def _unit(instance, attribute, value):
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"'beta' of PE must be in [0, 1]: {value}")


@attrs.frozen
class PE(Aggregation):
    """Peak-end: A(i) = beta max_{j<=i} r_j + (1 - beta) r_i."""

    beta: float = attrs.field(default=0.5, converter=float, validator=_unit)
    code: ClassVar[int] = 5
    name: ClassVar[str] = "PE"

    @property
    def params(self):
        return (self.beta,)

    def __str__(self):
        return f"PE(beta={_fmt(self.beta)})"


@attrs.frozen
class ERRAgg(Aggregation):
    """Reciprocal rank of the stopping point: A(i) = 1 / i."""

    code: ClassVar[int] = 6
    name: ClassVar[str] = "ERR"
    gain_free: ClassVar[bool] = True


#: Name -> class, in Chen & Sakai's order.
AGGREGATIONS = {"ERG": ERG, "ETG": ETG, "avg": Avg, "max": Max, "fin": Fin, "PE": PE, "ERR": ERRAgg}
