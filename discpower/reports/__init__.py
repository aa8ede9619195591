"""Reports and the command: the systems table every paper prints (:func:`compare_systems`), score-matrix
files (a TSV and Sakai's Discpower formats) and the ``discpower`` command."""

from .io import read_discpower, read_matrix, write_matrix, write_pairs
from .systems import SystemComparison, compare_scores, compare_systems

__all__ = ["read_matrix", "read_discpower", "write_matrix", "write_pairs", "compare_systems", "compare_scores",
           "SystemComparison"]
