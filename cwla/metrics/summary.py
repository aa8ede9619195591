"""How a measure's per-topic values combine into a run's value, where that is not their mean.

trec_eval's ``gm_map`` and ``gm_bpref`` (Robertson, "On GMAP", CIKM 2006; TREC Robust 2004) report
per topic the values of ``map`` and ``bpref``, and for a run their geometric mean

    GM = exp( (1/n) sum_t log max(v_t, floor) ),  floor = 0.00001 (trec_eval's MIN_GEO_MEAN),

so that a topic scoring 0 pulls the run down without sending it to 0. :class:`GeoMean` wraps any
measure (C/W/L/A or counting): ``GM(AP)``, ``GM(Bpref)``, ``GM(nDCG@10)``; its per-topic values are the
measure's own.
"""

from __future__ import annotations

import math
from typing import ClassVar

import attrs

from .._validate import fmt
from .counting import CountingMeasure
from .metric import Metric
from ..errors import CwlaError, ParameterError

__all__ = ["GeoMean", "MIN_GEO_MEAN", "MEASURE_TYPES", "scored"]

#: trec_eval's floor of the geometric mean (trec_eval.h MIN_GEO_MEAN)
MIN_GEO_MEAN = 0.00001


def _measure(instance: object, attribute: attrs.Attribute, value: object) -> None:
    if not isinstance(value, (Metric, CountingMeasure)):
        raise ParameterError(f"GeoMean wraps a Metric or a counting measure, got {value!r}")


def _floor(instance: object, attribute: attrs.Attribute, value: float) -> None:
    if not (isinstance(value, float) and math.isfinite(value) and value > 0):
        raise CwlaError(f"'floor' of GeoMean must be a finite number > 0: {value!r}")


@attrs.frozen
class GeoMean:
    """A measure whose run value is the geometric mean of its per-topic values, each first raised to
    ``floor`` (trec_eval's ``gm_map`` is ``GeoMean(AP)``, ``gm_bpref`` is ``GeoMean(Bpref)``)."""

    measure: Metric | CountingMeasure = attrs.field(validator=_measure)
    floor: float = attrs.field(default=MIN_GEO_MEAN, converter=float, validator=_floor, kw_only=True)
    aggregate: ClassVar[str] = "gmean"

    @property
    def judged_only(self) -> bool | None:
        return self.measure.judged_only

    @property
    def is_constant(self) -> bool:
        return self.measure.is_constant

    def resolve(self, **options: object) -> GeoMean:
        """A copy whose measure has its unset options filled in (:meth:`cwla.Metric.resolve`)."""
        return attrs.evolve(self, measure=self.measure.resolve(**options))

    def warn_if_constant(self, label: str | None = None, stacklevel: int = 3) -> None:
        self.measure.warn_if_constant(label or str(self), stacklevel + 1)

    def warn_if_truncated(self, label: str | None = None, stacklevel: int = 3) -> None:
        self.measure.warn_if_truncated(label or str(self), stacklevel + 1)

    def __str__(self) -> str:
        floor = "" if self.floor == MIN_GEO_MEAN else f", floor={fmt(self.floor)}"
        return f"GM({self.measure}{floor})"


def scored(measure):
    """The measure the kernel scores for ``measure``: the wrapped one of a :class:`GeoMean`, else itself."""
    return measure.measure if isinstance(measure, GeoMean) else measure


#: every kind of measure an evaluation takes
MEASURE_TYPES = (Metric, CountingMeasure, GeoMean)
