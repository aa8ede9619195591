"""Discriminative power and ASL curves (Sakai 2006, SIGIR; Chen & Sakai 2023, Figure 4).

Discriminative power of a metric = #{system pairs with p < alpha} / C(m, 2),
strict <, from one pairwise test (randomised Tukey HSD by default). The ASL
curve plots every pair's p-value (achieved significance level), sorted
ascending, against the pair's rank: the lower the curve, the more pairs the
metric separates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from cwla._shared import FLAG

from .._params import ALPHA, TRIALS, validated
from .._plots import NEUTRAL, describe_test, line_style, pyplot
from ..errors import DiscpowerError
from ..typing import Seed, Tests
from .rng import SEED_AS_GIVEN
from .result import PairwiseTest

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["discriminative_power", "asl_curves", "plot_asl_curves"]


def _is_matrix(value) -> bool:
    return isinstance(value, (np.ndarray, pd.DataFrame))


def _named_tests(tests, test="tukey", n_trials=10_000, seed=0) -> list[tuple[str, PairwiseTest]]:
    """[(label, PairwiseTest)]: the tests given, and each score matrix given tested by ``test`` (a name of
    :mod:`discpower.stats.registry` or a callable ``(X, systems) -> PairwiseTest``)."""
    if isinstance(tests, PairwiseTest) or _is_matrix(tests):
        tests = {"metric": tests}
    if isinstance(tests, Mapping):
        items = [(str(k), v) for k, v in tests.items()]
    elif isinstance(tests, Sequence):
        items = [(f"metric{i + 1}", t) for i, t in enumerate(tests)]
    else:
        raise DiscpowerError(f"tests must be a PairwiseTest, a list of them or a dict {{label: test}}; "
                             f"got {type(tests).__name__}")
    if not items:
        raise DiscpowerError("no tests given")
    if any(_is_matrix(value) for _, value in items):
        from .registry import check_test, significance_test

        test = check_test(test)  # checked before the first matrix is tested
        items = [(label, significance_test(value, None, test, n_trials=n_trials, seed=seed)
                  if _is_matrix(value) else value) for label, value in items]
    for label, value in items:
        if not isinstance(value, PairwiseTest):
            raise DiscpowerError(f"tests[{label!r}] is a {type(value).__name__}, not a PairwiseTest nor a topics x "
                                 f"systems score matrix (ndarray or DataFrame)")
    return items


@validated({"alpha": ALPHA, "n_trials": TRIALS, "seed": SEED_AS_GIVEN})
def discriminative_power(tests: Tests, alpha: float = 0.05, *, test: object = "tukey", n_trials: int = 10_000,
                         seed: Seed = 0) -> pd.DataFrame:
    """One row per metric: ``metric, discriminative_power, significant_pairs, pairs, delta``.

    ``tests``: a dict {label: PairwiseTest or topics x systems score matrix} (or a list, or one). A
    matrix (ndarray, or a labelled DataFrame such as ``Evaluation.scores(metric)``) is tested by
    ``test``, by name (``"tukey"``, ``"max-t"``, ``"t-test-holm"``, ... :mod:`discpower.stats.registry`)
    with ``n_trials`` and ``seed``. ``delta`` is Delta_alpha for randomisation tests (NaN otherwise).

    Examples
    --------
    >>> import numpy as np, discpower
    >>> X = np.random.default_rng(0).random((30, 4)) + np.array([0.0, 0.0, 0.3, 0.6])
    >>> test = discpower.randomised_tukey_hsd(X, n_trials=2000, seed=1, systems=list("abcd"))
    >>> discriminative_power({"my metric": test})[["metric", "significant_pairs", "pairs"]]
          metric  significant_pairs  pairs
    0  my metric                  4      6
    """
    rows = []
    for label, result in _named_tests(tests, test, n_trials, seed):
        p = result.pair_pvalues()
        rows.append({
            "metric": label,
            "discriminative_power": result.discriminative_power(alpha),
            "significant_pairs": int(np.sum(p < alpha)),
            "pairs": len(p),
            "delta": result.delta(alpha) if result.null_distribution is not None else np.nan,
        })
    return pd.DataFrame(rows)


@validated({"n_trials": TRIALS, "seed": SEED_AS_GIVEN})
def asl_curves(tests: Tests, *, test: object = "tukey", n_trials: int = 10_000, seed: Seed = 0) -> pd.DataFrame:
    """Long frame ``metric, rank, pvalue``: each metric's pair p-values sorted ascending (rank 1 = smallest).
    ``tests`` as :func:`discriminative_power` takes them (a score matrix is tested by ``test``)."""
    parts = []
    for label, result in _named_tests(tests, test, n_trials, seed):
        curve = result.asl_curve()
        parts.append(pd.DataFrame({"metric": label, "rank": np.arange(1, len(curve) + 1), "pvalue": curve}))
    return pd.concat(parts, ignore_index=True)


@validated({"alpha": ALPHA, "legend": FLAG})
def plot_asl_curves(tests: Tests, ax: Axes | None = None, *, alpha: float = 0.05,
                    ylim: tuple[float, float] | None = (0.0, 0.1), legend: bool = True,
                    title: str | None = None) -> Axes:
    """Chen & Sakai's Figure 4: one ASL curve per metric (p-value against system pair rank sorted by p).

    ``ylim=(0, 0.1)`` zooms on the region where pairs become significant (None: the full [0, 1]), and the
    x-axis then ends a little past the last pair any curve shows below the top of that range (the pairs
    further right are out of view anyway); a dotted grey line marks ``alpha``. Each curve takes the next colour of Okabe & Ito's colour-blind-safe
    palette, line style and marker (any two of the first 28 curves differ in colour and style, so they stay
    apart in greyscale). The title names the test, B and alpha (and the systems,
    pairs and topics), or is ``title``; the legend names the metrics, and alpha. A metric whose test differs
    from the others' has its test in its legend entry. Returns the matplotlib Axes.
    """
    plt = pyplot("plot_asl_curves")
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4.5))
    named = _named_tests(tests)
    kinds = {(test.method, test.n_resamples) for _, test in named}
    shown = 1  # the most pairs any curve has within ylim
    for k, (label, test) in enumerate(named):
        curve = test.asl_curve()
        shown = max(shown, int(np.sum(curve <= (ylim[1] if ylim is not None else 1.0))))
        if len(kinds) > 1:
            label = f"{label} ({describe_test(test.method, test.n_resamples)})"
        # markers evenly spaced along the drawn curve (a tenth of the axes' diagonal apart), staggered
        ax.plot(np.arange(1, len(curve) + 1), curve, lw=1.2, ms=3.5, label=label,
                markevery=(0.1 * (k % 7) / 7, 0.1), **line_style(k))
    ax.axhline(alpha, color=NEUTRAL, lw=0.8, ls=":", label=f"α = {alpha:g}")
    pairs = {len(test.pair_pvalues()) for _, test in named}
    shape = {(test.n_systems, test.n_topics) for _, test in named}
    ax.set_xlabel("system pairs, sorted by p-value" + (f" ({pairs.pop():,} pairs)" if len(pairs) == 1 else ""))
    ax.set_ylabel("achieved significance level (p-value)")
    if title is None:
        tested = describe_test(*kinds.pop(), alpha) if len(kinds) == 1 else f"α = {alpha:g}"
        title = f"ASL curves: {tested}"
        if len(shape) == 1:
            m, n = shape.pop()
            title += f"\n{m} systems, {n} topics"
    ax.set_title(title, fontsize=9)
    if ylim is not None:
        ax.set_ylim(*ylim)
        most = max(len(test.pair_pvalues()) for _, test in named)
        ax.set_xlim(0, min(most, int(np.ceil(shown * 1.15)) + 1) + 0.5)
    if legend:
        ax.legend(fontsize="x-small", ncol=3 if len(named) > 12 else 1, frameon=False)
    return ax
