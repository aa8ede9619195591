"""Browsing models C(i): the conditional probability that a user at rank i goes on to rank i+1.

From C the framework derives V(1) = 1, V(i+1) = V(i) C(i), the stopping
distribution L(i) = V(i) (1 - C(i)) and the expected depth E = sum V(i)
(Moffat et al., SIGIR 2022; Moffat, Bailey, Scholer & Thomas, ADCS 2015).

=================  ======================================================  ==============================
model              C(i)                                                    reference
=================  ======================================================  ==============================
``Precision(k)``   1 if i < k else 0                                       --
``DCG(k)``         log2(i+1) / log2(i+2) if i < k (or k=none) else 0       Jarvelin & Kekalainen 2002
``RBP(p)``         p                                                       Moffat & Zobel 2008
``INST(T)``        ((i - 1 + T + T_i) / (i + T + T_i))^2, T_i = T - cg(i)  Moffat et al. 2015
``AP(R)``          S(i+1) / S(i), S(i) = sum_{i<=j<=H} r_j / j             Moffat et al. 2022
``ERR``            1 - r_i                                                 Chapelle et al. 2009
=================  ======================================================  ==============================

AP's ``R`` is ``"qrels"`` (default: the score is multiplied by R_ret / R, so
AP+ERG with binary gains is trec_eval's ``map``) or ``"retrieved"`` (cwl_eval's AP).
"""

from __future__ import annotations

import math
import numbers
from typing import ClassVar

import attrs

from .gains import _fmt

__all__ = ["BrowsingModel", "Precision", "DCG", "RBP", "INST", "AP", "ERR", "BROWSING_MODELS"]


def _strict_int(value):
    """An int from an int or an integral float; a bool, a string or 2.5 is a TypeError."""
    if isinstance(value, (bool, str, bytes)) or not isinstance(value, numbers.Real):
        raise TypeError(f"expected an integer, got {value!r}")
    try:
        integral = float(value).is_integer()
    except OverflowError:
        raise ValueError(f"expected an integer of a usable size, got {str(value)[:20]}...") from None
    if not integral:
        raise TypeError(f"expected an integer, got {value!r}")
    return int(value)


#: the largest k of Precision@k and DCG@k (the kernels walk the ranking up to k; as the largest depth)
MAX_K = 1_000_000
#: cutoffs (a metric's, a counting measure's k, trec_eval's -M) are clipped to this before they reach the
#: kernels: far past any ranking, so nothing changes, and within int64
MAX_CUTOFF = 10**15


def _rank_k(instance, attribute, value):
    if not 1 <= value <= MAX_K:
        raise ValueError(f"'k' of {type(instance).__name__} must be an integer in [1, {MAX_K:,}]: {value}")


class BrowsingModel:
    """Base class of the browsing models. ``code`` and ``params`` are what the kernels see."""

    code: ClassVar[int]
    #: True when C(i) does not depend on the gains (Precision, DCG, RBP).
    gain_free: ClassVar[bool]

    @property
    def params(self) -> tuple:
        """The float parameters passed to the kernel."""
        raise NotImplementedError


@attrs.frozen
class Precision(BrowsingModel):
    """Precision@k: the user reads exactly k documents."""

    k: int = attrs.field(default=10, converter=_strict_int, validator=_rank_k)
    code: ClassVar[int] = 0
    gain_free: ClassVar[bool] = True

    @property
    def params(self):
        return (float(self.k),)

    def __str__(self):
        return f"Precision(k={self.k})"


def _optional_rank_k(instance, attribute, value):
    if value is not None:
        _rank_k(instance, attribute, value)


@attrs.frozen
class DCG(BrowsingModel):
    """DCG@k: V(i) = 1 / log2(i+1) for i <= k (``k=None``: for every rank up to the depth,
    trec_eval's ``ndcg`` without a cutoff)."""

    k: int | None = attrs.field(default=10, converter=attrs.converters.optional(_strict_int),
                                validator=_optional_rank_k)
    code: ClassVar[int] = 1
    gain_free: ClassVar[bool] = True

    @property
    def params(self):
        return (math.inf if self.k is None else float(self.k),)

    def __str__(self):
        return f"DCG(k={'none' if self.k is None else self.k})"


def _open_unit(instance, attribute, value):
    if not 0.0 < value < 1.0:
        raise ValueError(f"'p' of RBP must be in the open interval (0, 1): {value}")


@attrs.frozen
class RBP(BrowsingModel):
    """Rank-biased precision: constant persistence p."""

    p: float = attrs.field(default=0.8, converter=float, validator=_open_unit)
    code: ClassVar[int] = 2
    gain_free: ClassVar[bool] = True

    @property
    def params(self):
        return (self.p,)

    def __str__(self):
        return f"RBP(p={_fmt(self.p)})"


def _inst_t(instance, attribute, value):
    # T >= 1/4 keeps C(i) in [0, 1] for every gain vector in [0, 1]^n: the denominator
    # i + 2T - cg(i) is then >= 1/2 and the numerator is the denominator minus one.
    if not 0.25 <= value <= 1e100:
        raise ValueError(f"'T' of INST must be a finite number >= 0.25 (smaller T lets C(i) exceed 1): {value}")


@attrs.frozen
class INST(BrowsingModel):
    """INST: the user arrives wanting T units of gain and adapts to what was found."""

    T: float = attrs.field(default=2.5, converter=float, validator=_inst_t)
    code: ClassVar[int] = 3
    gain_free: ClassVar[bool] = False

    @property
    def params(self):
        return (self.T,)

    def __str__(self):
        return f"INST(T={_fmt(self.T)})"


def _ap_r(instance, attribute, value):
    if value not in ("qrels", "retrieved"):
        raise ValueError(f"'R' of AP must be 'qrels' or 'retrieved': {value!r}")


@attrs.frozen
class AP(BrowsingModel):
    """Average precision's user: stops at relevant documents in proportion to r_i / i."""

    R: str = attrs.field(default="qrels", validator=_ap_r)
    code: ClassVar[int] = 4
    gain_free: ClassVar[bool] = False

    @property
    def params(self):
        # 1: multiply by R_ret / R (R from the qrels); 0: cwl_eval's AP over the retrieved
        return (1.0 if self.R == "qrels" else 0.0,)

    def __str__(self):
        return f"AP(R={self.R})"


@attrs.frozen
class ERR(BrowsingModel):
    """Expected reciprocal rank's cascade user: stops at rank i with probability r_i."""

    code: ClassVar[int] = 5
    gain_free: ClassVar[bool] = False

    @property
    def params(self):
        return (0.0,)

    def __str__(self):
        return "ERR"


#: Name -> class, in Chen & Sakai's order.
BROWSING_MODELS = {"Precision": Precision, "DCG": DCG, "RBP": RBP, "INST": INST, "AP": AP, "ERR": ERR}
