"""Measures outside C/W/L/A: counts of relevant, judged and retrieved documents (trec_eval's definitions).

Every results table of TREC Deep Learning has recall, R-precision or bpref beside nDCG; they
are not browsing models (no user walks down the ranking with a stopping probability), so they
live here, apart from the C/W/L/A family, and are scored in the same kernel pass as the C/W/L/A
metrics (:func:`cwla.scoring.kernels.score_cells`; their kernels: :mod:`cwla.scoring.counting_kernels`).

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
``RelP@k``       ``relative_P_k``  rel@k / min(k, R)
``RprecMult(x)`` ``Rprec_mult_x``  rel@c / c, c = floor(x R + 0.9) (precision at x times R)
``Utility(a,b,   ``utility``       a rel@n + b (n - rel@n) + c (R - rel@n) + d (docs + rel@n - n - R)
c,d,docs)``
``IPrecMean``    ``11pt_avg``      the mean of IPrec@x over the points x (default 0, 0.1, ..., 1)
``infAP``        ``infAP``         Yilmaz & Aslam's inferred AP (CIKM 2006), trec_eval's form: grade
                                   < 0 = judged-as-unsampled, documents not in the qrels skipped
``binG``         ``binG``          (1/R) sum_{relevant d_i} 1 / log2(2 + i - rel@i) (Kando et al.)
``NumNonRelJudgedRet`` ...         judged non-relevant documents retrieved (0 <= grade < rel) (sum)
``Unj@k``        ``unj_k``         unjudged documents (grade < 0 or not in the qrels) in the top k / k
``Accuracy@k``   (ir_measures)     1 - sum_j n_j / (N R') over the top k (AUC; unjudged = non-relevant)
``RBPResid(p)``  ``rbp_resid``     p^n + (1 - p) sum_{unjudged d_i} p^(i-1), 0 without unjudged
``NumNonJudgedRet`` ...            unjudged documents retrieved (grade < 0 or not in the qrels) (sum)
===============  ================  ===========================================================

The measures over trec_eval's integer grades as gains (gain(g) = g, or the value a ``gains`` pair gives
it; negative grades and unjudged documents gain 0), with the topic's ideal ranking (its judged documents
by gain, descending):

===============  ================  ===========================================================
``G``            ``G``             Kando's normalised cumulative gain with cost (trec_eval m_G.c)
``nDCGRel``      ``ndcg_rel``      mean over the ideal's relevant positions of nDCG there
``RnDCG``        ``Rndcg``         mean of nDCG at the ends of the ideal's gain levels
``RBPTrec(p)``   ``rbp``           (1 - p) sum_i g_i p^(i-1) over the whole ranking; gains scaled
                                   into [0, 1] per topic when one lies outside (trec_eval m_rbp.c)
``DCGTrec``      ``dcg``           sum_i g_i / log2(i + 1) over the whole ranking (unnormalised)
``IdealDCG``     ``ideal_dcg``     the same over the topic's ideal ranking
``Compat(p)``    (ir_measures)     rank-biased overlap with the ideal ranking (Clarke et al. 2021)
===============  ================  ===========================================================

``judged_only=True`` drops the unjudged documents (and those with a negative grade) of each
ranking first (trec_eval ``-J``).

Residual: the value in the world where every unjudged document of the ranking (not in the
qrels; a negative grade is judged) is relevant, and judged, so that R grows by u, their number
in the whole ranking (not only in the top k), minus the value; N and n do not change, and
nothing is padded (these measures are about the retrieved set). With u@k the unjudged
documents in the top min(k, n):

=====================  ============================================================================
measure                residual
=====================  ============================================================================
``R@k``                (rel@k + u@k) / (R + u) - rel@k / R: negative when enough unjudged documents
                       lie below k (R grows, rel@k does not)
``Rprec``, ``Bpref``   the same recomputation (R + u relevant documents, the unjudged ones among
                       them), which can be negative as for R@k; so for ``RprecMult``, ``RelP``,
                       ``IPrec``, ``IPrecMean``, ``binG``, ``infAP`` and ``Accuracy``
``SetR``               (rel@n + u) / (R + u) - rel@n / R >= 0
``SetP``               u / n >= 0 (``relative``: the recomputation, >= 0)
``SetF``, ``SetAP``    the recomputation, >= 0 (SetP and SetR both grow)
``Judged@k``           1 - the value (every document of the top k is judged)
``NumRel``             u (and ``NumRelRet``: u)
``Utility``            (a - b) u
``NumRet``, ``NumQ``   0; so for ``NumNonRelJudgedRet``, ``Unj``, ``NumNonJudgedRet`` and
                       ``RBPResid`` (the unjudged documents do not change them, or are what they
                       count)
``G``, ``RBPTrec``     0: no residual is computed for the measures over grades as gains (also
                       ``nDCGRel``, ``RnDCG``, ``DCGTrec``, ``IdealDCG``, ``Compat``)
=====================  ============================================================================

So a residual here is the change if every unjudged document were relevant: a bound on what
the unknown could add only for the measures marked >= 0 above (NumRel, NumRelRet, Judged and
Utility with a >= b too); a negative one says the measure would fall in that world.
"""

from __future__ import annotations

from typing import ClassVar

import attrs

from .._validate import finite_float, fmt, of_parameter, optional_flag, optional_float, optional_int
from ..errors import CwlaError

__all__ = [
    "CountingMeasure", "Recall", "RPrec", "Bpref", "Judged", "SetP", "SetF", "SetAP", "IPrec",
    "NumRel", "NumRet", "NumRelRet", "NumQ", "RelP", "RprecMult", "Utility", "IPrecMean", "InfAP", "BinG",
    "NumNonRelJudgedRet", "Unj", "RBPResid", "G", "NDCGRel", "RnDCG", "RBPTrec", "NumNonJudgedRet", "DCGTrec",
    "IdealDCG", "Accuracy", "Compat", "ELEVEN_POINTS", "CONVENTIONS",
]

# kernel codes
RECALL, RPREC, BPREF, JUDGED, SETP, SETRELP, SETF, SETAP, IPREC, NUMREL, NUMRET, NUMRELRET, NUMQ = range(13)
RELP, RPREC_MULT, UTILITY, IPREC_MEAN, INFAP, BING, NUMNONREL, UNJ, RBP_RESID, NUMNONJUDGED, ACCURACY = range(13, 24)
#: the first code of trec_eval's other measures (trec_ranking, gain_ranking: their own kernel pass)
FIRST_TREC = RELP
# the measures over grades as gains, with the topic's ideal ranking (gain_ranking)
G_TREC, NDCG_REL, RNDCG, RBP_TREC, DCG_TREC, IDEAL_DCG, COMPAT = range(40, 47)
# columns of the integer spec: code, relevance-level row, cutoff k (-1: none), row of the gain tables (-1: none)
C_CODE, C_LEVEL, C_K, C_GAIN = 0, 1, 2, 3
N_CSPEC = 4
#: trec_eval's conventions: 9 (9.0, pytrec_eval, NIST's published results; the default) or 10 (trec_eval >= 10)
CONVENTIONS = (9, 10)


def _optional_k(instance: object, attribute: attrs.Attribute, value: int | None) -> None:
    if value is not None and value < 1:
        raise CwlaError(f"'k' of {type(instance).__name__} must be an integer >= 1 or None: {value}")


def _optional_rel(instance: object, attribute: attrs.Attribute, value: float | None) -> None:
    if value is not None and not value > 0:
        raise CwlaError(f"'rel' of {type(instance).__name__} must be > 0 or None: {fmt(value)}")


_k_field = attrs.field(default=None, converter=of_parameter(optional_int, "k", "a counting measure"),
                       validator=_optional_k)
_rel_field = attrs.field(default=None, converter=of_parameter(optional_float, "rel", "a counting measure"),
                         validator=_optional_rel,
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

    #: the measure's grade gains (trec_eval's ``gains`` pairs): measures over grades as gains set it
    uses_gains: ClassVar[bool] = False

    @property
    def fparam(self) -> float | tuple:
        """The kernel's float parameters (one number, or a tuple)."""
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

    def resolve(self, *, rel: float | None = None, judged_only: bool | None = None, trec_eval: int | None = None,
                **_: object) -> CountingMeasure:
        """A copy with the relevance level (default 1), ``judged_only`` (default False) and trec_eval's
        convention (where the measure has one: default 9) filled in."""
        fields = attrs.fields_dict(type(self))
        changes = {}
        if "convention" in fields and self.convention is None:
            changes["convention"] = 9 if trec_eval is None else trec_eval
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
        raise CwlaError(f"'beta' of SetF must be > 0: {fmt(value)}")


@attrs.frozen
class SetF(CountingMeasure):
    """Set F: (1 + beta) P R / (beta P + R) of set precision P and set recall R (``set_F``; beta enters
    unsquared, as trec_eval's parameter and ir_measures' ``beta`` do)."""

    beta: float = attrs.field(default=1.0, converter=of_parameter(finite_float, "beta", "SetF"),
                              validator=_positive_beta, kw_only=True)
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


def _convention(instance, attribute, value):
    if value is not None and (isinstance(value, bool) or value not in CONVENTIONS):
        raise CwlaError(f"'convention' of {type(instance).__name__} must be 9 (trec_eval 9.0), 10 (trec_eval "
                         f">= 10) or None (the evaluation's, default 9): {value!r}")


def _unit_recall(instance, attribute, value):
    if not 0.0 <= value <= 1.0:
        raise CwlaError(f"'recall' of IPrec must be in [0, 1]: {fmt(value)}")


@attrs.frozen
class IPrec(CountingMeasure):
    """Interpolated precision at recall x: the best precision at any rank whose recall is at
    least x (``iprec_at_recall_x``); ``IPrec@0.5``."""

    recall: float = attrs.field(converter=of_parameter(finite_float, "recall", "IPrec"), validator=_unit_recall)
    rel: float | None = _rel_field
    judged_only: bool | None = _judged_field
    convention: int | None = attrs.field(default=None, validator=_convention, kw_only=True)
    code: ClassVar[int] = IPREC
    name: ClassVar[str] = "IPrec"

    @property
    def fparam(self) -> tuple:
        return (self.recall, float(self.convention or 9))

    def _params(self):
        return super()._params() + ([f"convention={self.convention}"] if self.convention is not None else [])

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



@attrs.frozen
class RelP(CountingMeasure):
    """Relative precision at k: relevant in the top k over min(k, R), the most that could be (trec_eval
    ``relative_P_k``)."""

    k: int = attrs.field(converter=of_parameter(optional_int, "k", "RelP"), validator=_optional_k)
    rel: float | None = _rel_field
    judged_only: bool | None = _judged_field
    code: ClassVar[int] = RELP
    name: ClassVar[str] = "RelP"


def _positive_mult(instance, attribute, value):
    if not value >= 0:
        raise CwlaError(f"'mult' of RprecMult must be a finite number >= 0: {fmt(value)}")


@attrs.frozen
class RprecMult(CountingMeasure):
    """Precision at rank c = floor(mult x R + 0.9), R the topic's relevant documents (trec_eval
    ``Rprec_mult_x``; ``mult=1`` is R-precision but for the rounding)."""

    mult: float = attrs.field(converter=of_parameter(finite_float, "mult", "RprecMult"), validator=_positive_mult)
    rel: float | None = _rel_field
    judged_only: bool | None = _judged_field
    code: ClassVar[int] = RPREC_MULT
    name: ClassVar[str] = "RprecMult"

    @property
    def fparam(self) -> float:
        return self.mult

    def _params(self):
        return [f"mult={fmt(self.mult)}"] + super()._params()


def _non_negative_docs(instance, attribute, value):
    if not value >= 0:
        raise CwlaError(f"'docs' of Utility must be a number >= 0 (trec_eval's -N): {fmt(value)}")


@attrs.frozen
class Utility(CountingMeasure):
    """Set utility: a per relevant retrieved, b per non-relevant retrieved, c per relevant missed, d per
    non-relevant not retrieved among ``docs`` documents (trec_eval ``utility``, default a=1, b=-1, c=d=0;
    ``docs`` is trec_eval's -N)."""

    a: float = attrs.field(default=1.0, converter=of_parameter(finite_float, "a", "Utility"), kw_only=True)
    b: float = attrs.field(default=-1.0, converter=of_parameter(finite_float, "b", "Utility"), kw_only=True)
    c: float = attrs.field(default=0.0, converter=of_parameter(finite_float, "c", "Utility"), kw_only=True)
    d: float = attrs.field(default=0.0, converter=of_parameter(finite_float, "d", "Utility"), kw_only=True)
    docs: float = attrs.field(default=0.0, converter=of_parameter(finite_float, "docs", "Utility"),
                              validator=_non_negative_docs, kw_only=True)
    rel: float | None = _rel_field
    judged_only: bool | None = _judged_field
    code: ClassVar[int] = UTILITY
    name: ClassVar[str] = "Utility"

    @property
    def fparam(self) -> tuple:
        return (self.a, self.b, self.c, self.d, self.docs)

    def _params(self):
        own = [f"{n}={fmt(getattr(self, n))}" for n, d in (("a", 1.0), ("b", -1.0), ("c", 0.0), ("d", 0.0),
                                                           ("docs", 0.0)) if getattr(self, n) != d]
        return own + super()._params()


#: trec_eval's 11 recall points
ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def _floats(value: tuple) -> tuple:
    return tuple(finite_float(x) for x in value)


def _points(instance, attribute, value):
    if not value or not all(0.0 <= x <= 1.0 for x in value):
        raise CwlaError(f"'points' of IPrecMean must be recall levels in [0, 1], at least one: {value!r}")


@attrs.frozen
class IPrecMean(CountingMeasure):
    """The mean of the interpolated precisions at the recall ``points`` (trec_eval ``11pt_avg``)."""

    points: tuple = attrs.field(default=ELEVEN_POINTS, converter=_floats, validator=_points)
    rel: float | None = _rel_field
    judged_only: bool | None = _judged_field
    convention: int | None = attrs.field(default=None, validator=_convention, kw_only=True)
    code: ClassVar[int] = IPREC_MEAN
    name: ClassVar[str] = "IPrecMean"

    @property
    def fparam(self) -> tuple:
        return (float(self.convention or 9), float(len(self.points)), *self.points)

    def _params(self):
        own = [] if self.points == ELEVEN_POINTS else [f"points='{','.join(fmt(x) for x in self.points)}'"]
        return own + super()._params() + ([f"convention={self.convention}"] if self.convention is not None else [])


@attrs.frozen
class InfAP(CountingMeasure):
    """Inferred AP (Yilmaz & Aslam, CIKM 2006) as trec_eval computes it: a grade < 0 marks a pooled document
    that was not sampled for judging; documents not in the qrels are skipped (trec_eval ``infAP``)."""

    rel: float | None = _rel_field
    code: ClassVar[int] = INFAP
    name: ClassVar[str] = "infAP"


@attrs.frozen
class BinG(CountingMeasure):
    """Kando's binary G: (1/R) sum over the relevant retrieved d_i of 1 / log2(2 + i - rel@i) (trec_eval
    ``binG``)."""

    rel: float | None = _rel_field
    judged_only: bool | None = _judged_field
    code: ClassVar[int] = BING
    name: ClassVar[str] = "binG"


@attrs.frozen
class NumNonRelJudgedRet(CountingMeasure):
    """The judged non-relevant documents retrieved (0 <= grade < rel; trec_eval ``num_nonrel_judged_ret``);
    summed over topics."""

    rel: float | None = _rel_field
    code: ClassVar[int] = NUMNONREL
    name: ClassVar[str] = "NumNonRelJudgedRet"
    aggregate: ClassVar[str] = "sum"


@attrs.frozen
class Unj(CountingMeasure):
    """The fraction of the top k that is unjudged (not in the qrels, or a grade < 0), over k (trec_eval
    ``unj_k``)."""

    k: int = attrs.field(converter=of_parameter(optional_int, "k", "Unj"), validator=_optional_k)
    code: ClassVar[int] = UNJ
    name: ClassVar[str] = "Unj"


def _unit_p(instance, attribute, value):
    if not 0.0 < value < 1.0:
        raise CwlaError(f"'p' of {type(instance).__name__} must be in (0, 1): {fmt(value)}")


@attrs.frozen
class RBPResid(CountingMeasure):
    """trec_eval's RBP residual (``rbp_resid``, Moffat & Zobel 2008): the RBP mass that the unjudged documents
    (grade < 0 or not in the qrels) and the ranks past the ranking could add, p^n + (1 - p) sum_{unjudged
    d_i} p^(i-1); 0 when every retrieved document is judged."""

    p: float = attrs.field(default=0.9, converter=of_parameter(finite_float, "p", "RBPResid"),
                           validator=_unit_p, kw_only=True)
    code: ClassVar[int] = RBP_RESID
    name: ClassVar[str] = "RBPResid"

    @property
    def fparam(self) -> float:
        return self.p

    def _params(self):
        return [f"p={fmt(self.p)}"] if self.p != 0.9 else []


def _gains_pairs(value: dict | tuple) -> tuple:
    """``{grade: gain}`` (or pairs) as sorted ``((grade, gain), ...)``, numbers checked."""
    items = value.items() if isinstance(value, dict) else value
    return tuple(sorted((finite_float(g), finite_float(v)) for g, v in items))


class _GradeGains(CountingMeasure):
    """The measures over grades as gains: gain(g) = the ``gains`` pair's value for g, else g (trec_eval's
    rel levels as gains); grades < 0 and unjudged documents gain 0."""

    uses_gains: ClassVar[bool] = True

    def gain_of(self, grade: float) -> float:
        return dict(self.gains).get(grade, grade) if grade >= 0 else 0.0

    def _params(self):
        return ([f"gains={{{', '.join(f'{fmt(g)}: {fmt(v)}' for g, v in self.gains)}}}"] if self.gains else []) + \
            super()._params()


_gains_field = attrs.field(default=(), converter=_gains_pairs, kw_only=True)


@attrs.frozen
class G(_GradeGains):
    """Kando et al.'s normalised cumulative gain with rank cost, as trec_eval ``G`` computes it."""

    gains: tuple = _gains_field
    code: ClassVar[int] = G_TREC
    name: ClassVar[str] = "G"


@attrs.frozen
class NDCGRel(_GradeGains):
    """trec_eval ``ndcg_rel``: nDCG averaged over the ranks of the ideal ranking's relevant documents."""

    gains: tuple = _gains_field
    code: ClassVar[int] = NDCG_REL
    name: ClassVar[str] = "nDCGRel"


@attrs.frozen
class RnDCG(_GradeGains):
    """trec_eval ``Rndcg``: nDCG averaged over the ranks where the ideal ranking's gain level changes (0 for a
    topic without a document relevant at ``rel``, as trec_eval)."""

    gains: tuple = _gains_field
    rel: float | None = _rel_field
    code: ClassVar[int] = RNDCG
    name: ClassVar[str] = "RnDCG"


@attrs.frozen
class RBPTrec(_GradeGains):
    """trec_eval ``rbp`` (Moffat & Zobel 2008): (1 - p) sum_i g_i p^(i-1) over the whole ranking, the grades
    as gains, scaled per topic to (g - min) / (max - min) (min and max over 0 and the topic's gains) when
    one lies outside [0, 1]."""

    p: float = attrs.field(default=0.9, converter=of_parameter(finite_float, "p", "RBPTrec"),
                           validator=_unit_p, kw_only=True)
    gains: tuple = _gains_field
    code: ClassVar[int] = RBP_TREC
    name: ClassVar[str] = "RBPTrec"

    @property
    def fparam(self) -> float:
        return self.p

    def _params(self):
        return ([f"p={fmt(self.p)}"] if self.p != 0.9 else []) + super()._params()


@attrs.frozen
class NumNonJudgedRet(CountingMeasure):
    """The unjudged documents retrieved (not in the qrels, or a grade < 0; trec_eval ``num_nonjudged_ret``);
    summed over topics."""

    code: ClassVar[int] = NUMNONJUDGED
    name: ClassVar[str] = "NumNonJudgedRet"
    aggregate: ClassVar[str] = "sum"


@attrs.frozen
class DCGTrec(_GradeGains):
    """trec_eval ``dcg``: sum_i g_i / log2(i + 1) over the whole ranking, the grades as gains (unnormalised)."""

    gains: tuple = _gains_field
    code: ClassVar[int] = DCG_TREC
    name: ClassVar[str] = "DCGTrec"


@attrs.frozen
class IdealDCG(_GradeGains):
    """trec_eval ``ideal_dcg``: the DCG of the topic's ideal ranking (its judged documents by gain, every one of
    positive gain), the grades as gains."""

    gains: tuple = _gains_field
    code: ClassVar[int] = IDEAL_DCG
    name: ClassVar[str] = "IdealDCG"


@attrs.frozen
class Accuracy(CountingMeasure):
    """ir_measures' Accuracy: the AUC of the (top k of the) ranking, 1 - sum_j n_j / (N R'), n_j the documents
    not relevant (unjudged ones included) above the j-th relevant one, N and R' the non-relevant and relevant
    documents of the list; 1 when all are relevant, 0 when none is (ir_measures leaves those topics out)."""

    k: int | None = _k_field
    rel: float | None = _rel_field
    code: ClassVar[int] = ACCURACY
    name: ClassVar[str] = "Accuracy"


@attrs.frozen
class Compat(_GradeGains):
    """Compatibility with the ideal ranking (Clarke, Vtyurina & Smucker, TOIS 2021, ir_measures ``Compat``):
    rank-biased overlap with persistence p of the ranking and the ideal (every judged document of grade > 0,
    by grade; within a grade the retrieved ones in the ranking's order), over the depth of the longer list;
    ``normalize``: divided by the ideal's overlap with itself."""

    p: float = attrs.field(default=0.95, converter=of_parameter(finite_float, "p", "Compat"),
                           validator=_unit_p, kw_only=True)
    normalize: bool = attrs.field(default=True, validator=attrs.validators.instance_of(bool), kw_only=True)
    gains: tuple = attrs.field(default=(), init=False)
    code: ClassVar[int] = COMPAT
    name: ClassVar[str] = "Compat"

    @property
    def fparam(self) -> tuple:
        return (self.p, float(self.normalize))

    def gain_of(self, grade: float) -> float:
        return grade if grade > 0 else 0.0

    def _params(self):
        return ([f"p={fmt(self.p)}"] if self.p != 0.95 else []) + ([] if self.normalize else ["normalize=False"])
