"""Sweeps of candidate qrels (executors included) and the topic-bootstrap stability check."""

import multiprocessing
import re
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import matplotlib

matplotlib.use("Agg")
import numpy as np
import pandas as pd
import pytest

import cwla
import discpower
from discpower import DiscpowerError


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    qrels, runs = cwla.synthetic.collection(n_topics=20, n_runs=8, seed=21)
    root = tmp_path_factory.mktemp("sweep")
    qrels_path, run_paths = cwla.synthetic.write_trec(qrels, runs, root)
    half = qrels[(qrels.grade == 0) | (qrels.index % 2 == 0)]
    binary = qrels.assign(grade=(qrels.grade >= 2).astype(float))
    return qrels, qrels_path, run_paths, {"half": half, "binary": binary, "same": qrels}


def _same_results(a, b):
    key = ["generator", "parameter", "repetition", "measure"]
    x = a.frame.sort_values(key).reset_index(drop=True)
    y = b.frame.sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(x, y)


def test_candidate_sweep_matches_compare_qrels(files):
    qrels, qrels_path, run_paths, candidates = files
    result = discpower.sweep(qrels_path, run_paths, "nDCG@10", candidates=candidates, n_trials=1000, seed=3)
    assert set(result.frame.generator) == {"half", "binary", "same"}
    for name, cand in candidates.items():
        direct = discpower.compare_qrels(qrels_path, cand, run_paths, "nDCG@10", n_trials=1000, seed=3)
        got = result.frame[result.frame.generator == name].set_index("measure")["value"]
        for measure in ("TP", "FN", "FP", "TN", "MCC", "kappa"):
            assert got[measure] == pytest.approx(direct.measures[measure], nan_ok=True)
    same = result.frame[result.frame.generator == "same"].set_index("measure")["value"]
    assert same["FP"] == same["FN"] == 0
    table = result.table()
    assert list(table.columns[:4]) == ["TP", "TN", "FP", "FN"] and len(table) == 3


@pytest.mark.slow
def test_a_process_pool_gives_the_same_frame(files):
    qrels, qrels_path, run_paths, candidates = files
    local = discpower.sweep(qrels_path, run_paths, candidates=candidates, n_trials=500, seed=4, chunk_size=1)
    # numba's OpenMP threads do not survive fork(): process pools must spawn (or forkserver) their workers
    with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn")) as pool:
        remote = discpower.sweep(qrels_path, run_paths, candidates=candidates, n_trials=500, seed=4, chunk_size=1,
                                 executor=pool)
    _same_results(local, remote)
    with ThreadPoolExecutor(max_workers=2) as pool:
        threaded = discpower.sweep(qrels_path, run_paths, candidates=candidates, n_trials=500, seed=4, executor=pool)
    _same_results(local, threaded)


def test_custom_generator_grid_with_repetitions_and_figure(files):
    qrels, qrels_path, run_paths, _ = files

    def keep_fraction(truth, runs, parameter, seed):
        rng = np.random.default_rng(seed)
        return truth[rng.random(len(truth)) < parameter]

    result = discpower.sweep(qrels, run_paths, generators=[keep_fraction], parameters=[0.3, 1.0], repetitions=3,
                             n_trials=300, seed=5)
    summary = result.summary()
    assert set(summary.parameter) == {0.3, 1.0}
    assert summary.groupby(["parameter", "measure"])["count"].max().eq(3).all()
    full = summary[(summary.parameter == 1.0) & (summary.measure == "FN")]["mean"].item()
    assert full == 0  # keeping everything loses nothing
    again = discpower.sweep(qrels, run_paths, generators=[keep_fraction], parameters=[0.3, 1.0], repetitions=3,
                            n_trials=300, seed=5)
    _same_results(result, again)
    assert result.plot(measures=("1R", "MCC")) is not None


@pytest.mark.parametrize("kwargs, message", [
    (dict(), "nothing to sweep"),
    (dict(candidates={}), "candidates must be a non-empty dict"),
    (dict(generators=["nope"]), "unknown generator 'nope'"),
    (dict(generators=[lambda *a: None], repetitions=0), "The 'repetitions' parameter must be an integer >= 1"),
    (dict(candidates={"x": pd.DataFrame({"topic": ["t"], "docno": ["d"], "grade": [1]})}, chunk_size=0),
     "The 'chunk_size' parameter must be an integer >= 1"),
])
def test_bad_sweeps(files, kwargs, message):
    qrels, qrels_path, run_paths, _ = files
    with pytest.raises(DiscpowerError, match=re.escape(message)):
        discpower.sweep(qrels_path, run_paths, **kwargs)


def test_truth_stability(files):
    qrels, qrels_path, run_paths, candidates = files
    stab = discpower.truth_stability(qrels_path, candidates, run_paths, n_boot=30, n_trials=300, seed=6)
    summary = stab.summary()
    mcc = summary[summary.measure == "MCC"].set_index("candidate")
    assert set(mcc.index) == set(candidates)
    assert (mcc["low"] <= mcc["high"]).all()
    assert mcc.loc["same", "original"] == pytest.approx(1.0)
    ranking = stab.ranking_stability()
    assert 0 <= ranking["same_order"] <= 1 and set(ranking["keeps_rank"]) == set(candidates)
    assert stab.frame["sample"].nunique() == 31
    again = discpower.truth_stability(qrels_path, candidates, run_paths, n_boot=30, n_trials=300, seed=6)
    pd.testing.assert_frame_equal(stab.frame, again.frame)


def test_truth_stability_errors(files):
    qrels, qrels_path, run_paths, candidates = files
    with pytest.raises(DiscpowerError, match="candidates must be a non-empty dict"):
        discpower.truth_stability(qrels_path, {}, run_paths)
    with pytest.raises(DiscpowerError, match="The 'n_boot' parameter must be an integer >= 1"):
        discpower.truth_stability(qrels_path, candidates, run_paths, n_boot=0)
    with pytest.raises(DiscpowerError, match="unknown ranking measure 'XYZ'"):
        discpower.truth_stability(qrels_path, candidates, run_paths, n_boot=2, n_trials=50, ranking_measure="XYZ")


def test_a_forking_pool_is_refused_up_front(files):
    qrels, qrels_path, run_paths, candidates = files
    pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork"))
    try:
        with pytest.raises(DiscpowerError, match="numba's OpenMP threads do not survive fork"):
            discpower.sweep(qrels_path, run_paths, candidates=candidates, executor=pool)
    finally:
        pool.shutdown()


def test_grid_seeds_do_not_depend_on_the_other_parameters(files):
    qrels, qrels_path, run_paths, _ = files
    one = discpower.sweep(qrels, run_paths, generators="sampling", parameters=[0.5], repetitions=2,
                          n_trials=200, seed=9)
    two = discpower.sweep(qrels, run_paths, generators="sampling", parameters=[0.3, 0.5], repetitions=2,
                          n_trials=200, seed=9)
    a = one.frame.reset_index(drop=True)
    b = two.frame[two.frame.parameter == 0.5].reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)
    assert one.seed == 9


def test_generator_names_must_be_distinct(files):
    qrels, qrels_path, run_paths, candidates = files

    def gen(truth, runs, parameter, seed):
        return truth

    with pytest.raises(DiscpowerError, match="two generators are named 'gen'"):
        discpower.sweep(qrels_path, run_paths, generators=[gen, gen], parameters=[1])
    with pytest.raises(DiscpowerError, match=re.escape("generator and candidate names must differ; both use ['half']")):
        discpower.sweep(qrels_path, run_paths, generators={"half": gen}, parameters=[1], candidates=candidates)


def test_ranking_stability_survives_undefined_measures(files):
    qrels, qrels_path, run_paths, candidates = files
    nothing = qrels.assign(grade=0.0)  # no relevant document: no significant pair, MCC undefined
    with pytest.warns(cwla.CwlaWarning, match="gives every qrels grade"):
        stab = discpower.truth_stability(qrels_path, {"same": candidates["same"], "nothing": nothing,
                                                      "half": candidates["half"]}, run_paths, n_boot=10,
                                         n_trials=100, seed=1)
    ranking = stab.ranking_stability()
    assert ranking["samples"] == 0 and np.isnan(ranking["same_order"])
    assert stab.summary()["original"].notna().any()


def test_an_empty_candidate_is_a_status_row_and_the_other_cells_go_on(files):
    qrels, qrels_path, run_paths, _ = files
    relevant = qrels[qrels.grade > 0].reset_index(drop=True)  # rate 0 keeps no judgement at all
    grid = dict(generators="sampling", repetitions=2, n_trials=200, seed=9)
    with pytest.warns(cwla.CwlaWarning, match=re.escape("2 of 4 sweep cells could not be compared")) as said:
        with ThreadPoolExecutor(max_workers=2) as pool:
            result = discpower.sweep(relevant, run_paths, parameters=[0.0, 0.5], executor=pool, chunk_size=1, **grid)
    assert "generator 'sampling', parameter 0.0, repetition 1: empty candidate" in str(said[-1].message)
    frame = result.frame
    assert list(frame.columns) == ["generator", "parameter", "repetition", "measure", "value", "status"]
    cells = frame.groupby(["parameter", "repetition"])["measure"].agg(list)
    assert len(cells) == 4 and all(m == cells.iloc[-1] for m in cells)  # every cell, every measure
    empty, half = frame[frame.parameter == 0.0], frame[frame.parameter == 0.5]
    assert (empty.status == "empty candidate").all() and empty.value.isna().all()
    assert (half.status == "ok").all()
    alone = discpower.sweep(relevant, run_paths, parameters=[0.5], **grid)
    pd.testing.assert_frame_equal(half.reset_index(drop=True), alone.frame)
    table = result.table()
    assert table.loc[("sampling", 0.0)].isna().all()
    pd.testing.assert_series_equal(table.loc[("sampling", 0.5)], alone.table().loc[("sampling", 0.5)])
    summary = result.summary().set_index(["parameter", "measure"])
    assert summary.loc[(0.0, "MCC"), "failed"] == 2 and summary.loc[(0.0, "MCC"), "count"] == 0
    assert summary.loc[(0.5, "MCC"), "failed"] == 0
    assert result.plot() is not None


def test_a_candidate_refused_by_the_comparison_is_a_status_row(files):
    qrels, qrels_path, run_paths, _ = files
    one_topic = qrels[qrels.topic == qrels.topic.iloc[0]]
    with pytest.warns(cwla.CwlaWarning, match=re.escape("1 of 2 sweep cells could not be compared")):
        result = discpower.sweep(qrels_path, run_paths, candidates={"one topic": one_topic, "same": qrels},
                                 n_trials=200, seed=1)
    status = result.frame.groupby("generator")["status"].unique()
    assert status["same"].tolist() == ["ok"]
    assert "a paired test needs at least 2" in status["one topic"].item()
    table = result.table().droplevel("parameter")  # NaN for candidates
    assert table.loc["one topic"].isna().all() and table.loc["same", "FP"] == 0


def test_a_generator_error_names_its_cell(files):
    qrels, qrels_path, run_paths, _ = files

    def picky(truth, runs, parameter, seed):
        if parameter == 0.5:
            raise RuntimeError("no half measures")
        return truth

    message = "sweep cell (generator 'picky', parameter 0.5, repetition 0): the generator failed: RuntimeError: " \
              "no half measures"
    with pytest.raises(DiscpowerError, match=re.escape(message)):
        discpower.sweep(qrels, run_paths, generators=[picky], parameters=[1.0, 0.5], n_trials=100, seed=1)
    with ThreadPoolExecutor(max_workers=2) as pool, pytest.raises(DiscpowerError, match=re.escape(message)):
        discpower.sweep(qrels, run_paths, generators=[picky], parameters=[1.0, 0.5], n_trials=100, seed=1,
                        executor=pool, chunk_size=1)


def test_a_candidate_that_ties_every_system_is_compared(files):
    qrels, qrels_path, run_paths, _ = files

    def nothing_relevant(truth, runs, parameter, seed):
        return truth.assign(grade=0.0)

    with pytest.warns(cwla.CwlaWarning, match="gives every qrels grade"):
        result = discpower.sweep(qrels, run_paths, generators=[nothing_relevant], parameters=[1], repetitions=1,
                                 n_trials=200, seed=1)
    got = result.frame.set_index("measure")
    assert (got.status == "ok").all()
    truth = discpower.QrelsComparer.build(qrels, run_paths, n_trials=200, seed=1).truth_test
    i, j = truth.pairs()
    assert got.loc["TP", "value"] == got.loc["FP", "value"] == 0
    assert got.loc["FN", "value"] == np.sum(truth.pvalue[i, j] < 0.05) > 0  # every lost difference counts
    assert np.isnan(got.loc["MCC", "value"])


def test_several_metrics_build_each_candidate_once_and_add_a_metric_column(files):
    qrels, qrels_path, run_paths, candidates = files
    built = []

    def counted(truth, runs, parameter, seed):
        built.append((parameter, seed))
        return discpower.sample_relevant(truth, parameter, seed=seed)

    grid = dict(generators={"s": counted}, parameters=[0.4, 0.8], repetitions=2, n_trials=300, seed=5,
                candidates={"half": candidates["half"]})
    several = discpower.sweep(qrels, run_paths, ["nDCG@10", "AP", "P@5"], **grid)
    assert len(built) == 4  # one candidate per cell, compared under every metric
    frame = several.frame
    assert list(frame.columns) == ["generator", "parameter", "repetition", "metric", "measure", "value", "status"]
    assert several.metrics == ("nDCG@10", "AP", "P@5") and several.metric == "nDCG@10, AP, P@5"
    for metric in several.metrics:
        alone = discpower.sweep(qrels, run_paths, metric, **grid)
        assert "metric" not in alone.frame.columns and alone.metrics == (metric,) and alone.metric == metric
        part = frame[frame.metric == metric].drop(columns="metric").reset_index(drop=True)
        pd.testing.assert_frame_equal(part, alone.frame)
        pd.testing.assert_frame_equal(several.table().xs(metric, level="metric"), alone.table())
    assert not frame[frame.metric == "AP"].value.equals(frame[frame.metric == "P@5"].value.reset_index(drop=True))
    assert list(several.summary().columns[:4]) == ["generator", "parameter", "metric", "measure"]
    assert several.plot(metric="AP").get_title().startswith("AP,")
    with ThreadPoolExecutor(max_workers=2) as pool:
        threaded = discpower.sweep(qrels, run_paths, ["nDCG@10", "AP", "P@5"], executor=pool, chunk_size=1, **grid)
    _same_results_by_metric(several, threaded)
    labelled = discpower.sweep(qrels, run_paths, {"deep": "nDCG@10", "ap": "AP"}, **grid)
    assert labelled.metrics == ("deep", "ap") and set(labelled.frame.metric) == {"deep", "ap"}
    one = discpower.sweep(qrels, run_paths, ["AP"], **grid)
    assert set(one.frame.metric) == {"AP"}  # a list of one is a list: the column is there


def _same_results_by_metric(a, b):
    key = ["generator", "parameter", "repetition", "metric", "measure"]
    pd.testing.assert_frame_equal(a.frame.sort_values(key).reset_index(drop=True),
                                  b.frame.sort_values(key).reset_index(drop=True))


def test_several_metrics_count_the_failed_cells_per_metric(files):
    qrels, qrels_path, run_paths, _ = files
    one_topic = qrels[qrels.topic == qrels.topic.iloc[0]]
    with pytest.warns(cwla.CwlaWarning, match=re.escape("2 of 4 sweep cells could not be compared")) as said:
        result = discpower.sweep(qrels_path, run_paths, ["nDCG@10", "AP"], candidates={"one": one_topic, "same": qrels},
                                 n_trials=100)
    assert "candidate 'one', AP: " in str(said[-1].message)
    failed = result.frame[result.frame.generator == "one"]
    assert set(failed.metric) == {"nDCG@10", "AP"} and failed.value.isna().all()
    assert set(failed.measure) == set(result.frame[result.frame.generator == "same"].measure)


def test_bad_metric_lists_are_refused_up_front(files):
    qrels, qrels_path, run_paths, candidates = files
    with pytest.raises(DiscpowerError, match="metrics must be distinct"):
        discpower.sweep(qrels_path, run_paths, ["AP", "AP"], candidates=candidates)
    with pytest.raises(DiscpowerError, match="non-empty list"):
        discpower.sweep(qrels_path, run_paths, [], candidates=candidates)
    with pytest.raises(cwla.errors.MetricSyntaxError):
        discpower.sweep(qrels_path, run_paths, ["AP", "nope@@"], candidates=candidates)
    with pytest.raises(DiscpowerError, match="executor must be a concurrent.futures.Executor"):
        discpower.sweep(qrels_path, run_paths, "AP", candidates=candidates, executor=object())


def test_the_table_has_the_rows_of_the_grid_only(files):
    qrels, qrels_path, run_paths, candidates = files
    for metric in ("nDCG@10", ["nDCG@10", "AP"]):
        result = discpower.sweep(qrels_path, run_paths, metric, generators="sampling", parameters=[0.5, 1.0],
                                 repetitions=1, candidates={"half": candidates["half"]}, n_trials=100, seed=1)
        table = result.table()
        cells = result.frame.drop_duplicates([c for c in ("generator", "parameter", "metric")
                                              if c in result.frame.columns])
        assert len(table) == len(cells) == (3 if isinstance(metric, str) else 6)  # no generator x parameter cross
        assert table.notna().all().all()
        assert table.index.get_level_values("generator").tolist()[0] == "half"  # grid order kept
