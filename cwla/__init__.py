"""cwla: C/W/L/A metrics for information retrieval evaluation.

A metric is a browsing model C(i) composed with a gain aggregation A(i);
score = sum_{i<=H} L(i) A(i) (Moffat, Mackenzie, Thomas & Azzopardi, SIGIR 2022;
Chen & Sakai 2023). Metrics are immutable values that print and parse; one
numba kernel evaluates many metrics x runs x topics over arrays prepared once.

The layers, each a subpackage that imports only those below it:

* :mod:`cwla.metrics` -- the metric language: browsing models, aggregations, gain maps, the
  measures outside C/W/L/A, metrics, their texts and Chen & Sakai's grid;
* :mod:`cwla.data` -- files to run store to collection: the readers, the run store
  (:class:`RunSet`), qrels joined with runs (:class:`Collection`), the synthetic collection;
* :mod:`cwla.scoring` -- the kernels, the prepared :class:`Evaluator` and its :class:`Evaluation`;
* :mod:`cwla.bridges` -- the ``cwla`` command, cwl_eval's drop-in and the ir_measures provider.

>>> import cwla
>>> m = cwla.Metric(cwla.INST(T=2.5), cwla.PE(beta=0.5))
>>> cwla.parse_metric(str(m)) == m
True
"""

from ._version import __version__
from ._numba import cache_dir
from .errors import (ConstantMetricWarning, CwlaError, CwlaWarning, EmptyRunWarning, GainRangeError, InputError,
                     MetricSyntaxError, UserFunctionError)
from .metrics import *  # noqa: F403 (the metric language's names: its __all__)
from .metrics import counting
from .metrics import __all__ as _metric_names
from .data import Collection, Judgements, RunSet, is_run_store, open_runs, prepare, read_costs, read_qrels, read_run, \
    read_runs, read_subtopics, run_name, Subtopics, synthetic
from .scoring import Evaluation, Evaluator, evaluate, warmup
from ._moved import keep_old_paths

__all__ = [
    *_metric_names, "counting",
    "read_qrels", "read_run", "read_costs", "run_name", "prepare", "Collection", "read_runs", "RunSet", "open_runs",
    "is_run_store", "read_subtopics", "Subtopics",
    "Judgements", "Evaluator", "evaluate", "Evaluation",
    "CwlaError", "CwlaWarning", "InputError", "MetricSyntaxError", "GainRangeError", "ConstantMetricWarning",
    "UserFunctionError", "EmptyRunWarning",
    "warmup", "cache_dir", "synthetic", "__version__",
]

#: where each module of the flat layout (before the layers) lives now; the old paths keep working, with a
#: DeprecationWarning (cwla._moved)
MOVED = {
    "_types": "typing", "_files": "data.files", "_declare": "metrics._declare", "gains": "metrics.gains",
    "aggregations": "metrics.aggregations", "browsing": "metrics.browsing", "counting": "metrics.counting",
    "metric": "metrics.metric", "text": "metrics.text", "grid": "metrics.grid", "readers": "data.readers",
    "_docnos": "data._docnos", "_tokenize": "data._tokenize", "_pairs": "data._pairs", "_join": "data._join",
    "runset": "data.runset", "collection": "data.collection", "synthetic": "data.synthetic",
    "kernels": "scoring.kernels", "evaluation": "scoring.evaluator", "warmup": "scoring.warmup",
    "cli": "bridges.cli", "cwl": "bridges.cwl", "ir_measures": "bridges.ir_measures",
}
#: names an old module had that other modules hold now: its old path gives them too
ELSEWHERE = {"gains": {"parse_gain": "metrics.text"}, "browsing": {"register_model": "metrics.register"}}
keep_old_paths("cwla", MOVED, public={*__all__, "ir_measures"}, elsewhere=ELSEWHERE)


def __getattr__(name: str) -> object:
    """``cwla.ir_measures``, the bridge into ir_measures and PyTerrier, is imported on first use (it needs
    the ir_measures package, which ``import cwla`` never imports); so are the old module paths
    (:data:`MOVED`)."""
    import importlib

    if name == "ir_measures":
        try:
            return importlib.import_module("cwla.bridges.ir_measures")
        except ImportError as err:  # hasattr(cwla, "ir_measures") is then False
            raise AttributeError(f"cwla.ir_measures needs the ir_measures package (pip install ir-measures): "
                                 f"{err}") from err
    if name in MOVED:  # (an old path that is not a public name: what its import gives, with the warning)
        return importlib.import_module(f"cwla.{name}")
    raise AttributeError(f"module 'cwla' has no attribute {name!r}")
