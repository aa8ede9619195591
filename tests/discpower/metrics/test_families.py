"""Test families: the split-half Tukey HSD and discriminative power compared within groups of metrics
(Chen & Sakai's Table 3), and the faithful Chen & Sakai grid (cwl_eval's AP) on DL19."""

import re

import numpy as np
import pandas as pd
import pytest

import cwla
import discpower
from discpower import DiscpowerError
from discpower.metrics.families import family_consistency, family_power, metric_families

from conftest import shared_path


def _naive_tukey_pvalues(X, B, seed):
    """An independent randomised Tukey HSD (numpy only, its own random stream): p_ij = share of
    relabellings whose range of column means reaches |mean_i - mean_j| (1e-10 tolerance)."""
    rng = np.random.default_rng(seed)
    n, m = X.shape
    means = X.mean(axis=0)
    d = np.abs(means[:, None] - means[None, :])
    ranges = np.empty(B)
    for b in range(B):
        Y = rng.permuted(X, axis=1)
        s = Y.mean(axis=0)
        ranges[b] = s.max() - s.min()
    return (ranges[None, None, :] >= d[:, :, None] - 1e-10).mean(axis=2)


def _synthetic_taus():
    qrels, runs = cwla.synthetic.collection(n_topics=30, n_runs=10, seed=4)
    grid = cwla.chen_sakai_paper_grid()
    keep = {k: v for k, v in grid.items() if k.split("_")[0] in ("RBP", "INST", "AP")}
    return discpower.meta_evaluate(qrels, runs, keep, n_trials=2000, n_splits=300, seed=5)


@pytest.fixture(scope="module")
def synthetic_report():
    return _synthetic_taus()


def test_the_grid_defaults_to_one_family_per_browsing_model(synthetic_report):
    fams = synthetic_report.families
    assert list(fams) == ["RBP", "INST", "AP"]
    assert fams["INST"] == tuple(f"INST_{a}" for a in ("ERG", "ETG", "avg", "max", "fin", "PE", "ERR"))
    assert len(fams["RBP"]) == 6  # RBP_ERR is constant and left out of the grid


def test_other_metrics_form_one_family():
    qrels, runs = cwla.synthetic.collection(n_topics=12, n_runs=6, seed=1)
    report = discpower.meta_evaluate(qrels, runs, ["nDCG@10", "P@10", "RBP(p=0.8)+ERG"], n_trials=200,
                                     n_splits=50, seed=1)
    assert report.families == {"all": ("nDCG@10", "P@10", "RBP(p=0.8)+ERG")}
    # one family of everything: the same test, so the same counts as the overall consistency analysis
    assert report.table3().set_index("metric").outperforms.to_dict() == \
        report.consistency.to_frame().set_index("metric").outperforms.to_dict()


def test_per_family_counts_agree_with_an_independent_tukey_hsd(synthetic_report):
    cons = synthetic_report.consistency
    within = synthetic_report.family_consistency
    table = within.to_frame().set_index("metric")
    column = {lab: i for i, lab in enumerate(cons.labels)}
    checked = 0
    for k, (family, members) in enumerate(within.families.items()):
        cols = [column[m] for m in members]
        taus = cons.taus[:, cols]
        p = _naive_tukey_pvalues(taus, 4000, seed=100 + k)
        mine = within.tests[family].pvalue
        for a in range(len(members)):
            wins = 0
            for b in range(len(members)):
                if a == b:
                    continue
                # within Monte-Carlo error of each other (B = 2000 and 4000)
                assert abs(p[a, b] - mine[a, b]) < 0.03, (family, members[a], members[b], p[a, b], mine[a, b])
                higher = taus[:, a].mean() > taus[:, b].mean()
                if abs(p[a, b] - 0.05) > 0.02:  # not borderline: the decision must agree
                    assert (higher and p[a, b] < 0.05) == (higher and mine[a, b] < 0.05)
                    checked += 1
                wins += bool(higher and mine[a, b] < 0.05)
            assert table.loc[members[a], "outperforms"] == wins
    assert checked > 40


def test_family_counts_differ_from_one_big_family(synthetic_report):
    """The per-family HSD has a smaller family (its null range is over fewer systems): within each family
    it finds at least as many significant wins as the overall test finds among the same metrics."""
    overall = synthetic_report.consistency
    wins_all = overall.wins()
    column = {lab: i for i, lab in enumerate(overall.labels)}
    table = synthetic_report.table3().set_index("metric")
    for family, members in synthetic_report.families.items():
        cols = [column[m] for m in members]
        assert table.loc[list(members), "outperforms"].sum() >= wins_all[np.ix_(cols, cols)].sum()


def test_table3_layout_and_latex(synthetic_report):
    frame = synthetic_report.table3()
    assert list(frame.columns) == ["family", "rank", "metric", "mean_tau", "outperforms", "beaten_ranks"]
    for family, block in frame.groupby("family", sort=False):
        expected = block.mean_tau.rank(ascending=False, method="min").astype(int)  # ties share the better rank
        assert block["rank"].tolist() == expected.tolist() and block["rank"].iloc[0] == 1
        assert (np.diff(block.mean_tau.to_numpy()) <= 0).all()
        assert (block.outperforms < len(block)).all()
    tex = synthetic_report.family_consistency.to_latex()
    assert tex.startswith("\\begin{tabular}") and "INST\\_ERG" in tex and "within each family" in tex
    summary = synthetic_report.to_frame()
    assert {"family", "family_dp_rank", "family_tau_rank", "family_outperforms"} <= set(summary.columns)


def test_family_power_ranks_within_families(synthetic_report):
    power = synthetic_report.family_power()
    for family, block in power.groupby("family", sort=False):
        expected = block.discriminative_power.rank(ascending=False, method="min").astype(int)
        assert block["rank"].tolist() == expected.tolist()
        assert set(block.metric) == set(synthetic_report.families[family])


def test_family_errors():
    labels = ["a", "b", "c"]
    with pytest.raises(DiscpowerError, match="non-empty sequence"):
        metric_families(None)
    with pytest.raises(DiscpowerError, match="non-empty sequence"):
        metric_families(5)
    with pytest.raises(DiscpowerError, match="sequence of metrics"):
        metric_families(labels, "model", 5)
    with pytest.raises(DiscpowerError, match="no browsing model has two"):
        metric_families(["nDCG@10", "P@10"], "model", [cwla.parse_metric("nDCG@10"), cwla.parse_metric("P@10")])
    with pytest.raises(DiscpowerError, match="unknown metric"):
        metric_families(labels, {"x": ["a", "z"]})
    with pytest.raises(DiscpowerError, match="two families"):
        metric_families(labels, {"x": ["a", "b"], "y": ["b", "c"]})
    with pytest.raises(DiscpowerError, match="at least 2"):
        metric_families(labels, {"x": ["a"]})
    with pytest.raises(DiscpowerError, match="'model' or 'all'"):
        metric_families(labels, "models")
    with pytest.raises(DiscpowerError, match="needs the metrics"):
        metric_families(labels, "model")
    with pytest.raises(DiscpowerError, match="list of metric labels"):
        metric_families(labels, {"x": "ab"})
    with pytest.raises(DiscpowerError, match="SplitHalfConsistency"):
        family_consistency("taus", {"x": ["a", "b"]})


@pytest.mark.parametrize("families", ["all", None])
def test_one_metric_forms_no_family(families):
    """'all' (and the default, which is 'all' here) over one label: refused as a family of one is, at once --
    not a family that family_power refuses later."""
    message = re.escape("family 'all' has 1 metric(s); a family compares at least 2")
    with pytest.raises(DiscpowerError, match=message):
        metric_families(["a"], families)
    test = discpower.randomised_tukey_hsd(np.random.default_rng(0).random((8, 4)), 50, seed=1)
    with pytest.raises(DiscpowerError, match=message):
        family_power({"a": test}, families)
    assert metric_families(["a", "b"], families) == {"all": ("a", "b")}


def test_public_family_functions_find_the_models(synthetic_report):
    ev = synthetic_report.evaluation
    within = family_consistency(synthetic_report.consistency, None, metrics=ev.metrics)
    assert within.families == synthetic_report.families
    pd.testing.assert_frame_equal(within.to_frame(), synthetic_report.table3())
    power = family_power(synthetic_report.tests, "model", metrics=ev.metrics)
    pd.testing.assert_frame_equal(power, synthetic_report.family_power())
    # one family of every metric is the overall split-half test itself
    overall = family_consistency(synthetic_report.consistency, "all")
    assert overall.tests["all"] is synthetic_report.consistency.test


def test_custom_families(synthetic_report):
    ev = synthetic_report.evaluation
    report = discpower.meta_evaluate(ev, n_trials=500, n_splits=100, seed=2,
                                     families={"top": ["RBP_ERG", "INST_ERG", "AP_ERG"]})
    assert report.families == {"top": ("RBP_ERG", "INST_ERG", "AP_ERG")}
    assert set(report.table3().metric) == {"RBP_ERG", "INST_ERG", "AP_ERG"}
    assert report.to_frame().set_index("metric").family.isna().sum() == len(ev.labels) - 3
    assert set(family_power(report.tests, report.families).metric) == {"RBP_ERG", "INST_ERG", "AP_ERG"}


def test_chen_sakai_paper_grid_uses_cwl_evals_ap():
    grid = cwla.chen_sakai_paper_grid()
    assert all(m.browsing.R == "retrieved" for k, m in grid.items() if k.startswith("AP_"))
    qrels_grid = cwla.chen_sakai_paper_grid(R="qrels")
    assert all(m.browsing.R == "qrels" for k, m in qrels_grid.items() if k.startswith("AP_"))
    assert {k: str(m) for k, m in grid.items() if not k.startswith("AP_")} == \
        {k: str(m) for k, m in qrels_grid.items() if not k.startswith("AP_")}


@pytest.fixture(scope="module")
def dl19_report():
    base = shared_path("trec-dl-2019-passage")
    return discpower.meta_evaluate(base / "qrels" / "qrels.dl19-passage.txt", sorted((base / "runs").glob("*.gz")),
                                   cwla.chen_sakai_paper_grid(), n_trials=2000, n_splits=1000, seed=2023)


@pytest.mark.slow
def test_chen_sakai_findings_on_dl19(dl19_report):
    """Issue 9's acceptance: AP_ERR's split-half tau below .15; under AP, max 6th of 7 in discriminative
    power; ERG first or second in consistency in every browsing model."""
    summary = dl19_report.to_frame().set_index("metric")
    assert summary.loc["AP_ERR", "mean_tau"] < 0.15
    power = dl19_report.family_power().set_index("metric")
    ap = power[power.family == "AP"].discriminative_power.sort_values(ascending=False, kind="stable")
    assert list(ap.index).index("AP_max") == 5
    table = dl19_report.table3()
    for family, block in table.groupby("family"):
        ranks = block.mean_tau.rank(ascending=False, method="min")
        assert ranks[block.metric == f"{family}_ERG"].iloc[0] <= 2, family


@pytest.mark.slow
def test_ap_err_decides_the_ap_familys_delta_on_dl19(dl19_report):
    """Issue 38's acceptance, on the 39-metric grid of notebook 02 (cwl_eval's AP, DL19): leaving AP_ERR out of
    the AP family moves its Delta_.05 from about .037 to about .011, the largest change of any metric there."""
    top = discpower.metric_influence(dl19_report).most_influential().set_index("family")
    assert top.loc["AP", "metric"] == "AP_ERR"
    assert top.loc["AP", "delta_with"] > 0.03 and top.loc["AP", "delta_without"] < 0.015
    assert top.loc["AP", "gained"] >= 1  # pairs of the other AP metrics significant only without it
    # docs/discpower.md: the within-family and overall "outperforms" counts grow with the splits
    counts = discpower.outperforms_by_splits(dl19_report.consistency, np.array([100, 300, 1000]), dl19_report.families)
    assert counts.groupby("n_splits").outperforms.sum().tolist() == [76, 85, 91]
    overall = discpower.outperforms_by_splits(dl19_report.consistency, [100, 300, 1000])
    assert overall.groupby("n_splits").outperforms.sum().tolist() == [409, 533, 634]


def test_the_qrels_ap_does_not_reproduce_them():
    base = shared_path("trec-dl-2019-passage")
    qrels_ap = {k: v for k, v in cwla.chen_sakai_paper_grid(R="qrels").items() if k.startswith("AP_")}
    report = discpower.meta_evaluate(base / "qrels" / "qrels.dl19-passage.txt", sorted((base / "runs").glob("*.gz")),
                                     qrels_ap, n_trials=2000, n_splits=1000, seed=2023)
    assert report.to_frame().set_index("metric").loc["AP_ERR", "mean_tau"] > 0.5
