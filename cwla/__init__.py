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

from ._version import __version__
from .aggregations import ERG, ETG, PE, Aggregation, Avg, ERRAgg, Fin, Max
from .browsing import (AP, BPM, DCG, ERR, IFT, INSQ, INST, MODELS, NERR8, NERR9, NERR10, NERR11, NPV, RBP, RR, SET,
                       TBG, U, BrowsingModel, IFTGoal, IFTRate, Precision, Tabulated, register_model,
                       register_table, tabulated)
from ._numba import cache_dir
from .collection import Collection, Judgements, prepare
from .runset import RunSet, is_run_store, open_runs, read_runs
from .counting import (Bpref, CountingMeasure, IPrec, Judged, NumQ, NumRel, NumRelRet, NumRet, Recall, RPrec, SetAP,
                       SetF, SetP)
from .errors import ConstantMetricWarning, CwlaError, CwlaWarning, GainRangeError, InputError, MetricSyntaxError
from .evaluation import Evaluation, evaluate
from .gains import Binary, Exponential, GainMap, Linear, Regrade, Scaled, Table, parse_gain
from .grid import all_combinations, chen_sakai_grid, chen_sakai_metrics, chen_sakai_names, chen_sakai_paper_grid
from .metric import DEFAULTS, Metric
from .readers import read_qrels, read_run, run_name
from .text import parse_metric
from .warmup import warmup
from . import counting, synthetic


__all__ = [
    "AP", "DCG", "ERR", "INST", "RBP", "Precision", "BrowsingModel",
    "RR", "INSQ", "NERR8", "NERR9", "NERR10", "NERR11", "BPM", "TBG", "U", "IFTGoal", "IFTRate", "IFT", "SET", "NPV",
    "Tabulated", "tabulated", "register_table", "register_model", "MODELS",
    "ERG", "ETG", "Avg", "Max", "Fin", "PE", "ERRAgg", "Aggregation",
    "Linear", "Exponential", "Binary", "Scaled", "Table", "Regrade", "GainMap", "parse_gain",
    "CountingMeasure", "Recall", "RPrec", "Bpref", "Judged", "SetP", "SetF", "SetAP", "IPrec",
    "NumRel", "NumRet", "NumRelRet", "NumQ", "counting",
    "Metric", "DEFAULTS", "parse_metric",
    "all_combinations", "chen_sakai_metrics", "chen_sakai_names", "chen_sakai_grid", "chen_sakai_paper_grid",
    "read_qrels", "read_run", "run_name", "prepare", "Collection", "read_runs", "RunSet", "open_runs", "is_run_store", "Judgements", "evaluate", "Evaluation",
    "CwlaError", "CwlaWarning", "InputError", "MetricSyntaxError", "GainRangeError", "ConstantMetricWarning",
    "warmup", "cache_dir", "synthetic", "__version__",
]


def __getattr__(name: str) -> object:
    """``cwla.ir_measures``, the bridge into ir_measures and PyTerrier, is imported on first use (it needs
    the ir_measures package, which ``import cwla`` never imports)."""
    if name == "ir_measures":
        import importlib

        try:
            return importlib.import_module("cwla.ir_measures")
        except ImportError as err:  # hasattr(cwla, "ir_measures") is then False
            raise AttributeError(f"cwla.ir_measures needs the ir_measures package (pip install ir-measures): "
                                 f"{err}") from err
    raise AttributeError(f"module 'cwla' has no attribute {name!r}")
