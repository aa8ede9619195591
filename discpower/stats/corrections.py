"""The multiple-comparison corrections of statsmodels' ``multipletests``, in numpy, and their names.

:func:`adjust_pvalues` gives the adjusted p-values of k comparisons, ``p_(1) <= ... <= p_(k)`` sorted:

* Bonferroni ``min(1, k p_i)``; Sidak ``1 - (1 - p_i)^k``;
* Holm ``max_{j <= i} min(1, (k - j + 1) p_(j))`` (step-down), Holm-Sidak the same with Sidak's step;
* Simes-Hochberg ``min_{j >= i} min(1, (k - j + 1) p_(j))`` (step-up); Hommel's closed procedure;
* Benjamini-Hochberg ``min_{j >= i} min(1, k p_(j) / j)`` (false discovery rate), Benjamini-Yekutieli
  the same times ``sum_{j=1}^k 1/j``, and the two-stage procedures at ``alpha``.

Each is checked against statsmodels on random p-values (the tests); the names are statsmodels' (with its
aliases) and ``"bh"``.

References
----------
Holm, "A simple sequentially rejective multiple test procedure", Scand. J. Stat. 6, 1979.
Hochberg, "A sharper Bonferroni procedure for multiple tests of significance", Biometrika 75, 1988.
Hommel, "A stagewise rejective multiple test procedure based on a modified Bonferroni test", Biometrika 75, 1988.
Benjamini & Hochberg, "Controlling the false discovery rate", J. R. Stat. Soc. B 57, 1995.
Benjamini & Yekutieli, "The control of the false discovery rate in multiple testing under dependency",
Ann. Stat. 29, 2001.
Benjamini, Krieger & Yekutieli, "Adaptive linear step-up procedures that control the false discovery rate",
Biometrika 93, 2006.
"""

from __future__ import annotations

import difflib

import numpy as np

from .._params import ALPHA, validated
from ..errors import DiscpowerError
from ..typing import ArrayLike
from .matrix import float_array

__all__ = ["adjust_pvalues", "check_correction", "correction_name", "nearest_corrections", "CORRECTIONS", "CORRECTION_NAMES",
           "STATSMODELS_ALIASES"]

#: the names :func:`adjust_pvalues` accepts: None, statsmodels' ``multipletests`` methods, and ``"bh"``
#: (discpower's first name of ``"fdr_bh"``)
CORRECTIONS = (None, "holm", "bonferroni", "bh", "sidak", "holm-sidak", "simes-hochberg", "hommel", "fdr_bh",
               "fdr_by", "fdr_tsbh", "fdr_tsbky")
#: each correction in words (captions)
CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg", "sidak": "Sidak",
                    "holm-sidak": "Holm-Sidak", "simes-hochberg": "Simes-Hochberg", "hommel": "Hommel",
                    "fdr_bh": "Benjamini-Hochberg", "fdr_by": "Benjamini-Yekutieli",
                    "fdr_tsbh": "two-stage Benjamini-Hochberg", "fdr_tsbky": "two-stage Benjamini-Krieger-Yekutieli"}
#: statsmodels' own other names of the same methods (``multipletests(method=...)``): accepted as they are
STATSMODELS_ALIASES = {"b": "bonferroni", "bonf": "bonferroni", "s": "sidak", "h": "holm", "hs": "holm-sidak", "sh": "simes-hochberg",
                       "ho": "hommel", "fdr_i": "fdr_bh", "fdr_p": "fdr_bh", "fdri": "fdr_bh", "fdrp": "fdr_bh",
                       "fdr_n": "fdr_by", "fdr_c": "fdr_by", "fdrn": "fdr_by", "fdrcorr": "fdr_by",
                       "fdr_2sbh": "fdr_tsbh", "fdr_2sbky": "fdr_tsbky", "fdr_twostage": "fdr_tsbky"}
#: other names people give the methods: not accepted, but suggested
_SUGGESTED = {"benjamini-hochberg": "bh", "benjamini-yekutieli": "fdr_by",
              "hochberg": "simes-hochberg", "bonferroni-holm": "holm"}


def correction_name(text: object) -> str | None:
    """The canonical name (one of :data:`CORRECTIONS`) of a correction written as cwla writes it, as statsmodels
    does (:data:`STATSMODELS_ALIASES`: ``"hs"``) or in another case or separator (``"holm_sidak"``, ``"BH"``);
    None for anything else."""
    if not isinstance(text, str):
        return None
    if text in CORRECTIONS:
        return text
    if text.lower() in STATSMODELS_ALIASES:  # statsmodels lowercases the method's name
        return STATSMODELS_ALIASES[text.lower()]
    spelled = {_key(c): c for c in CORRECTIONS if c}
    return spelled.get(_key(text))


def _key(text: str) -> str:
    return text.lower().replace("-", "").replace("_", "").replace(" ", "")


def check_correction(correction: object) -> str | None:
    """``correction``'s canonical name (:func:`correction_name`: ``"hs"`` and ``"holm_sidak"`` are
    ``'holm-sidak'``), None for None, else a DiscpowerError that lists the accepted names and suggests the
    nearest."""
    if correction is None:
        return None
    name = correction_name(correction)
    if name is not None:
        return name
    names = [c for c in CORRECTIONS if c is not None]
    message = (f"The 'correction' parameter must be None, 'holm', 'bonferroni' or 'bh' (Benjamini-Hochberg), or one "
               f"of statsmodels' multipletests methods (by these names or statsmodels' aliases, e.g. 'hs') "
               f"{', '.join(repr(c) for c in names[3:])}. Got {correction!r} instead")
    near = nearest_corrections(correction)
    if near:
        raise DiscpowerError(f"{message}; did you mean {' or '.join(repr(c) for c in near)}?")
    raise DiscpowerError(message + ".")


def nearest_corrections(text: object) -> list[str]:
    """The corrections a mistyped name most likely meant (its key spelled otherwise, or the closest names and
    aliases); none for what is not a string."""
    if not isinstance(text, str):
        return []
    keys = {_key(c): c for c in CORRECTIONS if c is not None}
    keys.update({_key(alias): c for alias, c in {**STATSMODELS_ALIASES, **_SUGGESTED}.items()})
    given = _key(text)
    if given in keys:
        return [keys[given]]
    return list(dict.fromkeys(keys[k] for k in difflib.get_close_matches(given, list(keys), n=3, cutoff=0.6)))


@validated({"alpha": ALPHA})
def adjust_pvalues(p: ArrayLike, correction: str | None, *, alpha: float = 0.05) -> np.ndarray:
    """Adjust a family of p-values for multiple comparisons (statsmodels' ``multipletests`` in numpy).

    With the family's k p-values sorted ``p_(1) <= ... <= p_(k)`` (``p~`` the adjusted value, each
    capped at 1; rejecting ``p~ < alpha`` is the procedure at level alpha):

    * ``"bonferroni"``: ``p~_i = k p_i`` (single step, family-wise error).
    * ``"sidak"`` (Sidak 1967): ``p~_i = 1 - (1 - p_i)^k``, computed as ``-expm1(k log1p(-p_i))``
      (single step; exact family-wise error for independent tests).
    * ``"holm"`` (Holm 1979, step-down): ``p~_(r) = max_{s <= r} (k - s + 1) p_(s)`` -- the running
      maximum keeps the adjusted values in the order of the raw ones.
    * ``"holm-sidak"`` (Holm 1979 with Sidak's steps): ``p~_(r) = max_{s <= r} 1 - (1 - p_(s))^(k - s + 1)``.
    * ``"simes-hochberg"`` (Hochberg 1988, step-up, from Simes 1986):
      ``p~_(r) = min_{s >= r} (k - s + 1) p_(s)``.
    * ``"hommel"`` (Hommel 1988, the closed test of Simes tests; adjusted p-values by Wright 1992's
      algorithm): start from ``a = p``; for each j = k, k - 1, ..., 2, with
      ``c_j = min_{s=1..j} j p_(k-j+s) / s`` (the Simes test of the j largest), ``a_(r) = max(a_(r), c_j)``
      for the j largest and ``a_(r) = max(a_(r), min(j p_(r), c_j))`` for the others.
    * ``"fdr_bh"`` = ``"bh"`` (Benjamini & Hochberg 1995, step-up, false discovery rate):
      ``p~_(r) = min_{s >= r} k p_(s) / s``.
    * ``"fdr_by"`` (Benjamini & Yekutieli 2001, false discovery rate under any dependence):
      ``p~_(r) = min_{s >= r} c_k k p_(s) / s`` with ``c_k = sum_{i=1..k} 1 / i``.
    * ``"fdr_tsbh"`` and ``"fdr_tsbky"`` (Benjamini, Krieger & Yekutieli 2006, two-stage adaptive
      step-up; statsmodels' default ``maxiter=1``): these depend on ``alpha``. With
      ``f = 1 + alpha`` (tsbky; definition 6 of the paper) or ``f = 1`` (tsbh), ``alpha' = alpha / f``;
      stage 1 is BH at ``alpha'``: ``r_1 = max{r : p_(r) <= r alpha' / k}`` rejections (0 if none). Then
      ``p~ = f p~_BH`` if ``r_1`` is 0 or k, else ``p~ = f p~_BH (k - r_1) / k`` (the BH adjusted values
      scaled by the estimated share of true null hypotheses, ``k_0 = k - r_1``).

    Each equals ``statsmodels.stats.multitest.multipletests(p, alpha, method)[1]`` (to rounding; the tests
    check 1e-12). Tied p-values get equal adjusted values.

    Parameters
    ----------
    p : array-like of float, 1-dimensional
        The unadjusted p-values of the family (here the C(m, 2) pairs), each in [0, 1].
    correction : one of :data:`CORRECTIONS`
        None (the p-values unchanged), ``"bonferroni"``, ``"sidak"``, ``"holm"``, ``"holm-sidak"``,
        ``"simes-hochberg"``, ``"hommel"``, ``"bh"`` / ``"fdr_bh"``, ``"fdr_by"``, ``"fdr_tsbh"``,
        ``"fdr_tsbky"``.
    alpha : float in (0, 1)
        The level of the two-stage procedures (checked always; unused by the others, whose adjusted values hold
        for any level).

    Returns
    -------
    ndarray
        The adjusted p-values, in the input order.

    Raises
    ------
    DiscpowerError
        An unknown correction (with the accepted names and a suggestion), p not 1-dimensional, a p-value
        outside [0, 1] or NaN.

    References
    ----------
    Holm, "A simple sequentially rejective multiple test procedure", Scand. J. Stat. 6, 1979.
    Sidak, "Rectangular confidence regions for the means of multivariate normal distributions", JASA 62, 1967.
    Simes, "An improved Bonferroni procedure for multiple tests of significance", Biometrika 73, 1986.
    Hochberg, "A sharper Bonferroni procedure for multiple tests of significance", Biometrika 75, 1988.
    Hommel, "A stagewise rejective multiple test procedure based on a modified Bonferroni test", Biometrika
    75, 1988. Wright, "Adjusted p-values for simultaneous inference", Biometrics 48, 1992.
    Benjamini & Hochberg, "Controlling the false discovery rate: a practical and powerful approach
    to multiple testing", J. R. Stat. Soc. B 57, 1995.
    Benjamini & Yekutieli, "The control of the false discovery rate in multiple testing under dependency",
    Ann. Stat. 29, 2001.
    Benjamini, Krieger & Yekutieli, "Adaptive linear step-up procedures that control the false discovery
    rate", Biometrika 93, 2006.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03, 0.5], "holm").tolist()
    [0.04, 0.09, 0.09, 0.5]
    >>> adjust_pvalues([0.01, 0.04, 0.03, 0.5], "hommel").round(4).tolist()
    [0.04, 0.08, 0.06, 0.5]
    """
    correction = check_correction(correction)
    p = float_array(p, 1, "adjust_pvalues: p must be a vector of p-values (floats in [0, 1])",
                    lambda a: f"adjust_pvalues: p must be a 1-dimensional vector of p-values; got shape {a.shape}")
    bad = np.flatnonzero(~((p >= 0.0) & (p <= 1.0)))
    if bad.size:
        raise DiscpowerError(f"adjust_pvalues: a p-value must be a float in [0, 1]; p[{bad[0]}] = {float(p[bad[0]])!r} "
                             f"({bad.size} such value{'s' if bad.size > 1 else ''})")
    k = p.size
    if correction is None or k == 0:
        return p.copy()
    if correction == "bonferroni":
        return np.minimum(1.0, k * p)
    if correction == "sidak":
        with np.errstate(divide="ignore"):  # log1p(-1) = -inf: a p-value of 1 stays 1
            return np.minimum(1.0, -np.expm1(k * np.log1p(-p)))
    order = np.argsort(p, kind="stable")
    s = p[order]
    steps = np.arange(k, 0, -1)  # k - r + 1 at rank r
    if correction == "holm":
        stepped = np.maximum.accumulate(steps * s)
    elif correction == "holm-sidak":
        with np.errstate(divide="ignore"):
            stepped = np.maximum.accumulate(-np.expm1(steps * np.log1p(-s)))
    elif correction == "simes-hochberg":
        stepped = np.minimum.accumulate((steps * s)[::-1])[::-1]
    elif correction == "hommel":
        stepped = _hommel(s)
    elif correction == "fdr_by":
        harmonic = np.sum(1.0 / np.arange(1, k + 1))
        stepped = np.minimum.accumulate((s / (np.arange(1, k + 1) / float(k) / harmonic))[::-1])[::-1]
    else:  # the BH family: "bh", "fdr_bh" and the two-stage procedures built on it
        stepped = _bh(s)
        if correction in ("fdr_tsbh", "fdr_tsbky"):
            stepped = _two_stage(s, np.minimum(1.0, stepped), alpha, bky=correction == "fdr_tsbky")
    out = np.empty(k)
    out[order] = np.minimum(1.0, stepped)
    return out


def _bh(s):
    """Benjamini-Hochberg adjusted values of sorted p-values (not capped)."""
    k = s.size
    return np.minimum.accumulate((k * s / np.arange(1, k + 1))[::-1])[::-1]


def _hommel(s):
    """Hommel's adjusted values of sorted p-values, by Wright (1992)'s algorithm (statsmodels' loop)."""
    k = s.size
    a = s.copy()
    for j in range(k, 1, -1):
        c = np.min(j * s[-j:] / np.arange(1, j + 1.0))
        a[-j:] = np.maximum(a[-j:], c)
        a[:-j] = np.maximum(a[:-j], np.minimum(j * s[:-j], c))
    return a


def _two_stage(s, bh, alpha, bky):
    """The two-stage adaptive BH values (Benjamini, Krieger & Yekutieli 2006; statsmodels' maxiter=1) of
    sorted p-values ``s`` whose capped BH values are ``bh``."""
    k = s.size
    fact = 1.0 + alpha if bky else 1.0
    below = s <= np.arange(1, k + 1) / float(k) * (alpha / fact)  # stage 1: BH at alpha / fact
    r1 = int(np.flatnonzero(below).max()) + 1 if below.any() else 0
    out = bh.copy()
    if r1 in (0, k):
        return out * fact
    out *= (1.0 * k - r1) / k
    if bky:
        out *= 1.0 + alpha
    return out
