"""The metric language: canonical text round trip, Chen & Sakai names, trec_eval habits, errors."""

import re

import pytest
from hypothesis import given

import cwla
from cwla import AP, DCG, ERG, ERR, ETG, INST, PE, RBP, Avg, Binary, ERRAgg, Exponential, Linear, Metric, Precision
from cwla import MetricSyntaxError, parse_metric
from cwla.testing import check_round_trip, gain_maps, metrics


@given(metrics())
def test_every_metric_prints_and_parses_back(metric):
    check_round_trip(metric)
    assert parse_metric(str(metric)) == metric
    assert hash(parse_metric(str(metric))) == hash(metric)


@given(gain_maps())
def test_every_gain_map_prints_and_parses_back(gain):
    assert cwla.parse_gain(str(gain)) == gain


@pytest.mark.parametrize("text, expected", [
    ("RBP(p=0.8)+ERG", Metric(RBP(0.8), ERG())),
    ("RBP(0.95)+ETG", Metric(RBP(0.95), ETG())),
    ("INST(T=2.5)+PE(beta=0.5)[cutoff=10, depth=10, stop=true]",
     Metric(INST(2.5), PE(0.5), cutoff=10, depth=10, stop=True)),
    ("AP(R=retrieved)+ERG[gain=binary:2]", Metric(AP("retrieved"), ERG(), gain=Binary(2))),
    ("AP(R='qrels')+avg", Metric(AP("qrels"), Avg())),
    ("ERR+ERR[gain=exponential(gmax=4), cutoff=20]", Metric(ERR(), ERRAgg(), gain=Exponential(4), cutoff=20)),
    ("DCG(k=10)+ETG[gain=linear, normalize=ideal]", Metric(DCG(10), ETG(), gain=Linear(), normalize="ideal")),
    # Chen & Sakai's names with the paper's parameters
    ("RBP_ERG", Metric(RBP(0.8), ERG())),
    ("INST_PE", Metric(INST(2.5), PE(0.5))),
    ("ERR_ERR", Metric(ERR(), ERRAgg())),
    ("Precision_avg", Metric(Precision(10), Avg())),
    ("DCG_ETG", Metric(DCG(10), ETG())),
    ("AP_ERG", Metric(AP("qrels"), ERG())),
    ("RBP_ERG[cutoff=10, depth=10, stop=true]", Metric(RBP(0.8), ERG(), cutoff=10, depth=10, stop=True)),
    # trec_eval / ir_measures habits
    ("P@10", Metric(Precision(10), ERG(), gain=Binary(1), cutoff=10)),
    ("P(rel=2)@5", Metric(Precision(5), ERG(), gain=Binary(2), cutoff=5)),
    ("AP", Metric(AP("qrels"), ERG(), gain=Binary(1))),
    ("MAP", Metric(AP("qrels"), ERG(), gain=Binary(1))),
    ("AP(rel=2)", Metric(AP("qrels"), ERG(), gain=Binary(2))),
    ("nDCG@10", Metric(DCG(10), ETG(), gain=Linear(), cutoff=10, normalize="ideal")),
    ("SDCG@20", Metric(DCG(20), ERG())),
    ("RBP(p=0.5)", Metric(RBP(0.5), ERG())),
    ("INST(T=3)", Metric(INST(3), ERG())),
    ("ERR@20", Metric(ERR(), ERRAgg(), gain=Exponential(4), cutoff=20)),
])
def test_parse(text, expected):
    assert parse_metric(text) == expected


def test_canonical_text_is_what_the_docs_show():
    assert str(Metric(INST(2.5), PE(0.5), cutoff=10, depth=10, stop=True)) == \
        "INST(T=2.5)+PE(beta=0.5)[cutoff=10, depth=10, stop=true]"
    assert str(parse_metric("nDCG@10")) == "DCG(k=10)+ETG[gain=linear, cutoff=10, normalize=ideal]"
    assert str(parse_metric("ERR_ERR")) == "ERR+ERR"


def test_grid_has_39_valid_and_3_constant_combinations():
    grid = cwla.all_combinations()
    assert len(grid) == 42 and len(set(grid)) == 42
    constant = [m for m in grid if m.is_constant]
    assert sorted(str(m) for m in constant) == ["DCG(k=10)+ERR", "Precision(k=10)+ERR", "RBP(p=0.8)+ERR"]
    valid = cwla.chen_sakai_metrics()
    assert len(valid) == 39 and not any(m.is_constant for m in valid)
    names = cwla.chen_sakai_names()
    assert len(names) == 39 and [parse_metric(n) for n in names] == valid
    assert len(cwla.chen_sakai_names(include_constant=True)) == 42
    assert all(m.cutoff == 10 and m.depth == 10 and m.stop for m in cwla.chen_sakai_metrics(cutoff=10, depth=10,
                                                                                            stop=True))


def test_constant_metric_warns_and_scores_a_constant():
    qrels, runs = cwla.synthetic.collection(seed=3)
    with pytest.warns(cwla.ConstantMetricWarning, match=r"RBP_ERR is constant: RBP with the ERR aggregation"):
        ev = cwla.evaluate(qrels, runs, ["RBP_ERR"])
    present = ev.values[0][ev.values[0] != 0]
    assert present.size and abs(present.max() - present.min()) < 1e-12


@pytest.mark.parametrize("text, message", [
    ("", "empty text"),
    ("RBP(p=1.2)+ERG", "'p' of RBP must be in the open interval (0, 1): 1.2"),
    ("RBP+XYZ", "unknown aggregation 'XYZ' (accepted: ERG, ETG, avg, max, fin, PE, ERR)"),
    ("Foo+ERG", "unknown browsing model 'Foo'"),
    ("RBP(q=1)+ERG", "RBP has no parameter 'q' (accepted: p)"),
    ("P@", "expected an integer cutoff, found end of text"),
    ("P@0", "cutoff must be an integer >= 1, got 0"),
    ("nDCG", "nDCG needs a cutoff: nDCG@k"),
    ("foo", "'foo' is not a metric name"),
    ("RBP_XYZ", "'RBP_XYZ' is not a Chen & Sakai name"),
    ("RBP(p=0.8)+ERG[cutoff=0]", "'cutoff' of a metric must be an integer >= 1 or None: 0"),
    ("RBP(p=0.8)+ERG[cutoff=2.5]", "cutoff must be an integer, got 2.5"),
    ("RBP(p=0.8)+ERG[stop=maybe]", "stop must be true or false, got 'maybe'"),
    ("RBP(p=0.8)+ERG[normalize=max]", "normalize must be ideal or none, got 'max'"),
    ("RBP(p=0.8)+ERG[colour=red]", "unknown option 'colour'"),
    ("RBP(p=0.8)+ERG[depth=5, depth=6]", "option 'depth' given twice"),
    ("RBP(p=0.8)+ERG[gain=cubic(2)]", "unknown gain map 'cubic'"),
    ("RBP(p=0.8)+ERG trailing", "unexpected 'trailing'"),
    ("INST(T=0.1)+ERG", "'T' of INST must be a finite number >= 0.25"),
    ("PE(beta=2)", "not a metric name"),
    ("RBP(p=0.8)+PE(beta=2)", "'beta' of PE must be in [0, 1]: 2"),
    ("Precision(k=1.5)+ERG", "expected an integer, got 1.5"),
    ("RBP(p=0.8)+ERG;", "unexpected character ';'"),
])
def test_bad_metric_texts_say_what_and_where(text, message):
    with pytest.raises(MetricSyntaxError, match=re.escape(message)) as info:
        parse_metric(text)
    assert "accepted:" in str(info.value) and "^" in str(info.value)


def test_metric_values_validate_their_fields():
    with pytest.raises(TypeError, match="'browsing' of a metric must be a browsing model"):
        Metric("RBP", ERG())
    with pytest.raises(ValueError, match=re.escape("'depth' of a metric must be an integer >= 1 or None: 0")):
        Metric(RBP(), ERG(), depth=0)
    with pytest.raises(ValueError, match=re.escape("'normalize' of a metric must be 'ideal', 'none' or None")):
        Metric(RBP(), ERG(), normalize="max")
    with pytest.raises(TypeError, match="'stop' of a metric must be True, False or None"):
        Metric(RBP(), ERG(), stop="yes")
    with pytest.raises(ValueError, match="'k' of Precision must be an integer >= 1: 0"):
        Precision(0)
    with pytest.raises(ValueError, match="'R' of AP must be 'qrels' or 'retrieved'"):
        AP("all")


def test_metrics_are_immutable_values():
    m = Metric(RBP(0.8), ERG())
    with pytest.raises(AttributeError):
        m.depth = 5
    assert m.with_options(depth=5) == Metric(RBP(0.8), ERG(), depth=5)
    assert m.resolve(depth=20).depth == 20 and m.with_options(depth=5).resolve(depth=20).depth == 5
    assert m.resolve() == Metric(RBP(0.8), ERG(), gain=Linear(), cutoff=None, depth=1000, stop=False,
                                 normalize="none")
    assert {m, Metric(RBP(0.8), ERG())} == {m}


def test_paper_grid_uses_exponential_gains_for_the_err_model_only():
    grid = cwla.chen_sakai_paper_grid(gmax=3)
    assert list(grid) == cwla.chen_sakai_names()
    assert str(grid["ERR_ERG"]) == "ERR+ERG[gain=exponential(gmax=3), cutoff=10, depth=10, stop=true]"
    assert str(grid["INST_PE"]) == "INST(T=2.5)+PE(beta=0.5)[gain=linear(gmax=3), cutoff=10, depth=10, stop=true]"
    assert cwla.chen_sakai_grid()["RBP_ERG"] == cwla.parse_metric("RBP_ERG")
