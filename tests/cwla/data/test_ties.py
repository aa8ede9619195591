"""Tie precision: scores compared as float32 (trec_eval 9.x, pytrec_eval, NIST's DL results) by default, as
float64 (trec_eval >= 10) with ties="float64" / --ties float64."""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import cwla

# a and b differ beyond float32 precision: a tie in float32 (then docno descending puts b first), not in float64
RUN_TEXT = "t Q0 a 1 1.0000000001 x\nt Q0 b 2 1.0 x\nt Q0 c 3 0.5 x\n"
QRELS_TEXT = "t 0 a 1\nt 0 b 0\nt 0 c 0\n"


@pytest.fixture()
def files(tmp_path):
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text(QRELS_TEXT)
    r.write_text(RUN_TEXT)
    return q, r


def test_float32_ties_and_float64_order(files):
    q, r = files
    assert np.float32(1.0000000001) == np.float32(1.0) and 1.0000000001 != 1.0
    single = cwla.evaluate(q, r, ["P@1", "RR"])
    double = cwla.evaluate(q, r, ["P@1", "RR"], ties="float64")
    assert single.values[:, 0, 0].tolist() == [0.0, 0.5]  # b (docno descending) first
    assert double.values[:, 0, 0].tolist() == [1.0, 1.0]  # a first
    # the same from a DataFrame, a RunSet and a Collection
    frame = cwla.read_run(r)
    assert cwla.evaluate(q, {"r": frame}, ["RR"], ties="float64").values[0, 0, 0] == 1.0
    assert cwla.evaluate(q, {"r": frame}, ["RR"]).values[0, 0, 0] == 0.5
    run_set = cwla.read_runs([r], ties="float64")
    assert cwla.evaluate(q, run_set, ["RR"], ties="float64").values[0, 0, 0] == 1.0
    col = cwla.prepare(q, [r], ties="float64")
    assert col.ties == "float64" and cwla.evaluate(col, metrics=["RR"]).values[0, 0, 0] == 1.0


def test_runs_read_in_one_precision_are_not_used_in_the_other(files):
    q, r = files
    with pytest.raises(ValueError, match=r"these runs were read with ties='float32'; read them again with "
                                         r"read_runs\(..., ties='float64'\)"):
        cwla.evaluate(q, cwla.read_runs([r]), ["RR"], ties="float64")
    with pytest.raises(ValueError, match="the Collection was prepared with ties='float32'"):
        cwla.evaluate(cwla.prepare(q, [r]), metrics=["RR"], ties="float64")




@pytest.mark.slow
@given(st.lists(st.tuples(st.sampled_from(["d1", "d2", "d3", "d10", "d20", "x"]),
                          st.sampled_from([1.0, 1.0 + 1e-9, 1.0 + 2e-9, 0.5, 0.5 + 1e-12, 2.0])),
                min_size=1, max_size=6, unique_by=lambda x: x[0]))
def test_float64_order_is_score_then_docno_descending_in_double_precision(rows):
    run = pd.DataFrame({"topic": "t", "docno": [d for d, _ in rows], "score": [s for _, s in rows]})
    # every document relevant at its own grade: the per-rank gains reveal the order
    grades = {d: i + 1 for i, d in enumerate(sorted(run.docno))}
    qrels = pd.DataFrame({"topic": "t", "docno": list(grades), "grade": list(grades.values())})
    expected_order = sorted(rows, key=lambda x: (x[1], x[0]), reverse=True)  # score desc, then docno desc
    n = len(rows)
    metrics = [f"Precision(k={k})+fin[gain=linear(gmax={n}), depth={k}, stop=true]" for k in range(1, n + 1)]
    ev = cwla.evaluate(qrels, {"r": run}, metrics, ties="float64")
    got = [round(v * n) for v in ev.values[:, 0, 0]]
    assert got == [grades[d] for d, _ in expected_order]
    single = sorted(rows, key=lambda x: (float(np.float32(x[1])), x[0]), reverse=True)
    ev32 = cwla.evaluate(qrels, {"r": run}, metrics)
    assert [round(v * n) for v in ev32.values[:, 0, 0]] == [grades[d] for d, _ in single]
