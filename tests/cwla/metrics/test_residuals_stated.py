"""The residuals are what docs/metrics.md says they are (issue 22): the value in the upper world minus the
value, with AP's R and the counting measures' R growing by the unjudged documents; >= 0 for the gain-free
browsing models, possibly negative for AP (and the measures with R in a denominator)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cwla
from cwla import synthetic
from cwla.metrics.aggregations import AGGREGATIONS
from cwla.metrics.browsing import MODELS

CATALOGUE = Path(__file__).resolve().parents[3] / "docs" / "metrics.md"

# one topic, one relevant document (d1) at rank 1, four judged non-relevant ones, one unjudged (x1) at rank 6
QRELS = pd.DataFrame({"topic": ["t1"] * 6, "docno": ["d1", "n1", "n2", "n3", "n4", "n5"], "grade": [1, 0, 0, 0, 0, 0]})
RUN = pd.DataFrame({"topic": ["t1"] * 6, "docno": ["d1", "n1", "n2", "n3", "n4", "x1"],
                    "score": [10.0, 9.0, 8.0, 7.0, 6.0, 5.0]})
R, N_RET, U = 1, 6, 1  # relevant in the qrels, retrieved, unjudged retrieved


def _ap(relevant_ranks, R):
    return sum((k + 1) / rank for k, rank in enumerate(relevant_ranks)) / R


# the residual of each measure on RUN, as the catalogue states it
STATED = {
    # AP with R = qrels: the upper world has x1 relevant and R' = R + u
    "map": _ap([1, 6], R + U) - _ap([1], R),
    "AP": _ap([1, 6], R + U) - _ap([1], R),
    # (rel@k + u@k) / (R + u) - rel@k / R
    "R@2": (1 + 0) / (R + U) - 1 / R,
    # R-precision at R' = 2: d1 and n1
    "Rprec": 1 / 2 - 1 / 1,
    "SetR": (1 + U) / (R + U) - 1 / R,
    "SetP": U / N_RET,
    "Judged@5": 1 - 1.0,
    "Judged@10": 1 - 5 / 6,
    "NumRel": U,
    "NumRelRet": U,
    "Utility": (1 - (-1)) * U,  # (a - b) u with trec_eval's a = 1, b = -1
    "NumRet": 0.0,
    "G": 0.0,
    "RBPTrec": 0.0,
    # gain-free RBP, ETG, depth 6 (nothing padded): x1 adds gain 1 from rank 6 on, weighted L(6) = p^5 (1 - p)
    "RBP(p=0.5)+ETG[gain=binary, depth=6]": 0.5 ** 5 * 0.5,
    # ideal-normalised: the added DCG over the judged ideal (d1 alone: 1)
    "nDCG@10": (1 / math.log2(7)) / 1.0,
}


def test_each_residual_is_the_stated_one():
    ev = cwla.evaluate(QRELS, {"r": RUN}, list(STATED))
    for i, (name, stated) in enumerate(STATED.items()):
        assert ev.residuals[i, 0, 0] == pytest.approx(stated, abs=1e-12), name


def test_ap_residual_is_negative_when_an_unjudged_document_lies_low():
    """Not a bound: the upper world's AP (x1 relevant, R = 2) is 2/3, below the judged value 1."""
    ev = cwla.evaluate(QRELS, {"r": RUN}, ["map", "AP(R=retrieved)+ERG[gain=binary, depth=all]"])
    assert ev.values[0, 0, 0] == 1.0
    assert ev.residuals[0, 0, 0] == pytest.approx(-1 / 3, abs=1e-12)
    # cwl_eval's AP (R = the relevant retrieved) falls too: the stopping mass moves to rank 6
    assert ev.residuals[1, 0, 0] < 0


def test_a_gain_free_model_has_a_residual_that_is_a_bound():
    """>= 0 for every gain-free model with every aggregation, at the default depth (padding) and cut."""
    qrels, runs = synthetic.collection(n_topics=8, n_runs=4, seed=3)
    free = [cls() if cls is not cwla.Tabulated else cwla.tabulated(C=[0.9, 0.5, 0.3])
            for cls in MODELS.values() if cls.gain_free]
    assert len(free) >= 8
    metrics = [cwla.Metric(model, agg(), **options) for model in free for agg in AGGREGATIONS.values()
               for options in ({}, {"cutoff": 5, "depth": 10, "stop": True})]
    ev = cwla.evaluate(qrels, runs, metrics)
    assert (ev.residuals > 0).any()
    assert ev.residuals.min() >= -1e-12


def test_the_catalogue_states_the_residuals():
    text = CATALOGUE.read_text()
    section = text[text.index("## Residuals"):text.index("## Measures outside C/W/L/A")]
    assert "AP(upper, R') - AP(value, R)" in section and "can be **negative**" in section
    free = [name for name, cls in MODELS.items() if cls.gain_free]
    adaptive = [name for name, cls in MODELS.items() if not cls.gain_free]
    assert f"({', '.join(free)})" in section and f"({', '.join(adaptive)}, and" in section
    counting = text[text.index("## Measures outside C/W/L/A"):]
    for row in ("(rel@k + u@k) / (R + u) - rel@k / R", "(rel@n + u) / (R + u) - rel@n / R >= 0", "u / n >= 0",
                "(a - b) u", "1 - the value"):
        assert row in counting, row


@pytest.mark.parametrize("name", ["NumRet", "G", "RBPTrec"])
def test_the_measures_stated_without_residual_have_none(name):
    qrels, runs = synthetic.collection(n_topics=5, n_runs=2, seed=1)
    ev = cwla.evaluate(qrels, runs, [name])
    assert np.all(ev.residuals == 0.0)
