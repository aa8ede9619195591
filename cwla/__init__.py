"""cwla: C/W/L/A metrics for information retrieval evaluation.

A metric is a browsing model C(i) composed with a gain aggregation A(i);
score = sum_{i<=H} L(i) A(i) (Moffat, Mackenzie, Thomas & Azzopardi, SIGIR 2022;
Chen & Sakai 2023). Metrics are immutable values that print and parse; one
numba kernel evaluates many metrics x runs x topics over arrays prepared once.

>>> import cwla
>>> m = cwla.Metric(cwla.INST(T=2.5), cwla.PE(beta=0.5))
>>> cwla.parse_metric(str(m)) == m
True
"""

from .aggregations import ERG, ETG, PE, Aggregation, Avg, ERRAgg, Fin, Max
from .browsing import AP, DCG, ERR, INST, RBP, BrowsingModel, Precision
from .collection import Collection, prepare
from .errors import ConstantMetricWarning, CwlaError, GainRangeError, InputError, MetricSyntaxError
from .evaluation import Evaluation, evaluate
from .gains import Binary, Exponential, GainMap, Linear, Table, parse_gain
from .grid import all_combinations, chen_sakai_metrics, chen_sakai_names
from .metric import DEFAULTS, Metric
from .readers import read_qrels, read_run, run_name
from .text import parse_metric

__version__ = "0.1.0"

__all__ = [
    "AP", "DCG", "ERR", "INST", "RBP", "Precision", "BrowsingModel",
    "ERG", "ETG", "Avg", "Max", "Fin", "PE", "ERRAgg", "Aggregation",
    "Linear", "Exponential", "Binary", "Table", "GainMap", "parse_gain",
    "Metric", "DEFAULTS", "parse_metric",
    "all_combinations", "chen_sakai_metrics", "chen_sakai_names",
    "read_qrels", "read_run", "run_name", "prepare", "Collection", "evaluate", "Evaluation",
    "CwlaError", "InputError", "MetricSyntaxError", "GainRangeError", "ConstantMetricWarning",
    "warmup",
]


def warmup() -> float:
    """Compile (or load from numba's on-disk cache) the scoring kernel; returns seconds taken.

    The first call in a fresh environment compiles for a few seconds; afterwards
    the cached machine code loads in well under a second.
    """
    import time

    import numpy as np

    from . import kernels

    t0 = time.perf_counter()
    one = np.zeros(1, dtype=np.int64)
    kernels.score_cells(
        np.zeros(1, dtype=np.int32), np.zeros(1, dtype=np.int64), one, 1, 1,
        np.array([[0, 0, -1, 1, 0, 0]], dtype=np.int64), np.array([[1.0, 0.0]]),
        np.zeros((1, 2)), np.ones((1, 2)), np.zeros((1, 1)), np.zeros((1, 1)), np.zeros((1, 1)),
    )
    return time.perf_counter() - t0
