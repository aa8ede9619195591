"""Grids of candidate qrels compared with the ground truth: generators x parameters x repetitions,
or a set of candidate qrels files, under one metric or several; one tidy frame out (McKechnie et al.
2025, Figures 1 and 2).

The ground truth is scored and tested once per process (:class:`QrelsComparer`); the
grid is cut into chunks that run on any ``concurrent.futures.Executor`` -- a local
``ProcessPoolExecutor``, a thread pool, a Dask cluster's ``client.get_executor()``, or Ray
through :class:`discpower.cluster.RayExecutor`.

**What a chunk carries.** A chunk sent to an executor pickles a recipe and its cells, never the runs
or the qrels: run files and qrels files go by path (every worker reads them itself once), a run
store (:meth:`cwla.RunSet.save`, :func:`cwla.runset.open_runs`) by its folder (every worker maps it,
read-only: processes on one machine share its pages), and what is in memory -- runs as frames,
dicts or a RunSet, the ground truth or candidate qrels as frames or dicts -- is written once, before
the first chunk, to a temporary folder (a run store and pickle files) under ``store=`` (default:
the system's temporary folder; on a cluster of several machines, a folder every worker sees),
which is removed when the sweep ends. A generated candidate is built in the worker from its
(generator, parameter, seed). A chunk of 10 cells pickles to under 1 kB (the DL20 runs by value: 35 MB). A thread pool
(``ThreadPoolExecutor``) shares this process's comparers: nothing is written.

**Threads.** With an executor every chunk runs on ``worker_threads`` numba threads (default 1: the
executor's tasks are the parallelism; ``None`` leaves numba's thread count as it is in the worker),
set at the start of the chunk and restored at its end (numba's count is per thread). The results do
not depend on it, nor on the executor or the chunking.

A local process pool must start its workers with ``spawn`` or ``forkserver``
(``ProcessPoolExecutor(mp_context=multiprocessing.get_context("spawn"))``):
numba's OpenMP thread pool does not survive ``fork()``. A thread pool works under every numba
threading layer (under ``workqueue`` the parallel kernels take turns: see :mod:`cwla._numba`).

A cell whose candidate cannot be compared (e.g. an empty one) becomes rows with NaN values and a
``status`` that says why; the other cells go on (:func:`sweep`).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import shutil
import socket
import tempfile
import threading
import uuid
import warnings
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any

import attrs
import numpy as np
import pandas as pd

from cwla.errors import CwlaError, CwlaWarning
from cwla.evaluation import as_metrics
from cwla.metric import Metric
from cwla.readers import read_qrels
from cwla.runset import RunSet, is_run_store

from ._progress import reporter
from ._validate import DiscpowerError, seed_value
from .qrels_compare import QrelsComparer

__all__ = ["Sweep", "sweep"]

_COMPARERS: dict = {}  # per-process cache: recipe token -> the recipe's comparers (one per metric)
_LOCK = threading.Lock()
_COLUMNS = ["generator", "parameter", "repetition", "measure", "value", "status"]


@attrs.frozen
class _Pickled:
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


@attrs.frozen
class _Recipe:
    """Everything a worker needs to rebuild the ground-truth comparers (picklable, small: paths, not data).

    ``metrics``: what :meth:`QrelsComparer.build` gets, one per metric; ``labels`` is None for a
    one-metric sweep (no ``metric`` column). ``written``: the sweep's own folder, if it wrote one.
    """

    token: str
    truth: object
    runs: object
    metrics: tuple
    labels: tuple | None
    settings: dict
    threads: int | None = None
    written: str | None = None


def _loaded(value):
    return value.load() if isinstance(value, _Pickled) else value


def _build(recipe: _Recipe) -> list[QrelsComparer]:
    """The recipe's comparers: the first reads the truth and the runs, the others share them."""
    if recipe.written is not None and not os.path.isdir(recipe.written):
        raise DiscpowerError(_unseen(recipe.written))
    first = QrelsComparer.build(_loaded(recipe.truth), recipe.runs, recipe.metrics[0], **recipe.settings)
    return [first] + [QrelsComparer.build(first.truth, first.runs, metric, **recipe.settings)
                      for metric in recipe.metrics[1:]]


def _comparers(recipe: _Recipe) -> list[QrelsComparer]:
    """The recipe's comparers, built once per worker process (one recipe at a time; the last one kept)."""
    with _LOCK:
        comparers = _COMPARERS.get(recipe.token)
        if comparers is None:
            _COMPARERS.clear()
            comparers = _build(recipe)
            _COMPARERS[recipe.token] = comparers
        return comparers


@contextlib.contextmanager
def _numba_threads(threads: int | None) -> Iterator[None]:
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


def _where(name, fn, parameter, repetition) -> str:
    """The cell, as error messages name it."""
    if fn is None:
        return f"candidate {name!r}"
    return f"generator {name!r}, parameter {parameter}, repetition {repetition}"


def _candidate(comparer: QrelsComparer, where: str, fn, parameter, seed, qrels):
    """The cell's candidate qrels: generated from (parameter, seed), else the one given (loaded)."""
    try:
        if fn is not None:
            return fn(comparer.truth, comparer.runs, parameter, seed)
    except Exception as exc:
        raise DiscpowerError(f"sweep cell ({where}): the generator failed: {type(exc).__name__}: {exc}") from exc
    return _loaded(qrels)


def _compare(comparer: QrelsComparer, where: str, fn, qrels) -> tuple[dict, str]:
    """(measures, status) of one candidate under one comparer.

    ``"ok"`` with the comparison's measures; ``"empty candidate"`` (no judgement at all) or the
    error's message, with no measures, when cwla or discpower refuse to compare the candidate
    (a :class:`~cwla.errors.CwlaError`: no topic in common with the ground truth, a single topic,
    ...). Any other error is raised as a DiscpowerError that names the cell.
    """
    if isinstance(qrels, (pd.DataFrame, Mapping)) and len(qrels) == 0:
        return {}, "empty candidate"
    # topic subsets are compared against the ground truth on all its topics (McKechnie's Table 2)
    topics = "truth" if getattr(fn, "keeps_truth_topics", False) else None
    try:
        return comparer.compare(qrels, topics=topics).measures, "ok"
    except CwlaError as exc:  # DiscpowerError and cwla's InputError included
        return {}, str(exc)
    except Exception as exc:
        raise DiscpowerError(f"sweep cell ({where}): {type(exc).__name__}: {exc}") from exc


def _run_chunk(recipe: _Recipe, items: list, comparers: list | None = None) -> tuple[list[dict], list[str]]:
    """Compare every candidate of a chunk under every metric, on the recipe's numba threads: the rows of
    the tidy frame (one row with measure None for a cell that did not compare, see :func:`_tidy`) and
    ``"<cell>: <status>"`` for each such cell."""
    with _numba_threads(recipe.threads):
        comparers = comparers if comparers is not None else _comparers(recipe)
        rows, failures = [], []
        for name, fn, parameter, repetition, seed, qrels in items:
            where = _where(name, fn, parameter, repetition)
            qrels = _candidate(comparers[0], where, fn, parameter, seed, qrels)
            for k, comparer in enumerate(comparers):
                measures, status = _compare(comparer, where, fn, qrels)
                cell = {"generator": name, "parameter": parameter, "repetition": repetition}
                if recipe.labels is not None:
                    cell["metric"] = recipe.labels[k]
                if status == "ok":
                    rows += [{**cell, "measure": measure, "value": float(value), "status": status}
                             for measure, value in measures.items()]
                else:
                    rows.append({**cell, "measure": None, "value": np.nan, "status": status})
                    failures.append(f"{where}{'' if recipe.labels is None else f', {recipe.labels[k]}'}: {status}")
    return rows, failures


def _tidy(rows: list[dict], several: bool) -> pd.DataFrame:
    """The sweep's frame: a cell that did not compare gets a NaN row for each measure the others have
    (a single row, measure NaN, when no cell compared)."""
    names = list(dict.fromkeys(row["measure"] for row in rows if row["status"] == "ok")) or [np.nan]
    rows = [out for row in rows
            for out in ([row] if row["status"] == "ok" else [{**row, "measure": m} for m in names])]
    columns = _COLUMNS[:3] + ["metric"] + _COLUMNS[3:] if several else _COLUMNS
    return pd.DataFrame(rows, columns=columns)


@attrs.frozen(eq=False)
class Sweep:
    """Result of :func:`sweep`: a tidy frame and pure methods over it.

    Attributes
    ----------
    frame : DataFrame
        Columns ``generator, parameter, repetition, measure, value, status``, with a ``metric`` column
        before ``measure`` when the sweep was given a list (or dict) of metrics (for candidate files
        ``generator`` is the candidate's name and ``parameter`` is NaN). ``status`` is ``"ok"`` for a
        cell that was compared, else why it was not (``"empty candidate"``, or the message of the error
        that refused the candidate, e.g. no topic in common with the ground truth); such a cell has
        every measure, with NaN values. A measure may be NaN in an ``"ok"`` cell too (a zero
        denominator, e.g. MCC when the candidate finds no significant pair).
    metric : str
        The metric's label; for several metrics their labels joined by ``", "``.
    alpha : float
    seed : int
    metrics : tuple of str
        The label of every metric, in the order given (one for a one-metric sweep).
    """

    frame: pd.DataFrame
    metric: str
    alpha: float
    seed: int
    metrics: tuple = ()

    def _keys(self) -> list[str]:
        return ["generator", "parameter"] + (["metric"] if "metric" in self.frame.columns else [])

    def summary(self) -> pd.DataFrame:
        """Mean, standard deviation and count over repetitions, per generator, parameter (metric, for
        several) and measure.

        Only the ``"ok"`` cells count: ``mean``, ``std`` and ``count`` skip NaN values, so the cells
        that were not compared (NaN values) are left out, and ``failed`` counts them. A parameter none
        of whose repetitions compared keeps its rows, with NaN means and count 0.

        Returns
        -------
        DataFrame
            Columns ``generator, parameter, [metric,] measure, mean, std, count, failed``.
        """
        frame = self.frame.assign(failed=self.frame["status"] != "ok")
        grouped = frame.groupby(self._keys() + ["measure"], sort=False, dropna=False)
        summary = grouped["value"].agg(["mean", "std", "count"])
        summary["failed"] = grouped["failed"].sum()
        return summary.reset_index()

    def table(self, measures: Sequence[str] = ("TP", "TN", "FP", "FN", "1P", "1R", "2P", "2R", "BAC", "MCC",
                                               "tau")) -> pd.DataFrame:
        """Wide table, one row per generator and parameter (and metric, for several), the mean of each
        measure (McKechnie's Table 1) over the ``"ok"`` repetitions (:meth:`summary`; NaN where none
        compared).

        Parameters
        ----------
        measures : sequence of str
            The columns, in this order (those the sweep has).

        Returns
        -------
        DataFrame
        """
        s = self.summary()
        keys = self._keys()
        wide = s.pivot_table(index=keys, columns="measure", values="mean", sort=False, dropna=False)
        # dropna=False keeps the all-NaN measures, but also crosses the index levels: keep the rows there are
        wide = wide.reindex(pd.MultiIndex.from_frame(s[keys].drop_duplicates()))
        return wide[[m for m in measures if m in wide.columns]]

    def plot(self, measures: Sequence[str] = ("1R", "2R", "BAC", "MCC"), ax: Any = None,
             generator: str | None = None, metric: str | None = None) -> Any:
        """McKechnie et al.'s Figure 2: measures against the generator's parameter (e.g. the sampling
        rate), mean over repetitions with one-standard-deviation error bars.

        Parameters
        ----------
        measures : sequence of str
        ax : matplotlib Axes, optional
        generator : str, optional
            Which generator (default: the first).
        metric : str, optional
            Which metric, for a sweep of several (default: the first).

        Returns
        -------
        matplotlib Axes
        """
        import matplotlib.pyplot as plt

        s = self.summary()
        gens = s["generator"].unique()
        gen = generator if generator is not None else gens[0]
        s = s[(s.generator == gen) & s.measure.isin(measures)]
        title = self.metric
        if "metric" in s.columns:
            title = metric if metric is not None else self.metrics[0]
            s = s[s.metric == title]
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        for measure in measures:
            part = s[s.measure == measure].sort_values("parameter")
            ax.errorbar(part["parameter"], part["mean"], yerr=part["std"].fillna(0.0), marker="o", ms=3,
                        capsize=2, lw=1, label=measure)
        ax.set_xlabel(f"{gen} parameter")
        ax.set_ylabel("value")
        ax.set_title(f"{title}, alpha = {self.alpha}")
        ax.legend(frameon=False, fontsize="small")
        return ax


def _named_generators(generators) -> dict:
    """{name: callable} from names, callables, a list of them or a dict."""
    from .generators import GENERATORS

    if isinstance(generators, Mapping):
        named = [(str(k), v) for k, v in generators.items()]
    else:
        if isinstance(generators, str) or callable(generators):
            generators = [generators]
        named = [(g, g) if isinstance(g, str) else (getattr(g, "__name__", "custom"), g) for g in generators]
    out = {}
    for name, fn in named:
        if isinstance(fn, str):
            if fn not in GENERATORS:
                raise DiscpowerError(f"unknown generator {fn!r}; accepted: {', '.join(GENERATORS)} or a "
                                     f"callable (truth, runs, parameter, seed) -> qrels")
            fn = GENERATORS[fn]
        if not callable(fn):
            raise DiscpowerError(f"generator {name!r} is not callable")
        if name in out:
            raise DiscpowerError(f"two generators are named {name!r}; pass a dict {{name: generator}}")
        out[name] = fn
    return out


def _items(generators, parameters, repetitions, candidates, seed):
    """The grid: (name, generator or None, parameter, repetition, seed, qrels or None) per candidate.

    A generated candidate's seed depends on (seed, generator name, repetition) only, so adding a
    parameter value changes no other draw, and the draws are nested across rates for one repetition.
    """
    items = []
    if candidates is not None:
        if not isinstance(candidates, Mapping) or not candidates:
            raise DiscpowerError("candidates must be a non-empty dict {name: qrels path or DataFrame}")
        for name, qrels in candidates.items():
            items.append((str(name), None, np.nan, 0, 0, qrels))
    if generators:
        named = _named_generators(generators)
        clash = sorted(set(named) & {item[0] for item in items})
        if clash:
            raise DiscpowerError(f"generator and candidate names must differ; both use {clash}")
        parameters = list(parameters) if isinstance(parameters, Iterable) and not isinstance(parameters, str) else []
        if not parameters:
            raise DiscpowerError("parameters must be a non-empty list (e.g. sampling rates 0.1 ... 1.0)")
        if isinstance(repetitions, bool) or not isinstance(repetitions, (int, np.integer)) or repetitions < 1:
            raise DiscpowerError(f"The 'repetitions' parameter must be an integer >= 1. Got {repetitions!r} instead.")
        for name, fn in named.items():
            salt = zlib.crc32(name.encode("utf-8"))
            for rep in range(int(repetitions)):
                child = int(np.random.SeedSequence([seed, salt, rep]).generate_state(1, dtype=np.uint64)[0])
                items += [(name, fn, parameter, rep, child, None) for parameter in parameters]
    if not items:
        raise DiscpowerError("nothing to sweep: give generators (with parameters) or candidates")
    return items


def _check_executor(executor) -> None:
    if not callable(getattr(executor, "submit", None)):
        raise DiscpowerError(f"executor must be a concurrent.futures.Executor (with submit), got "
                             f"{type(executor).__name__}; for Ray use discpower.cluster.RayExecutor()")
    context = getattr(executor, "_mp_context", None)
    if context is not None and context.get_start_method() == "fork":
        raise DiscpowerError("this process pool forks its workers, and numba's OpenMP threads do not survive "
                             "fork(): use ProcessPoolExecutor(mp_context=multiprocessing.get_context('spawn'))")


def _threads(worker_threads) -> int | None:
    if worker_threads is None:
        return None
    if isinstance(worker_threads, bool) or not isinstance(worker_threads, (int, np.integer)) or worker_threads < 1:
        raise DiscpowerError(f"The 'worker_threads' parameter must be an integer >= 1 or None. "
                             f"Got {worker_threads!r} instead.")
    return int(worker_threads)


def _metric_list(metric) -> tuple[tuple, tuple | None]:
    """(what each comparer is built with, the labels or None for one metric given as such)."""
    if isinstance(metric, (str, Metric)) or not isinstance(metric, (Sequence, Mapping)):
        return (metric,), None
    try:
        measures, labels = as_metrics(metric)
    except CwlaError:
        raise
    except (TypeError, ValueError) as exc:
        raise DiscpowerError(f"sweep metrics: {exc}") from exc
    return tuple({label: m} for label, m in zip(labels, measures)), tuple(labels)


def _is_path(value) -> bool:
    return isinstance(value, (str, bytes, os.PathLike))


def _run_files(runs) -> list | None:
    """The run files, if the runs are files (a path, a list of them, a dict {name: path}); else None."""
    if _is_path(runs):
        return [runs]
    values = list(runs.values()) if isinstance(runs, Mapping) else runs
    if isinstance(values, Sequence) and values and all(_is_path(v) for v in values):
        return list(values)
    return None


def _inputs(truth, runs, items) -> list[str]:
    """The folders holding the sweep's inputs given by path (the folders of files, run stores themselves)."""
    paths = [truth] if _is_path(truth) else []
    if isinstance(runs, RunSet) and runs.store is not None:
        paths.append(runs.store)
    else:
        paths += _run_files(runs) or []
    paths += [qrels for *_, qrels in items if _is_path(qrels)]
    folders = []
    for path in paths:
        path = os.path.realpath(os.fsdecode(path))
        folders.append(path if os.path.isdir(path) else os.path.dirname(path))
    return folders


def _check_store(store, truth, runs, items) -> str | None:
    """``store`` as an absolute folder: it exists, and holds none of the sweep's inputs."""
    if store is None:
        return None
    if not _is_path(store) or not os.path.isdir(store):
        raise DiscpowerError(f"store must be an existing folder (the sweep writes its temporary files under it, "
                             f"in a new subfolder it removes afterwards); got {store!r}")
    folder = os.path.realpath(os.fsdecode(store))
    for held in _inputs(truth, runs, items):
        if folder == held or (folder.startswith(held + os.sep) and is_run_store(held)):
            raise DiscpowerError(f"store {folder} is a folder of the sweep's inputs ({held}); the sweep never "
                                 f"writes beside its inputs: give another folder")
    return folder


class _Shipment:
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

    def pickled(self, value) -> _Pickled:
        self.count += 1
        path = self._path(f"qrels-{self.count}.pkl")
        with open(path, "wb") as f:
            pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
        return _Pickled(path)

    def runs(self, run_set: RunSet) -> str:
        return os.fspath(run_set.save(self._path("runs")))

    def close(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)  # workers that still map it keep their pages (POSIX)
            self.folder = None


def _absolute(path: str | os.PathLike) -> str:
    """``path`` as an absolute path (text)."""
    return os.path.abspath(os.fsdecode(os.fspath(path)))


def _shipped(recipe: _Recipe, comparer: QrelsComparer, runs, items: list, shipment: _Shipment) -> tuple:
    """The recipe and cells to send: in-memory runs and qrels replaced by a run store and pickle files."""
    if isinstance(runs, RunSet) and runs.store is not None:
        runs = _absolute(runs.store)
    elif is_run_store(runs):
        runs = _absolute(runs)
    elif (files := _run_files(runs)) is not None:  # absolute: a worker may start in another folder
        runs = ({name: _absolute(path) for name, path in runs.items()} if isinstance(runs, Mapping)
                else [_absolute(path) for path in files])
    else:
        runs = shipment.runs(comparer.runs)  # the runs as read (with the sweep's ties), written once
    truth = _absolute(recipe.truth) if _is_path(recipe.truth) else shipment.pickled(recipe.truth)
    items = [item if item[1] is not None else
             (*item[:5], _absolute(item[5]) if _is_path(item[5]) else shipment.pickled(item[5]))
             for item in items]
    return attrs.evolve(recipe, truth=truth, runs=runs, written=shipment.folder), items


def _tasks(recipe: _Recipe, items: list, chunk_size: int) -> list[tuple[Callable, tuple]]:
    """What is submitted for each chunk: ``(function, arguments)``."""
    return [(_run_chunk, (recipe, items[k:k + chunk_size])) for k in range(0, len(items), chunk_size)]


def sweep(truth: Any, runs: Any, metric: Any = "nDCG@10", *, generators: Any = None,
          parameters: Iterable = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0), repetitions: int = 10,
          candidates: Mapping | None = None, executor: Executor | None = None, chunk_size: int = 10,
          worker_threads: int | None = 1, store: str | os.PathLike | None = None, test: Any = "tukey",
          alpha: float = 0.05, n_trials: int = 10_000, seed: Any = 0, progress: Any = False,
          **options: Any) -> Sweep:
    """Compare a grid of candidate qrels with the ground truth.

    Parameters
    ----------
    truth : qrels
        The ground truth (a path, a DataFrame, a dict).
    runs : run files, DataFrames, dict, RunSet, or a run store's folder
        Anything :func:`cwla.read_runs` accepts. With an executor, files and run stores
        (:meth:`cwla.RunSet.save`, :func:`cwla.runset.open_runs`) reach the workers by path; runs in
        memory are written once to a temporary run store (see ``store``).
    metric : str, Metric, or a list or dict of them
        One metric (``options`` such as cutoff go to cwla.evaluate); or several (a list, or a dict
        ``{label: metric}``): every candidate is then built once and compared under each, and the
        frame gets a ``metric`` column.
    generators : str, callable, list of them, or dict {name: callable}
        Names from :data:`discpower.generators.GENERATORS` (``"sampling"``, ``"sampling-relabel"``,
        ``"topics"``, ``"pooling"``, ``"popularity"``) or callables ``(truth, runs, parameter, seed) -> qrels``
        (top-level functions or ``functools.partial`` objects, so a process pool can pickle them).
    parameters : list
        The generator parameter values (sampling rates, topic fractions, pool depths, top-k).
    repetitions : int
        Independent draws per parameter (seeded from ``seed``).
    candidates : dict, optional
        ``{name: qrels}`` compared as they are (LLM labels, other assessors). With an executor, files
        go by path and frames or dicts are written once to a pickle file each (see ``store``).
    executor : concurrent.futures.Executor, optional
        Runs the chunks (None: in this process). A ``ProcessPoolExecutor`` needs
        ``mp_context=multiprocessing.get_context("spawn")`` (numba's threads do not survive fork);
        Dask: ``client.get_executor()``; Ray: :class:`discpower.cluster.RayExecutor`. Each chunk
        pickles only a recipe (paths, metric, settings) and its cells, a few kB.
    chunk_size : int
        Candidates per task.
    worker_threads : int or None
        With an executor, the numba threads each chunk runs on (default 1: one thread per task, the
        executor's workers being the parallelism; at most the worker's ``NUMBA_NUM_THREADS``), set at
        the start of the chunk and restored at its end. None leaves numba's count as it is in the
        worker (every core, unless ``NUMBA_NUM_THREADS`` says otherwise: oversubscribed when several
        tasks run on one machine). Ignored without an executor (this process keeps its own count:
        :func:`numba.set_num_threads`). The results do not depend on it.
    store : str or os.PathLike, optional
        With an executor, an existing folder under which the sweep writes what it sends by path
        instead of by value (a run store of the in-memory runs, pickles of in-memory qrels), in a
        new subfolder removed when the sweep ends; default: the system's temporary folder, which
        only workers on this machine see (on a cluster of several machines: a folder on a shared
        filesystem). Never a folder of the sweep's inputs. Nothing is written for a
        ``ThreadPoolExecutor`` (its threads share this process's comparers) or when every input is
        a path already.
    test, alpha, n_trials, seed
        As for :func:`compare_qrels`; the same test seed for every candidate.
    progress : bool or callable
        True: a progress bar over the chunks; a callable ``(done, total)``.

    Returns
    -------
    Sweep
        One ``status`` per cell. A candidate that cannot be compared -- empty (e.g. sampling rate 0
        on qrels that list only relevant documents), or refused with a cwla/discpower error (no topic
        in common with the ground truth, a single topic, ...) -- gives a cell whose status says why and
        whose measures are NaN; the other cells go on, and one :class:`~cwla.errors.CwlaWarning` names
        the first such cells. A candidate under which every system scores the same is compared as any
        other ("ok"): no pair is significant under it, so every pair significant under the ground truth
        is a Type II error (FN); leaving it out would flatter the low sampling rates. The frame is the
        same whatever the executor, the chunking and the thread counts.

    Raises
    ------
    DiscpowerError
        For bad arguments, before any cell runs; and for an error raised by a generator or any other
        unexpected error in a cell, with the cell's generator, parameter and repetition (or candidate
        name) in the message. A generator with nothing to give for a cell returns empty qrels instead.
        A worker that cannot see the files the sweep wrote for it says so (pass ``store=``).
    """
    seed = seed_value(seed)
    if executor is not None:
        _check_executor(executor)
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) or chunk_size < 1:
        raise DiscpowerError(f"The 'chunk_size' parameter must be an integer >= 1. Got {chunk_size!r} instead.")
    threads = _threads(worker_threads)
    items = _items(generators, parameters, repetitions, candidates, seed)
    store = _check_store(store, truth, runs, items)
    metrics, labels = _metric_list(metric)
    truth = truth if _is_path(truth) else read_qrels(truth)
    settings = dict(test=test, alpha=alpha, n_trials=n_trials, seed=seed, **options)
    recipe = _Recipe(token=uuid.uuid4().hex, truth=truth, runs=runs, metrics=metrics, labels=labels,
                     settings=settings, threads=threads if executor is not None else None)
    # built here too with an executor: bad inputs fail before any task is submitted
    comparers = _build(recipe)
    shipment = _Shipment(store)
    futures = []
    try:
        if executor is None:
            chunks = _tasks(recipe, items, chunk_size)
            results = (_run_chunk(*args, comparers) for _, args in chunks)
        else:
            if isinstance(executor, ThreadPoolExecutor):  # its threads share this process's comparers
                with _LOCK:
                    _COMPARERS.clear()
                    _COMPARERS[recipe.token] = comparers
            else:
                recipe, items = _shipped(recipe, comparers[0], runs, items, shipment)
            chunks = _tasks(recipe, items, chunk_size)
            futures = [executor.submit(fn, *args) for fn, args in chunks]
            results = (future.result() for future in futures)
        tick = reporter(progress, len(chunks), "qrels sweep")
        rows, failures = [], []
        for k, (chunk_rows, chunk_failures) in enumerate(results):
            rows += chunk_rows
            failures += chunk_failures
            tick(k + 1, len(chunks))
    finally:
        for future in futures:  # after an error: the chunks not started yet are dropped (no-op for the others)
            future.cancel()
        with _LOCK:  # this sweep's comparers (built here or by a worker thread of this process) go
            _COMPARERS.pop(recipe.token, None)
        shipment.close()  # after an error, a chunk still running may find its files gone: its result is dropped
    if failures:
        warnings.warn(f"{len(failures)} of {len(items) * len(metrics)} sweep cells could not be compared (their "
                      f"status says why, their measures are NaN): {'; '.join(failures[:3])}"
                      f"{' ...' if len(failures) > 3 else ''}", CwlaWarning, stacklevel=2)
    first = comparers[0]
    names = tuple(labels) if labels is not None else (first.label,)
    return Sweep(frame=_tidy(rows, labels is not None), metric=", ".join(names), alpha=first.alpha, seed=seed,
                 metrics=names)

