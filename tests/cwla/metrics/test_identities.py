"""Every identity of SPEC section 2, as a Hypothesis property over generated rankings."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import cwla
import naive
from cwla.testing import check_stop_normalises, check_swap_monotone, collections, rankings

K = st.integers(1, 15)


def _eval(ranking, judged, metrics, **options):
    qrels, run = naive.frames(ranking, judged)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cwla.CwlaWarning)  # generated data: empty runs, all-zero gains
        ev = cwla.evaluate(qrels, {"r": run}, metrics, order="file", **options)
    return ev.values[:, 0, 0]


def _binary(ranking, threshold=2):
    return [1 if (g is not None and g >= threshold) else 0 for g in ranking]


@given(rankings(max_depth=30), K)
def test_precision_erg_is_trec_precision(data, k):
    ranking, judged = data
    (v,) = _eval(ranking, judged, [f"Precision(k={k})+ERG[gain=binary:2]"])
    expected = naive.precision_at(_binary(ranking), k) if ranking else 0.0
    assert v == pytest.approx(expected, abs=1e-12)


@given(rankings(max_depth=30), K, st.integers(0, 25), st.booleans())
def test_dcg_etg_is_dcg_and_dcg_erg_is_scaled_dcg(data, k, extra, stop):
    # a horizon H >= k holds the whole DCG@k (with H < k and no stop the mass past H is dropped)
    ranking, judged = data
    depth = k + extra
    etg, erg = _eval(ranking, judged, [f"DCG(k={k})+ETG", f"DCG(k={k})+ERG"], gain="linear(gmax=3)",
                     depth=depth, stop=stop)
    gains = [0.0 if g is None else g / 3 for g in ranking]
    top = k
    assert etg == pytest.approx(naive.dcg_at(gains, top), abs=1e-12)
    assert erg == pytest.approx(naive.dcg_at(gains, top) / sum(1 / math.log2(i + 1) for i in range(1, top + 1)),
                                abs=1e-12)


@given(rankings(max_depth=30), st.floats(0.05, 0.95))
def test_rbp_erg_at_depth_1000_is_rbp(data, p):
    ranking, judged = data
    (v,) = _eval(ranking, judged, [f"RBP(p={p})+ERG"], gain="linear(gmax=3)")
    gains = [0.0 if g is None else g / 3 for g in ranking]
    # exact up to p^1000, the mass dropped past the depth
    assert v == pytest.approx(naive.rbp(gains, p), abs=1e-12)


@given(rankings(max_depth=30))
def test_ap_erg_qrels_binary_is_trec_map(data):
    ranking, judged = data
    (v,) = _eval(ranking, judged, ["AP(R=qrels)+ERG[gain=binary:2]"])
    n_relevant = sum(1 for g in judged if g >= 2)
    assert v == pytest.approx(naive.average_precision(_binary(ranking), n_relevant), abs=1e-12)


@given(rankings(max_depth=30), K)
def test_err_err_with_cutoff_is_chapelle_err(data, k):
    ranking, judged = data
    (v,) = _eval(ranking, judged, [f"ERR+ERR[gain=exponential(gmax=4), cutoff={k}]", f"ERR@{k}"])[:1]
    gains = [0.0 if g is None else (2**g - 1) / 16 for g in ranking]
    assert v == pytest.approx(naive.err_at(gains, k), abs=1e-12)


@pytest.mark.slow
@given(rankings(max_depth=30), K)
def test_ndcg_is_trec_ndcg_cut(data, k):
    ranking, judged = data
    (v,) = _eval(ranking, judged, [f"nDCG@{k}"])
    grades = [0.0 if g is None else float(g) for g in ranking]
    expected = naive.ndcg_at(grades, [float(g) for g in judged], k) if ranking else 0.0
    assert v == pytest.approx(expected, abs=1e-12)


@given(rankings(max_depth=30), st.sampled_from(["Precision(k=7)", "DCG(k=5)", "RBP(p=0.7)"]),
       st.integers(1, 40), st.booleans())
def test_etg_is_expected_depth_times_erg_for_gain_free_models(data, model, depth, stop):
    ranking, judged = data
    etg, erg = _eval(ranking, judged, [f"{model}+ETG", f"{model}+ERG"], depth=depth, stop=stop)
    kind, param = model.split("(")[0], float(model.split("=")[1].rstrip(")"))
    _, _, E = naive.weights(kind, param, [0.0] * depth, depth, stop)
    assert etg == pytest.approx(E * erg, rel=1e-12, abs=1e-12)


@given(rankings(max_depth=30), K, st.integers(1, 40))
def test_precision_avg_is_precision_erg(data, k, depth):
    ranking, judged = data
    avg, erg = _eval(ranking, judged, [f"Precision(k={k})+avg", f"Precision(k={k})+ERG"], depth=depth)
    assert avg == pytest.approx(erg, abs=1e-12)


MODEL_NAMES = ["Precision", "DCG", "RBP", "INST", "AP", "ERR"]


@given(rankings(max_depth=30), st.sampled_from(MODEL_NAMES))
def test_pe_beta_one_is_max_and_zero_is_fin(data, model):
    ranking, judged = data
    m = _canon(model)
    pe1, mx, pe0, fin = _eval(ranking, judged, [f"{m}+PE(beta=1)", f"{m}+max", f"{m}+PE(beta=0)", f"{m}+fin"])
    assert pe1 == pytest.approx(mx, abs=1e-12)
    assert pe0 == pytest.approx(fin, abs=1e-12)


def _canon(model):
    return str(cwla.parse_metric(f"{model}_ERG").browsing)


@given(st.integers(1, 12), st.floats(0.0, 1.0), st.sampled_from(MODEL_NAMES))
def test_constant_gains_give_that_gain_under_stop(depth, g, model):
    # every position up to H holds gain g (a table maps every grade to g)
    ranking = [1] * depth
    judged = [1] * depth
    values = _eval(ranking, judged, [f"{_canon(model)}+{a}" for a in ("ERG", "avg", "max", "fin", "PE(beta=0.3)")],
                   gain=f"table(1:{g!r})", depth=depth, stop=True)
    np.testing.assert_allclose(values, g, atol=1e-12)


@given(rankings(max_depth=30), st.sampled_from(["Precision(k=7)", "DCG(k=5)", "RBP(p=0.7)", "INST(T=2.5)",
                                                "AP(R=retrieved)", "ERR"]), st.integers(1, 30))
def test_stop_makes_stopping_probabilities_sum_to_one(data, model, depth):
    ranking, judged = data
    L_sum = sum(naive.weights(model.split("(")[0], _param(model), [1.0] * depth, depth, True)[1])
    assert L_sum == pytest.approx(1.0)
    qrels, run = naive.frames(ranking, judged)
    check_stop_normalises(cwla.parse_metric(f"{model}+ERG[depth={depth}]"), qrels, {"r": run})


def _param(model):
    return float(model.split("=")[1].rstrip(")")) if "=" in model and "R=" not in model else None


@pytest.mark.slow
@given(collections(max_topics=2, max_runs=1, max_depth=10),
       st.sampled_from(["Precision(k=5)+ERG", "DCG(k=5)+ERG", "RBP(p=0.8)+ERG", "RBP(p=0.5)+ERG[depth=8]"]))
def test_moving_a_more_relevant_document_up_never_lowers_p_dcg_rbp(data, text):
    qrels, runs = data
    assert check_swap_monotone(cwla.parse_metric(text), qrels, runs)
