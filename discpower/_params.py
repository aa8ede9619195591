"""The parameters every part of discpower takes, declared once on cwla's one check (scikit-learn's manner):
a significance level, a number of trials, a count, the decimals of a table. A value that does not fit raises
:class:`DiscpowerError` with the one message, e.g. "The 'alpha' parameter must be a number in the open interval
(0, 1). Got 1.5 instead."
"""

from __future__ import annotations

import functools

from cwla._shared import Constraint, Interval, check, validate_params

from .errors import DiscpowerError

__all__ = ["alpha_level", "n_trials", "count", "digits", "validated", "MAX_TRIALS", "ALPHA", "COUNT", "DIGITS", "TRIALS"]

#: discpower's entry points declare their parameters' constraints (``validate_params`` of cwla's parameter checks);
#: a value none accepts raises a DiscpowerError
validated = functools.partial(validate_params, error=DiscpowerError)

#: the most resampling trials one call may ask for (the null distribution is kept, with its sorted copy:
#: see discpower.stats.memory.NULL_BYTES)
MAX_TRIALS = 10**9
#: a significance level
ALPHA = Interval("real", 0, 1, closed="neither")
#: a count: an integer >= 1
COUNT = Interval("int", 1, None)
#: the decimals a table prints its numbers with
DIGITS = Interval("int", 0, 15)


class _Trials(Constraint):
    """A number of resampling trials: an integer >= 1, at most :data:`MAX_TRIALS` (the null distribution is
    kept in memory; whether it fits is checked where the resampling is planned: discpower.stats.memory)."""

    _COUNT = COUNT

    def accepts(self, value: object) -> bool:
        return self._COUNT.accepts(value) and value <= MAX_TRIALS

    def convert(self, value: object) -> int:
        return int(value)

    def refused(self) -> list:
        return [*self._COUNT.refused(), MAX_TRIALS + 1]

    def example(self) -> int:
        return 1

    def rule_for(self, value: object) -> str:
        if self._COUNT.accepts(value):  # a count, too large
            return f"at most {MAX_TRIALS:,} (the null distribution is kept in memory)"
        return str(self._COUNT)

    def __str__(self) -> str:
        return f"an integer >= 1, at most {MAX_TRIALS:,}"


#: a number of resampling trials
TRIALS = _Trials()


def alpha_level(value: object, name: str = "alpha") -> float:
    """A significance level in the open interval (0, 1)."""
    return check(value, name, ALPHA, error=DiscpowerError)


def count(value: object, name: str, low: int = 1) -> int:
    """An integer >= ``low``."""
    return check(value, name, Interval("int", low, None), error=DiscpowerError)


def digits(value: object) -> int:
    """The decimals of a table's numbers (``to_latex``, ``to_markdown``): an integer in [0, 15]."""
    return check(value, "digits", DIGITS, error=DiscpowerError)


def n_trials(value: object, name: str = "n_trials") -> int:
    """A positive integer number of resampling trials, at most :data:`MAX_TRIALS` (:data:`TRIALS`)."""
    return check(value, name, TRIALS, error=DiscpowerError)
