"""Meta-evaluation of qrels: candidate qrels compared with ground truth through the significance tests they
lead to, the generators of candidates, sweeps of them on any executor, the stability of the truth's
significance pattern over topics and runs, and a known-truth simulation."""

from .cluster import RayExecutor
from .compare import QrelsComparer, QrelsComparison, cohen_kappa, compare_qrels, compare_tests, confusion_measures
from .generators import GENERATORS, biased_qrels, depth_pool, popularity_qrels, sample_relevant, topic_subset
from .simulation import KnownTruthCollection, KnownTruthErrors, known_truth_collection, known_truth_errors
from .stability import RunStability, Stability, run_stability, truth_stability
from .sweeps import Sweep, sweep

__all__ = ["compare_qrels", "QrelsComparer", "QrelsComparison", "compare_tests", "confusion_measures", "cohen_kappa",
           "sweep", "Sweep", "RayExecutor", "truth_stability", "Stability", "run_stability", "RunStability",
           "known_truth_collection", "known_truth_errors", "KnownTruthCollection", "KnownTruthErrors",
           "sample_relevant", "popularity_qrels", "biased_qrels", "topic_subset", "depth_pool", "GENERATORS"]
