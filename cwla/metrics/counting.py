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

import math
from collections.abc import Callable
from typing import ClassVar

import attrs

from .._validate import finite_float, fmt
from ..errors import CwlaError
from ._declare import Param
from .gains import sorted_pairs

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


#: trec_eval's 11 recall points
ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


class CountingMeasure:
    """Base class of the measures outside C/W/L/A. ``code``, ``k`` and ``fparam`` are what the kernel sees.

    Every measure is declared once, as data: its parameters (:class:`cwla.Param`: bounds, default, text, in
    ``declared``), the kernel branch (``code``) and its floats (``fparam``). Its canonical text is
    ``NAME(p=v, ...)@k``, listing the parameters that differ from their defaults."""

    code: ClassVar[int]
    #: ir_measures' name, and the canonical text's head
    name: ClassVar[str]
    #: how per-topic values combine into a run's value
    aggregate: ClassVar[str] = "mean"
    #: the declared parameters, in field order
    declared: ClassVar[tuple[Param, ...]] = ()
    #: the parameter the text puts after "@" (None: none)
    at: ClassVar[str | None] = "k"
    #: the text's head when the "@" parameter is None (Recall without k is SetR)
    alone: ClassVar[str | None] = None
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
        """``name=value`` of each parameter that differs from its default, in declared order."""
        return [f"{p.name}={p.text(getattr(self, p.name))}" for p in self.declared
                if p.name != self.at and getattr(self, p.name) != p.default]

    def __str__(self) -> str:
        params = self._params()
        at = getattr(self, self.at) if self.at else None
        head = self.alone if at is None and self.alone else self.name
        text = head + (f"({', '.join(params)})" if params else "")
        return text + (f"@{at if isinstance(at, int) else fmt(at)}" if at is not None else "")

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


class _GradeGains(CountingMeasure):
    """The measures over grades as gains: gain(g) = the ``gains`` pair's value for g, else g (trec_eval's
    rel levels as gains); grades < 0 and unjudged documents gain 0."""

    uses_gains: ClassVar[bool] = True

    def gain_of(self, grade: float) -> float:
        return dict(self.gains).get(grade, grade) if grade >= 0 else 0.0


# ----------------------------------------------------------------------------- the parameters

def _gains_pairs(value: object) -> tuple:
    """``{grade: gain}`` (or pairs) as sorted ``((grade, gain), ...)``, numbers checked."""
    try:
        items = value.items() if isinstance(value, dict) else list(value)
        return sorted_pairs(items)
    except (TypeError, ValueError):
        raise CwlaError(f"expected a dict {{grade: gain}} or (grade, gain) pairs of finite numbers, got "
                        f"{value!r}") from None


def _recall_points(value: object) -> tuple:
    """At least one recall level in [0, 1], as a tuple of floats."""
    try:
        points = tuple(finite_float(x) for x in value)
    except (TypeError, ValueError):
        points = ()
    if not points or not all(0.0 <= x <= 1.0 for x in points):
        raise CwlaError(f"expected recall levels in [0, 1], at least one, got {value!r}")
    return points


def _positive_grade(self: CountingMeasure, grade: float) -> float:
    """Compat's gain: the grade, 0 for a grade <= 0."""
    return grade if grade > 0 else 0.0


#: the cutoff, None (the whole ranking) or an integer >= 1; as RelP's and Unj's, required
K = Param("k", "int", None, lo=1, none="None", none_text=False)
K_REQUIRED = Param("k", "int", attrs.NOTHING, lo=1)
#: the relevance level (None: the evaluation's, trec_eval's -l)
REL = Param("rel", "float", None, lo=0.0, lo_open=True, none="None", none_text=False)
#: trec_eval's -J (None: the evaluation's)
JUDGED_ONLY = Param("judged_only", "flag", None, none="None", none_text=False)
CONVENTION = Param("convention", "int", None, lo=CONVENTIONS[0], hi=CONVENTIONS[-1], none="None", none_text=False,
                   rule="9 (trec_eval 9.0), 10 (trec_eval >= 10) or None (the evaluation's, default 9)")
GAINS = Param("gains", "value", (), parse=_gains_pairs,
              show=lambda pairs: "{" + ", ".join(f"{fmt(g)}: {fmt(v)}" for g, v in pairs) + "}")


def _persistence(default: float) -> Param:
    return Param("p", "float", default, 0.0, 1.0, True, True)


def _number(name: str, default: object = attrs.NOTHING, lo: float = -math.inf, **bounds: object) -> Param:
    return Param(name, "float", default, lo, **bounds)


#: parameters given by position (``Recall(10)``, ``IPrec(0.5)``); the others by keyword
_POSITIONAL = ("k", "recall", "mult", "points")


def _measure(cls_name: str, name: str, code: int | Callable, doc: str, *params: Param, aggregate: str = "mean",
             base: type = CountingMeasure, fparam: Callable | None = None, **class_vars: object) -> type:
    """The attrs frozen class of a counting measure, declared once: ``name`` (ir_measures' and the text's),
    the kernel branch ``code`` (or a function of the measure giving it), its parameters in field order,
    ``fparam`` (a function of the measure: the kernel's floats) and how the topics combine (``aggregate``)."""

    namespace = {p.name: p.field(cls_name, kw_only=p.name not in _POSITIONAL) for p in params}
    namespace.update(
        __doc__=doc, __module__=__name__, __qualname__=cls_name, __annotations__={p.name: p.annotation for p in params},
        name=name, aggregate=aggregate, declared=params, **class_vars,
    )
    if callable(code):
        def branch(self: CountingMeasure) -> int:
            """The kernel branch, which depends on a parameter."""
            return code(self)

        namespace["code"] = property(branch)
    else:
        namespace["code"] = code
    if fparam is not None:
        def floats(self: CountingMeasure) -> float | tuple:
            """The kernel's float parameters (one number, or a tuple)."""
            return fparam(self)

        namespace["fparam"] = property(floats)
    return attrs.frozen(type(cls_name, (base,), namespace))


# ----------------------------------------------------------------------------- the measures

Recall = _measure("Recall", "R", RECALL, """Recall at k: the fraction of the topic's relevant documents in the top k (trec_eval
    ``recall_k``); ``k=None`` gives set recall (``set_recall``, ir_measures ``SetR``).""", K, REL, JUDGED_ONLY,
                  alone="SetR")
RPrec = _measure("RPrec", "Rprec", RPREC, """R-precision: precision at rank R, R = the topic's number of relevant
    documents (``Rprec``).""", REL, JUDGED_ONLY)
Bpref = _measure("Bpref", "Bpref", BPREF, """Binary preference (Buckley & Voorhees, SIGIR 2004; trec_eval ``bpref``): how
    often relevant documents come before judged non-relevant ones; unjudged documents are ignored.""", REL)
Judged = _measure("Judged", "Judged", JUDGED, """Judged@k: the fraction of the top min(k, n) documents that have a judgement
    (ir_measures ``Judged``); ``k=None``: of the whole ranking. (With ``judged_only`` it is 1 wherever something
    is left.)""", K, JUDGED_ONLY)
SetP = _measure("SetP", "SetP", lambda m: SETRELP if m.relative else SETP, """Set precision: relevant retrieved /
    retrieved (``set_P``); ``relative=True``: relevant retrieved / min(retrieved, R) (``set_relative_P``,
    ir_measures ``SetP(relative=True)``).""", REL, JUDGED_ONLY, Param("relative", "flag", False))
SetF = _measure("SetF", "SetF", SETF, """Set F: (1 + beta) P R / (beta P + R) of set precision P and set recall R
    (``set_F``; beta enters unsquared, as trec_eval's parameter and ir_measures' ``beta`` do).""",
                _number("beta", 1.0, 0.0, lo_open=True), REL, JUDGED_ONLY, fparam=lambda m: m.beta)
SetAP = _measure("SetAP", "SetAP", SETAP, """Set AP: set precision x set recall (``set_map``).""", REL, JUDGED_ONLY)
IPrec = _measure("IPrec", "IPrec", IPREC, """Interpolated precision at recall x: the best precision at any rank whose
    recall is at least x (``iprec_at_recall_x``); ``IPrec@0.5``.""", _number("recall", lo=0.0, hi=1.0), REL,
                 JUDGED_ONLY, CONVENTION, fparam=lambda m: (m.recall, float(m.convention or 9)), at="recall")
NumRel = _measure("NumRel", "NumRel", NUMREL, """The number of relevant documents of the topic in the qrels
    (``num_rel``); summed over topics.""", REL, aggregate="sum")
NumRet = _measure("NumRet", "NumRet", NUMRET, """The number of documents retrieved for the topic (``num_ret``; with
    ``judged_only``, the judged ones, as under trec_eval's ``-J``); summed over topics.""", JUDGED_ONLY,
                  aggregate="sum")
NumRelRet = _measure("NumRelRet", "NumRelRet", NUMRELRET, """The number of relevant documents retrieved
    (``num_rel_ret``, ir_measures ``NumRet(rel=1)``); summed over topics.""", REL, JUDGED_ONLY, aggregate="sum")
NumQ = _measure("NumQ", "NumQ", NUMQ, """1 per topic (``num_q``): summed, the number of topics.""", aggregate="sum")
RelP = _measure("RelP", "RelP", RELP, """Relative precision at k: relevant in the top k over min(k, R), the most
    that could be (trec_eval ``relative_P_k``).""", K_REQUIRED, REL, JUDGED_ONLY)
RprecMult = _measure("RprecMult", "RprecMult", RPREC_MULT, """Precision at rank c = floor(mult x R + 0.9), R the
    topic's relevant documents (trec_eval ``Rprec_mult_x``; ``mult=1`` is R-precision but for the rounding).""",
                     _number("mult", lo=0.0), REL, JUDGED_ONLY, fparam=lambda m: m.mult)
Utility = _measure("Utility", "Utility", UTILITY, """Set utility: a per relevant retrieved, b per non-relevant
    retrieved, c per relevant missed, d per non-relevant not retrieved among ``docs`` documents (trec_eval
    ``utility``, default a=1, b=-1, c=d=0; ``docs`` is trec_eval's -N).""",
                   _number("a", 1.0), _number("b", -1.0), _number("c", 0.0), _number("d", 0.0),
                   _number("docs", 0.0, 0.0, rule="a finite number >= 0 (trec_eval's -N)"), REL, JUDGED_ONLY,
                   fparam=lambda m: (m.a, m.b, m.c, m.d, m.docs))
IPrecMean = _measure("IPrecMean", "IPrecMean", IPREC_MEAN, """The mean of the interpolated precisions at the recall
    ``points`` (trec_eval ``11pt_avg``).""",
                     Param("points", "value", ELEVEN_POINTS, parse=_recall_points,
                           show=lambda points: "'" + ",".join(fmt(x) for x in points) + "'"),
                     REL, JUDGED_ONLY, CONVENTION,
                     fparam=lambda m: (float(m.convention or 9), float(len(m.points)), *m.points))
InfAP = _measure("InfAP", "infAP", INFAP, """Inferred AP (Yilmaz & Aslam, CIKM 2006) as trec_eval computes it: a grade
    < 0 marks a pooled document that was not sampled for judging; documents not in the qrels are skipped
    (trec_eval ``infAP``).""", REL)
BinG = _measure("BinG", "binG", BING, """Kando's binary G: (1/R) sum over the relevant retrieved d_i of
    1 / log2(2 + i - rel@i) (trec_eval ``binG``).""", REL, JUDGED_ONLY)
NumNonRelJudgedRet = _measure("NumNonRelJudgedRet", "NumNonRelJudgedRet", NUMNONREL, """The judged non-relevant
    documents retrieved (0 <= grade < rel; trec_eval ``num_nonrel_judged_ret``); summed over topics.""", REL,
                              aggregate="sum")
Unj = _measure("Unj", "Unj", UNJ, """The fraction of the top k that is unjudged (not in the qrels, or a grade < 0),
    over k (trec_eval ``unj_k``).""", K_REQUIRED)
RBPResid = _measure("RBPResid", "RBPResid", RBP_RESID, """trec_eval's RBP residual (``rbp_resid``, Moffat & Zobel
    2008): the RBP mass that the unjudged documents (grade < 0 or not in the qrels) and the ranks past the ranking
    could add, p^n + (1 - p) sum_{unjudged d_i} p^(i-1); 0 when every retrieved document is judged.""",
                    _persistence(0.9), fparam=lambda m: m.p)
G = _measure("G", "G", G_TREC, """Kando et al.'s normalised cumulative gain with rank cost, as trec_eval ``G``
    computes it.""", GAINS, base=_GradeGains)
NDCGRel = _measure("NDCGRel", "nDCGRel", NDCG_REL, """trec_eval ``ndcg_rel``: nDCG averaged over the ranks of the
    ideal ranking's relevant documents.""", GAINS, base=_GradeGains)
RnDCG = _measure("RnDCG", "RnDCG", RNDCG, """trec_eval ``Rndcg``: nDCG averaged over the ranks where the ideal
    ranking's gain level changes (0 for a topic without a document relevant at ``rel``, as trec_eval).""",
                 GAINS, REL, base=_GradeGains)
RBPTrec = _measure("RBPTrec", "RBPTrec", RBP_TREC, """trec_eval ``rbp`` (Moffat & Zobel 2008): (1 - p) sum_i g_i
    p^(i-1) over the whole ranking, the grades as gains, scaled per topic to (g - min) / (max - min) (min and
    max over 0 and the topic's gains) when one lies outside [0, 1].""", _persistence(0.9), GAINS,
                   base=_GradeGains, fparam=lambda m: m.p)
NumNonJudgedRet = _measure("NumNonJudgedRet", "NumNonJudgedRet", NUMNONJUDGED, """The unjudged documents retrieved
    (not in the qrels, or a grade < 0; trec_eval ``num_nonjudged_ret``); summed over topics.""", aggregate="sum")
DCGTrec = _measure("DCGTrec", "DCGTrec", DCG_TREC, """trec_eval ``dcg``: sum_i g_i / log2(i + 1) over the whole
    ranking, the grades as gains (unnormalised).""", GAINS, base=_GradeGains)
IdealDCG = _measure("IdealDCG", "IdealDCG", IDEAL_DCG, """trec_eval ``ideal_dcg``: the DCG of the topic's ideal
    ranking (its judged documents by gain, every one of positive gain), the grades as gains.""", GAINS,
                    base=_GradeGains)
Accuracy = _measure("Accuracy", "Accuracy", ACCURACY, """ir_measures' Accuracy: the AUC of the (top k of the)
    ranking, 1 - sum_j n_j / (N R'), n_j the documents not relevant (unjudged ones included) above the j-th
    relevant one, N and R' the non-relevant and relevant documents of the list; 1 when all are relevant, 0 when
    none is (ir_measures leaves those topics out).""", K, REL)
Compat = _measure("Compat", "Compat", COMPAT, """Compatibility with the ideal ranking (Clarke, Vtyurina & Smucker,
    TOIS 2021, ir_measures ``Compat``): rank-biased overlap with persistence p of the ranking and the ideal
    (every judged document of grade > 0, by grade; within a grade the retrieved ones in the ranking's order),
    over the depth of the longer list; ``normalize``: divided by the ideal's overlap with itself.""",
                  _persistence(0.95), Param("normalize", "flag", True), base=_GradeGains,
                  fparam=lambda m: (m.p, float(m.normalize)), gains=(), gain_of=_positive_grade)
