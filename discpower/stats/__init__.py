"""Statistics on score matrices (topics x systems): the paired randomised Tukey HSD, the randomised max-t test and the other pairwise
tests, multiple-comparison corrections, discriminative power and ASL curves, ranking similarity, and the
calibration of a test on a real matrix, and topic set size design."""

from .calibration import Calibration, calibrate
from .design import design_power, residual_variance, simulated_power, topic_set_size
from .power import asl_curves, discriminative_power, plot_asl_curves
from .maxt import permutation_max_t, randomised_max_t
from .result import PairwiseTest
from .corrections import adjust_pvalues
from .significance import fisher_randomisation, paired_bootstrap, paired_t_test, parametric_tukey_hsd
from .similarity import RankingSimilarity, kendall_tau_b, ranking_similarity, tau_ap, tau_confidence_interval
from .tukey import randomised_tukey_hsd

__all__ = ["PairwiseTest", "randomised_tukey_hsd", "randomised_max_t", "permutation_max_t", "paired_t_test", "parametric_tukey_hsd", "fisher_randomisation",
           "paired_bootstrap", "adjust_pvalues", "calibrate", "Calibration", "discriminative_power", "asl_curves",
           "plot_asl_curves", "kendall_tau_b", "tau_ap", "tau_confidence_interval", "ranking_similarity",
           "RankingSimilarity", "topic_set_size", "design_power", "residual_variance", "simulated_power"]
