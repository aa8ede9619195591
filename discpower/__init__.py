"""discpower: meta-evaluation of IR metrics and relevance judgements.

Paired randomised Tukey HSD and the other pairwise tests, discriminative power
and ASL curves, system-ranking similarity, split-half consistency (Sakai 2006,
2018, 2021; Carterette 2012; Chen & Sakai 2023), and one entry point,
:func:`meta_evaluate`, that runs them all on a collection; the comparison of
candidate qrels with ground truth (McKechnie et al. 2025; Otero et al. 2023):
:func:`compare_qrels`, candidate generators, sweeps and a topic-bootstrap stability check.

The layers, each a subpackage that imports only those below it (and cwla's public API):

* :mod:`discpower.stats` -- statistics on score matrices: the tests, discriminative power, ranking
  similarity, calibration;
* :mod:`discpower.metrics` -- meta-evaluation of metrics: split-half consistency, test families,
  :func:`meta_evaluate`;
* :mod:`discpower.qrels` -- meta-evaluation of qrels: comparisons with ground truth, generators,
  sweeps, stability, the known-truth simulation;
* :mod:`discpower.reports` -- the systems table, score-matrix files and the ``discpower`` command.

Every entry point that scores runs takes a :class:`cwla.Evaluator` where it takes runs, or builds
exactly one (:mod:`discpower.scoring`). Bare score matrices are topics x systems; labelled ones
(``cwla.Evaluation.scores(metric)``) are read by their labels.

>>> import numpy as np, discpower
>>> X = np.random.default_rng(0).random((20, 4))       # topics x systems
>>> discpower.randomised_tukey_hsd(X, 1000, seed=1).pvalue.shape
(4, 4)
"""

from cwla import __version__  # one version for both packages (cwla/_version.py)
from cwla._shared import keep_old_paths

from .errors import DiscpowerError
from .stats import *  # noqa: F403 (the statistics' names: its __all__)
from .stats import __all__ as _stats_names
from .metrics import *  # noqa: F403
from .metrics import __all__ as _metrics_names
from .qrels import *  # noqa: F403
from .qrels import __all__ as _qrels_names
from .reports import *  # noqa: F403
from .reports import __all__ as _reports_names
from .warmup import warmup

__all__ = ["DiscpowerError", *_stats_names, *_metrics_names, *_qrels_names, *_reports_names, "warmup",
           "__version__"]

#: where each module of the flat layout (before the layers) lives now; the old paths keep working, with a
#: DeprecationWarning (keep_old_paths)
MOVED = {
    "_types": "typing", "_rng": "stats.rng", "tukey": "stats.tukey", "significance": "stats.significance",
    "result": "stats.result", "power": "stats.power", "similarity": "stats.similarity",
    "calibration": "stats.calibration", "consistency": "metrics.consistency", "families": "metrics.families",
    "meta": "metrics.meta", "qrels_compare": "qrels.compare", "generators": "qrels.generators",
    "stability": "qrels.stability", "simulation": "qrels.simulation", "sweeps": "qrels.sweeps",
    "cluster": "qrels.cluster", "compare": "reports.systems", "io": "reports.io", "cli": "reports.cli",
}
keep_old_paths("discpower", MOVED, public=__all__)


def __getattr__(name: str) -> object:
    """The old module paths (:data:`MOVED`), imported on first use."""
    if name in MOVED:
        import importlib

        return importlib.import_module(f"discpower.{name}")  # the old path, with its warning
    raise AttributeError(f"module 'discpower' has no attribute {name!r}")
