"""Sweeps on clusters: run stores (RunSet.save / open_runs), what a chunk carries, numba threads per
chunk, and the Dask, Ray and spawned-process-pool recipes (each must give the in-process frame).

The cluster tests run on TREC DL 2019 (../shared/data) when it is there, else on a synthetic
collection; Dask and Ray tests skip without them.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import pickle
import re
import shutil
import threading
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import numba
import numpy as np
import pandas as pd
import pytest

import cwla
import discpower
from cwla.errors import InputError
from cwla.data.runset import open_runs
from discpower import DiscpowerError
from discpower.qrels import executors as E
from discpower.qrels import sweeps as S

from conftest import SHARED

#: a chunk of ``CHUNK`` cells must pickle to less than this many bytes
MAX_PAYLOAD = 8_000
CHUNK = 2


class Recording(Executor):
    """An executor that measures what each submission pickles to, then hands it on."""

    def __init__(self, inner: Executor):
        self.inner = inner
        self.sizes: list[int] = []
        self.calls: list[tuple] = []

    def submit(self, fn, /, *args, **kwargs) -> Future:
        self.sizes.append(len(pickle.dumps((fn, args, kwargs))))
        self.calls.append(args)
        return self.inner.submit(fn, *args, **kwargs)


class Inline(Executor):
    """Runs each call at once, in this thread (not a ThreadPoolExecutor: the sweep ships as to a cluster)."""

    def __init__(self, before=None):
        self.before = before

    def submit(self, fn, /, *args, **kwargs) -> Future:
        future = Future()
        if self.before is not None:
            self.before(*args)
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as exc:
            future.set_exception(exc)
        return future


@pytest.fixture(scope="module")
def grid():
    """(truth frame, runs in memory, candidates in memory, sweep keywords, where the data came from)."""
    dl19 = SHARED / "trec-dl-2019-passage"
    if (dl19 / "runs").is_dir():
        truth = cwla.read_qrels(dl19 / "qrels" / "qrels.dl19-passage.txt")
        runs = cwla.read_runs(sorted((dl19 / "runs").glob("*.gz")))
        llm = dl19 / "candidate-qrels" / "llm" / "dl2019_test_baseline_relavance_qrel_prompt_order_3210.txt"
        candidates = {"llm": cwla.read_qrels(llm)}
        source = "DL19"
    else:
        truth, frames = cwla.synthetic.collection(n_topics=25, n_runs=10, seed=11)
        runs = cwla.read_runs(frames)
        candidates = {"half": truth[truth.index % 2 == 0].reset_index(drop=True)}
        source = "synthetic"
    keywords = dict(generators="sampling", parameters=[0.3, 1.0], repetitions=2, candidates=candidates,
                    n_trials=200, seed=7, chunk_size=CHUNK)
    return truth, runs, keywords, source


@pytest.fixture(scope="module")
def in_process(grid):
    truth, runs, keywords, _ = grid
    return discpower.sweep(truth, runs, "nDCG@10", **keywords)


def _check_remote(grid, in_process, executor, **extra):
    """The sweep on ``executor`` (recorded) gives the in-process frame, each chunk pickling to a few kB."""
    truth, runs, keywords, source = grid
    recording = Recording(executor)
    remote = discpower.sweep(truth, runs, "nDCG@10", executor=recording, **keywords, **extra)
    pd.testing.assert_frame_equal(in_process.frame, remote.frame)
    assert len(recording.sizes) == -(-5 // CHUNK)  # 4 generated cells and 1 candidate, 2 a chunk
    assert max(recording.sizes) < MAX_PAYLOAD, (source, recording.sizes)
    # what the same chunks carried before the runs and qrels went by path: megabytes on DL19
    by_value = len(pickle.dumps(E.Recipe(token="", truth=truth, runs=runs, metrics="nDCG@10", labels=None,
                                         options={}, settings={})))
    assert by_value > 50 * max(recording.sizes)
    return recording


@pytest.mark.slow
def test_a_spawned_process_pool_gives_the_in_process_frame_from_a_few_kb_per_chunk(grid, in_process, tmp_path):
    store = tmp_path / "scratch"
    store.mkdir()
    with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn")) as pool:
        recording = _check_remote(grid, in_process, pool, store=store)
    recipe = recording.calls[0][0]
    assert os.path.dirname(recipe.runs) == recipe.written and str(store) in recipe.written
    assert isinstance(recipe.truth, E.Pickled)
    assert list(store.iterdir()) == []  # the sweep's folder is gone


@pytest.mark.slow
def test_a_dask_local_cluster_gives_the_in_process_frame_from_a_few_kb_per_chunk(grid, in_process):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=2, processes=True, dashboard_address=None,
                                  silence_logs=40) as cluster, distributed.Client(cluster) as client:
        _check_remote(grid, in_process, client.get_executor())
        # two tasks at once in one worker process, on numba's own thread count
        _check_remote(grid, in_process, client.get_executor(), worker_threads=None)


def test_ray_through_the_adapter_gives_the_in_process_frame_from_a_few_kb_per_chunk(grid, in_process):
    ray = pytest.importorskip("ray")
    from discpower import RayExecutor

    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        with RayExecutor() as executor:
            _check_remote(grid, in_process, executor)
        truth, runs, _, _ = grid
        # the function's own exception comes back, not Ray's wrapper of it; a submit after shutdown is refused
        executor = RayExecutor()
        with pytest.raises(DiscpowerError, match="parameter 2.0, repetition 0.: the generator failed: DiscpowerError"):
            discpower.sweep(truth, runs, generators="sampling", parameters=[2.0], repetitions=1, n_trials=10,
                            executor=executor)  # a rate of 2: sample_relevant refuses it, in the Ray task
        executor.shutdown()
        with pytest.raises(RuntimeError, match="after shutdown"):
            executor.submit(print, 1)
    finally:
        if started:
            ray.shutdown()


def test_the_ray_adapter_says_how_to_get_ray(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_ray(name, *args, **kwargs):
        if name == "ray":
            raise ImportError("No module named 'ray'")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    from discpower import RayExecutor

    with pytest.raises(ImportError, match="pip install ray"):
        RayExecutor()


# ---------------------------------------------------------------------------
# numba threads per chunk
# ---------------------------------------------------------------------------

_SEEN: list = []
_SEEN_LOCK = threading.Lock()


def _recording_threads(truth, runs, parameter, seed):
    with _SEEN_LOCK:
        _SEEN.append(numba.get_num_threads())
    return discpower.sample_relevant(truth, parameter, seed=seed)


def test_each_chunk_runs_on_worker_threads_and_the_results_do_not_depend_on_them():
    qrels, runs = cwla.synthetic.collection(n_topics=20, n_runs=8, seed=5)
    keywords = dict(generators={"s": _recording_threads}, parameters=[0.4, 0.8], repetitions=2, n_trials=300,
                    seed=2, chunk_size=1)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    _SEEN.clear()
    alone = discpower.sweep(qrels, runs, **keywords)
    assert set(_SEEN) == {numba.config.NUMBA_NUM_THREADS}  # no executor: this thread's count, untouched
    most = numba.config.NUMBA_NUM_THREADS
    with ThreadPoolExecutor(max_workers=2) as pool:
        defaults = set(pool.map(lambda _: numba.get_num_threads(), range(4)))
        for threads, expected in ((1, 1), (2, min(2, most)), (most + 5, most), (None, None)):
            _SEEN.clear()
            result = discpower.sweep(qrels, runs, executor=pool, worker_threads=threads, **keywords)
            pd.testing.assert_frame_equal(alone.frame, result.frame)
            assert set(_SEEN) == ({expected} if expected is not None else defaults), threads
        # restored afterwards in the pool's threads
        assert set(pool.map(lambda _: numba.get_num_threads(), range(4))) == defaults
    with pytest.raises(DiscpowerError, match="The 'worker_threads' parameter must be an integer >= 1 or None"):
        discpower.sweep(qrels, runs, executor=Inline(), worker_threads=0, **keywords)


@pytest.mark.slow
def test_a_spawned_pool_on_two_threads_per_chunk_gives_the_same_frame():
    qrels, runs = cwla.synthetic.collection(n_topics=20, n_runs=8, seed=5)
    keywords = dict(generators="sampling", parameters=[0.5], repetitions=3, n_trials=300, seed=2, chunk_size=1)
    alone = discpower.sweep(qrels, runs, **keywords)
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        two = discpower.sweep(qrels, runs, executor=pool, worker_threads=2, **keywords)
    pd.testing.assert_frame_equal(alone.frame, two.frame)


# ---------------------------------------------------------------------------
# what a sweep ships, and where it writes
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    qrels, runs = cwla.synthetic.collection(n_topics=20, n_runs=8, seed=21)
    root = tmp_path_factory.mktemp("inputs")
    qrels_path, run_paths = cwla.synthetic.write_trec(qrels, runs, root)
    return qrels, runs, qrels_path, run_paths


def test_paths_and_run_stores_go_by_path_and_nothing_is_written(files, tmp_path):
    qrels, runs, qrels_path, run_paths = files
    keywords = dict(generators="sampling", parameters=[0.5], repetitions=2, n_trials=100, seed=1,
                    candidates={"file": qrels_path})
    alone = discpower.sweep(qrels_path, run_paths, **keywords)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    recording = Recording(Inline())
    result = discpower.sweep(qrels_path, run_paths, executor=recording, store=scratch, **keywords)
    pd.testing.assert_frame_equal(alone.frame, result.frame)
    recipe, items = recording.calls[0]
    absolute = [os.path.abspath(p) for p in run_paths]  # a worker may start in another folder
    assert recipe.truth == os.path.abspath(qrels_path) and recipe.runs == absolute and recipe.written is None
    assert [item[5] for item in items if item[1] is None] == [os.path.abspath(qrels_path)]
    stored = cwla.read_runs(run_paths).save(tmp_path / "store")
    for runs_given in (open_runs(stored), stored, str(stored)):
        recording = Recording(Inline())
        result = discpower.sweep(qrels_path, runs_given, executor=recording, store=scratch, **keywords)
        pd.testing.assert_frame_equal(alone.frame, result.frame)
        assert os.fspath(recording.calls[0][0].runs) == os.fspath(stored) and recording.calls[0][0].written is None
    assert list(scratch.iterdir()) == []


def test_a_thread_pool_shares_this_process_s_comparer_and_writes_nothing(files, monkeypatch):
    qrels, runs, _, _ = files
    monkeypatch.setattr(E.Shipment, "_path", lambda self, name: pytest.fail("a thread pool needs no files"))
    built = []
    real = E.build
    monkeypatch.setattr(S, "build", lambda recipe: built.append(1) or real(recipe))
    monkeypatch.setattr(E, "build", lambda recipe: built.append(1) or real(recipe))
    with ThreadPoolExecutor(max_workers=2) as pool:
        discpower.sweep(qrels, runs, generators="sampling", parameters=[0.5], repetitions=4, n_trials=100,
                        executor=pool, chunk_size=1)
    assert len(built) == 1  # built once, here, and shared by the pool's threads
    assert E._COMPARERS == {}  # and not kept after the sweep


def test_a_worker_that_cannot_see_the_sweep_s_files_says_so(files):
    qrels, runs, _, _ = files

    def vanish(recipe, items):
        shutil.rmtree(recipe.written)

    with pytest.raises(DiscpowerError, match="cannot find .*discpower-sweep-.*store="):
        discpower.sweep(qrels, runs, generators="sampling", parameters=[0.5], n_trials=100, executor=Inline(vanish))


def test_the_sweep_never_writes_beside_its_inputs(files, tmp_path):
    qrels, runs, qrels_path, run_paths = files
    keywords = dict(generators="sampling", parameters=[0.5], repetitions=1, n_trials=100, executor=Inline())
    with pytest.raises(DiscpowerError, match="store must be an existing folder"):
        discpower.sweep(qrels, runs, store=tmp_path / "nowhere", **keywords)
    with pytest.raises(DiscpowerError, match="is a folder of the sweep's inputs"):
        discpower.sweep(qrels_path, runs, store=qrels_path.parent, **keywords)
    with pytest.raises(DiscpowerError, match="is a folder of the sweep's inputs"):
        discpower.sweep(qrels, run_paths, store=Path(run_paths[0]).parent, **keywords)
    stored = cwla.read_runs(runs).save(tmp_path / "store")
    inside = stored / "sub"
    inside.mkdir()
    for runs_given in (stored, open_runs(stored)):
        with pytest.raises(DiscpowerError, match="is a folder of the sweep's inputs"):
            discpower.sweep(qrels, runs_given, store=inside, **keywords)
    before = sorted(os.listdir(stored))
    discpower.sweep(qrels, runs, store=tmp_path, **keywords)  # beside the store, not in it: allowed
    assert sorted(os.listdir(stored)) == before and sorted(os.listdir(tmp_path)) == ["store"]


def test_in_memory_candidates_travel_as_files(files):
    qrels, runs, _, _ = files
    big = pd.concat([qrels] * 20).drop_duplicates(["topic", "docno"])
    candidates = {"same": big, "empty": {}, "no topic": {"t": {}}}
    recording = Recording(Inline())
    with pytest.warns(cwla.CwlaWarning, match="2 of 3 sweep cells could not be compared"):
        result = discpower.sweep(qrels, runs, candidates=candidates, n_trials=100, executor=recording)
    assert max(recording.sizes) < MAX_PAYLOAD < len(pickle.dumps(big))
    status = result.frame.groupby("generator").status.first()
    assert status["same"] == "ok" and status["empty"] == "empty candidate" and "qrels dict is empty" in status["no topic"]
    with pytest.warns(cwla.CwlaWarning):
        pd.testing.assert_frame_equal(result.frame, discpower.sweep(qrels, runs, candidates=candidates,
                                                                    n_trials=100).frame)


# ---------------------------------------------------------------------------
# the run store
# ---------------------------------------------------------------------------


def _same_run_sets(a, b):
    assert a.names == b.names and a.topics == b.topics and (a.ties, a.order) == (b.ties, b.order)
    for x, y in ((a.docnos.blob, b.docnos.blob), (a.docnos.offsets, b.docnos.offsets),
                 (a.docnos.hashes, b.docnos.hashes), (a.pair_starts, b.pair_starts), (a.lengths, b.lengths)):
        assert x.dtype == y.dtype and np.array_equal(x, y)
    for x, y in zip(a.doc_ids + a.scores, b.doc_ids + b.scores, strict=True):
        assert x.dtype == y.dtype and np.array_equal(x, y)


@pytest.mark.parametrize("ties, order", [("float32", "trec_eval"), ("float64", "file")])
def test_a_saved_run_set_opens_mapped_and_scores_the_same(tmp_path, ties, order):
    qrels, runs = cwla.synthetic.collection(n_topics=15, n_runs=5, seed=3)
    runs["odd é \udce9"] = runs.pop(next(iter(runs))).assign(docno=lambda f: f.docno + "é")  # non-ASCII names
    rs = cwla.read_runs(runs, ties=ties, order=order)
    folder = rs.save(tmp_path / "a" / "store")
    assert folder.is_absolute() and (folder / "manifest.json").is_file() and rs.store is None
    opened = open_runs(folder)
    _same_run_sets(rs, opened)
    assert opened.store == str(folder)
    assert not opened.doc_ids[0].flags.writeable and type(opened.doc_ids[0]) is np.ndarray
    assert isinstance(opened.doc_ids[0].base, np.memmap) or isinstance(opened.doc_ids[0].base.base, np.memmap)
    metrics = ["nDCG@10", "AP", "RBP_ERG", "NumRet"]
    expected = cwla.evaluate(qrels, rs, metrics, ties=ties, order=order)
    for runs_given in (opened, folder, str(folder), cwla.read_runs(folder, ties=ties, order=order)):
        got = cwla.evaluate(qrels, runs_given, metrics, ties=ties, order=order)
        assert np.array_equal(got.values, expected.values, equal_nan=True) and got.runs == expected.runs
    assert rs.frame(rs.names[-1]).equals(opened.frame(rs.names[-1]))
    other = "float64" if ties == "float32" else "float32"
    with pytest.raises(ValueError, match=f"read with ties={ties!r}"):
        cwla.read_runs(folder, ties=other, order=order)
    again = opened.save(tmp_path / "copy")  # a mapped RunSet saves like any other
    _same_run_sets(rs, open_runs(again))


def test_a_store_is_never_written_over_anything(tmp_path):
    _, runs = cwla.synthetic.collection(n_topics=5, n_runs=2, seed=1)
    rs = cwla.read_runs(runs)
    folder = rs.save(tmp_path / "store")
    manifest = (folder / "manifest.json").read_bytes()
    with pytest.raises(InputError, match=r"the folder is not empty \(it holds a run store\)"):
        open_runs(folder).save(folder)  # over the store it is mapped from
    (tmp_path / "inputs").mkdir()
    (tmp_path / "inputs" / "run.txt").write_text("1 Q0 d 1 1.0 x\n")
    with pytest.raises(InputError, match="not empty .*run.txt"):
        rs.save(tmp_path / "inputs")
    with pytest.raises(InputError, match="it is a file"):
        rs.save(tmp_path / "inputs" / "run.txt")
    assert (folder / "manifest.json").read_bytes() == manifest
    assert (tmp_path / "inputs" / "run.txt").read_text() == "1 Q0 d 1 1.0 x\n"
    (tmp_path / "empty").mkdir()
    _same_run_sets(rs, open_runs(rs.save(tmp_path / "empty")))  # an empty folder is fine


def test_an_interrupted_save_leaves_no_store(tmp_path, monkeypatch):
    _, runs = cwla.synthetic.collection(n_topics=5, n_runs=2, seed=1)
    rs = cwla.read_runs(runs)
    real = np.lib.format.open_memmap
    calls = []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 4:
            raise OSError("disk full")
        return real(*args, **kwargs)

    monkeypatch.setattr(np.lib.format, "open_memmap", failing)
    with pytest.raises(OSError, match="disk full"):
        rs.save(tmp_path / "new")
    assert not (tmp_path / "new").exists()
    (tmp_path / "kept").mkdir()
    calls.clear()
    with pytest.raises(OSError, match="disk full"):
        rs.save(tmp_path / "kept")
    assert list((tmp_path / "kept").iterdir()) == []  # the user's (empty) folder stays, empty


def _break(folder: Path, how: str):
    manifest = json.loads((folder / "manifest.json").read_text())
    if how == "no manifest":
        (folder / "manifest.json").unlink()
    elif how == "bad json":
        (folder / "manifest.json").write_text("{not json")
    elif how == "other format":
        (folder / "manifest.json").write_text(json.dumps({**manifest, "format": "something"}))
    elif how == "newer version":
        (folder / "manifest.json").write_text(json.dumps({**manifest, "version": 99}))
    elif how == "missing array":
        (folder / "scores.npy").unlink()
    elif how == "truncated array":
        data = (folder / "doc_ids.npy").read_bytes()
        (folder / "doc_ids.npy").write_bytes(data[: len(data) // 2])
    elif how == "wrong dtype":
        np.save(folder / "scores.npy", np.load(folder / "scores.npy").astype(np.float64))
    elif how == "wrong names":
        (folder / "manifest.json").write_text(json.dumps({**manifest, "names": manifest["names"][:1]}))


@pytest.mark.parametrize("how, message", [
    ("no manifest", "no manifest.json, so not a run store"),
    ("bad json", "manifest.json is unreadable"),
    ("other format", "manifest.json is not a cwla run store's manifest (format 'something'"),
    ("newer version", "format version 99; this cwla reads versions 1, 2"),
    ("missing array", "scores.npy is missing"),
    ("truncated array", "doc_ids.npy is corrupt or truncated"),
    ("wrong dtype", "scores.npy's header gives the dtype float64; the store holds float32 there"),
    ("wrong names", "manifest.json was changed after the store was written"),
])
def test_a_broken_store_is_a_clear_error(tmp_path, how, message):
    _, runs = cwla.synthetic.collection(n_topics=5, n_runs=2, seed=1)
    folder = cwla.read_runs(runs).save(tmp_path / "store")
    _break(folder, how)
    for opener in (open_runs, cwla.read_runs):
        with pytest.raises(InputError, match=f"run store {re.escape(str(folder))}: {re.escape(message)}"):
            opener(folder)


def test_a_missing_store_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="run store .*nowhere: no such folder"):
        open_runs(tmp_path / "nowhere")
    (tmp_path / "plain").mkdir()
    with pytest.raises(InputError, match="run store .*plain: no manifest.json"):
        cwla.read_runs(tmp_path / "plain")
    with pytest.raises(InputError, match="no manifest.json"):
        cwla.evaluate(pd.DataFrame({"topic": ["t"], "docno": ["d"], "grade": [1]}), tmp_path / "plain", ["AP"])



def test_relative_paths_are_sent_as_absolute_paths(files, monkeypatch):
    qrels, runs, qrels_path, run_paths = files
    folder = os.path.dirname(os.fspath(qrels_path))
    monkeypatch.chdir(folder)
    relative = [os.path.relpath(p, folder) for p in run_paths]
    recording = Recording(Inline())
    discpower.sweep(os.path.basename(qrels_path), relative, generators="sampling", parameters=[0.5], repetitions=1,
                    n_trials=100, seed=1, executor=recording)
    recipe, _ = recording.calls[0]
    assert recipe.truth == os.path.join(folder, os.path.basename(qrels_path))
    assert recipe.runs == [os.path.join(folder, r) for r in relative] and all(map(os.path.isabs, recipe.runs))
