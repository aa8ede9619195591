"""Per-document costs (``cwla.evaluate(costs=...)``, :func:`cwla.data.readers.read_costs`): every form the
docstring names gives the same numbers, and a bad cost is an InputError naming its file and line, frame row or
dict entry."""

from __future__ import annotations

import gzip
from collections import namedtuple

import numpy as np
import pandas as pd
import pytest

import cwla
from cwla.data.collection import Judgements
from cwla.data.readers import read_costs
from cwla.errors import InputError

QRELS = pd.DataFrame({"topic": "q", "docno": ["a", "b", "c"], "grade": [1.0, 0.0, 1.0]})
RUN = pd.DataFrame({"topic": "q", "docno": ["a", "b", "c", "u"], "score": [4.0, 3.0, 2.0, 1.0]})
METRIC = ["RBP(p=0.5)+ETG[depth=4, stop=true]", "BPM(T=10, K=3)+ETG"]
COST_LINES = "q 0 a 2\nq 0 b 0.5\n"  # c and u: no cost (max_cost / min_cost)
CostRecord = namedtuple("CostRecord", ["query_id", "doc_id", "cost"])


def _evaluate(costs):
    return cwla.evaluate(QRELS, RUN, METRIC, gain="binary:1", costs=costs, max_cost=3.0, min_cost=0.5)


def _forms(tmp_path):
    (tmp_path / "costs.txt").write_text(COST_LINES)
    (tmp_path / "costs.gz").write_bytes(gzip.compress(("# a comment\n" + COST_LINES).encode()))
    return {
        "topic, docno, cost frame": pd.DataFrame({"topic": "q", "docno": ["a", "b"], "cost": [2.0, 0.5]}),
        "ir_measures names": pd.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "cost": [2, 0.5]}),
        "qrels-shaped frame": pd.DataFrame({"topic": "q", "docno": ["a", "b"], "grade": [2.0, 0.5]}),
        "PyTerrier names": pd.DataFrame({"qid": "q", "docno": ["a", "b"], "label": [2.0, 0.5]}),
        "qrels frame with a cost column": pd.DataFrame({"topic": "q", "docno": ["a", "b"], "grade": [1, 0],
                                                        "cost": [2.0, 0.5]}),
        "dict": {"q": {"a": 2, "b": 0.5}},
        "file": tmp_path / "costs.txt",
        "file as str": str(tmp_path / "costs.txt"),
        "gzip file with a comment": tmp_path / "costs.gz",
        "records": [CostRecord("q", "a", 2.0), CostRecord("q", "b", 0.5)],
        "Judgements": Judgements.of_costs({"q": {"a": 2, "b": 0.5}}),
    }


FORMS = ["topic, docno, cost frame", "ir_measures names", "qrels-shaped frame", "PyTerrier names",
         "qrels frame with a cost column", "dict", "file", "file as str", "gzip file with a comment", "records",
         "Judgements"]


@pytest.mark.parametrize("form", FORMS)
def test_every_documented_form_of_costs_gives_the_same_numbers(tmp_path, form):
    reference = _evaluate(pd.DataFrame({"topic": "q", "docno": ["a", "b"], "grade": [2.0, 0.5]}))
    ev = _evaluate(_forms(tmp_path)[form])
    np.testing.assert_array_equal(ev.values, reference.values)
    np.testing.assert_array_equal(ev.expected, reference.expected)
    np.testing.assert_array_equal(ev.expected_residuals, reference.expected_residuals)


def test_the_costs_change_the_numbers():
    """So the forms above are compared on numbers that depend on the costs."""
    priced = _evaluate({"q": {"a": 2, "b": 0.5}})
    uniform = cwla.evaluate(QRELS, RUN, METRIC, gain="binary:1", max_cost=3.0, min_cost=0.5, expected=True)
    # ETC of RBP(p=0.5) at depth 4, stop=true: L = (.5, .25, .125, .125) on the total costs 2, 2.5, 5.5, 8.5
    # (c and u cost max_cost = 3); every document at max_cost: 3 x ED = 3 x 1.875
    assert priced.expected[1, 0, 0, 0] == pytest.approx(0.5 * 2 + 0.25 * 2.5 + 0.125 * 5.5 + 0.125 * 8.5)
    assert uniform.expected[1, 0, 0, 0] == pytest.approx(3 * 1.875)
    assert priced.values[1, 0, 0] != uniform.values[1, 0, 0]  # BPM reads on while the total cost stays below K


def test_read_costs_gives_a_canonical_frame(tmp_path):
    frame = read_costs(pd.DataFrame({"query_id": [1, 1], "doc_id": ["a", "b"], "cost": [2, 1]}, index=[7, 3]))
    assert list(frame.columns) == ["topic", "docno", "cost"]
    assert frame["cost"].dtype == np.float64 and frame["topic"].tolist() == ["1", "1"]
    assert list(frame.index) == [0, 1]
    (tmp_path / "c").write_text("q 0 a 2.5\n")
    assert read_costs(tmp_path / "c")["cost"].tolist() == [2.5]


def _costs_file(tmp_path, text):
    path = tmp_path / "costs.txt"
    path.write_text(text)
    return path


@pytest.mark.parametrize("text, message", [
    ("q 0 a 2\nq 0 b -3\n", r"costs\.txt, line 2: cost '-3' is not > 0; costs must be finite and > 0"),
    ("q 0 a 2\n\nq 0 b 0\n", r"costs\.txt, line 3: cost '0' is not > 0"),
    ("# costs\nq 0 a inf\n", r"costs\.txt, line 2: cost 'inf' is not a finite number; costs must be finite"),
    ("q 0 a NaN\n", r"costs\.txt, line 1: cost 'NaN' is not a finite number"),
    ("q 0 a cheap\n", r"costs\.txt, line 1: cost 'cheap' is not a number; costs must be finite and > 0"),
    ("q 0 a 1\nq 0 a 2\n", r"costs\.txt, line 2: docno 'a' appears twice for topic 'q' \(first at line 1\)"),
    ("q 0 a\n", r"costs\.txt, line 1: expected 4 columns \(qid iter docno cost\), found 3"),
])
def test_a_bad_cost_file_names_the_line(tmp_path, text, message):
    with pytest.raises(InputError, match=message):
        _evaluate(_costs_file(tmp_path, text))


@pytest.mark.parametrize("costs, message", [
    (pd.DataFrame({"topic": "q", "docno": ["a", "b"], "cost": [2, -3]}),
     r"^costs DataFrame, row 1: cost -3 is not > 0; costs must be finite and > 0 \(cwl_eval: no free lunches\)$"),
    (pd.DataFrame({"topic": "q", "docno": ["a", "b"], "grade": [2.0, 0.0]}, index=["x", "y"]),
     r"^costs DataFrame, row 'y': grade 0\.0 is not > 0"),
    (pd.DataFrame({"topic": "q", "docno": ["a", "b"], "cost": [np.inf, 1.0]}),
     r"^costs DataFrame, row 0: cost inf is not a finite number; costs must be finite and > 0"),
    (pd.DataFrame({"topic": "q", "docno": ["a", "b"], "cost": [1.0, np.nan]}),
     r"^costs DataFrame, row 1: cost nan is not a finite number"),
    (pd.DataFrame({"topic": "q", "docno": ["a", "b"], "cost": [1, "dear"]}),
     r"^costs DataFrame, row 1: cost 'dear' is not a number; costs must be finite and > 0"),
    ({"q": {"a": 2, "b": -3}}, r"^costs dict, topic 'q', docno 'b': cost -3 is not > 0; costs must be finite"),
    ({"q": {"a": "x"}}, r"^costs dict, topic 'q', docno 'a': cost 'x' is not a number"),
    ([CostRecord("q", "a", 1.0), CostRecord("q", "b", -0.5)], r"^costs records, record 2: cost -0\.5 is not > 0"),
    (Judgements.of(pd.DataFrame({"topic": "q", "docno": ["a", "b"], "grade": [2.0, -3.0]})),
     r"^costs Judgements, topic 'q', docno 'b': cost -3\.0 is not > 0; costs must be finite and > 0"),
])
def test_a_bad_cost_in_memory_names_its_row_or_entry(costs, message):
    with pytest.raises(InputError, match=message) as err:
        _evaluate(costs)
    assert "np." not in str(err.value)


@pytest.mark.parametrize("costs, message", [
    (pd.DataFrame({"topic": "q", "docno": ["a"]}),
     (r"^costs DataFrame is missing columns \['cost or grade or relevance or label'\] \(found \['topic', "
      r"'docno'\]\); accepted: topic or query_id or qid, docno or doc_id, cost or grade or relevance or label$")),
    (pd.DataFrame({"topic": [], "docno": [], "cost": []}), r"^costs DataFrame is empty: no rows"),
    (pd.DataFrame({"topic": "q", "docno": ["a", "a"], "cost": [1, 2]}),
     r"^costs DataFrame, row 1: docno 'a' appears twice for topic 'q' \(first at row 0\)"),
    (pd.DataFrame({"topic": "q", "docno": ["a"], "grade": [1], "label": [1]}),
     r"^costs DataFrame has columns \['grade', 'label'\], which all name the cost"),
    ({}, r"^costs dict is empty"),
])
def test_messages_about_costs_say_costs(costs, message):
    with pytest.raises(InputError, match=message) as err:
        _evaluate(costs)
    assert "qrels" not in str(err.value)


def test_a_missing_costs_file_or_a_wrong_type_says_costs(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"costs file does not exist \(expected a path to a TREC costs file: "
                                                r"qid iter docno cost\)"):
        _evaluate(tmp_path / "nope.txt")
    with pytest.raises(TypeError, match=r"read_costs\(\) accepts a path to a TREC costs file .* a dict "
                                        r"\{topic: \{docno: cost\}\}.*; got int$"):
        _evaluate(5)
