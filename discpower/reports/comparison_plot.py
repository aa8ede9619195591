"""The figure of a comparison of systems: each system's mean with its interval, significance shown.

:func:`comparison_plot` draws :meth:`discpower.SystemComparison.plot` (see it for what the figure shows).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._plots import BLUE, NEUTRAL, PALETTE, VERMILLION, describe_test, pyplot
from ..stats.corrections import CORRECTION_NAMES

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["comparison_plot"]


def comparison_plot(result, metric: str | int | None = None, ax: Axes | None = None) -> Axes:
    """``result.plot(metric, ax)`` of a :class:`discpower.SystemComparison` ``result``: the means of ``metric``
    (default: the first), highest at the top, with their ``1 - alpha`` intervals and the significance marks;
    returns the matplotlib Axes."""
    plt = pyplot("SystemComparison.plot")

    q = result.metric_index(metric)
    m = result.n_systems
    if ax is None:
        _, ax = plt.subplots(figsize=(6.0, max(2.0, 0.28 * m + 1.0)))
    order = np.argsort(-result.means[q], kind="stable")
    y = np.arange(m)[::-1]
    marks = result.cell_markers(q)
    means, low, high = result.means[q, order], result.ci_low[q, order], result.ci_high[q, order]
    several = isinstance(result.baseline, tuple)
    if result.baseline is None:
        kinds = [("", PALETTE[0], "o")] * m
    else:
        look = {"+": ("significantly better", BLUE, "^"), "-": ("significantly worse", VERMILLION, "v"),
                "": ("not significant", NEUTRAL, "o")}
        first = result.baseline_positions()[0]
        wins = result.wins(q)
        sign = ["+" if wins[k, first] else "-" if wins[first, k] else "" for k in range(m)]
        kinds = [("baseline", "black", "s") if result.systems[k] in result.baselines else look[sign[k]]
                 for k in order]
        for b in result.baseline_positions():
            ax.axvline(result.means[q, b], ls="--", color="black", lw=0.8)
    shown = set()
    for yy, mean, lo, hi, (kind, colour, marker) in zip(y, means, low, high, kinds):
        ax.errorbar(mean, yy, xerr=[[mean - lo], [hi - mean]], fmt=marker, color=colour, ms=4, capsize=2,
                    label=kind if kind and kind not in shown else None)
        shown.add(kind)
    if result.baseline is None or several:
        for yy, hi, k in zip(y, high, order):
            if marks[k]:
                ax.annotate(marks[k], (hi, yy), xytext=(3, 0), textcoords="offset points", va="center",
                            fontsize=7)
        names = [f"{result.markers[k]}  {result.systems[k]}" for k in order]
    if several:
        names = [result.systems[k] + (f" (baseline {result.markers[k]})" if result.systems[k] in result.baselines
                                    else "") for k in order]
        ax.legend(fontsize="x-small", frameon=False, loc="best")
    elif result.baseline is not None:
        names = [result.systems[k] + (" (baseline)" if result.systems[k] == result.baseline else "") for k in order]
        ax.legend(fontsize="x-small", frameon=False, loc="best")
    ax.set_yticks(y)
    ax.set_yticklabels(names, fontsize=7)
    ax.set_xlabel(f"{result.metrics[q]} (mean over {result.n_topics} topics, {1 - result.alpha:.0%} CI)")
    correction = "" if result.correction is None else f", {CORRECTION_NAMES[result.correction]}"
    title = describe_test(f"{result.method}{correction}", result.n_trials, result.alpha)
    if result.baseline is None:
        title += "\nletters after a bar: the systems it significantly beats"
    ax.set_title(title, fontsize=9)
    return ax
