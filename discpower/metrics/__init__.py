"""Meta-evaluation of metrics: split-half consistency of their system rankings, test families, and
:func:`meta_evaluate`, which runs every analysis on one collection."""

from .consistency import SplitHalfConsistency, split_half_consistency, topic_split
from .families import FamilyConsistency, family_consistency, family_power, metric_families, outperforms_by_splits
from .influence import MetricInfluence, metric_influence
from .meta import MetaEvaluation, meta_evaluate

__all__ = ["split_half_consistency", "SplitHalfConsistency", "topic_split", "metric_families", "family_consistency",
           "family_power", "outperforms_by_splits", "FamilyConsistency", "metric_influence", "MetricInfluence",
           "meta_evaluate", "MetaEvaluation"]
