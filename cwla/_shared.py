"""The internal interface discpower is built on: the one module of cwla's private parts it imports.

It stands on cwla's ground floor: it names only what cwla's bottom modules hold, the infrastructure the two
packages share so that each concept is declared once --

* :func:`jit`: numba's options and kernel cache (:mod:`cwla._numba`);
* the parameter checks with one message and the declared constraints (:mod:`cwla._validate`);
* the LaTeX helpers every ``to_latex`` uses (:mod:`cwla._latex`);
* how every result object shows itself (``repr``, ``_repr_html_``, ``summary``, Markdown: :mod:`cwla._display`);
* the hook that keeps old module paths working (:mod:`cwla._moved`);
* the progress reports (:mod:`cwla.progress`).

Everything else discpower uses of cwla is public: :class:`cwla.Evaluator`, :class:`cwla.Evaluation`, the
readers and the metric classes, :mod:`cwla.errors`, :mod:`cwla.typing`, and from cwla's layers the metric
language's tables (:mod:`cwla.metrics.browsing`, :mod:`cwla.metrics.aggregations`), the parsing of a list of
metrics (:func:`cwla.scoring.evaluator.as_metrics`), the writers that never touch an input
(:mod:`cwla.data.files`) and, for the ``discpower`` command only, the command line's shared arguments, error
handling and reports (:mod:`cwla.bridges.arguments`, :mod:`cwla.bridges.cli`, :mod:`cwla.bridges.report`).
So ``discpower.stats`` depends on no part of cwla's command line.

Not for users: the names may change with cwla (the two packages are released together).
"""

from ._display import Displayed, Shown, count_text, legend, markdown_text, short_labels
from ._latex import bold, escape, grid, inline_math, superscript, table, tabular
from ._moved import keep_old_paths
from ._numba import jit
from ._validate import FLAG, NONE, PATH, Constraint, Instance, Interval, Options, check, validate_params
from .progress import reporter, scope, scoped

__all__ = ["jit", "check", "validate_params", "Constraint", "Interval", "Options", "Instance", "NONE",
           "FLAG", "PATH", "bold", "escape", "grid", "inline_math", "superscript", "table", "tabular",
           "keep_old_paths", "Displayed", "Shown", "count_text", "legend", "markdown_text", "short_labels",
           "reporter", "scope", "scoped"]
