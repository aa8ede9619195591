"""Chen & Sakai's 6 x 7 grid of C/W/L/A metrics ("A Meta-Evaluation of C/W/L/A Metrics", 2023, Table 1).

Six browsing models times seven aggregations give 42 combinations. Three are
constant (Precision, DCG and RBP with the ERR aggregation: neither C nor A
depends on the gains) and are left out of :func:`chen_sakai_metrics`, which
gives the 39 valid ones, with the paper's parameters (Precision and DCG at
k = 10, RBP p = 0.8, INST T = 2.5, PE beta = 0.5, and cwl_eval's AP, R = "retrieved":
see :func:`chen_sakai_paper_grid`). :func:`chen_sakai_paper_grid` is the grid in the
paper's setting (cutoff, depth, stop, gains).
"""

from __future__ import annotations

from .._validate import FLAG, validate_params
from .aggregations import AGGREGATIONS
from .browsing import BROWSING_MODELS
from .metric import Metric
from .text import CHEN_SAKAI_DEFAULTS

__all__ = ["all_combinations", "chen_sakai_metrics", "chen_sakai_names", "chen_sakai_grid", "chen_sakai_paper_grid"]


def all_combinations(**options: object) -> list[Metric]:
    """All 42 model x aggregation combinations (constant ones included), models in the
    paper's order, each with ``options`` (e.g. ``cutoff=10, depth=10, stop=True``)."""
    return [
        Metric(CHEN_SAKAI_DEFAULTS[model], agg_cls(), **options)
        for model in BROWSING_MODELS
        for agg_cls in AGGREGATIONS.values()
    ]


def chen_sakai_metrics(**options: object) -> list[Metric]:
    """The 39 valid metrics of Chen & Sakai's Table 1, each with ``options``.

    Examples
    --------
    >>> ms = chen_sakai_metrics(cutoff=10, depth=10, stop=True)
    >>> len(ms), str(ms[0])
    (39, 'Precision(k=10)+ERG[cutoff=10, depth=10, stop=true]')
    """
    return [m for m in all_combinations(**options) if not m.is_constant]


@validate_params({"include_constant": FLAG}, named=True)
def chen_sakai_names(include_constant: bool = False) -> list[str]:
    """The paper's names (``Precision_ERG`` ... ``ERR_ERR``), 39 or all 42."""
    return [
        f"{model}_{agg}"
        for model in BROWSING_MODELS
        for agg, cls in AGGREGATIONS.items()
        if include_constant or not (BROWSING_MODELS[model].gain_free and cls.gain_free)
    ]


def chen_sakai_grid(**options: object) -> dict[str, Metric]:
    """The 39 valid metrics labelled by the paper's names: ``{"Precision_ERG": Metric, ...}``,
    each with ``options``; pass it to :func:`cwla.evaluate` to get results labelled that way.

    Examples
    --------
    >>> grid = chen_sakai_grid(cutoff=10, depth=10, stop=True)
    >>> str(grid["INST_PE"])
    'INST(T=2.5)+PE(beta=0.5)[cutoff=10, depth=10, stop=true]'
    """
    return dict(zip(chen_sakai_names(), chen_sakai_metrics(**options)))


def chen_sakai_paper_grid(gmax: float = 3, R: str = "retrieved") -> dict[str, Metric]:
    """The 39 metrics as Chen & Sakai evaluate them (TR19DL): cutoff 10, depth 10, the user
    surely stops at rank 10, linear gains ``g / gmax`` -- exponential ``(2^g - 1) / 2^gmax``
    for the ERR browsing model -- and cwl_eval's AP. Labelled by the paper's names.

    ``R`` is the AP browsing model's R. Chen & Sakai compute their metrics with cwl_eval,
    whose AP user stops in proportion to the relevant documents *retrieved* (``R="retrieved"``,
    the default). That is the AP that reproduces their AP findings on DL19: with it AP_ERR's mean
    split-half tau is near zero (theirs: .067 on TR19DL, -.090 on WWW3), AP_ERR's system ranking is
    far from the other AP metrics', and max is the penultimate AP aggregation in discriminative
    power; with ``R="qrels"`` (trec_eval's normalisation by all relevant documents) AP_ERR's
    tau is about .63 and none of the three holds.

    Examples
    --------
    >>> grid = chen_sakai_paper_grid()
    >>> str(grid["AP_ERR"])
    'AP(R=retrieved)+ERR[gain=linear(gmax=3), cutoff=10, depth=10, stop=true]'
    >>> str(chen_sakai_paper_grid(R="qrels")["AP_ERR"]).split("+")[0]
    'AP(R=qrels)'
    """
    import attrs

    from .browsing import AP, ERR
    from .gains import Exponential, Linear

    grid = {}
    for name, m in chen_sakai_grid(cutoff=10, depth=10, stop=True).items():
        if isinstance(m.browsing, AP):
            m = attrs.evolve(m, browsing=AP(R=R))
        grid[name] = m.with_options(gain=Exponential(gmax) if isinstance(m.browsing, ERR) else Linear(gmax))
    return grid
