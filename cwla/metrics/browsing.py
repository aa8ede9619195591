"""Browsing models C(i): the conditional probability that a user at rank i goes on to rank i+1.

From C the framework derives V(1) = 1, V(i+1) = V(i) C(i), the stopping
distribution L(i) = V(i) (1 - C(i)) and the expected depth E = sum V(i)
(Moffat et al., SIGIR 2022; Moffat, Bailey, Scholer & Thomas, ADCS 2015).

Each model is declared once below: its parameters with their bounds and
defaults, its kernel code, its formula and its reference. The parser, the kernel codes, the catalogue
(docs/metrics.md), the validation messages and the Hypothesis strategies all come from these
declarations; :data:`MODELS` lists them. r_i is the gain at rank i, cg(i) = sum_{j<=i} r_j,
c_i the cost of the document at rank i (1 unless costs are given), cc(i) = sum_{j<=i} c_j.

AP's ``R`` is ``"qrels"`` (default: the score is multiplied by R_ret / R, so
AP+ERG with binary gains is trec_eval's ``map``) or ``"retrieved"`` (cwl_eval's AP).

The models after ERR are cwl_eval 1.0.12's (``ruler/measures``), with cwl_eval's formulas; where cwl_eval
departs from the paper it cites, the model says so. User-defined models: :class:`Tabulated` (a table of
C(i) or of W(i)); see :func:`tabulated` and :func:`register_table`) and adaptive models given as a numba
function of (i, r_i, cg(i), params) (:func:`cwla.register_model`; the docs' page "Your own metrics",
docs/models.md, walks through both).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from types import MappingProxyType

import attrs

from .._validate import fmt
from ._declare import Param, declare
from ..errors import CwlaError, ParameterError

__all__ = ["BrowsingModel", "Precision", "DCG", "RBP", "INST", "AP", "ERR", "RR", "INSQ", "NERR8", "NERR9",
           "NERR10", "NERR11", "BPM", "TBG", "U", "IFTGoal", "IFTRate", "IFT", "SET", "NPV", "Reciprocal",
           "Tabulated", "BROWSING_MODELS", "MODELS", "N_MODEL_PARAMS", "tabulated", "register_table", "TABLES",
           "AdaptiveModel", "USER_MODELS"]

#: the largest k of Precision@k and DCG@k (the kernels walk the ranking up to k; as the largest depth)
MAX_K = 1_000_000
#: cutoffs (a metric's, a counting measure's k, trec_eval's -M) are clipped to this before they reach the
#: kernels: far past any ranking, so nothing changes, and within int64
MAX_CUTOFF = 10**15
#: the most float parameters a model passes to the kernel
N_MODEL_PARAMS = 6


class BrowsingModel:
    """Base class of the browsing models. ``code`` and ``params`` are what the kernels see."""

    #: True when C(i) does not depend on the gains.
    gain_free = False
    #: True when C(i) depends on the documents' costs.
    uses_costs = False
    #: the declared :class:`~cwla.metrics._declare.Param` of the model
    declared: tuple = ()


def _k(default=10, none=None):
    return Param("k", "int", default, 1, MAX_K, none=none, rule=f"an integer in [1, {MAX_K:,}]" +
                 (f" or {none}" if none else ""), sample=(1, 12), doc="rank of the last document read")


def _T(default, lo=0.0, rule=None, sample=(0.25, 5.0)):
    return Param("T", "float", default, lo, 1e100, lo_open=rule is None, rule=rule, sample=sample,
                 doc="the gain the user wants")


Precision = declare(
    BrowsingModel, "Precision", 0, [_k()], gain_free=True,
    formula="1 if i < k else 0", reference="--", doc="Precision@k: the user reads exactly k documents.")
DCG = declare(
    BrowsingModel, "DCG", 1, [_k(none="none")], gain_free=True,
    formula="log2(i+1) / log2(i+2) if i < k (or k=none) else 0", reference="Jarvelin & Kekalainen 2002",
    doc="DCG@k: V(i) = 1 / log2(i+1) for i <= k (``k=None``: every rank up to the depth, trec_eval's ``ndcg``).")
RBP = declare(
    BrowsingModel, "RBP", 2,
    [Param("p", "float", 0.8, 0.0, 1.0, True, True, rule="in the open interval (0, 1)", sample=(0.05, 0.95))],
    gain_free=True, formula="p", reference="Moffat & Zobel 2008", doc="Rank-biased precision: constant persistence p.")
# T >= 1/4 keeps C(i) in [0, 1] for every gain vector in [0, 1]^n: the denominator i + 2T - cg(i) is then
# >= 1/2 and the numerator is the denominator minus one.
INST = declare(
    BrowsingModel, "INST", 3,
    [_T(2.5, 0.25, rule="a finite number >= 0.25 (smaller T lets C(i) exceed 1)")],
    formula="((i - 1 + T + T_i) / (i + T + T_i))^2, T_i = T - cg(i)", reference="Moffat et al. 2015 (ADCS)",
    doc="INST: the user arrives wanting T units of gain and adapts to what was found.")
AP = declare(
    BrowsingModel, "AP", 4,
    [Param("R", "choice", "qrels", choices=(("qrels", 1.0), ("retrieved", 0.0)), rule="'qrels' or 'retrieved'",
           doc="qrels: times R_ret / R (trec_eval's map); retrieved: cwl_eval's AP")],
    formula="S(i+1) / S(i), S(i) = sum_{i<=j<=H} r_j / j; 0 where S(i) = 0", reference="Moffat et al. 2022",
    doc="Average precision's user: stops at relevant documents in proportion to r_i / i.")
ERR = declare(
    BrowsingModel, "ERR", 5, formula="1 - r_i", reference="Chapelle et al. 2009",
    doc="Expected reciprocal rank's cascade user: stops at rank i with probability r_i.")
RR = declare(
    BrowsingModel, "RR", 6, formula="1 if r_j = 0 for every j <= i else 0", reference="Kantor & Voorhees 2000",
    doc="Reciprocal rank's user: reads to the first document of positive gain (cwl_eval's RR).")
INSQ = declare(
    BrowsingModel, "INSQ", 7, [_T(1.0, sample=(0.1, 5.0))], gain_free=True,
    formula="((i + 2T - 1) / (i + 2T))^2", reference="Moffat, Scholer & Thomas 2012 (ADCS)",
    doc="INSQ: INST's static ancestor, T the gain the user wants.")
NERR8 = declare(
    BrowsingModel, "NERR8", 8, [_k(10)], formula="1 - r_i if i < k else 0",
    reference="Azzopardi, Mackenzie & Moffat 2021 (ICTIR), eq. 8",
    doc="Not-but-nearly ERR, eq. 8: ERR's cascade truncated at k.")
NERR9 = declare(
    BrowsingModel, "NERR9", 9, [_k(10)], formula="i / (i + 1) (1 - r_i) if i < k else 0",
    reference="Azzopardi, Mackenzie & Moffat 2021 (ICTIR), eq. 9",
    doc="Not-but-nearly ERR, eq. 9: the cascade with a reciprocal-rank discount, truncated at k.")
NERR10 = declare(
    BrowsingModel, "NERR10", 10,
    [Param("phi", "float", 0.9, 0.0, 1.0, sample=(0.05, 0.99), doc="persistence, as RBP's p")],
    formula="phi (1 - r_i)", reference="Azzopardi, Mackenzie & Moffat 2021 (ICTIR), eq. 10",
    doc="Not-but-nearly ERR, eq. 10: the cascade with RBP's persistence.")
NERR11 = declare(
    BrowsingModel, "NERR11", 11, [_T(1.0, sample=(0.1, 5.0))],
    formula="((i + 2T - 1) / (i + 2T))^2 (1 - r_i)", reference="Azzopardi, Mackenzie & Moffat 2021 (ICTIR), eq. 11",
    doc="Not-but-nearly ERR, eq. 11: the cascade with INSQ's persistence.")
BPM = declare(
    BrowsingModel, "BPM", 12,
    [Param("T", "float", 1.0, sample=(0.0, 4.0), doc="benefit wanted (E_b)"),
     Param("K", "float", 10.0, sample=(0.0, 12.0), doc="cost the user is willing to spend (E_c)"),
     Param("hb", "float", 0.0, sample=(-2.0, 2.0), doc="dynamic: T_{i+1} = T_i + hb (r_i - gain_med)"),
     Param("hc", "float", 0.0, sample=(-2.0, 2.0), doc="dynamic: K_{i+1} = K_i + hc (r_i - gain_med)"),
     Param("gain_med", "float", 0.5, 0.0, 1.0, doc="the median gain")],
    uses_costs=True,
    formula="1 if cg(i) < T_i and cc(i) < K_i else 0; T_1 = T, K_1 = K, T_{i+1} = T_i + hb (r_i - gain_med), "
            "K_{i+1} = K_i + hc (r_i - gain_med)",
    reference="Zhang et al. 2017 (SIGIR), the Bejeweled Player Model",
    doc="Bejeweled player: reads on until the benefit T or the cost budget K is reached (static: hb = hc = 0). "
        "cwl_eval 1.0.12's BPMDCWLMetric never updates K (its hc has no effect): it is BPM with hc = 0.")
TBG = declare(
    BrowsingModel, "TBG", 13,
    [Param("H", "float", 224.0, 0.0, 1e100, lo_open=True, sample=(0.5, 50.0), doc="half-life, in cost units")],
    gain_free=True, uses_costs=True, formula="2^(-c_i / H): V(i) = 2^(-cc(i-1) / H)",
    reference="Smucker & Clarke 2012 (SIGIR)",
    doc="Time-biased gain: attention decays with the time (cost) spent, half-life H. cwl_eval stops the user "
        "at its depth (set stop=true to match it).")
U = declare(
    BrowsingModel, "U", 14,
    [Param("L", "float", 1000.0, 0.0, 1e100, lo_open=True, sample=(0.5, 30.0), doc="reading budget, in cost units")],
    gain_free=True, uses_costs=True,
    formula="max(0, 1 - cc(i) / L) / (1 - cc(i-1) / L): V(i) = max(0, 1 - cc(i-1) / L)",
    reference="Sakai & Dou 2013 (SIGIR), the U-measure",
    doc="U-measure: the user's attention falls linearly with the text read, to 0 at L. cwl_eval also sets "
        "W(H) = 0 at its depth H: its U is this one at depth H - 1 with stop=true (what cwla cwl computes).")
_GOAL = [Param("T", "float", 2.0, sample=(0.0, 4.0), doc="the goal (gain wanted)"),
         Param("b1", "float", 0.9, 0.0, 1e100, sample=(0.0, 3.0), doc="intercept"),
         Param("R1", "float", 10.0, 0.0, 1e100, sample=(0.0, 20.0), doc="rationality")]
_RATE = [Param("A", "float", 0.2, sample=(0.0, 1.0), doc="the rate of gain expected"),
         Param("b2", "float", 0.9, 0.0, 1e100, sample=(0.0, 3.0), doc="intercept"),
         Param("R2", "float", 10.0, 0.0, 1e100, sample=(0.0, 20.0), doc="rationality")]
IFTGoal = declare(
    BrowsingModel, "IFTGoal", 15, _GOAL, formula="1 - 1 / (1 + b1 e^((T - cg(i)) R1))",
    reference="Azzopardi, Thomas & Craswell 2018 (SIGIR)",
    doc="Information foraging, goal only: the user stops as the goal T comes near.")
IFTRate = declare(
    BrowsingModel, "IFTRate", 16, _RATE, uses_costs=True, formula="1 / (1 + b2 e^((A - cg(i) / cc(i)) R2))",
    reference="Azzopardi, Thomas & Craswell 2018 (SIGIR)",
    doc="Information foraging, rate only: the user stops when the rate of gain falls below A.")
IFT = declare(
    BrowsingModel, "IFT", 17, _GOAL + _RATE, uses_costs=True,
    formula="IFTGoal's C(i) times IFTRate's C(i)", reference="Azzopardi, Thomas & Craswell 2018 (SIGIR)",
    doc="Information foraging, goal and rate.")
SET = declare(
    BrowsingModel, "SET", 18,
    [Param("beta", "float", 0.5, 0.0, 1.0, lo_open=True, sample=(0.05, 1.0), doc="diminishing returns"), _k(10)],
    gain_free=True, formula="w(i+1) / w(i) if i < k else 0, w(i) = (i+1)^beta - i^beta",
    reference="Azzopardi 2014 (SIGIR), cwl_eval's SETCWLMetric",
    doc="Search economic theory's user, as cwl_eval 1.0.12 implements it (its w(i) is the marginal gain of "
        "rank i + 1 of the paper's i^beta).")
NPV = declare(
    BrowsingModel, "NPV", 19,
    [Param("rate", "float", 0.1, 0.0, 1e100, sample=(0.0, 3.0), doc="discount rate")],
    gain_free=True, formula="1 / (1 + rate)", reference="Azzopardi, Thomas & Moffat 2019 (cwl_eval)",
    doc="Net present value: RBP with p = 1 / (1 + rate).")

Reciprocal = declare(
    BrowsingModel, "Reciprocal", 22, [_k(10, none="none")], gain_free=True,
    formula="i / (i + 1) if i < k (or k=none) else 0: V(i) = 1 / i", reference="Clarke et al. 2008 / ndeval's ERR-IA",
    doc="The reciprocal-rank discount: V(i) = 1 / i for i <= k, the discount of ndeval's ERR-IA and nERR-IA over "
        "novelty-discounted gains (with ETG: sum_i g_i / i).")


# ---------------------------------------------------------------------------
# user-defined: tabulated models
# ---------------------------------------------------------------------------

#: the longest table of a tabulated model
MAX_TABLE = 100_000

#: name -> Tabulated, the tables users register (:func:`register_table`) and name in metric texts
TABLES: dict = {}


def _values(values: Sequence[float] | Mapping[int, float]) -> tuple:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ParameterError(f"a table must be a sequence of numbers (C(1), C(2), ... or W(1), W(2), ...), got {values!r}")
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)) and not hasattr(v, "__float__"):
            raise ParameterError(f"a table holds numbers, got {v!r}")
        out.append(float(v))
    return tuple(out)


def _check_table(instance: object, attribute: attrs.Attribute, value: tuple) -> None:
    if not 1 <= len(value) <= MAX_TABLE:
        raise CwlaError(f"a tabulated model needs 1 to {MAX_TABLE:,} values, got {len(value)}")
    for i, v in enumerate(value, 1):
        if not math.isfinite(v) or v < 0 or (instance.of == "C" and v > 1):
            accepted = "in [0, 1]" if instance.of == "C" else "finite and >= 0"
            raise CwlaError(f"{instance.of}({i}) of a tabulated model must be {accepted}: {v!r}")
    if instance.of == "W" and value[0] <= 0:
        raise CwlaError(f"W(1) of a tabulated model must be > 0 (every user reads rank 1): {value[0]!r}")
    if instance.of == "W":
        for i in range(1, len(value)):
            if value[i] > value[i - 1]:
                raise CwlaError(f"W of a tabulated model must not increase (V(i) = W(i) / W(1) is the chance of "
                                 f"reaching rank i): W({i + 1}) = {value[i]!r} > W({i}) = {value[i - 1]!r}")


def _check_of(instance: object, attribute: attrs.Attribute, value: str) -> None:
    if value not in ("C", "W"):
        raise CwlaError(f"'of' of a tabulated model must be 'C' or 'W': {value!r}")


def _check_name(instance: object, attribute: attrs.Attribute, value: str | None) -> None:
    if value is not None and (not isinstance(value, str) or not value.isidentifier()):
        raise CwlaError(f"the name of a tabulated model must be an identifier (letters, digits, _): {value!r}")


@attrs.frozen
class Tabulated(BrowsingModel):
    """A browsing model given as a table: ``of="C"``, the continuation probabilities C(1), ..., C(n)
    (a position-based model, e.g. fitted to clicks); ``of="W"``, attention weights W(1), ..., W(n)
    (any positive scale, non-increasing: V(i) = W(i) / W(1), so C(i) = W(i+1) / W(i), 0 where W(i) = 0). Past the
    table C is 0: the user stops at rank n at the latest.

    Text: ``Tabulated(C={1:0.9, 2:0.8, 3:0.5})``, ``Tabulated(W={1:1, 2:0.63, 3:0.5})``, or, for a
    table registered with :func:`register_table`, ``Tabulated(name=clicks)``.
    """

    values: tuple = attrs.field(converter=_values, validator=_check_table)
    of: str = attrs.field(default="C", validator=_check_of)
    name: str | None = attrs.field(default=None, validator=_check_name, eq=False)
    code = 20
    gain_free = True
    formula = "C(i) from the table (of='C'), or W(i+1) / W(i) (of='W'); 0 past the table"
    reference = "--"

    @property
    def continuation(self) -> tuple:
        """C(1), ..., C(n)."""
        if self.of == "C":
            return self.values
        w = self.values
        return tuple(w[i + 1] / w[i] if w[i] > 0 and i + 1 < len(w) else 0.0 for i in range(len(w)))

    @property
    def params(self) -> tuple[float, ...]:
        """The float parameters passed to the kernel: the table's length."""
        return (float(len(self.values)),)

    def __str__(self) -> str:
        if self.name is not None and TABLES.get(self.name) == self:
            return f"Tabulated(name={self.name})"
        return f"Tabulated({self.of}={{{', '.join(f'{i}:{fmt(v)}' for i, v in enumerate(self.values, 1))}}})"


def tabulated(C: Sequence[float] | Mapping[int, float] | None = None,
              W: Sequence[float] | Mapping[int, float] | None = None) -> Tabulated:
    """A :class:`Tabulated` model from C(1..n) or from W(1..n) (a sequence, or a dict {rank: value} with
    ranks 1..n)."""
    if (C is None) == (W is None):
        raise CwlaError("tabulated() takes either C (continuation probabilities) or W (attention weights)")
    table, of = (C, "C") if C is not None else (W, "W")
    if isinstance(table, dict):
        ranks = sorted(table)
        if ranks != list(range(1, len(ranks) + 1)):
            raise CwlaError(f"a tabulated model's ranks must be 1, 2, ..., n without gaps, got {ranks[:10]}")
        table = [table[r] for r in ranks]
    return Tabulated(table, of)


def register_table(name: str, C: Sequence[float] | Mapping[int, float] | None = None,
                   W: Sequence[float] | Mapping[int, float] | None = None) -> Tabulated:
    """Register a tabulated model under ``name`` so that ``Tabulated(name=NAME)`` parses to it (and it
    prints so); returns the model. Registering a name again replaces it."""
    model = attrs.evolve(tabulated(C, W), name=name)
    TABLES[name] = model
    return model


# ---------------------------------------------------------------------------
# user-defined: adaptive models (a numba function)
# ---------------------------------------------------------------------------

#: the kernel code every adaptive (user-function) model shares; the function itself picks the kernel
ADAPTIVE_CODE = 21

#: name -> class of the adaptive models users register (:func:`cwla.metrics.register.register_model`)
USER_MODELS: dict = {}


class AdaptiveModel(BrowsingModel):
    """Base class of the models made by :func:`register_model`: C(i) = function(i, r_i, cg(i), params)."""

    code = ADAPTIVE_CODE


def adaptive_function(model: BrowsingModel) -> object | None:
    """The numba function of an adaptive model (:func:`register_model`), else None. (Read from the class:
    a numba function reached through an instance is a new bound method each time.)"""
    return vars(type(model)).get("function") if isinstance(model, AdaptiveModel) else None


#: Chen & Sakai's six models, in their order (the grid's rows)
BROWSING_MODELS = {"Precision": Precision, "DCG": DCG, "RBP": RBP, "INST": INST, "AP": AP, "ERR": ERR}

#: every built-in browsing model, by name, in declaration order (the parser's table): every class declared
#: in this module (an adaptive model a user registers is in USER_MODELS instead)
MODELS = MappingProxyType({cls.__name__: cls for cls in BrowsingModel.__subclasses__() if cls is not AdaptiveModel})

#: model name -> kernel code (cwla.scoring.kernels reads its constants from here)
CODES = MappingProxyType({**{name: cls.code for name, cls in MODELS.items()}, "Adaptive": ADAPTIVE_CODE})
if len(set(CODES.values())) != len(CODES):  # a declaration error, found at import
    raise RuntimeError(f"cwla.metrics.browsing: two browsing models share a kernel code: {dict(CODES)}")
