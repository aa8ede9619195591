"""The numba kernels against the pure-Python oracle of tests/naive.py, for all 42
model x aggregation combinations, on generated rankings (ties, unjudged
documents, empty rankings, topics without relevant documents, graded gains)."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import cwla
import naive
from cwla.testing import gain_maps, rankings

MODELS = {
    "Precision": lambda: st.builds(cwla.Precision, k=st.integers(1, 12)),
    "DCG": lambda: st.builds(cwla.DCG, k=st.none() | st.integers(1, 12)),
    "RBP": lambda: st.builds(cwla.RBP, p=st.floats(0.05, 0.95)),
    "INST": lambda: st.builds(cwla.INST, T=st.floats(0.25, 5.0)),
    "AP": lambda: st.builds(cwla.AP, R=st.sampled_from(["qrels", "retrieved"])),
    "ERR": lambda: st.just(cwla.ERR()),
}
#: cwl_eval's models and the tabulated one: each checked under every aggregation (drawn)
CWL_MODELS = [name for name in cwla.metrics.browsing.MODELS if name not in MODELS]
AGGS = {
    "ERG": st.just(cwla.ERG()), "ETG": st.just(cwla.ETG()), "avg": st.just(cwla.Avg()),
    "max": st.just(cwla.Max()), "fin": st.just(cwla.Fin()), "PE": st.builds(cwla.PE, beta=st.floats(0, 1)),
    "ERR": st.just(cwla.ERRAgg()),
}


def _naive(metric, ranking, judged, grades_present):
    """Value, residual and the residual's scale by the oracle, for a resolved metric.

    The residual is a difference (upper bound - value): its rounding error is relative to the
    larger of the two, divided by the ideal when normalised, so that is its scale."""
    model = type(metric.browsing).__name__
    param = {"Precision": "k", "DCG": "k", "RBP": "p", "INST": "T"}.get(model)
    param = getattr(metric.browsing, param) if param else None
    if model in CWL_MODELS:
        b = metric.browsing
        param = {"C": list(b.continuation)} if model == "Tabulated" else {p.name: getattr(b, p.name) for p in b.declared}
    if model == "DCG" and param is None:
        param = math.inf
    agg = metric.aggregation.name
    beta = getattr(metric.aggregation, "beta", None)
    stop, cutoff = metric.stop, metric.cutoff
    whole = metric.depth == "all"
    table = dict(zip(grades_present, metric.gain.table(np.array(grades_present), max(grades_present))))
    missing = not ranking
    if metric.judged_only:  # unjudged documents leave the ranking first
        ranking = [g for g in ranking if g is not None]
    lo = [0.0 if g is None else table[g] for g in ranking]
    hi = [1.0 if g is None else table[g] for g in ranking]
    ap_R = getattr(metric.browsing, "R", None)
    R = sum(table[g] for g in judged)

    def depth(length):
        # depth "all": the (cut) ranking's length, at least Precision's, DCG's or Reciprocal's k
        if not whole:
            return metric.depth
        n = min(length, cutoff or length)
        k = param if model in ("Precision", "DCG") else (param["k"] if model == "Reciprocal" else None)
        return max(n, k) if k is not None and k < math.inf else n

    def score(gains, upper):
        H = depth(len(gains))
        if H == 0:
            return 0.0
        pad = 1.0 if upper and not whole else 0.0  # nothing is padded under depth "all"
        # in the upper bound, unjudged and padded documents join the relevant ones (R grows)
        n = min(len(gains), cutoff or len(gains), H)
        added = sum(h - l for h, l in zip(hi[:n], lo[:n])) + (H - n) * pad if upper else 0.0
        return naive.cwl_score(model, param, agg, beta, gains, H, stop, cutoff, pad, ap_R, R + added)

    if missing:  # a missing topic scores 0; its upper bound stays
        v, upper = 0.0, score([], True)
    else:
        v, upper = score(lo, False), score(hi, True)
    if metric.normalize == "ideal":
        # the ideal ranking: the judged documents of positive gain, best first (a judged 0 adds nothing)
        ideal_ranking = sorted((table[g] for g in judged if table[g] > 0), reverse=True)
        H = depth(len(ideal_ranking))
        ideal = naive.cwl_score(model, param, agg, beta, ideal_ranking, H, stop, cutoff, 0.0, ap_R, R) if H else 0.0
        if ideal > 0:
            with np.errstate(over="ignore"):
                nv, nr = float(np.float64(v) / ideal), float(np.float64(upper - v) / ideal)
                scale = float(np.float64(max(abs(upper), abs(v))) / ideal)
            if math.isfinite(nv) and math.isfinite(nr) and math.isfinite(scale):
                return nv, nr, scale
        return 0.0, 0.0, 0.0  # no ideal, or one so small that dividing by it overflows
    return v, upper - v, max(abs(upper), abs(v))


OPTIONS = st.fixed_dictionaries({
    "gain": gain_maps(3), "cutoff": st.none() | st.integers(1, 25), "depth": st.integers(1, 30) | st.just("all"),
    "stop": st.booleans(), "normalize": st.sampled_from(["ideal", "none"]), "judged_only": st.booleans(),
})


def _check_against_naive(ranking, judged, metric):
    qrels, run = naive.frames(ranking, judged)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cwla.CwlaWarning)  # generated data: empty runs, all-zero gains
        ev = cwla.evaluate(qrels, {"r": run}, [metric], order="file")
    value, residual, scale = _naive(ev.metrics[0], ranking, judged, sorted(set(float(g) for g in judged)))
    assert ev.values[0, 0, 0] == pytest.approx(value, rel=1e-9, abs=1e-12)
    assert ev.residuals[0, 0, 0] == pytest.approx(residual, rel=1e-9, abs=1e-12 * max(1.0, scale))


@pytest.mark.slow
@pytest.mark.parametrize("model", CWL_MODELS)
def test_cwl_and_tabulated_models_match_naive(model):
    """cwl_eval's models and tabulated ones, under every aggregation (drawn), parameters drawn from their
    declarations (every document costs 1)."""
    @given(rankings(max_depth=25), cwla.testing.browsing_models([model]), cwla.testing.aggregations(), OPTIONS)
    def check(data, browsing, aggregation, opts):
        _check_against_naive(*data, cwla.Metric(browsing, aggregation, **opts))

    check()


@pytest.mark.slow
@pytest.mark.parametrize("model", list(MODELS))
@pytest.mark.parametrize("agg", list(AGGS))
def test_kernel_matches_naive(model, agg):
    @given(rankings(max_depth=25), MODELS[model](), AGGS[agg], OPTIONS)
    def check(data, browsing, aggregation, opts):
        _check_against_naive(*data, cwla.Metric(browsing, aggregation, **opts))

    check()
