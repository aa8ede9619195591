"""discpower's seam with cwla: the one Evaluator an entry point builds (or is given), and its labelled scores.

Every entry point that scores runs -- :func:`~discpower.meta_evaluate`, :func:`~discpower.compare_qrels`,
:func:`~discpower.sweep`, :func:`~discpower.truth_stability`, :func:`~discpower.run_stability`,
:func:`~discpower.known_truth_errors`, :func:`~discpower.compare_systems` and the commands -- takes a
:class:`cwla.Evaluator` where it takes runs, or builds exactly one from the runs, the metrics and every
option of :func:`cwla.evaluate` (``**options``). None reads or joins runs itself: the Evaluator read
them once and checked every option once, and it joins each qrels with them once, whatever the number
of metrics. What the Evaluator scores comes back labelled (:meth:`cwla.Evaluation.scores`: runs x
topics, named axes), and the tests read the orientation from those labels
(:func:`discpower.stats.matrix.score_matrix`).
"""

from __future__ import annotations

from cwla import Collection, Evaluation, Evaluator
from cwla.scoring.evaluator import as_metrics

from .errors import DiscpowerError

__all__ = ["evaluator_for", "evaluation_of", "parsed_metrics", "DEFAULT_METRIC"]

#: the metric of the qrels comparisons when none is given
DEFAULT_METRIC = "nDCG@10"


def parsed_metrics(metrics) -> dict:
    """``{label: measure}``, parsed once (the Evaluator built from it keeps the labels and parses nothing
    again); an entry point knows its number of metrics before any file is read."""
    measures, labels = as_metrics(metrics)
    return dict(zip(labels, measures))


def evaluator_for(runs, metrics, options: dict, func: str, *, default=None, hold: bool = False,
                  prepared: bool = False) -> Evaluator:
    """The entry point's one Evaluator: ``runs`` itself when it is one (then no metrics nor options may be
    given beside it), else ``Evaluator(runs, metrics or default, hold=hold, **options)`` (``hold``: the runs
    held whatever their size, for the entry points that score many qrels; ``prepared``: it scores a prepared
    Collection, so ``runs`` may be None)."""
    if isinstance(runs, Evaluator):
        if metrics is not None or options:
            given = ", ".join(["metrics"] * (metrics is not None) + sorted(options))
            raise DiscpowerError(f"{func}: the Evaluator holds the metrics and every option; give them when you "
                                 f"build it, not beside it (got {given})")
        return runs
    if runs is None and not prepared:
        raise DiscpowerError(f"{func}: no runs given (pass run files, frames, a RunSet or a cwla.Evaluator)")
    if metrics is None:
        if default is None:
            raise DiscpowerError(f"{func}: no metrics given (e.g. ['nDCG@10'] or cwla.chen_sakai_grid())")
        metrics = default
    return Evaluator(runs, metrics, hold=hold, **options)


def evaluation_of(qrels, runs, metrics, options: dict, func: str) -> Evaluation:
    """The scores an entry point works on: ``qrels`` itself when it is a :class:`cwla.Evaluation` (``metrics``
    then selects some of its metrics; nothing else may be given), else ``qrels`` (or a prepared
    :class:`cwla.Collection`) scored by the one Evaluator of :func:`evaluator_for`."""
    if isinstance(qrels, Evaluation):
        if runs is not None or options:
            raise DiscpowerError(f"{func}: an Evaluation holds its runs and its scoring options; pass it with "
                                 f"metrics= at most (some of its metrics, by label)")
        if metrics is None:
            return qrels
        try:
            return qrels.select(metrics)
        except KeyError as err:
            raise DiscpowerError(f"{func}: {err.args[0]}; with an Evaluation, metrics= names some of its metrics "
                                 f"by label") from None
    prepared = isinstance(qrels, Collection)
    if prepared and runs is not None and not isinstance(runs, Evaluator):  # an Evaluator's prepare() made it
        raise DiscpowerError(f"{func}: a Collection holds its runs; pass it without runs")
    return evaluator_for(runs, metrics, options, func, prepared=prepared).score(qrels)
