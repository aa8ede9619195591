"""Parse errors of metric texts (issue 22): what is wrong, "did you mean" for a name near a known one (any
case, a typo or two, across cwla's, the paper's, ir_measures' and trec_eval's names, the models, the
aggregations, the options and the parameters), where (a caret, never "at position N") and the accepted
forms, in at most three lines and under 300 characters beyond the user's own text."""

from __future__ import annotations

import re

import numpy as np
import pytest

import cwla
from cwla import MetricSyntaxError, parse_gain, parse_metric
from cwla.metrics import text as text_module


def _error(text: str) -> str:
    with pytest.raises(MetricSyntaxError) as info:
        parse_metric(text)
    return str(info.value)


def _beyond(message: str, text: str) -> int:
    """Characters of ``message`` beyond the user's text: its copies and the caret line's padding under it
    left out."""
    n = len(message) - (message.count(text) * len(text) if text else 0)
    for line in message.splitlines():
        if line.lstrip().startswith("^"):
            n -= len(line) - len(line.lstrip()) - 4  # the padding under the text, not the 4-space indent
    return n


def _suggested(message: str) -> list[str]:
    m = re.search(r"\(did you mean (.*?)\?\)", message.splitlines()[0])
    return re.findall(r"'([^']*)'", m.group(1)) if m else []


@pytest.mark.parametrize("text, suggestion", [
    ("RPB", "RBP"),
    ("RBP_PEE", "RBP_PE"),
    ("rbp_ergg", "RBP_ERG"),
    ("RBP_ERGG", "RBP_ERG"),
    ("ndcg@10", "nDCG@10"),
    ("map@10", "AP@10"),
    ("mrr", "MRR"),
    ("Precison@10", "Precision@10"),
    ("recip_rank@10", "RR@10"),
    ("recal_100", "recall_100"),
    ("ndcg_cutt.10", "ndcg_cut.10"),
    ("P_ERG", "Precision_ERG"),
    ("map_ERG", "AP_ERG"),
    ("RBP_ERG(p=0.9)", "RBP(p=0.9)+ERG"),
    ("RPB(p=0.8)+ERG", "RBP"),
    ("RBP(p=0.8)+ERGG", "ERG"),
    ("RBP(p=0.8)+erg[cutof=10]", "cutoff"),
    ("RBP(q=0.8)+ERG", "p"),
    ("RBP(p=0.8)+ERG[gain=linerr]", "linear"),
    ("P(rell=2)@10", "rel"),
])
def test_did_you_mean(text, suggestion):
    message = _error(text)
    assert _suggested(message)[0] == suggestion, message
    for s in _suggested(message):  # a whole-text suggestion parses
        if s[:1].isupper() and ("@" in s or "_" in s or "+" in s):
            parse_metric(s)


def test_the_spellings_users_type_for_the_paper_names_parse():
    assert parse_metric("rbp_erg") == parse_metric("RBP_ERG") == parse_metric("Rbp_Erg")
    assert parse_metric("RBP_PE") == parse_metric("rbp_pe")
    # the suggestions are one per meaning (nDCG and its alias NDCG are one), and trec_eval's spelling after
    assert _suggested(_error("ndcg@10")) == ["nDCG@10", "ndcg_cut_10"]


def test_no_suggestion_for_a_name_near_nothing():
    message = _error("foo")
    assert "did you mean" not in message and "'foo' is not a metric name" in message
    assert "accepted: MODEL+AGGREGATION[options]" in message


BAD = ["RPB", "RBP_PEE", "rbp_ergg", "ndcg@10", "foo", "", ";", "RBP(p=0.8)+ERG;", "Foo+ERG", "RPB+ERG", "ERG+RBP",
       "RBP+FOO", "RBP(p=1.5)+ERG", "RBP(1.5)+ERG", "RBP(p=0.8)+ERG[cutoff=x]", "RBP(p=0.8)+ERG[cutof=5]",
       "RBP(p=0.8)+ERG[gain=linerr]", "RBP(p=0.8)+ERG[gain=table(1)]", "Tabulated(name=nope)+ERG", "P@0",
       "AP(rel=-1)", "RBP_ERG[depth=-1]", "map_cut_0", "P(rel=2)@10x", "P", "P(rel=2)", "yaap", "relstring",
       "R@10[depth=5]", "GM(RPB)", "GM()", "GM(AP, floor=-1)", "Tabulated_ERG", "INST(T=0.1)", "utility.1,2",
       "RBP(p=0.8)+ERG[intents=nov]", "nDCG(dcg='exp')@10", "RBP(p=0.8, p=0.9)+ERG",
       "RBP(p=0.8)+ERG[gain=linear(gmax=2, gmax=3), cutoff=10, depth=10, stop=true, normalize=ideal]"]


@pytest.mark.parametrize("text", BAD)
def test_a_parse_error_is_short(text):
    message = _error(text)
    assert message.startswith(f"cannot parse metric {text!r}") or message.startswith("cannot parse metric 'RPB' in")
    assert len(message.splitlines()) <= 3, message
    assert _beyond(message, text) < 300, message
    assert "at position" not in message
    assert "none registered" not in message
    # it says what is accepted: the forms, or the rule a value must follow
    says = ("accepted", " must be ", "needs a", " takes ", "cwla does not compute", "not a number per topic")
    assert any(s in message for s in says), message


def test_a_parse_error_stays_short_with_many_user_models(monkeypatch):
    monkeypatch.setattr(text_module, "USER_MODELS", {f"MyModel{i}": object for i in range(40)})
    message = _error("Fooo+ERG")
    assert "user-defined: MyModel0, MyModel1, MyModel2, MyModel3, MyModel4 and 35 more" in message
    assert len(message.splitlines()) <= 3 and _beyond(message, "Fooo+ERG") < 300


def test_nothing_registered_is_said_plainly(monkeypatch):
    monkeypatch.setattr(text_module, "USER_MODELS", {})
    monkeypatch.setattr(text_module, "TABLES", {})
    model = _error("Foo+ERG")
    assert "no user-defined ones are registered (cwla.register_model)" in model
    table = _error("Tabulated(name=nope)+ERG")
    assert "no tabulated model is registered as 'nope' (no tables are registered; see cwla.register_table)" in table
    for message in (model, table):
        assert "none registered" not in message and "registered: " not in message


def test_a_registered_table_is_suggested(monkeypatch):
    monkeypatch.setattr(text_module, "TABLES", {"clicks": cwla.tabulated(C=[0.5])})
    message = _error("Tabulated(name=click)+ERG")
    assert "(did you mean 'clicks'?)" in message and "registered tables: clicks" in message


@pytest.mark.parametrize("text, message", [
    ("RBP(p=1.5)+ERG", "'p' of RBP must be in the open interval (0, 1), got 1.5"),
    ("RBP(1.5)+ERG", "'p' of RBP must be in the open interval (0, 1), got 1.5"),
    ("Precision(k=1.5)+ERG", "'k' of Precision must be an integer in [1, 1,000,000], got 1.5"),
    ("DCG(k=0)+ETG", "'k' of DCG must be an integer in [1, 1,000,000] or none, got 0"),
    ("RBP(p=0.8)+PE(beta=2)", "'beta' of PE must be in [0, 1], got 2"),
    ("INST(T=0.1)", "'T' of INST must be a finite number >= 0.25"),
    ("RBP(p=0.8)+ERG[cutoff=x]", "cutoff must be an integer >= 1, got 'x'"),
    ("RBP(p=0.8)+ERG[cutoff=0]", "cutoff must be an integer >= 1, got 0"),
    ("RBP_ERG[depth=-1]", "depth must be an integer >= 1 (at most 1,000,000) or 'all', got -1"),
    ("RBP(p=0.8)+ERG[stop=maybe]", "stop must be true or false, got 'maybe'"),
    ("P@0", "cutoff must be an integer >= 1, got 0"),
    ("AP(rel=-1)", "rel must be a number > 0 (the lowest relevant grade), got -1"),
    ("map_cut_0", "cutoff must be an integer >= 1, got 0"),
    ("GM(AP, floor=-1)", "'floor' of GM must be a finite number > 0, got '-1'"),
])
def test_a_bad_value_names_the_parameter_and_the_rule_not_a_position(text, message):
    got = _error(text)
    assert message in got
    assert "position" not in got and "^" not in got and len(got.splitlines()) == 1


@pytest.mark.parametrize("text, where", [
    ("RBP(p=0.8)+ERG[cutoff=10, cutoff=20]", 26),
    ("RBP(p=0.8, p=0.9)+ERG", 11),
    ("RBP(0.8, p=0.9)+ERG", 9),
    ("RBP(p=0.8)+PE(beta=0.1, beta=0.2)", 24),
    ("DCG(k=none, k=3)+ETG", 12),
    ("RBP(p=0.8)+ERG[gain=linear(gmax=2, gmax=3)]", 35),
    ("P(rel=1,rel=2)@10", 8),
    ("RBP(p=0.8)+ERG[cutof=5]", 15),
    ("RBP(p=0.8)+ERG;", 14),
    ("P(rel=2)@10x", 11),
])
def test_the_caret_points_at_the_place(text, where):
    lines = _error(text).splitlines()
    assert len(lines) == 3 and lines[1] == f"    {text}"
    assert lines[2].index("^") == 4 + where and "accepted" in lines[2]


def test_an_error_inside_gm_names_both_texts():
    message = _error("GM(RPB)")
    assert message.startswith("cannot parse metric 'RPB' in 'GM(RPB)': 'RPB' is not a metric name")
    assert _suggested(message) == ["RBP"]


def test_gain_map_errors_suggest_and_list_the_maps():
    with pytest.raises(MetricSyntaxError) as info:
        parse_gain("exponental:3")
    message = str(info.value)
    assert "(did you mean 'exponential'?)" in message and "scaled(min_rel=X, max_rel=Y)" in message
    assert len(message.splitlines()) <= 3 and _beyond(message, "exponental:3") < 300


def test_a_suggestion_never_slows_a_good_parse():
    """Suggestions are computed only on failure; parse_metric of a good text is unchanged."""
    metrics = [parse_metric(t) for t in ("RBP_PE", "nDCG@10", "map", "RBP(p=0.8)+ERG[cutoff=10]")]
    assert [str(m) for m in metrics][0] == "RBP(p=0.8)+PE(beta=0.5)"
    assert np.all([isinstance(m, (cwla.Metric, cwla.counting.CountingMeasure)) for m in metrics])


def test_the_paper_names_words_match_the_code():
    """The paper names mean one thing everywhere: AP_* is cwl_eval's AP(R=retrieved), as the grid and the
    catalogue say; ir_measures' AP and trec_eval's map are AP(R=qrels)."""
    from pathlib import Path

    paper = parse_metric("AP_ERG").browsing
    assert paper == cwla.AP(R="retrieved") == cwla.chen_sakai_paper_grid()["AP_ERG"].browsing
    assert parse_metric("AP").browsing == parse_metric("map").browsing == cwla.AP(R="qrels")
    doc = " ".join(text_module.__doc__.split())
    assert "and cwl_eval's AP, ``AP(R=retrieved)``" in doc and "AP with R = qrels" not in doc
    catalogue = (Path(__file__).resolve().parents[3] / "docs" / "metrics.md").read_text()
    assert "AP with R = qrels" not in catalogue and "| `AP_ERG` | `AP(R=retrieved)+ERG` |" in catalogue


# ----------------------------------------------------------------------------- issue 41: long and odd texts

@pytest.mark.parametrize("text", ["Q" * 10**6, "RBP" + "P" * 10**6, "x" * 10**6 + "+ERG"])
def test_a_megabyte_bad_name_is_refused_with_a_short_message_and_no_search(text, monkeypatch):
    """The "did you mean" search compares only names whose length allows a match (an edit distance is at
    least the difference in length; difflib's ratio at most 2 min / (la + lb)): a 1 MB name is compared
    with nothing, and the message shows its start and its length, not the megabyte."""
    from cwla.metrics import spelling as module

    calls = []
    original = module.distance
    monkeypatch.setattr(module, "distance", lambda a, b: calls.append(len(a)) or original(a, b))
    with pytest.raises(cwla.MetricSyntaxError) as err:
        cwla.parse_metric(text)
    message = str(err.value)
    assert len(message) < 700 and f"({len(text):,} characters)" in message
    assert [n for n in calls if n > 1000] == []


def test_the_search_still_suggests_near_names():
    with pytest.raises(cwla.MetricSyntaxError, match="did you mean 'RBP"):
        cwla.parse_metric("RPB")
    with pytest.raises(cwla.MetricSyntaxError, match="did you mean 'nDCG@10'"):
        cwla.parse_metric("nDGC@10")


@pytest.mark.parametrize("text", ["RBP(p=" + "9" * 5000 + ")+ERG", "nDCG@" + "1" * 5000, "P_" + "1" * 5000,
                                  "ndcg_cut." + "1" * 41, "map_cut_" + "1" * 41])
def test_numbers_longer_than_any_parameter_needs_are_refused(text):
    """5,000 digits reached Python's int digit limit (a ValueError from int()); 41 digits a cutoff of 1e40."""
    with pytest.raises(cwla.MetricSyntaxError, match="a number of [0-9,]+ characters.*at most 40"):
        cwla.parse_metric(text)


@pytest.mark.parametrize("text", ["nDCG@١٠", "P@１０", "RBP(p=٠.٨)+ERG"])
def test_unicode_digits_are_not_numbers(text):
    with pytest.raises(cwla.MetricSyntaxError, match="unexpected character"):
        cwla.parse_metric(text)
