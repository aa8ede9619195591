"""Grids of candidate qrels compared with the ground truth: generators x parameters x repetitions, or a
set of candidate qrels files, under one metric or several; one tidy frame out (McKechnie et al. 2025,
Figures 1 and 2).

:func:`sweep` plans the work: it checks every argument, builds the one :class:`cwla.Evaluator` and the
ground truth's :class:`~discpower.qrels.compare.QrelsComparer` (the truth joined once, its test computed
once per metric and topic set), checks the memory of its resampling once, and cuts the grid
(:mod:`discpower.qrels.grid`) into chunks that run in this process or on any
``concurrent.futures.Executor`` -- a local ``ProcessPoolExecutor``, a thread pool, a Dask cluster's
``client.get_executor()``, or Ray through :class:`discpower.RayExecutor` -- each chunk carrying a recipe,
not the data (:mod:`discpower.qrels.executors`). The result, :class:`Sweep`, is a tidy frame with pure
methods over it.
"""

from __future__ import annotations

import os
import uuid
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any

import attrs
import pandas as pd

from cwla import Evaluator, Metric, read_qrels
from cwla._shared import Displayed, NONE, Shown, count_text
from cwla.errors import CwlaWarning, MetricSyntaxError
from cwla._shared import scoped

from .._params import ALPHA, COUNT, TRIALS, validated
from .._plots import describe_test, line_style, pyplot
from .._progress import reporter
from ..errors import DiscpowerError
from ..scoring import parsed_metrics
from ..stats.rng import SEED
from ..stats.registry import resamples, words_of
from .executors import (Recipe, Shipment, build, check_executor, check_store, forget, is_path,
                        shipped)
from .grid import cells, run_chunk, tidy
from ..stats.trials import counts_its_own

__all__ = ["Sweep", "sweep"]

#: what the parameter of each built-in generator is, as the x axis of :meth:`Sweep.plot` says it
PARAMETER_AXES = {
    "sampling": "share of each topic's relevant judgements kept (the others dropped)",
    "sampling-relabel": "share of each topic's relevant judgements kept (the others relabelled 0)",
    "topics": "share of the topics kept",
    "pooling": "pool depth k",
    "popularity": "k: popularity counted in the runs' top k",
    "biased": "strength: probability of each change favouring the first half of the runs by name",
}


@attrs.frozen(eq=False, repr=False)
class Sweep(Displayed):
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
    test : str or None
        The test of every comparison: its name (``"tukey"``, ...) or the callable's name (None: not known).
    n_trials : int or None
        B of the randomised tests (None: not known).
    """

    frame: pd.DataFrame
    metric: str
    alpha: float
    seed: int
    metrics: tuple = ()
    test: str | None = None
    n_trials: int | None = None

    def _shown(self) -> Shown:
        """The repr's table: :meth:`table` of the error counts, MCC and tau."""
        table = self.table(("FP", "FN", "1R", "2R", "MCC", "tau"))
        cells = len(self.frame[self._keys()].drop_duplicates())
        failed = self.frame.loc[self.frame["status"] != "ok", self._keys() + ["repetition"]].drop_duplicates()
        facts = [f"metric={self.metric}" if len(self.metric) <= 40 else count_text(len(self.metrics), "metric"),
                 f"alpha={self.alpha:g}", f"seed={self.seed}"] + ([f"{len(failed)} failed"] if len(failed) else [])
        return Shown("Sweep", f"{count_text(cells, 'cell')} x {count_text(self.frame['repetition'].nunique(), 'repetition')}, "
                     f"{count_text(self.frame['measure'].nunique(), 'measure')}", table, tuple(facts))

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

        Each measure takes the next colour of Okabe & Ito's colour-blind-safe palette, line style
        and marker, so the lines stay apart in greyscale. The y axis names the
        metric and the repetitions, the x axis what the built-in generator's parameter is, and the title the
        metric, the generator, the test, B and alpha.

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
        plt = pyplot("Sweep.plot")

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
        for k, measure in enumerate(measures):
            part = s[s.measure == measure].sort_values("parameter")
            ax.errorbar(part["parameter"], part["mean"], yerr=part["std"].fillna(0.0), ms=4, capsize=2, lw=1,
                        label=measure, **line_style(k))
        repetitions = int(s["count"].max()) if len(s) else 0
        ax.set_xlabel(PARAMETER_AXES.get(gen, f"{gen} parameter"))
        ax.set_ylabel(f"agreement with the truth's tests ({title})\n(mean ± 1 sd, {repetitions} "
                      f"repetition{'s' if repetitions != 1 else ''})")
        if self.test is None:
            test = f"α = {self.alpha:g}"
        else:
            try:
                words, B = words_of(self.test), (self.n_trials if resamples(self.test) else None)
            except DiscpowerError:  # not a name: a callable's
                words, B = self.test, None
            test = describe_test(words, B, self.alpha)
        ax.set_title(f"{title}, {gen}: {test}", fontsize=9)
        ax.legend(frameon=False, fontsize="small")
        return ax


def _several(runs, metric) -> bool:
    """Whether the frame gets a ``metric`` column: several metrics were asked for (a list or dict, or an
    Evaluator of several without a selection)."""
    if metric is None:
        return isinstance(runs, Evaluator) and len(runs.labels) > 1
    return not isinstance(metric, (str, Metric)) and isinstance(metric, (Sequence, Mapping))


def _tasks(recipe: Recipe, items: list, chunk_size: int) -> list[tuple[Callable, tuple]]:
    """What is submitted for each chunk: ``(function, arguments)``."""
    return [(run_chunk, (recipe, items[k:k + chunk_size])) for k in range(0, len(items), chunk_size)]


#: the default parameters of :func:`sweep`: sampling rates (or topic fractions) 0.1, 0.2, ..., 1.0
PARAMETERS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


@scoped
@counts_its_own
@validated({"repetitions": COUNT, "chunk_size": COUNT, "worker_threads": (COUNT, NONE), "alpha": ALPHA, "n_trials": TRIALS, "seed": SEED})
def sweep(truth: Any, runs: Any, metric: Any = None, *, generators: Any = None,
          parameters: Iterable = PARAMETERS, repetitions: int = 10,
          candidates: Mapping | None = None, executor: Executor | None = None, chunk_size: int = 10,
          worker_threads: int | None = 1, store: str | os.PathLike | None = None, test: Any = "tukey",
          alpha: float = 0.05, n_trials: int = 10_000, seed: Any = 0, progress: Any = None,
          **options: Any) -> Sweep:
    """Compare a grid of candidate qrels with the ground truth.

    Parameters
    ----------
    truth : qrels
        The ground truth (a path, a DataFrame, a dict).
    runs : run files, DataFrames, dict, RunSet, a run store's folder, or a cwla.Evaluator
        Anything :func:`cwla.read_runs` accepts, or an Evaluator (its runs, metrics and options; then
        ``metric`` selects some of its metrics by label and no option may be given beside it). With
        an executor, files and run stores (:meth:`cwla.RunSet.save`, :func:`cwla.open_runs`) reach
        the workers by path; runs in memory are written once to a temporary run store (see ``store``).
    metric : str, Metric, or a list or dict of them
        One metric (default nDCG@10; ``options``, every option of :func:`cwla.evaluate`, build the
        Evaluator with it); or several (a list, or a dict ``{label: metric}``): every candidate is
        then built once, joined with the runs once and compared under each, and the frame gets a
        ``metric`` column (so does a sweep of an Evaluator of several metrics).
    generators : str, callable, list of them, or dict {name: callable}
        Names from :data:`discpower.qrels.generators.GENERATORS` (``"sampling"``, ``"sampling-relabel"``,
        ``"topics"``, ``"pooling"``, ``"popularity"``, ``"biased"``) or callables ``(truth, runs, parameter, seed) -> qrels``
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
        Dask: ``client.get_executor()``; Ray: :class:`discpower.RayExecutor`. Each chunk
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
        ``ThreadPoolExecutor`` (its threads share this process's comparer) or when every input is
        a path already.
    test, alpha, n_trials, seed
        As for :func:`compare_qrels`; the same test seed for every candidate.
    progress : bool, None or callable
        None (default): a progress bar over the chunks on stderr when it is a terminal; True: always;
        False: none (nor for the reading and compiling it starts); a callable ``(done, total)``.

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

    Examples
    --------
    >>> import cwla, discpower
    >>> qrels, runs = cwla.synthetic.collection(seed=1)
    >>> s = discpower.sweep(qrels, runs, "nDCG@10", generators="sampling", parameters=[0.3, 0.7],
    ...                     repetitions=2, n_trials=200, seed=1, progress=False)
    >>> mcc = s.frame[s.frame["measure"] == "MCC"].groupby("parameter")["value"].mean()
    >>> mcc.index.tolist(), bool(mcc[0.7] > mcc[0.3])   # more judgements kept, closer to the truth's tests
    ([0.3, 0.7], True)
    """
    if executor is not None:
        check_executor(executor)
    threads = worker_threads
    items = cells(generators, parameters, repetitions, candidates, seed)
    store = check_store(store, truth, runs, items)
    several = _several(runs, metric)
    if several and not isinstance(runs, Evaluator):  # parsed once, refused before any work
        try:
            metric = parsed_metrics(metric)
        except (TypeError, ValueError) as exc:
            if isinstance(exc, (DiscpowerError, MetricSyntaxError)):
                raise
            raise DiscpowerError(f"sweep metrics: {exc}") from exc
    truth = truth if is_path(truth) else read_qrels(truth)
    recipe = Recipe(token=uuid.uuid4().hex, truth=truth, runs=runs, metrics=metric, labels=None,
                    options=dict(options), settings=dict(test=test, alpha=alpha, n_trials=n_trials, seed=seed),
                    threads=threads if executor is not None else None)
    # built here too with an executor: bad inputs fail before any task is submitted, and the plan's memory
    # is checked once (QrelsComparer.build)
    comparer = build(recipe)
    recipe = attrs.evolve(recipe, labels=comparer.labels if several else None)
    shipment = Shipment(store)
    futures = []
    try:
        if executor is None:
            chunks = _tasks(recipe, items, chunk_size)
            results = (run_chunk(*args, comparer) for _, args in chunks)
        else:
            shared = isinstance(executor, ThreadPoolExecutor)  # its threads are given this process's comparer
            if not shared:
                recipe, items = shipped(recipe, comparer, runs, items, shipment)
            chunks = _tasks(recipe, items, chunk_size)
            futures = [executor.submit(fn, *args, *((comparer,) if shared else ())) for fn, args in chunks]
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
        forget(recipe)  # this sweep's comparer, had an executor's worker in this process built it, goes
        shipment.close()  # after an error, a chunk still running may find its files gone: its result is dropped
    if failures:
        warnings.warn(f"{len(failures)} of {len(items) * len(comparer.labels)} sweep cells could not be compared (their "
                      f"status says why, their measures are NaN): {'; '.join(failures[:3])}"
                      f"{' ...' if len(failures) > 3 else ''}", CwlaWarning, stacklevel=2)
    names = tuple(comparer.labels)
    return Sweep(frame=tidy(rows, recipe.labels is not None), metric=", ".join(names), alpha=comparer.alpha, seed=seed,
                 metrics=names, test=comparer.test if isinstance(comparer.test, str) else
                 getattr(comparer.test, "__name__", type(comparer.test).__name__), n_trials=comparer.n_trials)
