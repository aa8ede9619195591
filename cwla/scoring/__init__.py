"""The kernels and what runs them: the prepared :class:`Evaluator` (runs read once, metrics and options
checked once), :func:`evaluate`, and the :class:`Evaluation` they return."""

from .evaluation import Evaluation
from .evaluator import Evaluator, evaluate
from .warmup import warmup

__all__ = ["Evaluator", "evaluate", "Evaluation", "warmup"]
