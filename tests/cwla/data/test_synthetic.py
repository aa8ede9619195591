"""Tests of cwla.synthetic: the built-in deterministic TREC collection."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import cwla
from cwla import synthetic
from cwla.data.readers import read_qrels, read_run
import os
from cwla.errors import InputError


@pytest.fixture(scope="module")
def default():
    return synthetic.collection()


def _lengths(runs) -> pd.DataFrame:
    """(run, topic) -> number of documents retrieved."""
    return pd.concat(
        {name: frame.groupby("topic").size() for name, frame in runs.items()}, names=["run", "topic"]
    ).rename("n").reset_index()


def _spearman(x, y) -> float:
    rx, ry = np.argsort(np.argsort(x)), np.argsort(np.argsort(y))
    return float(np.corrcoef(rx, ry)[0, 1])


# ---------------------------------------------------------------------------
# determinism
# ---------------------------------------------------------------------------


def test_same_seed_gives_identical_frames():
    q1, r1 = synthetic.collection(n_topics=10, n_runs=5, depth=40, seed=3)
    q2, r2 = synthetic.collection(n_topics=10, n_runs=5, depth=40, seed=3)
    pd.testing.assert_frame_equal(q1, q2)
    assert list(r1) == list(r2)
    for name in r1:
        pd.testing.assert_frame_equal(r1[name], r2[name])
        assert r1[name].attrs == r2[name].attrs


def test_different_seed_differs():
    q1, r1 = synthetic.collection(n_topics=10, n_runs=5, depth=40, seed=3)
    q2, r2 = synthetic.collection(n_topics=10, n_runs=5, depth=40, seed=4)
    assert list(r1) == list(r2)  # same names ...
    assert not q1.equals(q2)  # ... different data
    assert any(not r1[name].equals(r2[name]) for name in r1)


# ---------------------------------------------------------------------------
# shape and names
# ---------------------------------------------------------------------------


def test_columns_dtypes_and_names(default):
    qrels, runs = default
    assert list(qrels.columns) == ["topic", "docno", "grade"]
    assert qrels["grade"].dtype == np.int64
    assert sorted(qrels["topic"].unique()) == [f"T{i:03d}" for i in range(1, 31)]
    assert all(re.fullmatch(r"D\d{5}", d) for d in qrels["docno"])
    assert list(runs) == [f"run{i:02d}" for i in range(1, 13)]
    for frame in runs.values():
        assert list(frame.columns) == ["topic", "docno", "score", "rank"]
        assert frame["score"].dtype == np.float64 and frame["rank"].dtype == np.int64
        assert all(isinstance(t, str) and re.fullmatch(r"T\d{3}", t) for t in frame["topic"].unique())
        assert not frame.duplicated(["topic", "docno"]).any()
    assert not qrels.duplicated(["topic", "docno"]).any()


def test_ranks_follow_scores(default):
    _, runs = default
    for frame in runs.values():
        for _, group in frame.groupby("topic"):
            assert group["rank"].tolist() == list(range(1, len(group) + 1))
            assert (np.diff(group["score"].to_numpy()) <= 0).all()


def test_parameters_are_honoured():
    qrels, runs = synthetic.collection(n_topics=4, n_runs=3, depth=15, seed=9, max_grade=1)
    assert qrels["topic"].nunique() == 4
    assert set(qrels["grade"].unique()) == {0, 1}
    assert len(runs) == 3
    assert _lengths(runs)["n"].max() == 15


def test_smallest_collection():
    qrels, runs = synthetic.collection(n_topics=2, n_runs=1, depth=1, seed=0, max_grade=1)
    assert qrels["topic"].nunique() == 2
    assert list(runs) == ["run01"]
    ev = cwla.evaluate(qrels, runs, ["nDCG@10"])
    assert ev.values.shape == (1, 1, 2)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"n_topics": 1}, ValueError),
        ({"n_runs": 0}, ValueError),
        ({"depth": 0}, ValueError),
        ({"max_grade": 0}, ValueError),
        ({"depth": 2.5}, TypeError),
        ({"n_runs": True}, TypeError),
        ({"seed": -1}, ValueError),
    ],
)
def test_bad_parameters_raise(kwargs, error):
    with pytest.raises(error, match="parameter of collection"):
        synthetic.collection(**kwargs)


# ---------------------------------------------------------------------------
# the promised realism
# ---------------------------------------------------------------------------


def test_grades_mostly_zero_few_at_max(default):
    qrels, _ = default
    counts = qrels["grade"].value_counts()
    assert set(counts.index) == {0, 1, 2, 3}
    assert counts[0] > 0.5 * len(qrels)
    assert counts[3] < counts[1]


def test_a_topic_without_relevant_documents(default):
    qrels, _ = default
    best = qrels.groupby("topic")["grade"].max()
    assert (best == 0).sum() >= 1
    assert (best > 0).sum() >= 1


def test_exact_score_ties(default):
    _, runs = default
    ties = sum(int(f.duplicated(["topic", "score"]).sum()) for f in runs.values())
    assert ties > 0
    for frame in runs.values():  # 1 or 2 decimals
        assert np.allclose(frame["score"], frame["score"].round(2), rtol=0, atol=1e-9)


def test_unjudged_documents_are_retrieved(default):
    qrels, runs = default
    judged = set(zip(qrels["topic"], qrels["docno"]))

    def unjudged(frame):
        return np.array([p not in judged for p in zip(frame["topic"], frame["docno"])])

    pooled = runs["run01"]
    assert unjudged(pooled).any()
    assert not unjudged(pooled[(pooled["rank"] <= 20) & (pooled["topic"] != "T031")]).any()  # the pool depth
    late = runs["run07"]  # the middle run did not contribute to the pool
    assert unjudged(late[late["rank"] <= 10]).any()


def test_missing_and_extra_topics(default):
    qrels, runs = default
    topics = set(qrels["topic"])
    missing = {name: topics - set(frame["topic"]) for name, frame in runs.items()}
    assert missing["run12"]  # the last run misses a topic
    assert set(runs["run01"]["topic"]) - topics == {"T031"}  # an extra topic without qrels
    ev = cwla.evaluate(qrels, runs, "nDCG@10")
    assert ev.missing_topics["run12"]
    assert ev.ignored_topics["run01"] == ("T031",)


def test_varied_depths(default):
    _, runs = default
    lengths = _lengths(runs)
    per_run = lengths.groupby("run")["n"].max()
    assert per_run.max() == 100
    assert (per_run < 100).any()  # a shorter run
    assert (lengths["n"] < 10).any()  # a topic with only a few documents


def test_quality_attribute_decreases(default):
    _, runs = default
    quality = [frame.attrs["quality"] for frame in runs.values()]
    assert quality[0] == pytest.approx(0.9) and quality[-1] == pytest.approx(0.1)
    assert all(a > b for a, b in zip(quality, quality[1:]))


# ---------------------------------------------------------------------------
# evaluation
# ---------------------------------------------------------------------------


def test_valid_input_for_evaluate(default):
    qrels, runs = default
    metrics = ["nDCG@10", "P(rel=2)@10", "AP", "INST_PE", "RBP(p=0.8)+ERG[cutoff=5]"]
    ev = cwla.evaluate(qrels, runs, metrics)
    assert ev.values.shape == (5, 12, 30)
    assert np.isfinite(ev.values).all() and (ev.values >= 0).all()
    assert ev.runs == tuple(runs)
    # normalised metrics score 0 on the topic without relevant documents
    best = qrels.groupby("topic")["grade"].max()
    empty = [ev.topics.index(t) for t in best.index[best == 0]]
    assert (ev.scores("nDCG@10").to_numpy()[:, empty] == 0).all()
    # unjudged documents give residuals
    assert ev.to_frame()["residual"].max() > 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_better_runs_score_higher(seed):
    qrels, runs = synthetic.collection(seed=seed)
    ev = cwla.evaluate(qrels, runs, "nDCG@10")
    means = ev.values[0].mean(axis=1)
    quality = np.array([runs[name].attrs["quality"] for name in ev.runs])
    assert _spearman(means, quality) > 0.8
    order = np.argsort(-quality)
    half = len(order) // 2
    assert means[order[:half]].mean() > means[order[half:]].mean() + 0.1


def test_order_file_and_trec_eval_both_work(default):
    qrels, runs = default
    a = cwla.evaluate(qrels, runs, "nDCG@10", order="file")
    b = cwla.evaluate(qrels, runs, "nDCG@10", order="trec_eval")
    assert a.values.shape == b.values.shape


# ---------------------------------------------------------------------------
# write_trec
# ---------------------------------------------------------------------------


def test_write_trec_round_trips(tmp_path):
    qrels, runs = synthetic.collection(n_topics=6, n_runs=3, depth=25, seed=2)
    qrels_path, run_paths = synthetic.write_trec(qrels, runs, tmp_path / "sub")
    assert qrels_path == tmp_path / "sub" / "qrels.txt"
    assert [p.name for p in run_paths] == list(runs)
    back = read_qrels(qrels_path)
    assert back["topic"].tolist() == qrels["topic"].tolist()
    assert back["docno"].tolist() == qrels["docno"].tolist()
    assert np.array_equal(back["grade"].to_numpy(), qrels["grade"].to_numpy(np.float64))
    for path, (name, frame) in zip(run_paths, runs.items()):
        run = read_run(path)
        for column in ("topic", "docno", "rank"):
            assert run[column].tolist() == frame[column].tolist()
        assert np.array_equal(run["score"].to_numpy(), frame["score"].to_numpy())  # exact
        first = path.read_text().splitlines()[0].split()
        assert first[1] == "Q0" and first[3] == "1" and first[5] == name


def test_write_trec_qrels_line_format(tmp_path):
    qrels, runs = synthetic.collection(n_topics=3, n_runs=1, depth=5, seed=0)
    qrels_path, _ = synthetic.write_trec(qrels, runs, tmp_path)
    line = qrels_path.read_text().splitlines()[0]
    assert re.fullmatch(r"T\d{3} 0 D\d{5} [0-3]", line)


def test_files_and_frames_evaluate_alike(tmp_path):
    qrels, runs = synthetic.collection(n_topics=8, n_runs=4, depth=30, seed=5)
    qrels_path, run_paths = synthetic.write_trec(qrels, runs, tmp_path)
    metrics = ["nDCG@10", "AP", "INST_PE"]
    from_frames = cwla.evaluate(qrels, runs, metrics)
    from_files = cwla.evaluate(qrels_path, run_paths, metrics)
    assert from_files.runs == from_frames.runs
    np.testing.assert_array_equal(from_files.values, from_frames.values)


@pytest.mark.parametrize("name, message", [
    ("../x.txt", "run name '../x.txt' is a path, not a file name"),
    ("/tmp/abs.txt", "run name '/tmp/abs.txt' is a path, not a file name"),
    ("a/b", "run name 'a/b' is a path, not a file name"),
    ("", "run name '' is not a file name"),
    (".", "run name '.' is not a file name"),
    ("..", "run name '..' is not a file name"),
    ("qrels.txt", "run name 'qrels.txt' is the name of the qrels file write_trec writes"),
    ("my run", "run name 'my run' contains whitespace"),
])
def test_write_trec_refuses_names_outside_the_folder(tmp_path, name, message):
    qrels, runs = synthetic.collection(n_topics=3, n_runs=2, depth=5, seed=0)
    runs = {"ok": runs["run01"], name: runs["run02"]}
    with pytest.raises(InputError, match=re.escape(message)):
        synthetic.write_trec(qrels, runs, tmp_path / "out")
    assert not (tmp_path / "out").exists() and os.listdir(tmp_path) == []  # nothing written


def test_write_trec_refuses_names_that_collide(tmp_path):
    qrels, runs = synthetic.collection(n_topics=3, n_runs=2, depth=5, seed=0)
    with pytest.raises(InputError, match=re.escape("run names ['1'] repeat once written as file names")):
        synthetic.write_trec(qrels, {1: runs["run01"], "1": runs["run02"]}, tmp_path)
