"""discpower: meta-evaluation of IR metrics and relevance judgements.

Paired randomised Tukey HSD and the other pairwise tests, discriminative power
and ASL curves, system-ranking similarity, split-half consistency (Sakai 2006,
2018, 2021; Carterette 2012; Chen & Sakai 2023), and one entry point,
:func:`meta_evaluate`, that runs them all on a collection; the comparison of
candidate qrels with ground truth (McKechnie et al. 2025; Otero et al. 2023):
:func:`compare_qrels`, candidate generators, sweeps and a topic-bootstrap stability check.

>>> import numpy as np, discpower
>>> X = np.random.default_rng(0).random((20, 4))       # topics x systems
>>> discpower.randomised_tukey_hsd(X, 1000, seed=1).pvalue.shape
(4, 4)
"""

from ._validate import DiscpowerError
from .cluster import RayExecutor
from .calibration import Calibration, calibrate
from .compare import SystemComparison, compare_scores, compare_systems
from .consistency import SplitHalfConsistency, split_half_consistency, topic_split
from .families import FamilyConsistency, family_consistency, family_power, metric_families
from .generators import GENERATORS, depth_pool, popularity_qrels, sample_relevant, topic_subset
from .io import read_discpower, read_matrix, write_matrix, write_pairs
from .meta import MetaEvaluation, meta_evaluate
from .power import asl_curves, discriminative_power, plot_asl_curves
from .qrels_compare import (
    QrelsComparer,
    QrelsComparison,
    cohen_kappa,
    compare_qrels,
    compare_tests,
    confusion_measures,
)
from .result import PairwiseTest
from .significance import adjust_pvalues, fisher_randomisation, paired_bootstrap, paired_t_test, parametric_tukey_hsd
from .simulation import KnownTruthCollection, KnownTruthErrors, known_truth_collection, known_truth_errors
from .stability import RunStability, Stability, run_stability, truth_stability
from .sweeps import Sweep, sweep
from .similarity import RankingSimilarity, kendall_tau_b, ranking_similarity, tau_ap, tau_confidence_interval
from .tukey import randomised_tukey_hsd
from .warmup import warmup

__all__ = [
    "DiscpowerError", "PairwiseTest",
    "randomised_tukey_hsd", "paired_t_test", "parametric_tukey_hsd", "fisher_randomisation", "paired_bootstrap",
    "adjust_pvalues", "calibrate", "Calibration",
    "discriminative_power", "asl_curves", "plot_asl_curves",
    "kendall_tau_b", "tau_ap", "tau_confidence_interval", "ranking_similarity", "RankingSimilarity",
    "split_half_consistency", "SplitHalfConsistency", "topic_split",
    "metric_families", "family_consistency", "family_power", "FamilyConsistency",
    "meta_evaluate", "MetaEvaluation",
    "read_matrix", "read_discpower", "write_matrix", "write_pairs",
    "compare_qrels", "QrelsComparer", "QrelsComparison", "compare_tests", "confusion_measures", "cohen_kappa",
    "compare_systems", "compare_scores", "SystemComparison",
    "sweep", "Sweep", "RayExecutor", "truth_stability", "Stability", "run_stability", "RunStability",
    "known_truth_collection", "known_truth_errors", "KnownTruthCollection", "KnownTruthErrors",
    "sample_relevant", "popularity_qrels", "topic_subset", "depth_pool", "GENERATORS",
    "warmup",
]
