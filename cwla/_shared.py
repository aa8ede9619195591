"""The internal interface discpower is built on: the one module of cwla's private parts it imports.

discpower otherwise uses cwla's public API only (:class:`cwla.Evaluator`, :class:`cwla.Evaluation`,
the readers, the metric classes, :mod:`cwla.errors`, :mod:`cwla.typing`, the command line's shared
arguments in :mod:`cwla.bridges.cli`). What it needs beyond that -- the infrastructure the two
packages share so that each concept is declared once -- is named here:

* :func:`jit`: numba's options and kernel cache (:mod:`cwla._numba`);
* the parameter checks with one message (:mod:`cwla._validate`);
* the LaTeX helpers every ``to_latex`` uses (:mod:`cwla._latex`);
* how every result object shows itself (``repr``, ``_repr_html_``, ``summary``: :mod:`cwla._display`);
* the opener of text files and the writers that never touch an input (:mod:`cwla.data.files`);
* the hook that keeps old module paths working (:mod:`cwla._moved`);
* the metric language's tables (Chen & Sakai's browsing models, the aggregations) and the parsing of a list
  of metrics into labelled measures (:func:`cwla.scoring.evaluator.as_metrics`);
* the progress reports (:mod:`cwla.progress`) and the commands' reports (:mod:`cwla.bridges.report`);
* the command line's shared arguments and its error handling (:mod:`cwla.bridges.cli`).

Not for users: the names may change with cwla (the two packages are released together).
"""

from ._display import Displayed, Shown, count_text, legend, markdown_text, short_labels
from ._latex import bold, escape, grid, inline_math, superscript, table, tabular
from ._moved import keep_old_paths
from ._numba import jit
from ._validate import FLAG, NONE, PATH, Constraint, Instance, Interval, Options, Predicate, check, validate_params
from .bridges.report import FORMATS, Report, render
from .data.files import atomic_write, atomic_write_text, check_outputs, text_lines
from .metrics.aggregations import AGGREGATIONS
from .metrics.browsing import BROWSING_MODELS
from .progress import reporter, scope, scoped
from .scoring.evaluator import as_metrics

#: the command line's shared arguments (:mod:`cwla.bridges.arguments`) and error handling (:mod:`cwla.bridges.cli`),
#: imported when first asked for: only the ``discpower`` command needs them (and argparse), not ``import discpower``
ARGUMENTS = ("add_option_arguments", "add_quiet_argument", "add_scoring_arguments", "evaluation_options",
             "scoring_options")
CLI = (*ARGUMENTS, "as_program", "run_command", "topic_notes")

__all__ = ["jit", "check", "validate_params", "Constraint", "Interval", "Options", "Instance", "Predicate", "NONE", "FLAG", "PATH", "bold", "escape", "grid", "inline_math",
           "superscript", "table", "tabular", "text_lines", "atomic_write", "atomic_write_text", "check_outputs",
           "keep_old_paths", "Displayed", "Shown", "count_text", "markdown_text", "legend", "short_labels", "AGGREGATIONS", "BROWSING_MODELS", "as_metrics",
           "reporter", "scope", "scoped", "Report", "render", "FORMATS", *CLI]


def __getattr__(name: str) -> object:
    if name in CLI:
        from .bridges import arguments, cli

        return getattr(arguments if name in ARGUMENTS else cli, name)
    raise AttributeError(f"module 'cwla._shared' has no attribute {name!r}")
