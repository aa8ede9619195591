"""What a sweep sends to an executor's workers, and how a worker gets its comparer.

**A recipe, not data.** A chunk sent to an executor pickles a :class:`Recipe` and its cells, never the
runs or the qrels: run files and qrels files go by path (every worker reads them itself once), a run
store (:meth:`cwla.RunSet.save`, :func:`cwla.open_runs`) by its folder (every worker maps it, read-only:
processes on one machine share its pages), and what is in memory -- runs as frames, dicts, a RunSet or
an Evaluator's, the ground truth or candidate qrels as frames or dicts -- is written once, before the
first chunk, to a temporary folder (a run store and pickle files) under ``store=`` (default: the system's
temporary folder; on a cluster of several machines, a folder every worker sees), which is removed when
the sweep ends (:class:`Shipment`). A chunk of 10 cells pickles to under 1 kB (the DL20 runs by value:
35 MB). A thread pool's chunks are given this process's comparer: nothing is written.

**One comparer per worker.** A worker builds the recipe's :class:`~discpower.qrels.compare.QrelsComparer`
once (one Evaluator: the runs read once, every metric) and keeps it for the recipe's other chunks
(:func:`comparer_for`).

**Threads.** With an executor every chunk runs on ``worker_threads`` numba threads (default 1: the
executor's tasks are the parallelism; ``None`` leaves numba's thread count as it is in the worker), set
at the start of the chunk and restored at its end (:func:`numba_threads`; numba's count is per thread).
The results do not depend on it. A local process pool must start its workers with ``spawn`` or
``forkserver``: numba's OpenMP thread pool does not survive ``fork()`` (:func:`check_executor`).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import shutil
import socket
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence

import attrs

from cwla import Evaluator, RunSet, is_run_store

from ..errors import DiscpowerError
from .compare import QrelsComparer

__all__ = ["Recipe", "Pickled", "Shipment", "comparer_for", "forget", "numba_threads", "check_executor",
           "check_store", "shipped", "loaded", "is_path"]

_COMPARERS: dict = {}  # per-process cache: recipe token -> the recipe's comparer
_LOCK = threading.Lock()


@attrs.frozen
class Pickled:
    """An in-memory input (truth or candidate qrels) that the sweep wrote to a pickle file of its own."""

    path: str

    def load(self):
        try:
            with open(self.path, "rb") as f:
                return pickle.load(f)
        except FileNotFoundError:
            raise DiscpowerError(_unseen(self.path)) from None


def _unseen(path: str) -> str:
    return (f"the worker on host {socket.gethostname()!r} cannot find {path}, which the sweep wrote for its "
            f"workers: on a cluster of several machines pass sweep(..., store=) a folder every worker sees, or "
            f"pass the runs and qrels as files (or a run store) there")


def loaded(value):
    """A cell's or a recipe's input as the worker uses it (a :class:`Pickled` one read back)."""
    return value.load() if isinstance(value, Pickled) else value


@attrs.frozen
class Recipe:
    """Everything a worker needs to rebuild the ground-truth comparer (picklable, small: paths, not data).

    ``runs``, ``metrics`` and ``options`` are what :meth:`QrelsComparer.build` builds the Evaluator with
    (``runs`` an Evaluator in this process: ``metrics`` then selects some of its metrics, or None);
    ``labels`` is None for a one-metric sweep (no ``metric`` column); ``settings``: the comparison's
    (test, alpha, n_trials, seed). ``written``: the sweep's own folder, if it wrote one.
    """

    token: str
    truth: object
    runs: object
    metrics: object
    labels: tuple | None
    options: dict
    settings: dict
    threads: int | None = None
    written: str | None = None


def build(recipe: Recipe) -> QrelsComparer:
    """The recipe's comparer: the truth and the runs read, one Evaluator for every metric."""
    if recipe.written is not None and not os.path.isdir(recipe.written):
        raise DiscpowerError(_unseen(recipe.written))
    options = {name: loaded(value) for name, value in recipe.options.items()}
    return QrelsComparer.build(loaded(recipe.truth), recipe.runs, recipe.metrics, **recipe.settings, **options)


def comparer_for(recipe: Recipe) -> QrelsComparer:
    """The recipe's comparer, built once per worker process (one recipe at a time; the last one kept)."""
    with _LOCK:
        comparer = _COMPARERS.get(recipe.token)
        if comparer is None:
            _COMPARERS.clear()
            comparer = build(recipe)
            _COMPARERS[recipe.token] = comparer
        return comparer


def forget(recipe: Recipe) -> None:
    """Drop the recipe's comparer from this process."""
    with _LOCK:
        _COMPARERS.pop(recipe.token, None)


@contextlib.contextmanager
def numba_threads(threads: int | None) -> Iterator[None]:
    """Run on ``threads`` numba threads (at most the process's NUMBA_NUM_THREADS), then restore the count
    (numba's count belongs to the calling thread); None: leave it."""
    if threads is None:
        yield
        return
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    try:
        yield
    finally:
        numba.set_num_threads(before)


def check_executor(executor) -> None:
    """Refuse what is not a ``concurrent.futures.Executor``, and a process pool that forks."""
    if not callable(getattr(executor, "submit", None)):
        raise DiscpowerError(f"executor must be a concurrent.futures.Executor (with submit), got "
                             f"{type(executor).__name__}; for Ray use discpower.RayExecutor()")
    context = getattr(executor, "_mp_context", None)
    if context is not None and context.get_start_method() == "fork":
        raise DiscpowerError("this process pool forks its workers, and numba's OpenMP threads do not survive "
                             "fork(): use ProcessPoolExecutor(mp_context=multiprocessing.get_context('spawn'))")


def is_path(value) -> bool:
    return isinstance(value, (str, bytes, os.PathLike))


def _run_files(runs) -> list | None:
    """The run files, if the runs are files (a path, a list of them, a dict {name: path}); else None."""
    if is_path(runs):
        return [runs]
    values = list(runs.values()) if isinstance(runs, Mapping) else runs
    if isinstance(values, Sequence) and values and all(is_path(v) for v in values):
        return list(values)
    return None


def _inputs(truth, runs, items) -> list[str]:
    """The folders holding the sweep's inputs given by path (the folders of files, run stores themselves)."""
    paths = [truth] if is_path(truth) else []
    if isinstance(runs, Evaluator):
        runs = runs.runs
    if isinstance(runs, RunSet) and runs.store is not None:
        paths.append(runs.store)
    else:
        paths += _run_files(runs) or []
    paths += [qrels for *_, qrels in items if is_path(qrels)]
    folders = []
    for path in paths:
        path = os.path.realpath(os.fsdecode(path))
        folders.append(path if os.path.isdir(path) else os.path.dirname(path))
    return folders


def check_store(store, truth, runs, items) -> str | None:
    """``store`` as an absolute folder: it exists, and holds none of the sweep's inputs."""
    if store is None:
        return None
    if not is_path(store) or not os.path.isdir(store):
        raise DiscpowerError(f"store must be an existing folder (the sweep writes its temporary files under it, "
                             f"in a new subfolder it removes afterwards); got {store!r}")
    folder = os.path.realpath(os.fsdecode(store))
    for held in _inputs(truth, runs, items):
        if folder == held or (folder.startswith(held + os.sep) and is_run_store(held)):
            raise DiscpowerError(f"store {folder} is a folder of the sweep's inputs ({held}); the sweep never "
                                 f"writes beside its inputs: give another folder")
    return folder


class Shipment:
    """What goes to the workers in place of in-memory inputs: written once to a folder of the sweep's own
    (under ``store``, created on first use), removed by :meth:`close`."""

    def __init__(self, store: str | None):
        self.store = store
        self.folder: str | None = None
        self.count = 0

    def _path(self, name: str) -> str:
        if self.folder is None:
            self.folder = tempfile.mkdtemp(prefix="discpower-sweep-", dir=self.store)
        return os.path.join(self.folder, name)

    def pickled(self, value) -> Pickled:
        self.count += 1
        path = self._path(f"qrels-{self.count}.pkl")
        with open(path, "wb") as f:
            pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
        return Pickled(path)

    def runs(self, run_set: RunSet) -> str:
        return os.fspath(run_set.save(self._path("runs")))

    def close(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)  # workers that still map it keep their pages (POSIX)
            self.folder = None


def _absolute(path: str | os.PathLike) -> str:
    """``path`` as an absolute path (text)."""
    return os.path.abspath(os.fsdecode(os.fspath(path)))


def shipped(recipe: Recipe, comparer: QrelsComparer, runs, items: list, shipment: Shipment) -> tuple:
    """The recipe and cells to send: in-memory runs and qrels replaced by a run store and pickle files, an
    Evaluator by its runs (a store) and its metrics and options."""
    run_set = runs.runs if isinstance(runs, Evaluator) else runs
    if isinstance(run_set, RunSet) and run_set.store is not None:
        runs = _absolute(run_set.store)
    elif is_run_store(runs):
        runs = _absolute(runs)
    elif (files := _run_files(runs)) is not None:  # absolute: a worker may start in another folder
        runs = ({name: _absolute(path) for name, path in runs.items()} if isinstance(runs, Mapping)
                else [_absolute(path) for path in files])
    else:
        runs = shipment.runs(comparer.runs)  # the runs as read (with the sweep's ties and order), written once
    metrics, options = recipe.metrics, dict(recipe.options)
    if isinstance(recipe.runs, Evaluator):  # the worker rebuilds it: its runs, metrics and options
        metrics, options = dict(zip(comparer.labels, comparer.evaluator.requested)), comparer.options
    if options.get("costs") is not None:
        costs = options["costs"]
        options["costs"] = _absolute(costs) if is_path(costs) else shipment.pickled(costs)
    truth = _absolute(recipe.truth) if is_path(recipe.truth) else shipment.pickled(recipe.truth)
    items = [item if item[1] is not None else
             (*item[:5], _absolute(item[5]) if is_path(item[5]) else shipment.pickled(item[5]))
             for item in items]
    return attrs.evolve(recipe, truth=truth, runs=runs, metrics=metrics, options=options,
                        written=shipment.folder), items
