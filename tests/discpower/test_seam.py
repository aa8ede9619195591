"""The seam between cwla and discpower: one Evaluator per entry point, every option of evaluate reaching every
entry point, and each piece of work done once (joins, truth tests, memory checks)."""

import numpy as np
import pandas as pd
import pytest

import cwla
import discpower
import discpower.stats.memory as memory
from cwla.scoring import evaluator as evaluator_module
from discpower.qrels import compare as compare_module
from discpower.qrels.compare import QrelsComparer

B = 200


def _data():
    qrels, runs = cwla.synthetic.collection(n_topics=14, n_runs=6, seed=11)
    rng = np.random.default_rng(5)
    shaken = {}
    for name, frame in runs.items():
        frame = frame.sample(frac=1.0, random_state=int(rng.integers(1 << 30))).reset_index(drop=True)
        # scores equal in float32, distinct in float64: ties="float64" orders them otherwise
        frame["score"] = 10 + np.floor(frame["score"].to_numpy() * 2) / 2 + rng.random(len(frame)) * 1e-9
        shaken[name] = frame.drop(columns=["rank"])
    candidate = discpower.sample_relevant(qrels, 0.5, seed=2)
    costs = qrels[["topic", "docno"]].assign(grade=1.0 + (np.arange(len(qrels)) % 4))  # the cost
    return qrels, shaken, candidate, costs


@pytest.fixture(scope="module")
def data():
    return _data()


#: (metric, options) where each option of evaluate changes the scores (workers, expected: accepted, same scores)
CASES = [
    ("RBP_ERG", {"gain": "binary:2"}), ("RBP_ERG", {"cutoff": 3}), ("RBP_ERG", {"depth": 5}),
    ("INST_PE", {"depth": 5, "stop": True}), ("RBP_ERG", {"normalize": "ideal"}), ("RBP_ERG", {"judged_only": True}),
    ("P@10", {"rel": 2}), ("map", {"max_docs": 4}), ("RBP_ERG", {"order": "file"}), ("RBP_ERG", {"ties": "float64"}),
    ("TBG+ETG", {"costs": "costs", "max_cost": 2.0, "min_cost": 0.5}), ("nDCG@10", {"workers": 1}),
    ("nDCG@10", {"expected": True}),
]
NO_EFFECT = ("workers", "expected")


def _options(options, costs):
    return {k: (costs if v == "costs" else v) for k, v in options.items()}


@pytest.mark.slow
@pytest.mark.parametrize("metric, options", CASES, ids=[",".join(o) for _, o in CASES])
def test_every_option_reaches_compare_qrels_sweep_and_meta_evaluate(data, metric, options):
    qrels, runs, candidate, costs = data
    options = _options(options, costs)
    ev = cwla.evaluate(qrels, runs, [metric], **options)
    plain = cwla.evaluate(qrels, runs, [metric])
    if not set(options) & set(NO_EFFECT):  # the option matters here: a test that drops it fails
        assert not np.array_equal(ev.values, plain.values)
    expected = discpower.randomised_tukey_hsd(ev.scores(metric), B, seed=4)

    result = discpower.compare_qrels(qrels, candidate, runs, metric, n_trials=B, seed=4, **options)
    np.testing.assert_array_equal(result.truth_test.pvalue, expected.pvalue)
    np.testing.assert_array_equal(result.truth_means.to_numpy(), expected.means)

    frame = discpower.sweep(qrels, runs, metric, candidates={"c": candidate}, n_trials=B, seed=4, **options).frame
    got = dict(zip(frame["measure"], frame["value"]))
    assert set(got) == set(result.measures)
    for measure, value in result.measures.items():
        assert got[measure] == float(value) or (np.isnan(got[measure]) and np.isnan(value)), measure

    report = discpower.meta_evaluate(qrels, runs, [metric, "nDCG@5"], n_trials=B, n_splits=0, seed=4, **options)
    np.testing.assert_array_equal(report.evaluation.values[0], ev.values[0])
    if options.get("expected"):
        assert report.evaluation.expected is not None


def test_an_evaluator_is_taken_wherever_runs_are(data):
    qrels, runs, candidate, _ = data
    evaluator = cwla.Evaluator(runs, ["RBP_ERG"], cutoff=5, order="file")
    by_runs = discpower.compare_qrels(qrels, candidate, runs, "RBP_ERG", n_trials=B, seed=1, cutoff=5, order="file")
    by_evaluator = discpower.compare_qrels(qrels, candidate, evaluator, n_trials=B, seed=1)
    assert by_runs.measures == pytest.approx(by_evaluator.measures, nan_ok=True)
    pd.testing.assert_frame_equal(by_runs.pairs, by_evaluator.pairs)

    sweep_runs = discpower.sweep(qrels, runs, "RBP_ERG", candidates={"c": candidate}, n_trials=B, cutoff=5,
                                 order="file").frame
    sweep_evaluator = discpower.sweep(qrels, evaluator, candidates={"c": candidate}, n_trials=B).frame
    pd.testing.assert_frame_equal(sweep_runs, sweep_evaluator)

    meta_runs = discpower.meta_evaluate(qrels, runs, ["RBP_ERG", "map"], n_trials=B, n_splits=10, cutoff=5)
    meta_evaluator = discpower.meta_evaluate(qrels, cwla.Evaluator(runs, ["RBP_ERG", "map"], cutoff=5),
                                             n_trials=B, n_splits=10)
    pd.testing.assert_frame_equal(meta_runs.to_frame(), meta_evaluator.to_frame())

    table_runs = discpower.compare_systems(qrels, runs, ["RBP_ERG"], n_trials=B, cutoff=5, order="file")
    table_evaluator = discpower.compare_systems(qrels, evaluator, n_trials=B)
    np.testing.assert_array_equal(table_runs.pvalue, table_evaluator.pvalue)

    stab = discpower.truth_stability(qrels, {"c": candidate}, evaluator, n_boot=3, n_trials=B)
    stab_runs = discpower.truth_stability(qrels, {"c": candidate}, runs, "RBP_ERG", n_boot=3, n_trials=B, cutoff=5,
                                          order="file")
    pd.testing.assert_frame_equal(stab.frame, stab_runs.frame)


def test_options_beside_an_evaluator_are_refused(data):
    qrels, runs, candidate, _ = data
    evaluator = cwla.Evaluator(runs, ["RBP_ERG", "map"])
    with pytest.raises(discpower.DiscpowerError, match="the Evaluator holds the metrics and every option"):
        discpower.compare_qrels(qrels, candidate, evaluator, cutoff=5)
    with pytest.raises(discpower.DiscpowerError, match="compare one metric at a time"):
        discpower.compare_qrels(qrels, candidate, evaluator)
    one = discpower.compare_qrels(qrels, candidate, evaluator, "map", n_trials=B)
    alone = discpower.compare_qrels(qrels, candidate, runs, "map", n_trials=B)
    assert one.measures == pytest.approx(alone.measures, nan_ok=True)
    with pytest.raises(discpower.DiscpowerError, match="names some of its metrics by label"):
        discpower.compare_qrels(qrels, candidate, evaluator, "nDCG@10")
    with pytest.raises(discpower.DiscpowerError, match="the Evaluator holds"):
        discpower.meta_evaluate(qrels, evaluator, ["map"])


class Counts:
    """Count joins, tests of the ground truth, all significance tests and memory checks."""

    def __init__(self, monkeypatch):
        self.joins = self.truth_tests = self.tests = self.memory = 0
        join, test, probe = evaluator_module.join, QrelsComparer._test, memory.available_memory
        significance = compare_module.significance_test

        def counted_join(*args):
            self.joins += 1
            return join(*args)

        def counted_test(comparer, ev, label, topics=None):
            self.truth_tests += ev is comparer.truth_evaluations.get(label)
            return test(comparer, ev, label, topics)

        def counted_significance(*args, **kwargs):
            self.tests += 1
            return significance(*args, **kwargs)

        def counted_probe():
            self.memory += 1
            return probe()

        monkeypatch.setattr(evaluator_module, "join", counted_join)
        monkeypatch.setattr(QrelsComparer, "_test", counted_test)
        monkeypatch.setattr(compare_module, "significance_test", counted_significance)
        monkeypatch.setattr(memory, "available_memory", counted_probe)


def test_compare_qrels_does_each_piece_of_work_once(data, monkeypatch):
    qrels, runs, _, _ = data
    fewer = discpower.topic_subset(qrels, fraction=0.5, seed=1)  # the truth is tested on these topics only
    counts = Counts(monkeypatch)
    result = discpower.compare_qrels(qrels, fewer, runs, "nDCG@10", n_trials=B)
    assert result.measures["topics_truth"] == result.measures["topics_candidate"] < len(set(qrels["topic"]))
    assert (counts.joins, counts.truth_tests, counts.tests, counts.memory) == (2, 1, 2, 1)


def test_a_sweep_does_each_piece_of_work_once(data, monkeypatch):
    qrels, runs, candidate, _ = data
    counts = Counts(monkeypatch)
    frame = discpower.sweep(qrels, runs, ["nDCG@10", "map", "RBP_ERG"], generators="sampling",
                            parameters=[0.4, 0.8], repetitions=1, n_trials=B).frame
    assert set(frame["status"]) == {"ok"}
    # 2 candidates + the truth joined; 3 truth tests (one a metric); 3 x 2 candidate tests; one memory check
    assert (counts.joins, counts.truth_tests, counts.tests, counts.memory) == (3, 3, 9, 1)


def test_meta_evaluate_calibrate_and_compare_systems_check_memory_once(data, monkeypatch):
    qrels, runs, _, _ = data
    counts = Counts(monkeypatch)
    discpower.meta_evaluate(qrels, runs, ["nDCG@10", "map", "RBP_ERG"], n_trials=B, n_splits=20)
    assert (counts.joins, counts.memory) == (1, 1)
    ev = cwla.evaluate(qrels, runs, ["nDCG@10"])
    counts.memory = 0
    discpower.calibrate(ev.scores("nDCG@10"), ["tukey", "t-test"], n_sim=4, n_trials=B, deltas=[0.1])
    assert counts.memory == 1
    counts.memory = 0
    discpower.compare_systems(ev, n_trials=B)
    assert counts.memory == 1


def test_generators_keep_no_cache(data):
    from discpower.qrels import generators

    assert not [name for name in vars(generators) if name.isupper() and name.startswith("_")]
    qrels, runs, _, _ = data
    run_set = cwla.read_runs(runs)
    pd.testing.assert_frame_equal(discpower.depth_pool(qrels, run_set, 3), discpower.depth_pool(qrels, runs, 3))
    evaluator = cwla.Evaluator(run_set)
    pd.testing.assert_frame_equal(discpower.popularity_qrels(qrels, evaluator, k=3),
                                  discpower.popularity_qrels(qrels, runs, k=3))


def test_comparisons_hold_run_files_beyond_the_group_budget(data, tmp_path, monkeypatch):
    import cwla.data.runset as runset

    qrels, runs, candidate, _ = data
    _, paths = cwla.synthetic.write_trec(qrels, {k: v.assign(rank=1) for k, v in runs.items()}, tmp_path)
    held = discpower.compare_qrels(qrels, candidate, paths, "nDCG@10", n_trials=B)
    monkeypatch.setattr(runset, "GROUP_BYTES", 1)  # every file a group of its own
    assert discpower.compare_qrels(qrels, candidate, paths, "nDCG@10", n_trials=B).measures == \
        pytest.approx(held.measures, nan_ok=True)
    streamed = cwla.Evaluator(paths, ["nDCG@10"])
    assert streamed.streamed
    with pytest.raises(discpower.DiscpowerError, match="build it with hold=True"):
        discpower.compare_qrels(qrels, candidate, streamed, n_trials=B)
    held_evaluator = cwla.Evaluator(paths, ["nDCG@10"], hold=True)
    assert not held_evaluator.streamed
    assert discpower.compare_qrels(qrels, candidate, held_evaluator, n_trials=B).measures == \
        pytest.approx(held.measures, nan_ok=True)


def test_one_metric_entry_points_refuse_several_before_reading(data, tmp_path):
    qrels, _, candidate, _ = data
    missing = [str(tmp_path / "no-such-run")]
    for call in (lambda: discpower.compare_qrels(qrels, candidate, missing, ["nDCG@10", "map"]),
                 lambda: discpower.truth_stability(qrels, {"c": candidate}, missing, ["nDCG@10", "map"]),
                 lambda: discpower.run_stability(qrels, {"c": candidate}, missing, ["nDCG@10", "map"])):
        with pytest.raises(discpower.DiscpowerError, match="compare one metric at a time; got 2"):
            call()


def test_the_memory_of_a_comparison_is_checked_before_any_file_is_read(data, tmp_path, one_mib):
    qrels, _, candidate, _ = data
    missing = [str(tmp_path / "no-such-run")]
    for call in (lambda: discpower.compare_qrels(qrels, candidate, missing, n_trials=10**6),
                 lambda: discpower.sweep(qrels, missing, candidates={"c": candidate}, n_trials=10**6),
                 lambda: discpower.compare_systems(qrels, missing, ["map"], n_trials=10**6)):
        with pytest.raises(discpower.DiscpowerError, match="needs about .* of memory"):
            call()


def test_a_comparer_pickles_and_a_changed_copy_computes_its_own_tests(data):
    import pickle

    import attrs

    qrels, runs, candidate, _ = data
    comparer = discpower.QrelsComparer.build(qrels, runs, "map", n_trials=B)
    first = comparer.compare(candidate)
    again = pickle.loads(pickle.dumps(comparer))
    assert again.compare(candidate).measures == pytest.approx(first.measures, nan_ok=True)
    more = attrs.evolve(comparer, n_trials=2 * B)
    assert more.truth_test.n_resamples == 2 * B and comparer.truth_test.n_resamples == B


def test_a_collection_an_evaluator_prepared_goes_with_it(data):
    qrels, runs, _, _ = data
    evaluator = cwla.Evaluator(runs, ["nDCG@10", "map"])
    col = evaluator.prepare(qrels)
    table = discpower.compare_systems(col, evaluator, n_trials=B, seed=1)
    np.testing.assert_array_equal(table.pvalue, discpower.compare_systems(qrels, evaluator, n_trials=B, seed=1).pvalue)
    report = discpower.meta_evaluate(cwla.prepare(qrels, runs), None, ["nDCG@10", "map"], n_trials=B, n_splits=0)
    assert report.evaluation.labels == ("nDCG@10", "map")
