"""Run-set stability (leave-one-run-out influence, run bootstrap) and the known-truth simulation."""

import numpy as np
import pandas as pd
import pytest

import cwla
import discpower
from discpower import DiscpowerError

from conftest import shared_path


@pytest.fixture(scope="module")
def synthetic():
    qrels, runs = cwla.synthetic.collection(n_topics=25, n_runs=8, seed=11)
    # an outlying run: every topic's ranking reversed (the best documents last)
    worst = runs["run01"].copy()
    worst["score"] = -worst["score"]
    worst = worst.sort_values(["topic", "score"], ascending=[True, False], kind="stable")
    worst["rank"] = worst.groupby("topic").cumcount() + 1
    runs = {**runs, "reversed": worst}
    half = discpower.sample_relevant(qrels, 0.5, seed=1)
    return qrels, runs, {"half": half}


def test_leave_one_out_matches_compare_qrels_without_the_run(synthetic):
    qrels, runs, cands = synthetic
    rs = discpower.run_stability(qrels, cands, runs, "nDCG@10", n_boot=5, n_trials=500, seed=3)
    for left in ("reversed", "run03"):
        rest = {k: v for k, v in runs.items() if k != left}
        direct = discpower.compare_qrels(qrels, cands["half"], rest, "nDCG@10", n_trials=500, seed=3).measures
        got = rs.without(left).set_index("measure").without_run
        for k in ("TP", "FN", "FP", "TN", "1R", "MCC"):
            assert got[k] == pytest.approx(direct[k], nan_ok=True), (left, k)
        assert got["significant_truth"] == direct["TP"] + direct["FN"]


def test_with_run_is_the_full_analysis_on_the_other_pairs(synthetic):
    qrels, runs, cands = synthetic
    rs = discpower.run_stability(qrels, cands, runs, "nDCG@10", n_boot=2, n_trials=500, seed=3)
    full = discpower.compare_qrels(qrels, cands["half"], runs, "nDCG@10", n_trials=500, seed=3).pairs
    others = full[(full.system_a != "run03") & (full.system_b != "run03")]
    got = rs.without("run03").set_index("measure").with_run
    assert got["TP"] == int((others.outcome == "TP").sum())
    assert got["FN"] == int((others.outcome == "FN").sum())
    assert got["significant_truth"] == int(others.significant_truth.sum())


def test_influence_is_ranked_and_counts_changed_decisions():
    """Seven close systems and one far below them (a random ranking, as UNH_exDL_bm25 on DL19): the
    outlier widens the Tukey HSD's null range, so only it changes decisions on the other pairs."""
    pop = discpower.known_truth_collection(n_topics=30, quality=(0.0, 1.0, 1.3, 1.6, 1.9, 2.2, 2.5, 2.8),
                                           per_level=1, docs=30, seed=3)
    runs = pop.runs
    half = discpower.sample_relevant(pop.qrels, 0.5, seed=1)
    rs = discpower.run_stability(pop.qrels, {"half": half}, runs, "nDCG@10", n_boot=3, n_trials=500, seed=3)
    inf = rs.influence
    assert inf["rank"].tolist() == list(range(1, len(runs) + 1))
    assert set(inf.run) == set(runs)
    assert (np.diff(inf.outcome_changes.to_numpy()) <= 0).all()
    assert rs.most_influential(1) == ["L0S0"]
    assert inf.outcome_changes.iloc[0] > 0 and inf.outcome_changes.iloc[1:].eq(0).all()
    assert inf.set_index("run").loc["L0S0", "truth_changes"] > 0
    # outcome changes of a run are at most the pairs not involving it
    assert (inf.outcome_changes <= (len(runs) - 1) * (len(runs) - 2) // 2).all()


def test_run_bootstrap_is_seeded_and_sample_zero_is_the_full_set(synthetic):
    qrels, runs, cands = synthetic
    a = discpower.run_stability(qrels, cands, runs, "nDCG@10", n_boot=8, n_trials=300, seed=5)
    b = discpower.run_stability(qrels, cands, runs, "nDCG@10", n_boot=8, n_trials=300, seed=5)
    pd.testing.assert_frame_equal(a.bootstrap.frame, b.bootstrap.frame)
    pd.testing.assert_frame_equal(a.influence, b.influence)
    full = discpower.compare_qrels(qrels, cands["half"], runs, "nDCG@10", n_trials=300, seed=5).measures
    s0 = a.bootstrap.frame[a.bootstrap.frame["sample"] == 0].set_index("measure").value
    assert s0["TP"] == full["TP"] and s0["FN"] == full["FN"]
    assert set(a.bootstrap.frame["sample"]) == set(range(9))
    summary = a.bootstrap.summary()
    assert {"original", "mean", "low", "high"} <= set(summary.columns)


def test_run_stability_errors(synthetic):
    qrels, runs, cands = synthetic
    with pytest.raises(DiscpowerError, match="non-empty dict"):
        discpower.run_stability(qrels, {}, runs)
    with pytest.raises(DiscpowerError, match="at least 4 runs"):
        discpower.run_stability(qrels, cands, {k: runs[k] for k in list(runs)[:3]}, n_boot=1)
    rs = discpower.run_stability(qrels, cands, runs, n_boot=1, n_trials=100)
    with pytest.raises(DiscpowerError, match="unknown run"):
        rs.without("nope")
    with pytest.raises(DiscpowerError, match="'k' parameter"):
        rs.most_influential("a")
    with pytest.raises(DiscpowerError, match="'c' is None"):
        discpower.run_stability(qrels, {"c": None}, runs, n_boot=1)


def test_run_bootstrap_families_are_distinct_runs(synthetic):
    qrels, runs, cands = synthetic
    rs = discpower.run_stability(qrels, cands, runs, "nDCG@10", n_boot=12, n_trials=200, seed=2)
    pairs = rs.bootstrap.frame[rs.bootstrap.frame.measure == "pairs"].set_index("sample").value
    assert pairs.loc[0] == len(runs) * (len(runs) - 1) // 2
    assert (pairs.loc[1:] < pairs.loc[0]).any()  # a resample misses some runs; no run is compared with its copy


def test_direction_aware_reaches_the_run_set_comparisons(synthetic):
    qrels, runs, cands = synthetic
    flipped = {"flipped": cands["half"].assign(grade=lambda q: q.grade.max() - q.grade)}
    plain = discpower.run_stability(qrels, flipped, runs, n_boot=1, n_trials=300, seed=2)
    aware = discpower.run_stability(qrels, flipped, runs, n_boot=1, n_trials=300, seed=2, direction_aware=True)
    tp = lambda rs: rs.leave_one_out.query("measure == 'TP'").with_run.sum()
    assert tp(aware) < tp(plain)  # opposite-sign significant pairs are FP, not TP


@pytest.mark.slow
def test_dl19_outlier_is_the_most_influential_run():
    """Issue 9's acceptance: NIST vs the zero-shot LLM qrels, nDCG@10: UNH_exDL_bm25 ranks first."""
    base = shared_path("trec-dl-2019-passage")
    llm = base / "candidate-qrels" / "llm" / "dl2019_test_baseline_relavance_qrel_prompt_order_3210.txt"
    rs = discpower.run_stability(base / "qrels" / "qrels.dl19-passage.txt", {"zero-shot": llm},
                                 sorted((base / "runs").glob("*.gz")), "nDCG@10", n_boot=10, n_trials=2000, seed=1)
    assert rs.most_influential(1) == ["UNH_exDL_bm25"]
    inf = rs.influence.set_index("run")
    assert inf.loc["UNH_exDL_bm25", "outcome_changes"] > 10 * inf.outcome_changes.iloc[1]
    without = rs.without("UNH_exDL_bm25").set_index("measure")
    assert without.loc["significant_candidate", "with_run"] <= 5      # with it: almost nothing significant
    assert without.loc["significant_candidate", "without_run"] > 100  # without it: over a hundred pairs


# --------------------------------------------------------------------------- known truth

@pytest.fixture(scope="module")
def population():
    return discpower.known_truth_collection(n_topics=300, quality=(0.5, 1.5), per_level=3, docs=25, seed=2)


def test_known_truth_collection_orders_the_levels(population):
    ev = cwla.evaluate(population.qrels, population.runs, ["nDCG@10"])
    means = dict(zip(ev.runs, ev.values[0].mean(axis=1)))
    low = [means[r] for r in population.runs if population.level[r] == 0]
    high = [means[r] for r in population.runs if population.level[r] == 1]
    assert max(low) < min(high)
    sign = population.true_difference()
    assert sign.shape == (6, 6) and (sign == -sign.T).all() and (np.diag(sign) == 0).all()
    assert int((sign[np.triu_indices(6, 1)] != 0).sum()) == 9  # 3 x 3 pairs across the two levels
    again = discpower.known_truth_collection(n_topics=300, quality=(0.5, 1.5), per_level=3, docs=25, seed=2)
    pd.testing.assert_frame_equal(population.qrels, again.qrels)


def test_known_truth_errors_against_sgt_and_truth(population):
    res = discpower.known_truth_errors(
        population, {"truth": population.qrels, "sampled": lambda q: discpower.sample_relevant(q, 0.3, seed=0)},
        sample_topics=15, experiments=12, n_trials=300, seed=4)
    frame = res.frame
    assert len(frame) == 24 and set(frame.candidate) == {"truth", "sampled"}
    truth = frame[frame.candidate == "truth"]
    # the ground truth compared with itself loses nothing against S_gt, but misses true differences
    assert (truth.type_II_sgt.fillna(0) == 0).all()
    assert (truth.type_II_true == truth.type_II_truth).all()
    assert truth.type_II_true.mean() > 0
    summary = res.summary().set_index("candidate")
    for name in ("truth", "sampled"):
        block = frame[frame.candidate == name]
        d = (block.type_II_sgt - block.type_II_true).dropna()
        assert summary.loc[name, "type_II_difference"] == pytest.approx(d.mean())
    assert summary.loc["sampled", "type_II_true"] >= summary.loc["truth", "type_II_true"]
    assert frame.true_differences.eq(9).all()


def test_known_truth_errors_reject_bad_input(population):
    with pytest.raises(DiscpowerError, match="KnownTruthCollection"):
        discpower.known_truth_errors("qrels", {"a": None})
    with pytest.raises(DiscpowerError, match="sample_topics"):
        discpower.known_truth_errors(population, {"t": population.qrels}, sample_topics=1000)
    with pytest.raises(DiscpowerError, match="every topic"):
        sub = population.qrels[population.qrels.topic < "P100"]
        discpower.known_truth_errors(population, {"t": sub}, sample_topics=5, experiments=1)
    with pytest.raises(DiscpowerError, match="quality"):
        discpower.known_truth_collection(quality=(1.0, 0.5))
    with pytest.raises(DiscpowerError, match="quality"):
        discpower.known_truth_collection(quality="12")
    with pytest.raises(DiscpowerError, match="'t' is None"):
        discpower.known_truth_errors(population, {"t": None}, sample_topics=5, experiments=1)
    with pytest.raises(DiscpowerError, match="unknown test"):
        discpower.known_truth_errors(population, {"t": population.qrels}, test="wilcox", sample_topics=5)


def test_known_truth_summary_compares_the_same_experiments(population):
    res = discpower.known_truth_errors(population, {"truth": population.qrels}, sample_topics=3, experiments=15,
                                       n_trials=200, seed=1)
    s = res.summary().iloc[0]
    assert s.type_II_difference == pytest.approx(s.type_II_sgt_compared - s.type_II_true_compared)
    assert s.type_II_compared <= s.experiments
