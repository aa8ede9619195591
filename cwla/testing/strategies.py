"""Hypothesis strategies for qrels, runs and metrics.

Everything is built from small integers and short lists, so failing examples
shrink to readable ones (few topics, short rankings, small grades). The data
covers what breaks metric code: score ties, unjudged documents, empty
rankings (a run missing a topic), topics without relevant documents, and graded
gains.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd
from hypothesis import strategies as st

from ..metrics.aggregations import AGGREGATIONS
from ..metrics.browsing import MODELS, Tabulated
from ..metrics.counting import Bpref, IPrec, Judged, NumQ, NumRel, NumRelRet, NumRet, Recall, RPrec, SetAP, SetF, SetP
from ..metrics.gains import Binary, Exponential, Linear, Regrade, Scaled, Table
from ..metrics.metric import Metric

__all__ = ["collections", "rankings", "metrics", "counting_measures", "browsing_models", "aggregations",
           "gain_maps", "declared", "tabulated_models"]


def _check_positive(name, value, minimum=1):
    if not isinstance(value, int) or value < minimum:
        from hypothesis.errors import InvalidArgument

        raise InvalidArgument(f"{name} must be an integer >= {minimum}, got {value!r}")


@st.composite
def rankings(draw, *, max_depth: int = 20, max_grade: int = 3, max_pool: int = 30, min_grade: int = 0):
    """One topic: ``(ranking, judged)``.

    ``ranking`` lists the grade of each ranked document in rank order (None for
    an unjudged document; possibly empty); ``judged`` lists the grades of all
    judged documents of the topic (the ranked judged ones among them), in
    ``min_grade..max_grade`` (a negative ``min_grade`` gives trec_eval's judged,
    never relevant, negative grades).
    """
    _check_positive("max_depth", max_depth, 0)
    _check_positive("max_grade", max_grade)
    if not isinstance(min_grade, int) or min_grade > max_grade:
        from hypothesis.errors import InvalidArgument

        raise InvalidArgument(f"min_grade must be an integer <= max_grade, got {min_grade!r}")
    n_judged = draw(st.integers(1, max_pool))
    judged = draw(st.lists(st.integers(min_grade, max_grade), min_size=n_judged, max_size=n_judged))
    n_ranked = draw(st.integers(0, max_depth))
    picks = draw(st.lists(st.integers(-(n_judged // 2) - 1, n_judged - 1), min_size=n_ranked, max_size=n_ranked))
    ranking, used = [], set()
    for p in picks:  # negative picks are unjudged documents
        if p < 0:
            ranking.append(None)
        elif p not in used:
            used.add(p)
            ranking.append(judged[p])
    return ranking, judged


@st.composite
def collections(draw, *, max_topics: int = 4, max_runs: int = 3, max_depth: int = 20, max_grade: int = 3):
    """``(qrels, runs)``: a qrels DataFrame (topic, docno, grade) and a dict of run DataFrames
    (topic, docno, score), with ties, unjudged documents, missing topics and topics
    without relevant documents; but some document is relevant (grade >= 1) in every collection, so that
    a property over it never meets cwla's warning that every score is 0 for want of relevance."""
    for name, value in (("max_topics", max_topics), ("max_runs", max_runs), ("max_grade", max_grade)):
        _check_positive(name, value)
    _check_positive("max_depth", max_depth, 0)
    n_topics = draw(st.integers(1, max_topics))
    q_rows, pools = [], []
    for t in range(n_topics):
        grades = draw(st.lists(st.integers(0, max_grade), min_size=1, max_size=max_depth + 5))
        docs = [f"d{t}_{j}" for j in range(len(grades))]
        q_rows += [(f"q{t}", d, float(g)) for d, g in zip(docs, grades)]
        pools.append(docs + [f"u{t}_{j}" for j in range(max(1, len(grades) // 2))])  # u*: unjudged
    if all(g == 0.0 for *_, g in q_rows):
        q_rows[0] = (*q_rows[0][:2], float(draw(st.integers(1, max_grade))))
    qrels = pd.DataFrame(q_rows, columns=["topic", "docno", "grade"])
    runs = {}
    for r in range(draw(st.integers(1, max_runs))):
        rows = []
        for t, pool in enumerate(pools):
            picked = draw(st.lists(st.sampled_from(pool), unique=True, max_size=min(max_depth, len(pool))))
            scores = draw(st.lists(st.integers(0, 4), min_size=len(picked), max_size=len(picked)))  # ties
            rows += [(f"q{t}", d, float(s)) for d, s in zip(picked, scores)]
        if not rows:
            rows = [("q0", pools[0][0], 1.0)]
        runs[f"r{r}"] = pd.DataFrame(rows, columns=["topic", "docno", "score"])
    return qrels, runs


def declared(cls: type) -> st.SearchStrategy:
    """Instances of a declared model or aggregation, each parameter drawn from its declaration
    (:meth:`cwla.Param.strategy`)."""
    return st.builds(cls, **{p.name: p.strategy() for p in cls.declared})


def tabulated_models(max_len: int = 12) -> st.SearchStrategy:
    """Tabulated models: random C(1..n) in [0, 1], or random non-increasing W(1..n) >= 0 with W(1) > 0."""
    values = st.floats(0.0, 1.0)
    return st.one_of(
        st.lists(values, min_size=1, max_size=max_len).map(lambda c: Tabulated(c, "C")),
        st.lists(values, min_size=1, max_size=max_len).map(lambda w: Tabulated(np.cumprod(w) / w[0] if w[0] > 0 else
                                                                                  [1.0], "W")),
    )


def browsing_models(models: Iterable[str] | None = None) -> st.SearchStrategy:
    """Every browsing model (or those of ``models``, a list of names of :data:`cwla.metrics.browsing.MODELS`) with
    valid parameters drawn from its declaration."""
    names = list(MODELS) if models is None else list(models)
    return st.one_of(*[tabulated_models() if name == "Tabulated" else declared(MODELS[name]) for name in names])


def aggregations() -> st.SearchStrategy:
    """Every aggregation with valid parameters."""
    return st.one_of(*[declared(cls) for cls in AGGREGATIONS.values()])


def gain_maps(max_grade: int = 3) -> st.SearchStrategy:
    """Gain maps that send grades 0..max_grade into [0, 1]."""
    return st.one_of(
        st.just(Linear()),
        st.builds(Linear, gmax=st.integers(max_grade, max_grade + 3)),
        st.builds(Exponential, gmax=st.integers(max_grade, max_grade + 2)),
        st.builds(Binary, threshold=st.one_of(st.none(), st.integers(1, max_grade))),
        st.builds(Scaled, min_rel=st.integers(0, 1), max_rel=st.one_of(st.none(), st.integers(2, max_grade + 2))),
        st.lists(st.floats(0.0, 1.0), min_size=max_grade + 1, max_size=max_grade + 1).map(
            lambda v: Table({g: x for g, x in enumerate(v)})
        ),
        st.dictionaries(st.integers(0, max_grade), st.integers(0, 9), min_size=1).map(Regrade),
    )


def metrics(max_grade: int = 3, constant: bool = True) -> st.SearchStrategy:
    """Metrics with every option drawn (options may stay unset)."""
    options = st.fixed_dictionaries(
        {},
        optional={
            "gain": gain_maps(max_grade),
            "cutoff": st.integers(1, 25),
            "depth": st.one_of(st.integers(1, 30), st.just("all")),
            "stop": st.booleans(),
            "normalize": st.sampled_from(["ideal", "none"]),
            "judged_only": st.booleans(),
        },
    )
    built = st.builds(lambda b, a, o: Metric(b, a, **o), browsing_models(), aggregations(), options)
    return built if constant else built.filter(lambda m: not m.is_constant)


def counting_measures(max_grade: int = 3) -> st.SearchStrategy:
    """The measures outside C/W/L/A (:mod:`cwla.metrics.counting`) with every parameter drawn."""
    rel = st.one_of(st.none(), st.integers(1, max_grade))
    judged = st.one_of(st.none(), st.booleans())
    k = st.one_of(st.none(), st.integers(1, 25))
    return st.one_of(
        st.builds(Recall, k, rel=rel, judged_only=judged),
        st.builds(RPrec, rel=rel, judged_only=judged),
        st.builds(Bpref, rel=rel),
        st.builds(Judged, k, judged_only=judged),
        st.builds(SetP, rel=rel, judged_only=judged, relative=st.booleans()),
        st.builds(SetF, beta=st.floats(0.1, 4.0), rel=rel, judged_only=judged),
        st.builds(SetAP, rel=rel, judged_only=judged),
        st.builds(IPrec, st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0]), rel=rel, judged_only=judged),
        st.builds(NumRel, rel=rel),
        st.builds(NumRet, judged_only=judged),
        st.builds(NumRelRet, rel=rel, judged_only=judged),
        st.just(NumQ()),
    )
