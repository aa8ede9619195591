"""Measures outside C/W/L/A: counts of relevant, judged and retrieved documents (trec_eval's definitions).

Every results table of TREC Deep Learning has recall, R-precision or bpref beside nDCG; they
are not browsing models (no user walks down the ranking with a stopping probability), so they
live here, apart from the C/W/L/A family, and are scored in the same kernel pass as the
C/W/L/A metrics (:func:`cwla.scoring.kernels.score_cells`).

Relevance is binary: a document is relevant when its grade is >= the level ``rel``
(``None``: the evaluation's level, trec_eval's ``-l``, default 1). For topic t, R is the
number of relevant documents in the qrels, N the number of judged non-relevant ones
(grade < rel, negative grades included); n is the length of the ranking, rel(i) whether
the document at rank i is relevant, and rel@k = sum_{i<=min(k,n)} rel(i).

===============  ================  ===========================================================
measure          trec_eval         value (0 where a denominator is 0)
===============  ================  ===========================================================
``R@k``          ``recall_k``      rel@k / R
``SetR``         ``set_recall``    rel@n / R
``Rprec``        ``Rprec``         rel@R / R
``Bpref``        ``bpref``         (1/R) sum_{relevant retrieved d} (1 - min(n_d, R) / min(R, N)),
                                   n_d = judged non-relevant documents ranked above d
``Judged@k``     (ir_measures)     judged documents in the top min(k, n) / min(k, n)
``SetP``         ``set_P``         rel@n / n  (``relative``: rel@n / min(n, R), set_relative_P)
``SetF(beta)``   ``set_F``         (1 + beta) P R / (beta P + R), P = SetP, R = SetR (beta as
                                   trec_eval and ir_measures use it: not squared)
``SetAP``        ``set_map``       SetP x SetR
``IPrec@x``      ``iprec_at_``     max { rel@i / i : i >= r_c } (interpolated precision), r_c the
                 ``recall_x``      rank of the c-th relevant document, c = floor(x R + 0.9) as
                                   trec_eval 9.0.x and pytrec_eval (0 if fewer are retrieved;
                                   c = 0: the first relevant rank)
``NumRel``       ``num_rel``       R                      (a run's value: the sum over topics)
``NumRet``       ``num_ret``       n                      (sum)
``NumRelRet``    ``num_rel_ret``   rel@n                  (sum)
``NumQ``         ``num_q``         1                      (sum: the number of topics)
===============  ================  ===========================================================

``judged_only=True`` drops the unjudged documents (and those with a negative grade) of each
ranking first (trec_eval ``-J``).

Residual: as for C/W/L/A metrics, the value in the world where every unjudged document of
the ranking is relevant (and judged, so R grows by their number) minus the value.
"""

from __future__ import annotations

from typing import ClassVar

import attrs

from .._numba import jit
from .._validate import finite_float, fmt, optional_flag, optional_float, optional_int

__all__ = [
    "CountingMeasure", "Recall", "RPrec", "Bpref", "Judged", "SetP", "SetF", "SetAP", "IPrec",
    "NumRel", "NumRet", "NumRelRet", "NumQ",
]

# kernel codes
RECALL, RPREC, BPREF, JUDGED, SETP, SETRELP, SETF, SETAP, IPREC, NUMREL, NUMRET, NUMRELRET, NUMQ = range(13)
# columns of the integer spec: code, relevance-level row, cutoff k (-1: none)
C_CODE, C_LEVEL, C_K = 0, 1, 2
N_CSPEC = 3


def _optional_k(instance: object, attribute: attrs.Attribute, value: int | None) -> None:
    if value is not None and value < 1:
        raise ValueError(f"'k' of {type(instance).__name__} must be an integer >= 1 or None: {value}")


def _optional_rel(instance: object, attribute: attrs.Attribute, value: float | None) -> None:
    if value is not None and not value > 0:
        raise ValueError(f"'rel' of {type(instance).__name__} must be > 0 or None: {fmt(value)}")


_k_field = attrs.field(default=None, converter=optional_int, validator=_optional_k)
_rel_field = attrs.field(default=None, converter=optional_float, validator=_optional_rel,
                         kw_only=True)
_judged_field = attrs.field(default=None, converter=optional_flag("judged_only", "a measure"), kw_only=True)


class CountingMeasure:
    """Base class of the measures outside C/W/L/A. ``code``, ``k`` and ``fparam`` are what the kernel sees.

    Every subclass has the fields ``rel`` (relevance level; None: the evaluation's) and
    ``judged_only`` (None: the evaluation's, default False) unless it ignores them."""

    code: ClassVar[int]
    #: ir_measures' name, and the canonical text's head
    name: ClassVar[str]
    #: how per-topic values combine into a run's value
    aggregate: ClassVar[str] = "mean"
    rel = None
    judged_only = None
    k = None
    is_constant: ClassVar[bool] = False

    @property
    def fparam(self) -> float:
        return 0.0

    def _params(self) -> list[str]:
        out = []
        if getattr(self, "rel", None) is not None and "rel" in attrs.fields_dict(type(self)):
            out.append(f"rel={fmt(self.rel)}")
        if self.judged_only is not None and "judged_only" in attrs.fields_dict(type(self)):
            out.append(f"judged_only={self.judged_only}")
        return out

    def __str__(self) -> str:
        params = self._params()
        text = self.name + (f"({', '.join(params)})" if params else "")
        return text + (f"@{self.k}" if self.k is not None else "")

    def resolve(self, *, rel: float | None = None, judged_only: bool | None = None, **_: object) -> CountingMeasure:
        """A copy with the relevance level (default 1) and ``judged_only`` (default False) filled in."""
        fields = attrs.fields_dict(type(self))
        changes = {}
        if "rel" in fields and self.rel is None:
            changes["rel"] = 1.0 if rel is None else rel
        if "judged_only" in fields and self.judged_only is None:
            changes["judged_only"] = bool(judged_only)
        return attrs.evolve(self, **changes)

    @property
    def level(self) -> float:
        """The resolved relevance level (1 for measures that do not use one)."""
        return 1.0 if getattr(self, "rel", None) is None else self.rel

    def warn_if_constant(self, label: str | None = None, stacklevel: int = 3) -> None:
        """Counting measures are never constant (the method exists so every measure answers it)."""

    def warn_if_truncated(self, label: str | None = None, stacklevel: int = 3) -> None:
        """Counting measures have no depth (the method exists so every measure answers it)."""


@attrs.frozen
class Recall(CountingMeasure):
    """Recall at k: the fraction of the topic's relevant documents in the top k (trec_eval
    ``recall_k``); ``k=None`` gives set recall (``set_recall``, ir_measures ``SetR``)."""

    k: int | None = _k_field
    rel: float | None = _rel_field
    judged_only: bool | None = _judged_field
    code: ClassVar[int] = RECALL
    name: ClassVar[str] = "R"

    def __str__(self) -> str:
        if self.k is None:
            params = self._params()
            return "SetR" + (f"({', '.join(params)})" if params else "")
        return super().__str__()


@attrs.frozen
class RPrec(CountingMeasure):
    """R-precision: precision at rank R, R = the topic's number of relevant documents (``Rprec``)."""

    rel: float | None = _rel_field
    judged_only: bool | None = _judged_field
    code: ClassVar[int] = RPREC
    name: ClassVar[str] = "Rprec"


@attrs.frozen
class Bpref(CountingMeasure):
    """Binary preference (Buckley & Voorhees, SIGIR 2004; trec_eval ``bpref``): how often relevant
    documents come before judged non-relevant ones; unjudged documents are ignored."""

    rel: float | None = _rel_field
    code: ClassVar[int] = BPREF
    name: ClassVar[str] = "Bpref"


@attrs.frozen
class Judged(CountingMeasure):
    """Judged@k: the fraction of the top min(k, n) documents that have a judgement (ir_measures
    ``Judged``); ``k=None``: of the whole ranking. (With ``judged_only`` it is 1 wherever something is left.)"""

    k: int | None = _k_field
    judged_only: bool | None = _judged_field
    code: ClassVar[int] = JUDGED
    name: ClassVar[str] = "Judged"


@attrs.frozen
class SetP(CountingMeasure):
    """Set precision: relevant retrieved / retrieved (``set_P``); ``relative=True``: relevant retrieved
    / min(retrieved, R) (``set_relative_P``, ir_measures ``SetP(relative=True)``)."""

    rel: float | None = _rel_field
    judged_only: bool | None = _judged_field
    relative: bool = attrs.field(default=False, validator=attrs.validators.instance_of(bool), kw_only=True)
    name: ClassVar[str] = "SetP"

    @property
    def code(self) -> int:  # type: ignore[override]
        return SETRELP if self.relative else SETP

    def _params(self):
        return super()._params() + (["relative=True"] if self.relative else [])


def _positive_beta(instance, attribute, value):
    if not value > 0:
        raise ValueError(f"'beta' of SetF must be > 0: {fmt(value)}")


@attrs.frozen
class SetF(CountingMeasure):
    """Set F: (1 + beta) P R / (beta P + R) of set precision P and set recall R (``set_F``; beta enters
    unsquared, as trec_eval's parameter and ir_measures' ``beta`` do)."""

    beta: float = attrs.field(default=1.0, converter=finite_float, validator=_positive_beta, kw_only=True)
    rel: float | None = _rel_field
    judged_only: bool | None = _judged_field
    code: ClassVar[int] = SETF
    name: ClassVar[str] = "SetF"

    @property
    def fparam(self) -> float:
        return self.beta

    def _params(self):
        return ([f"beta={fmt(self.beta)}"] if self.beta != 1.0 else []) + super()._params()


@attrs.frozen
class SetAP(CountingMeasure):
    """Set AP: set precision x set recall (``set_map``)."""

    rel: float | None = _rel_field
    judged_only: bool | None = _judged_field
    code: ClassVar[int] = SETAP
    name: ClassVar[str] = "SetAP"


def _unit_recall(instance, attribute, value):
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"'recall' of IPrec must be in [0, 1]: {fmt(value)}")


@attrs.frozen
class IPrec(CountingMeasure):
    """Interpolated precision at recall x: the best precision at any rank whose recall is at
    least x (``iprec_at_recall_x``); ``IPrec@0.5``."""

    recall: float = attrs.field(converter=finite_float, validator=_unit_recall)
    rel: float | None = _rel_field
    judged_only: bool | None = _judged_field
    code: ClassVar[int] = IPREC
    name: ClassVar[str] = "IPrec"

    @property
    def fparam(self) -> float:
        return self.recall

    def __str__(self) -> str:
        params = self._params()
        return "IPrec" + (f"({', '.join(params)})" if params else "") + f"@{fmt(self.recall)}"


@attrs.frozen
class NumRel(CountingMeasure):
    """The number of relevant documents of the topic in the qrels (``num_rel``); summed over topics."""

    rel: float | None = _rel_field
    code: ClassVar[int] = NUMREL
    name: ClassVar[str] = "NumRel"
    aggregate: ClassVar[str] = "sum"


@attrs.frozen
class NumRet(CountingMeasure):
    """The number of documents retrieved for the topic (``num_ret``; with ``judged_only``, the judged ones,
    as under trec_eval's ``-J``); summed over topics."""

    judged_only: bool | None = _judged_field
    code: ClassVar[int] = NUMRET
    name: ClassVar[str] = "NumRet"
    aggregate: ClassVar[str] = "sum"


@attrs.frozen
class NumRelRet(CountingMeasure):
    """The number of relevant documents retrieved (``num_rel_ret``, ir_measures ``NumRet(rel=1)``);
    summed over topics."""

    rel: float | None = _rel_field
    judged_only: bool | None = _judged_field
    code: ClassVar[int] = NUMRELRET
    name: ClassVar[str] = "NumRelRet"
    aggregate: ClassVar[str] = "sum"


@attrs.frozen
class NumQ(CountingMeasure):
    """1 per topic (``num_q``): summed, the number of topics."""

    code: ClassVar[int] = NUMQ
    name: ClassVar[str] = "NumQ"
    aggregate: ClassVar[str] = "sum"



# ---------------------------------------------------------------------------
# the kernel part: one ranking, one measure
# ---------------------------------------------------------------------------

# what a grade code is at a relevance level (the rows of ``kinds`` in :func:`count_ranking`)
NONREL, REL, NEGATIVE, UNJUDGED = 0, 1, 2, 3


def kind_table(grades, level: float):
    """Per grade code (the unjudged code last): REL (grade >= level), NONREL (0 <= grade < level),
    NEGATIVE (grade < 0: judged, never relevant; trec_eval skips it in bpref and ``-J``) or UNJUDGED."""
    import numpy as np

    kinds = np.full(len(grades) + 1, UNJUDGED, dtype=np.uint8)
    kinds[: len(grades)] = np.where(grades >= level, REL, np.where(grades >= 0, NONREL, NEGATIVE))
    return kinds


@jit()
def count_ranking(codes, start, n, kinds, R, N, code, k, fpar, upper):
    """The value of one counting measure on ``codes[start:start + n]``.

    ``kinds[g]`` says what grade code g is at the measure's level (:func:`kind_table`); R counts
    the topic's relevant documents, N its judged non-relevant ones (0 <= grade < level, as
    trec_eval's bpref). ``upper``: the world where the unjudged documents of the ranking are
    relevant (and judged, so R grows by their number).
    """
    if code == NUMQ:
        return 1.0
    if code == NUMRET:
        return float(n)
    if upper:
        for i in range(n):
            if kinds[codes[start + i]] == UNJUDGED:
                R += 1.0
    if code == NUMREL:
        return R
    kk = n if (k < 0 or k > n) else k
    if code == JUDGED:  # ir_measures: a document with any judgement, negative grades included
        if kk == 0:
            return 0.0
        if upper:
            return 1.0
        judged = 0.0
        for i in range(kk):
            if kinds[codes[start + i]] != UNJUDGED:
                judged += 1.0
        return judged / kk
    if code == RPREC:
        kk = int(R) if R < n else n
    if code == IPREC:
        # trec_eval 9.0.x: the fpar * R + 0.9 (truncated)-th relevant document; the best precision at or below it
        need = int(fpar * R + 0.9)
    hits = 0.0  # relevant in the top kk
    found = 0.0  # relevant in the whole ranking
    nonrel = 0.0
    bpref = 0.0
    best = 0.0  # the best precision at or below the rank where IPrec's cut is met
    reached = need == 0 if code == IPREC else False
    for i in range(n):
        kind = kinds[codes[start + i]]
        is_rel = kind == REL or (upper and kind == UNJUDGED)
        if is_rel:
            found += 1.0
            if i < kk:
                hits += 1.0
            if code == BPREF:
                bpref += 1.0 - min(nonrel, R) / min(N, R) if nonrel > 0.0 else 1.0
            elif code == IPREC:
                if found >= need:
                    reached = True
        elif kind == NONREL:
            nonrel += 1.0
        if code == IPREC and reached and found > 0.0:
            precision = found / (i + 1.0)
            if precision > best:
                best = precision
    if code == BPREF:
        return bpref / R if R > 0.0 else 0.0
    if code == IPREC:
        return best if found >= need else 0.0
    if code == NUMRELRET:
        return found
    if code == RECALL or code == RPREC:
        return hits / R if R > 0.0 else 0.0
    p = found / n if n > 0 else 0.0
    r = found / R if R > 0.0 else 0.0
    if code == SETP:
        return p
    if code == SETRELP:
        m = min(float(n), R)
        return found / m if m > 0.0 else 0.0
    if code == SETAP:
        return p * r
    # SETF: trec_eval's (x + 1) P R / (x P + R) with x = the parameter itself (ir_measures' beta)
    d = fpar * p + r
    return (1.0 + fpar) * p * r / d if found > 0.0 and d > 0.0 else 0.0
