"""matplotlib, which only the figures need (the ``plots`` extra): imported when a figure is drawn; and the one
look every figure of discpower shares.

The colours are Okabe & Ito's colour-blind-safe palette (Okabe, M. and Ito, K., "Color Universal Design (CUD):
how to make figures and presentations that are friendly to colorblind people", 2002/2008,
https://jfly.uni-koeln.de/color/; also Wong, B., "Points of view: Color blindness", Nature Methods 8, 441,
2011), without its yellow, too light for a line on white. Lines cycle through the colours, the line styles and
the markers at once (7, 4 and 5 of them, pairwise coprime), so the k-th and the l-th lines differ in colour and
style for any k != l below 28, and in colour, style or marker below 140: overlapping curves stay apart in
greyscale too. Contrasts of two kinds (better / worse, Type I / Type II errors) are blue against vermillion,
never red against green. Heatmaps use ``viridis`` (sequential, perceptually uniform, readable in greyscale and
by colour-blind readers) or ColorBrewer's ``RdBu_r`` (diverging, colour-blind safe).
"""

from __future__ import annotations

from types import ModuleType

from .errors import MissingDependencyError

__all__ = ["pyplot", "PLOTS_EXTRA", "OKABE_ITO", "PALETTE", "LINE_STYLES", "MARKERS", "BLUE", "VERMILLION",
           "NEUTRAL", "SEQUENTIAL_CMAP", "DIVERGING_CMAP", "line_style", "describe_test", "topics_label"]

#: how the figures' dependency is installed (the ``plots`` extra of the ``cwla`` distribution, which holds discpower)
PLOTS_EXTRA = "pip install 'cwla[plots]'"

#: Okabe & Ito's eight colours, by name
OKABE_ITO = {"black": "#000000", "orange": "#E69F00", "sky blue": "#56B4E9", "bluish green": "#009E73",
             "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00", "reddish purple": "#CC79A7"}
#: the line colours, in the order lines take them (Okabe-Ito without yellow)
PALETTE = tuple(OKABE_ITO[name] for name in ("blue", "orange", "bluish green", "vermillion", "reddish purple",
                                             "sky blue", "black"))
#: the line styles lines cycle through with the colours
LINE_STYLES = ("-", "--", "-.", ":")
#: the markers lines cycle through with the colours and styles
MARKERS = ("o", "s", "^", "D", "v")
#: one side of a two-way contrast (better than the baseline; Type II errors)
BLUE = OKABE_ITO["blue"]
#: the other side (worse than the baseline; Type I errors)
VERMILLION = OKABE_ITO["vermillion"]
#: what is neither (not significant), and the reference lines
NEUTRAL = "#999999"
#: the colour map of a heatmap of non-negative values
SEQUENTIAL_CMAP = "viridis"
#: the colour map of a heatmap of values of both signs
DIVERGING_CMAP = "RdBu_r"


def pyplot(what: str, backend: str | None = None) -> ModuleType:
    """``matplotlib.pyplot``, for ``what`` (the function or option that draws, as the message names it);
    ``backend`` is selected first (the command's ``"Agg"``). Without matplotlib: a
    :class:`~discpower.errors.MissingDependencyError` naming the extra to install."""
    try:
        import matplotlib

        if backend is not None:
            matplotlib.use(backend)
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise MissingDependencyError(f"{what} needs matplotlib (the 'plots' extra): {PLOTS_EXTRA}. Importing it "
                                     f"failed: {err}") from None
    return plt


def line_style(k: int) -> dict:
    """The k-th line's ``color``, ``linestyle`` and ``marker`` (keyword arguments of ``Axes.plot``).

    Examples
    --------
    >>> line_style(0) == {"color": "#0072B2", "linestyle": "-", "marker": "o"}
    True
    >>> len({(line_style(k)["color"], line_style(k)["linestyle"]) for k in range(28)})
    28
    """
    return {"color": PALETTE[k % len(PALETTE)], "linestyle": LINE_STYLES[k % len(LINE_STYLES)],
            "marker": MARKERS[k % len(MARKERS)]}


def describe_test(method: str, n_trials: int | None, alpha: float | None = None) -> str:
    """The test as a figure names it: ``"randomised Tukey HSD, B = 2,000, α = 0.05"`` (B only for a test that
    resamples, alpha only when given).

    Examples
    --------
    >>> describe_test("randomised Tukey HSD", 2000, 0.05)
    'randomised Tukey HSD, B = 2,000, α = 0.05'
    >>> describe_test("paired t-test", None, 0.01)
    'paired t-test, α = 0.01'
    """
    parts = [method]
    if n_trials is not None:
        parts.append(f"B = {n_trials:,}")
    if alpha is not None:
        parts.append(f"α = {alpha:g}")
    return ", ".join(parts)


def topics_label(metric: str, n_topics: int | None, what: str = "mean") -> str:
    """An axis named after its metric: ``"nDCG@10 (mean over 43 topics)"``.

    Examples
    --------
    >>> topics_label("nDCG@10", 43)
    'nDCG@10 (mean over 43 topics)'
    """
    return f"{metric} ({what} over {n_topics} topics)" if n_topics is not None else f"{metric} ({what})"
