"""A metric's influence on its family (discpower.metric_influence): each row against the family tests run by hand
with and without the metric, the result's shape and its errors. Issue 38's finding on DL19 (AP_ERR decides the AP
family's Delta) is tested on the DL19 report of tests/discpower/metrics/test_families.py."""

import numpy as np
import pytest

import discpower
from discpower import DiscpowerError
from discpower.metrics.families import family_consistency
from discpower.metrics.influence import COLUMNS


@pytest.fixture(scope="module")
def consistency():
    rng = np.random.default_rng(3)
    truth = rng.random(9)
    spread = (0.1, 0.12, 0.1, 0.15, 1.5, 0.2, 0.3)  # metric "e" is mostly noise
    V = np.stack([truth[:, None] + rng.normal(0, s, (9, 16)) for s in spread])
    return discpower.split_half_consistency(V, list("abcdefg"), n_splits=80, n_trials=400, seed=2)


FAMILIES = {"one": ("a", "b", "c", "d", "e"), "pair": ("f", "g")}


def test_each_row_is_the_family_test_with_and_without_the_metric(consistency):
    influence = discpower.metric_influence(consistency, FAMILIES, alpha=0.2)
    assert list(influence.frame.columns) == list(COLUMNS)
    assert influence.frame["family"].unique().tolist() == ["one"]  # a family of two has nothing to leave out
    assert influence.frame["metric"].tolist() == list(FAMILIES["one"])
    whole = family_consistency(consistency, {"one": FAMILIES["one"]}).tests["one"]
    for row in influence.frame.itertuples(index=False):
        rest = tuple(m for m in FAMILIES["one"] if m != row.metric)
        without = family_consistency(consistency, {"rest": rest}).tests["rest"]
        assert row.delta_with == whole.delta(0.2) and row.delta_without == without.delta(0.2)
        assert row.delta_change == pytest.approx(row.delta_without - row.delta_with, abs=0)
        gained = lost = 0
        for i, x in enumerate(rest):
            for y in rest[i + 1:]:
                p_with = whole.pvalue[FAMILIES["one"].index(x), FAMILIES["one"].index(y)]
                p_without = without.pvalue[rest.index(x), rest.index(y)]
                gained += p_without < 0.2 <= p_with
                lost += p_with < 0.2 <= p_without
        assert (row.gained, row.lost, row.pairs) == (gained, lost, len(rest) * (len(rest) - 1) // 2)
    assert influence.frame["gained"].max() > 0 and influence.frame["lost"].max() > 0  # both kinds occur here


def test_the_noisy_metric_is_the_most_influential_and_widens_delta(consistency):
    influence = discpower.metric_influence(consistency, {"one": FAMILIES["one"]})
    top = influence.most_influential()
    assert top["metric"].tolist() == ["e"] and top["delta_change"].iloc[0] < 0
    others = influence.frame.set_index("metric")["delta_change"].drop("e").abs()
    assert (others < abs(top["delta_change"].iloc[0])).all()
    assert "MetricInfluence: 5 metrics left out of 1 family" in repr(influence)
    assert influence.n_trials == consistency.test.n_resamples and influence.seed == consistency.test.seed


def test_a_meta_evaluation_gives_its_families_and_bad_sources_are_named():
    import cwla

    qrels, runs = cwla.synthetic.collection(n_topics=12, n_runs=6, seed=1)
    metrics = ["nDCG@10", "P@10", "RBP(p=0.8)+ERG"]
    report = discpower.meta_evaluate(qrels, runs, metrics, n_trials=200, n_splits=40, seed=1, progress=False)
    influence = discpower.metric_influence(report)
    assert influence.families == report.families and influence.frame["metric"].tolist() == metrics
    with pytest.raises(DiscpowerError, match="n_splits=0"):
        discpower.metric_influence(discpower.meta_evaluate(qrels, runs, metrics, n_trials=200, n_splits=0, seed=1,
                                                           progress=False))
    with pytest.raises(DiscpowerError, match="needs a MetaEvaluation .* or a SplitHalfConsistency"):
        discpower.metric_influence(report.tests)
    with pytest.raises(DiscpowerError, match="alpha"):
        discpower.metric_influence(report, alpha=1.5)
    with pytest.raises(DiscpowerError, match=r"n_trials=10 no p-value can fall below alpha=0.05 .* n_trials >= 20"):
        discpower.metric_influence(report, n_trials=10)
    with pytest.raises(DiscpowerError, match="no family has three metrics or more"):
        discpower.metric_influence(report, {"a": metrics[:2]})
