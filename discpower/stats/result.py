"""The one result type of every pairwise significance test in discpower."""

from __future__ import annotations

import attrs
import numpy as np
import pandas as pd

from cwla._shared import escape as _tex
from cwla._shared import Displayed, Instance, Shown, count_text, grid

from .._params import alpha_level
from .._params import digits as digits_value
from ..errors import DiscpowerError

__all__ = ["PairwiseTest", "A_TEST_RESULT"]


@attrs.frozen(eq=False, repr=False)
class PairwiseTest(Displayed):
    """Result of a pairwise significance test between systems (plain data, pure methods).

    Attributes
    ----------
    method : str
        The test, e.g. ``"randomised Tukey HSD"``.
    systems : tuple of str
        The systems compared (columns of the topics x systems matrix).
    diff : ndarray of shape (m, m)
        Mean score of system i minus mean score of system j over the topics.
    statistic : ndarray of shape (m, m)
        The test statistic of each pair (|mean difference| for randomisation tests,
        t or q for parametric ones, as ``method`` says).
    pvalue : ndarray of shape (m, m)
        p-value of each pair (symmetric; NaN on the diagonal).
    n_topics : int
        Topics (rows) the test used.
    null_distribution : ndarray or None
        The resampled null statistics (randomisation tests), so other p-value
        definitions can be computed.
    n_resamples : int or None
        Number of resampling trials.
    seed : int or None
        The seed that reproduces the resampling.
    means : ndarray of shape (m,) or None
        Each system's mean score over the topics.
    plus_one : bool
        The p-values are (count + 1) / (B + 1) rather than count / B.
    """

    method: str
    systems: tuple
    diff: np.ndarray
    statistic: np.ndarray
    pvalue: np.ndarray
    n_topics: int
    null_distribution: np.ndarray | None = None
    n_resamples: int | None = None
    seed: int | None = None
    means: np.ndarray | None = None
    plus_one: bool = False

    @property
    def n_systems(self) -> int:
        return len(self.systems)

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Indices (i, j), i < j, of every system pair, in row-major order."""
        return np.triu_indices(self.n_systems, k=1)

    def pair_pvalues(self) -> np.ndarray:
        """The C(m, 2) p-values of the pairs, in :meth:`pairs` order."""
        i, j = self.pairs()
        return self.pvalue[i, j]

    def significant(self, alpha: float = 0.05) -> np.ndarray:
        """(m, m) bool: p < alpha (strict), False on the diagonal."""
        alpha = alpha_level(alpha)
        out = self.pvalue < alpha
        np.fill_diagonal(out, False)
        return out

    def discriminative_power(self, alpha: float = 0.05) -> float:
        """Share of system pairs with p < alpha (Sakai 2006)."""
        return float(np.mean(self.pair_pvalues() < alpha_level(alpha)))

    def asl_curve(self) -> np.ndarray:
        """The pairs' p-values (achieved significance levels) sorted ascending."""
        return np.sort(self.pair_pvalues())

    def delta(self, alpha: float = 0.05) -> float:
        """Delta_alpha: the (1 - alpha) quantile of the null distribution. A pair whose statistic
        exceeds it by more than the 1e-10 tie tolerance has p < alpha (randomisation tests only)."""
        alpha = alpha_level(alpha)
        if self.null_distribution is None:
            raise DiscpowerError(f"{self.method} has no null distribution; Delta_alpha needs a randomisation test")
        null = np.sort(self.null_distribution)
        B = len(null)
        # the largest count of null values >= d that still gives p < alpha, under this result's p-value rule
        k = int(np.ceil(alpha * (B + 1) - 1)) - 1 if self.plus_one else int(np.ceil(alpha * B)) - 1
        if k < 0:
            return float("inf")  # no difference can reach p < alpha with this B
        return float(null[B - 1 - k])

    def _shown(self) -> Shown:
        """Per system (by mean, best first): its mean and how many systems it beats, and is beaten by, at p < 0.05."""
        significant = self.significant(0.05)
        columns = {} if self.means is None else {"mean": np.asarray(self.means, dtype=np.float64)}
        columns.update(wins=(significant & (self.diff > 0)).sum(axis=1).astype(np.int64),
                       losses=(significant & (self.diff < 0)).sum(axis=1).astype(np.int64))
        table = pd.DataFrame(columns, index=pd.Index(self.systems, name="system")).rename_axis(columns="statistic")
        if "mean" in table:
            table = table.sort_values("mean", ascending=False, kind="stable")
        pairs = self.n_systems * (self.n_systems - 1) // 2
        facts = [self.method] + ([] if self.n_resamples is None else [f"B={self.n_resamples:,}"])
        facts.append(f"p<0.05 in {int((self.pair_pvalues() < 0.05).sum())} of {count_text(pairs, 'pair')}")
        return Shown("PairwiseTest", f"{count_text(self.n_systems, 'system')} x {count_text(self.n_topics, 'topic')}",
                     table, tuple(facts))

    def to_frame(self) -> pd.DataFrame:
        """One row per pair: ``system_a, system_b, diff, statistic, pvalue`` (diff = mean a - mean b)."""
        i, j = self.pairs()
        names = np.array(self.systems, dtype=object)
        return pd.DataFrame({
            "system_a": names[i], "system_b": names[j], "diff": self.diff[i, j],
            "statistic": self.statistic[i, j], "pvalue": self.pvalue[i, j],
        })

    def to_latex(self, alpha: float = 0.05, digits: int = 4) -> str:
        """The pairs as a LaTeX tabular; significant p-values (p < alpha) in bold.

        A randomised p-value of 0 is shown as ``< 1/B``."""
        alpha, digits = alpha_level(alpha), digits_value(digits)
        frame = self.to_frame()
        floor = None if self.n_resamples is None else 1.0 / self.n_resamples

        def show(p):
            text = f"$<1/{self.n_resamples:,}$".replace(",", "{,}") if (floor is not None and p == 0) \
                else f"{p:.{digits}f}"
            return f"\\textbf{{{text}}}" if p < alpha else text

        return grid("llrr", ["System A", "System B", "Mean diff.", "$p$"],
                    ([_tex(r.system_a), _tex(r.system_b), f"{r.diff:.{digits}f}", show(r.pvalue)]
                     for r in frame.itertuples(index=False)))


#: the constraint of a parameter that takes a test's result (``discpower.write_pairs``, ``compare_tests``)
A_TEST_RESULT = Instance(PairwiseTest, "a discpower test result (PairwiseTest)")
