"""Gain maps: from a qrels grade to a gain r in [0, 1].

A gain map is an immutable value. ``table(grades)`` evaluates it on an array of
grades; a gain outside [0, 1] raises :class:`~cwla.errors.GainRangeError`
naming the grade and the map. Negative grades count as 0 in every built-in map.

============================  ==========================================  ==================
map                           r(g)                                        reference
============================  ==========================================  ==================
``linear(gmax)``              max(g, 0) / gmax                            Chen & Sakai 2023
``exponential(gmax)``         (2^max(g, 0) - 1) / 2^gmax                  Chapelle et al. 2009 (ERR)
``binary(threshold)``         1 if g >= threshold else 0                  trec_eval ``-l``
``scaled(min_rel, max_rel)``  (clip(g, min_rel, max_rel) - min_rel)       ir_measures / cwl_eval
                              / (max_rel - min_rel)
``table({grade: gain})``      the user's value                            cwl_eval gain files
``regrade({grade: value})``   max(v(g), 0) / max_v, v(g) = the value      trec_eval ``ndcg.g=v``
                              given for g, else g                         ir_measures ``gains=``
============================  ==========================================  ==================

``linear()`` without ``gmax`` (and ``scaled()`` without ``max_rel``) takes the
largest grade in the qrels (one value for the whole collection, never per topic);
the evaluation records it. ``binary`` without a threshold is "binary at the
evaluation's relevance level" (``evaluate(rel=...)``, trec_eval's ``-l``; 1 if
unset): the trec_eval and ir_measures names that do not say ``rel=`` use it.
"""

from __future__ import annotations

from typing import ClassVar, Mapping

import attrs
import numpy as np
from numpy.typing import ArrayLike

from .._validate import finite_float, fmt, optional_float
from ..errors import CwlaError, GainRangeError, ParameterError

__all__ = ["GainMap", "Linear", "Exponential", "Binary", "Scaled", "Table", "Regrade", "GAIN_MAPS"]


def _positive(instance: object, attribute: attrs.Attribute, value: float | None) -> None:
    if value is not None and not value > 0:
        raise CwlaError(f"'{attribute.name}' of {type(instance).__name__.lower()} must be > 0: {value}")


class GainMap:
    """Base class: a map from qrels grade to gain in [0, 1].

    Each map declares its text once: ``name`` (what ``str()`` prints and the parser reads) and ``params``
    (its parameters in order; the one of a one-parameter map is what the CLI form ``name:X`` sets);
    :data:`GAIN_MAPS` lists them."""

    name: ClassVar[str] = ""
    params: ClassVar[tuple] = ()


    def gains(self, grades: np.ndarray, max_grade: float) -> np.ndarray:
        """The gains of ``grades`` (float array), before the range check."""
        raise NotImplementedError

    def table(self, grades: ArrayLike, max_grade: float | None = None) -> np.ndarray:
        """Gains of ``grades`` as float64, checked to lie in [0, 1].

        ``max_grade`` is the largest grade of the collection; it is used by
        ``linear()`` without ``gmax`` and ignored otherwise.
        """
        grades = np.asarray(grades, dtype=np.float64)
        if max_grade is None:
            max_grade = float(grades.max()) if grades.size else 1.0
        out = np.asarray(self.gains(grades, max_grade), dtype=np.float64)
        bad = ~((out >= 0.0) & (out <= 1.0))
        if bad.any():
            g, r = grades[bad][0], out[bad][0]
            raise GainRangeError(
                f"gain map {self} maps grade {fmt(g)} to {float(r)!r}, outside [0, 1]; "
                f"gains must lie in [0, 1]: raise gmax, or use binary(threshold) or a table"
            )
        return out

    def __str__(self) -> str:
        """``name``, or ``name(p=v, ...)`` with the declared parameters that are set (None: unset), in order; a
        map without a name (a user's subclass) prints as its repr."""
        if not self.name:
            return repr(self)
        args = [f"{p}={fmt(v)}" for p in self.params if (v := getattr(self, p)) is not None]
        return f"{self.name}({', '.join(args)})" if args else self.name


@attrs.frozen
class _UpToGmax(GainMap):
    """A map scaled by the top grade ``gmax`` (None: the collection's largest grade)."""

    params: ClassVar[tuple] = ("gmax",)

    gmax: float | None = attrs.field(default=None, converter=optional_float, validator=_positive)


class _GradeByGrade(GainMap):
    """A map given grade by grade: ``mapping`` holds sorted ``(grade, value)`` pairs; prints as
    ``name(g:v, ...)``."""

    mapping: tuple

    def __str__(self) -> str:
        return f"{self.name}(" + ", ".join(f"{fmt(g)}:{fmt(v)}" for g, v in self.mapping) + ")"


def sorted_pairs(items) -> tuple:
    """``(grade, value)`` items as sorted pairs of finite floats (:func:`~cwla._validate.finite_float`)."""
    return tuple(sorted((finite_float(g), finite_float(v)) for g, v in items))


def _pairs(function: str, value: str):
    """The converter of a ``{grade: value}`` dict to sorted finite pairs; messages name ``function()``."""

    def freeze(mapping: Mapping[float, float]) -> tuple:
        if not isinstance(mapping, Mapping):
            raise ParameterError(f"{function}() takes a dict {{grade: {value}}}, got {type(mapping).__name__}")
        if not mapping:
            raise CwlaError(f"{function}() needs at least one grade: {value} pair")
        return sorted_pairs(mapping.items())

    return freeze


@attrs.frozen
class Linear(_UpToGmax):
    """``linear(gmax)``: r = max(g, 0) / gmax (gmax None: the collection's largest grade)."""

    name: ClassVar[str] = "linear"

    def gains(self, grades: np.ndarray, max_grade: float) -> np.ndarray:
        gmax = self.gmax if self.gmax is not None else (max_grade if max_grade > 0 else 1.0)
        return np.maximum(grades, 0.0) / gmax


@attrs.frozen
class Exponential(_UpToGmax):
    """``exponential(gmax)``: r = (2^max(g, 0) - 1) / 2^gmax (Chapelle's ERR gains)."""

    name: ClassVar[str] = "exponential"

    def gains(self, grades: np.ndarray, max_grade: float) -> np.ndarray:
        gmax = self.gmax if self.gmax is not None else max(max_grade, 0.0)
        with np.errstate(over="ignore"):  # 2^gmax past float range: every gain 0 (and a warning about that)
            return (np.exp2(np.maximum(grades, 0.0)) - 1.0) / np.exp2(gmax)


@attrs.frozen
class Binary(GainMap):
    """``binary(threshold)``: r = 1 if g >= threshold else 0 (trec_eval's relevance level).

    ``threshold=None`` stands for the evaluation's relevance level (``evaluate(rel=...)``,
    ``cwla eval -l``; 1 when unset), which :meth:`cwla.Metric.resolve` fills in."""

    name: ClassVar[str] = "binary"
    params: ClassVar[tuple] = ("threshold",)

    threshold: float | None = attrs.field(
        default=None, converter=optional_float, validator=_positive
    )

    def gains(self, grades: np.ndarray, max_grade: float) -> np.ndarray:
        if self.threshold is None:
            raise CwlaError("binary gains without a threshold must be resolved to the evaluation's "
                             "relevance level first (Metric.resolve)")
        return (grades >= self.threshold).astype(np.float64)


def _scaled_range(instance: object, attribute: attrs.Attribute, value: float | None) -> None:
    if instance.max_rel is not None and not instance.max_rel > instance.min_rel:
        raise CwlaError(f"'max_rel' of scaled must be > min_rel: max_rel={fmt(instance.max_rel)}, "
                         f"min_rel={fmt(instance.min_rel)}")


@attrs.frozen
class Scaled(GainMap):
    """``scaled(min_rel, max_rel)``: r = (clip(g, min_rel, max_rel) - min_rel) / (max_rel - min_rel),
    the scaling ir_measures' ``min_rel``/``max_rel`` parameters give cwl_eval's measures (grades
    outside the range are clipped to it). ``max_rel=None``: the collection's largest grade."""

    name: ClassVar[str] = "scaled"
    params: ClassVar[tuple] = ("min_rel", "max_rel")

    min_rel: float = attrs.field(default=0.0, converter=finite_float)
    max_rel: float | None = attrs.field(
        default=None, converter=optional_float, validator=_scaled_range
    )

    def gains(self, grades: np.ndarray, max_grade: float) -> np.ndarray:
        top = self.max_rel if self.max_rel is not None else max_grade
        if not top > self.min_rel:
            return np.zeros_like(grades)  # every grade at or below min_rel: no gain
        return (np.clip(grades, self.min_rel, top) - self.min_rel) / (top - self.min_rel)


@attrs.frozen
class Table(_GradeByGrade):
    """``table({grade: gain})``: the user's gains. Every grade in the qrels must be listed."""

    name: ClassVar[str] = "table"
    params: ClassVar[tuple] = ()

    mapping: tuple = attrs.field(converter=_pairs("table", "gain"))

    def gains(self, grades: np.ndarray, max_grade: float) -> np.ndarray:
        lookup = dict(self.mapping)
        missing = sorted({float(g) for g in np.unique(grades)} - set(lookup))
        if missing:
            raise GainRangeError(
                f"gain map {self} has no gain for grade {fmt(missing[0])} found in the qrels; "
                f"list every grade (found grades {[fmt(g) for g in np.unique(grades)]})"
            )
        return np.array([lookup[float(g)] for g in grades], dtype=np.float64)


@attrs.frozen
class Regrade(_GradeByGrade):
    """``regrade({grade: value})``: trec_eval's ``ndcg.g=v`` and ir_measures' ``nDCG(gains={g: v})``. Each
    grade listed is replaced by its value, the others keep their grade; the result is linear,
    ``max(v, 0) / max_v`` with max_v the largest value over the qrels' grades (the scale cancels in the
    ideal normalisation of nDCG; a negative value counts as 0, as negative grades do)."""

    name: ClassVar[str] = "regrade"
    params: ClassVar[tuple] = ()

    mapping: tuple = attrs.field(converter=_pairs("regrade", "value"))

    def values(self, grades: ArrayLike) -> np.ndarray:
        lookup = dict(self.mapping)
        return np.array([lookup.get(float(g), float(g)) for g in grades], dtype=np.float64)

    def gains(self, grades: np.ndarray, max_grade: float) -> np.ndarray:
        values = np.maximum(self.values(grades), 0.0)
        top = values.max() if values.size else 0.0
        return values / top if top > 0 else values


#: name -> class of every gain map (the parser's table and its messages come from it)
GAIN_MAPS = {cls.name: cls for cls in (Linear, Exponential, Binary, Scaled, Table, Regrade)}
