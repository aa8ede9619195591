"""Intent-aware (diversity) evaluation as parts of the C/W/L/A language: what a metric's ``intents`` option says.

A topic has subtopics (intents) s = 1..S, judged in subtopic qrels (``topic subtopic docno grade``, ndeval's
format: :func:`cwla.read_subtopics`; a small sample drawn from any qrels: ``cwla.synthetic.subtopics(qrels)``;
ordinary qrels read as subtopic qrels have one subtopic per topic, and a warning says so); a document is relevant to s when its grade for s is >= the metric's
relevance level (ndeval binarises at 1). Only the subtopics with a relevant document count (S of them).
Two ways turn such judgements into what a browsing model reads:

- :class:`Novelty` (``intents=novelty(alpha=0.5)``): the **novelty-discounted gain** of the document at rank i,
  r_i = (1/S) sum_s J(d_i, s) (1 - alpha)^{c_s(i-1)}, c_s(i-1) the documents above i relevant to s (Clarke et
  al., SIGIR 2008). Every browsing model and aggregation composes with it. The ideal ranking (``normalize=ideal``)
  is ndeval's greedy one: at each rank the judged document of largest gain given those above (ties: the largest
  docno). ``normalize=full`` divides by the ranking every document of which is relevant to every subtopic
  (r_i = (1 - alpha)^{i-1}), ndeval's normaliser of alpha-DCG, ERR-IA and NRBP.
- :class:`IntentAware` (``intents=ia``): the metric computed on each subtopic's binary judgements alone,
  averaged over the topic's subtopics, P(s|q) = 1/S (Agrawal et al., WSDM 2009) -- P-IA, AP-IA.

ndeval's measures, by these parts (ir_measures' names; checked against pyndeval):

=================  =========================================================================================
``alpha_nDCG@k``   DCG(k)+ETG over novelty(alpha) gains, normalize=ideal
``alpha_DCG@k``    DCG(k)+ETG over novelty(alpha) gains, normalize=full
``ERR_IA@k``       Reciprocal(k)+ETG over novelty(0.5) gains, normalize=full
``nERR_IA@k``      Reciprocal(k)+ETG over novelty(0.5) gains, normalize=ideal
``NRBP``           RBP(beta)+ETG over novelty(alpha) gains, depth 1000, normalize=full
``nNRBP``          RBP(beta)+ETG over novelty(alpha) gains, depth 1000, normalize=ideal
``P_IA@k``         Precision(k)+ERG, intents=ia (= Precision(k)+ERG over novelty(0) gains)
``AP_IA``          AP+ERG, intents=ia (R = the subtopic's relevant documents)
``StRecall@k``     Precision(k)+ETG over novelty(1) gains (the fraction of the subtopics covered in the top k)
=================  =========================================================================================

Where ndeval differs from this: at k = 1 ndeval leaves alpha-DCG@1 and ERR-IA@1 unnormalised (they equal the
number of subtopics the first document covers); cwla normalises them as at every other k. pyndeval orders a
run by score, ties by docno ascending; cwla by trec_eval's rule (ties by docno descending).
"""

from __future__ import annotations

import math

import attrs

from .._validate import fmt
from ..errors import CwlaError

__all__ = ["Intents", "Novelty", "IntentAware"]


class Intents:
    """Base class of the ways a metric reads subtopic judgements."""


def _unit(instance: object, attribute: attrs.Attribute, value: float) -> None:
    if not (isinstance(value, float) and math.isfinite(value) and 0.0 <= value <= 1.0):
        raise CwlaError(f"'alpha' of novelty must be a number in [0, 1]: {value!r}")


@attrs.frozen
class Novelty(Intents):
    """Novelty-discounted gains: r_i = (1/S) sum_s J(d_i, s) (1 - alpha)^{c_s(i-1)} (Clarke et al. 2008)."""

    alpha: float = attrs.field(default=0.5, converter=float, validator=_unit)

    def __str__(self) -> str:
        return f"novelty(alpha={fmt(self.alpha)})"


@attrs.frozen
class IntentAware(Intents):
    """The metric on each subtopic's binary judgements, averaged over the topic's subtopics (Agrawal et al. 2009)."""

    def __str__(self) -> str:
        return "ia"
