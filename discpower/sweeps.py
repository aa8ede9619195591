"""Grids of candidate qrels compared with the ground truth: generators x parameters x repetitions,
or a set of candidate qrels files; one tidy frame out (McKechnie et al. 2025, Figures 1 and 2).

The ground truth is scored and tested once per process (:class:`QrelsComparer`); the
grid is cut into chunks that run on any ``concurrent.futures.Executor`` -- a local
``ProcessPoolExecutor``, a thread pool, or a Dask cluster's ``client.get_executor()``.
With run *files* every worker reads them itself once; in-memory runs travel with
each chunk (pass paths to feed a process pool cheaply).

A local process pool must start its workers with ``spawn`` or ``forkserver``
(``ProcessPoolExecutor(mp_context=multiprocessing.get_context("spawn"))``):
numba's OpenMP thread pool does not survive ``fork()``. A thread pool works under every numba
threading layer (under ``workqueue`` the parallel kernels take turns: see :mod:`cwla._numba`).

A cell whose candidate cannot be compared (e.g. an empty one) becomes rows with NaN values and a
``status`` that says why; the other cells go on (:func:`sweep`).
"""

from __future__ import annotations

import threading
import uuid
import warnings
import zlib
from collections.abc import Iterable, Mapping

import attrs
import numpy as np
import pandas as pd

from cwla.errors import CwlaError, CwlaWarning
from cwla.readers import read_qrels

from ._progress import reporter
from ._validate import DiscpowerError, seed_value
from .qrels_compare import QrelsComparer

__all__ = ["Sweep", "sweep"]

_COMPARERS: dict = {}  # per-process cache of worker processes: recipe token -> QrelsComparer
_LOCK = threading.Lock()


@attrs.frozen
class _Recipe:
    """Everything a worker needs to rebuild the ground-truth comparer (picklable)."""

    token: str
    truth: object
    runs: object
    metric: object
    settings: dict


def _comparer(recipe: _Recipe) -> QrelsComparer:
    """The recipe's comparer, built once per worker process (one at a time; the last one kept)."""
    with _LOCK:
        comparer = _COMPARERS.get(recipe.token)
        if comparer is None:
            _COMPARERS.clear()
            comparer = QrelsComparer.build(recipe.truth, recipe.runs, recipe.metric, **recipe.settings)
            _COMPARERS[recipe.token] = comparer
        return comparer


def _where(name, fn, parameter, repetition) -> str:
    """The cell, as error messages name it."""
    if fn is None:
        return f"candidate {name!r}"
    return f"generator {name!r}, parameter {parameter}, repetition {repetition}"


def _compare_cell(comparer: QrelsComparer, name, fn, parameter, repetition, seed, qrels) -> tuple[dict, str]:
    """(measures, status) of one cell of the grid.

    ``"ok"`` with the comparison's measures; ``"empty candidate"`` (no judgement at all) or the
    error's message, with no measures, when cwla or discpower refuse to compare the candidate
    (a :class:`~cwla.errors.CwlaError`: no topic in common with the ground truth, a single topic,
    ...). Any other error, and any error of the generator itself, is raised as a DiscpowerError
    that names the cell.
    """
    where = _where(name, fn, parameter, repetition)
    try:
        if fn is not None:
            qrels = fn(comparer.truth, comparer.runs, parameter, seed)
    except Exception as exc:
        raise DiscpowerError(f"sweep cell ({where}): the generator failed: {type(exc).__name__}: {exc}") from exc
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


def _run_chunk(recipe: _Recipe, items: list, comparer: QrelsComparer | None = None) -> tuple[list[dict], list[str]]:
    """Compare every candidate of a chunk: the rows of the tidy frame (one row with measure None for a
    cell that did not compare, see :func:`_tidy`) and ``"<cell>: <status>"`` for each such cell."""
    comparer = comparer if comparer is not None else _comparer(recipe)
    rows, failures = [], []
    for name, fn, parameter, repetition, seed, qrels in items:
        measures, status = _compare_cell(comparer, name, fn, parameter, repetition, seed, qrels)
        cell = {"generator": name, "parameter": parameter, "repetition": repetition}
        if status == "ok":
            rows += [{**cell, "measure": measure, "value": float(value), "status": status}
                     for measure, value in measures.items()]
        else:
            rows.append({**cell, "measure": None, "value": np.nan, "status": status})
            failures.append(f"{_where(name, fn, parameter, repetition)}: {status}")
    return rows, failures


def _tidy(rows: list[dict]) -> pd.DataFrame:
    """The sweep's frame: a cell that did not compare gets a NaN row for each measure the others have
    (a single row, measure NaN, when no cell compared)."""
    names = list(dict.fromkeys(row["measure"] for row in rows if row["status"] == "ok")) or [np.nan]
    rows = [out for row in rows
            for out in ([row] if row["status"] == "ok" else [{**row, "measure": m} for m in names])]
    return pd.DataFrame(rows, columns=["generator", "parameter", "repetition", "measure", "value", "status"])


@attrs.frozen(eq=False)
class Sweep:
    """Result of :func:`sweep`: a tidy frame and pure methods over it.

    ``frame`` columns: ``generator, parameter, repetition, measure, value, status`` (for candidate files
    ``generator`` is the candidate's name and ``parameter`` is NaN). ``status`` is ``"ok"`` for a cell
    that was compared, else why it was not (``"empty candidate"``, or the message of the error that
    refused the candidate, e.g. no topic in common with the ground truth); such a cell has every
    measure, with NaN values. A measure may be NaN in an ``"ok"`` cell too (a zero denominator, e.g.
    MCC when the candidate finds no significant pair).
    """

    frame: pd.DataFrame
    metric: str
    alpha: float
    seed: int

    def summary(self) -> pd.DataFrame:
        """Mean, standard deviation and count over repetitions, per generator, parameter and measure.

        Only the ``"ok"`` cells count: ``mean``, ``std`` and ``count`` skip NaN values, so the cells
        that were not compared (NaN values) are left out, and ``failed`` counts them. A parameter none
        of whose repetitions compared keeps its rows, with NaN means and count 0.
        """
        frame = self.frame.assign(failed=self.frame["status"] != "ok")
        grouped = frame.groupby(["generator", "parameter", "measure"], sort=False, dropna=False)
        summary = grouped["value"].agg(["mean", "std", "count"])
        summary["failed"] = grouped["failed"].sum()
        return summary.reset_index()

    def table(self, measures=("TP", "TN", "FP", "FN", "1P", "1R", "2P", "2R", "BAC", "MCC", "tau")) -> pd.DataFrame:
        """Wide table, one row per generator and parameter, the mean of each measure (McKechnie's Table 1)
        over the ``"ok"`` repetitions (:meth:`summary`; NaN where none compared)."""
        s = self.summary()
        wide = s.pivot_table(index=["generator", "parameter"], columns="measure", values="mean", sort=False,
                             dropna=False)
        return wide[[m for m in measures if m in wide.columns]]

    def plot(self, measures=("1R", "2R", "BAC", "MCC"), ax=None, generator=None):
        """McKechnie et al.'s Figure 2: measures against the generator's parameter (e.g. the sampling
        rate), mean over repetitions with one-standard-deviation error bars."""
        import matplotlib.pyplot as plt

        s = self.summary()
        gens = s["generator"].unique()
        gen = generator if generator is not None else gens[0]
        s = s[(s.generator == gen) & s.measure.isin(measures)]
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        for measure in measures:
            part = s[s.measure == measure].sort_values("parameter")
            ax.errorbar(part["parameter"], part["mean"], yerr=part["std"].fillna(0.0), marker="o", ms=3,
                        capsize=2, lw=1, label=measure)
        ax.set_xlabel(f"{gen} parameter")
        ax.set_ylabel("value")
        ax.set_title(f"{self.metric}, alpha = {self.alpha}")
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


def _check_executor(executor):
    context = getattr(executor, "_mp_context", None)
    if context is not None and context.get_start_method() == "fork":
        raise DiscpowerError("this process pool forks its workers, and numba's OpenMP threads do not survive "
                             "fork(): use ProcessPoolExecutor(mp_context=multiprocessing.get_context('spawn'))")


def sweep(truth, runs, metric="nDCG@10", *, generators=None, parameters=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8,
          0.9, 1.0), repetitions: int = 10, candidates=None, executor=None, chunk_size: int = 10, test="tukey",
          alpha=0.05, n_trials=10_000, seed=0, progress=False, **options) -> Sweep:
    """Compare a grid of candidate qrels with the ground truth.

    Parameters
    ----------
    truth : qrels
        The ground truth.
    runs : run files, DataFrames, dict or RunSet
        Pass file paths to let process-pool workers read the runs themselves.
    metric : str or Metric
        One metric (``options`` such as cutoff go to cwla.evaluate).
    generators : str, callable, list of them, or dict {name: callable}
        Names from :data:`discpower.generators.GENERATORS` (``"sampling"``, ``"sampling-relabel"``,
        ``"topics"``, ``"pooling"``, ``"popularity"``) or callables ``(truth, runs, parameter, seed) -> qrels``
        (top-level functions or ``functools.partial`` objects, so a process pool can pickle them).
    parameters : list
        The generator parameter values (sampling rates, topic fractions, pool depths, top-k).
    repetitions : int
        Independent draws per parameter (seeded from ``seed``).
    candidates : dict, optional
        ``{name: qrels}`` compared as they are (LLM labels, other assessors).
    executor : concurrent.futures.Executor, optional
        Runs the chunks (None: in this process). A ``ProcessPoolExecutor`` needs
        ``mp_context=multiprocessing.get_context("spawn")`` (numba's threads do not survive fork).
    chunk_size : int
        Candidates per task.
    test, alpha, n_trials, seed
        As for :func:`compare_qrels`; the same test seed for every candidate.

    Returns
    -------
    Sweep
        One ``status`` per cell. A candidate that cannot be compared -- empty (e.g. sampling rate 0
        on qrels that list only relevant documents), or refused with a cwla/discpower error (no topic
        in common with the ground truth, a single topic, ...) -- gives a cell whose status says why and
        whose measures are NaN; the other cells go on, and one :class:`~cwla.errors.CwlaWarning` names
        the first such cells. A candidate under which every system scores the same is compared as any
        other ("ok"): no pair is significant under it, so every pair significant under the ground truth
        is a Type II error (FN); leaving it out would flatter the low sampling rates.

    Raises
    ------
    DiscpowerError
        For bad arguments, before any cell runs; and for an error raised by a generator or any other
        unexpected error in a cell, with the cell's generator, parameter and repetition (or candidate
        name) in the message. A generator with nothing to give for a cell returns empty qrels instead.
    """
    seed = seed_value(seed)
    if executor is not None:
        _check_executor(executor)
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) or chunk_size < 1:
        raise DiscpowerError(f"The 'chunk_size' parameter must be an integer >= 1. Got {chunk_size!r} instead.")
    items = _items(generators, parameters, repetitions, candidates, seed)
    truth = truth if isinstance(truth, (str, bytes)) or hasattr(truth, "__fspath__") else read_qrels(truth)
    settings = dict(test=test, alpha=alpha, n_trials=n_trials, seed=seed, **options)
    recipe = _Recipe(token=uuid.uuid4().hex, truth=truth, runs=runs, metric=metric, settings=settings)
    # built here too with an executor: bad inputs fail before any task is submitted
    comparer = QrelsComparer.build(truth, runs, metric, **settings)
    chunks = [items[k:k + chunk_size] for k in range(0, len(items), chunk_size)]
    tick = reporter(progress, len(chunks), "qrels sweep")
    futures = [executor.submit(_run_chunk, recipe, chunk) for chunk in chunks] if executor is not None else []
    results = (future.result() for future in futures) if futures else (
        _run_chunk(recipe, chunk, comparer) for chunk in chunks)
    rows, failures = [], []
    try:
        for k, (chunk_rows, chunk_failures) in enumerate(results):
            rows += chunk_rows
            failures += chunk_failures
            tick(k + 1, len(chunks))
    finally:
        for future in futures:  # after an error: the chunks not started yet are dropped (no-op for the others)
            future.cancel()
    if failures:
        warnings.warn(f"{len(failures)} of {len(items)} sweep cells could not be compared (their status says why, "
                      f"their measures are NaN): {'; '.join(failures[:3])}{' ...' if len(failures) > 3 else ''}",
                      CwlaWarning, stacklevel=2)
    return Sweep(frame=_tidy(rows), metric=comparer.label, alpha=comparer.alpha, seed=seed)
