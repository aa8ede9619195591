"""Parameter checks with one message for every public function of cwla and discpower (scikit-learn's manner).

A parameter is checked against one or more constraints before any work is done, and a value that
meets none of them gets the one message template::

    The 'alpha' parameter of compare_qrels must be a number in the open interval (0, 1). Got 1.5 instead.

(``of FUNC`` when the caller names its function). A constraint also converts what it accepts (an
integer constraint gives an ``int``, a number constraint a ``float``), so a function works on the
checked value::

    n = check(n_trials, "n_trials", Interval("int", 1, None), error=DiscpowerError)
    seed = check(seed, "seed", Interval("int", 0, 2**64, closed="left"), NONE, ...)

Booleans are never numbers here (``True`` is no ``1``), and strings never numbers (``"3"`` is no ``3``).

The module also holds the strict conversions the value objects' converters use (:func:`strict_int`,
:func:`finite_float`) and :func:`fmt`, how cwla prints a number in a text or a message.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import os
from collections.abc import Callable, Mapping
from types import MappingProxyType

import attrs
import numpy as np

from .errors import CwlaError, ParameterError

__all__ = ["check", "rule_of", "validate_params", "Constraint", "Interval", "Options", "Instance", "Predicate", "NONE", "FLAG", "CALLABLE", "PATH",
           "fmt", "strict_int", "strict_float", "finite_float", "optional_float"]


def fmt(x: float) -> str:
    """Shortest text that reads back as the same float (ints without '.0')."""
    x = float(x)
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)


def _is_number(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def strict_int(value: object) -> int:
    """An int from an int or an integral float; a bool, a string or 2.5 is a TypeError."""
    if isinstance(value, (bool, np.bool_, str, bytes)) or not isinstance(value, numbers.Real):
        raise ParameterError(f"expected an integer, got {value!r}")
    try:
        integral = float(value).is_integer()
    except OverflowError:
        raise CwlaError(f"expected an integer of a usable size, got {str(value)[:20]}...") from None
    if not integral:
        raise ParameterError(f"expected an integer, got {value!r}")
    return int(value)


def strict_float(value: object) -> float:
    """A float from a real number; a bool or a string is a TypeError."""
    if isinstance(value, (bool, np.bool_, str, bytes)) or not isinstance(value, numbers.Real):
        raise ParameterError(f"expected a number, got {value!r}")
    return float(value)


def finite_float(value: object) -> float:
    """A finite float from anything ``float()`` takes (a TypeError otherwise; a ValueError for inf or NaN)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"expected a number, got {value!r}") from None
    if not math.isfinite(x):
        raise CwlaError(f"expected a finite number, got {value!r}")
    return x


def optional_float(value: object) -> float | None:
    """None, or a finite float (:func:`finite_float`)."""
    return None if value is None else finite_float(value)


class Constraint:
    """What a parameter may be: :meth:`accepts` says whether a value qualifies, :meth:`convert` gives the
    value the function works with, ``str()`` the rule as the message states it; :meth:`refused` lists values
    it refuses and :meth:`example` one it accepts (the tests call every entry point with them)."""

    def accepts(self, value: object) -> bool:
        raise NotImplementedError

    def convert(self, value: object) -> object:
        return value

    def refused(self) -> list:
        """Values this constraint refuses: an object of no type it takes, at least."""
        return [_NOTHING]

    def rule_for(self, value: object) -> str:
        """The rule as a message states it for ``value`` (by default the same whatever the value)."""
        return str(self)

    def alternatives(self, value: object) -> list[str]:
        """The rule as a list of what a message may offer (``["'ideal'", "'full'"]``: one ``either`` over all of
        a parameter's constraints reads "'ideal', 'full' or None", not "'ideal' or 'full' or None")."""
        return [self.rule_for(value)]

    def example(self) -> object:
        """A value this constraint accepts."""
        raise NotImplementedError(f"{type(self).__name__} gives no example")


@attrs.frozen
class Interval(Constraint):
    """A number (``kind="real"``: finite, converted to float) or an integer (``kind="int"``: an integral
    number, converted to int; ``whole=True`` also takes an integral float such as 10.0) between ``lo``
    and ``hi`` (None: unbounded), each end closed or open as ``closed`` says (``"both"``, ``"left"``,
    ``"right"``, ``"neither"``)."""

    kind: str
    lo: float | None = None
    hi: float | None = None
    closed: str = "both"
    whole: bool = False
    text: str | None = None  # the rule in words, where the bounds alone do not say it

    def accepts(self, value: object) -> bool:
        if self.kind == "int":
            if isinstance(value, (bool, np.bool_)):
                return False
            if not isinstance(value, numbers.Integral):
                if not (self.whole and _is_number(value) and math.isfinite(float(value))
                        and float(value).is_integer()):
                    return False
        elif not (_is_number(value) and math.isfinite(float(value))):
            return False
        x = value if isinstance(value, numbers.Integral) else float(value)
        if self.lo is not None and (x < self.lo or (x == self.lo and self.closed in ("right", "neither"))):
            return False
        if self.hi is not None and (x > self.hi or (x == self.hi and self.closed in ("left", "neither"))):
            return False
        return True

    def convert(self, value: object) -> object:
        return int(value) if self.kind == "int" else float(value)

    def refused(self) -> list:
        out = [_NOTHING, "1", True]
        if self.lo is not None:
            out.append(self.lo if self.closed in ("right", "neither") else self.lo - 1)
        if self.hi is not None:
            out.append(self.hi if self.closed in ("left", "neither") else self.hi + 1)
        out += [2.5] if self.kind == "int" else [math.inf, math.nan]
        return out

    def example(self) -> object:
        lo = 1 if self.lo is None else self.lo + (1 if self.closed in ("right", "neither") else 0)
        if self.hi is not None and lo > self.hi - (1 if self.closed in ("left", "neither") else 0):
            lo = (self.lo + self.hi) / 2  # an open interval narrower than 1: its middle
        return int(lo) if self.kind == "int" else float(lo)

    def __str__(self) -> str:
        if self.text:
            return self.text
        what = "an integer" if self.kind == "int" else "a number"
        if self.kind != "int" and (self.lo is None or self.hi is None):
            what = "a finite number"  # no bound says it: inf is refused
        lo, hi = (None if b is None else _bound(b) for b in (self.lo, self.hi))
        if lo is None and hi is None:
            return what
        if hi is None:
            return f"{what} {'>=' if self.closed in ('both', 'left') else '>'} {lo}"
        if lo is None:
            return f"{what} {'<=' if self.closed in ('both', 'right') else '<'} {hi}"
        if self.closed == "neither":
            return f"{what} in the open interval ({lo}, {hi})"
        left = "[" if self.closed in ("both", "left") else "("
        right = "]" if self.closed in ("both", "right") else ")"
        return f"{what} in {left}{lo}, {hi}{right}"


def _bound(value: float) -> str:
    if isinstance(value, numbers.Integral) and value >= 2**32 and (value & (value - 1)) == 0:
        return f"2**{value.bit_length() - 1}"
    return fmt(value) if not isinstance(value, numbers.Integral) else str(value)


@attrs.frozen
class Options(Constraint):
    """One of the given values (strings or None), compared by equality."""

    values: tuple = attrs.field(converter=tuple)
    text: str | None = None  # the rule in words, where the values alone do not say it

    def accepts(self, value: object) -> bool:
        return isinstance(value, (str, type(None))) and value in self.values

    def refused(self) -> list:
        return [_NOTHING, "no such option", None]

    def example(self) -> object:
        return self.values[0]

    def alternatives(self, value: object) -> list[str]:
        return [self.text] if self.text else [repr(v) for v in self.values]

    def __str__(self) -> str:
        return either(self.alternatives(None))


@attrs.frozen
class Instance(Constraint):
    """An instance of ``types``, described as ``text`` (e.g. ``"a numpy Generator"``)."""

    types: object
    text: str
    sample: object = None  # a value it accepts, for the tests (None: none given)

    def accepts(self, value: object) -> bool:
        return isinstance(value, self.types)

    def example(self) -> object:
        if self.sample is None:
            return super().example()
        return self.sample

    def __str__(self) -> str:
        return self.text


@attrs.frozen
class Predicate(Constraint):
    """Whatever ``test(value)`` accepts, described as ``text``."""

    test: Callable[[object], bool]
    text: str

    def accepts(self, value: object) -> bool:
        try:
            return bool(self.test(value))
        except (TypeError, ValueError, OverflowError):
            return False

    def __str__(self) -> str:
        return self.text


class _Flag(Constraint):
    def accepts(self, value: object) -> bool:
        return isinstance(value, (bool, np.bool_))

    def refused(self) -> list:
        return [_NOTHING, "yes", 1, None]

    def example(self) -> object:
        return True

    def convert(self, value: object) -> object:
        return bool(value)

    def alternatives(self, value: object) -> list[str]:
        return ["True", "False"]

    def __str__(self) -> str:
        return "True or False"


#: the constraint ``None``
NONE = Options((None,))
#: ``True`` or ``False`` (numpy's bools too; never 0 or 1)
FLAG = _Flag()
#: anything callable
CALLABLE = Predicate(callable, "a callable")
#: a path: a str, bytes or an os.PathLike (pathlib.Path, ...)
PATH = Instance((str, bytes, os.PathLike), "a path (a str or an os.PathLike such as pathlib.Path)", sample="a.txt")


def either(texts: list[str]) -> str:
    """``"a"``, ``"a or b"``, ``"a, b or c"``."""
    return texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " or " + texts[-1]


def rule_of(constraints: tuple[Constraint, ...], value: object = None, *, none: bool = True) -> str:
    """What ``constraints`` accept, as a message states it for ``value``: their alternatives in one list
    ("'ideal', 'full', 'none' or None"); ``none=False`` leaves None out (a text cannot give it)."""
    return either([text for c in constraints if c is not NONE for text in c.alternatives(value)]
                  + (["None"] if none and NONE in constraints else []))


def check(value: object, name: str, *constraints: Constraint, func: str | None = None,
          error: type[Exception] = ParameterError, rule: str | None = None,
          message: Callable[[str], str] | None = None) -> object:
    """``value`` converted by the first of ``constraints`` that accepts it; else ``error`` (default
    :class:`~cwla.errors.ParameterError`, a ValueError and a TypeError) with the one message: "The 'NAME'
    parameter[ of FUNC] must be RULE. Got VALUE instead." (``rule`` replaces the constraints' own description,
    e.g. to say why; ``message(rule)`` replaces the sentence, for the value objects' and the metric text's)."""
    for constraint in constraints:
        if constraint.accepts(value):
            return constraint.convert(value)
    if rule is None:
        rule = rule_of(constraints, value)
    if message is not None:
        raise error(message(rule))
    where = f" of {func}" if func else ""
    raise error(f"The {name!r} parameter{where} must be {rule}. Got {shown(value)} instead.")


def shown(value: object) -> str:
    """``repr(value)``, cut at 80 characters (a message quotes what it got)."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


class _Nothing:
    """A value no constraint accepts (its repr says so in a message)."""

    def __repr__(self) -> str:
        return "<nothing>"


_NOTHING = _Nothing()


def validate_params(constraints: Mapping[str, Constraint | tuple[Constraint, ...]], *,
                    error: type[Exception] = ParameterError, named: bool = False) -> Callable[[Callable], Callable]:
    """Declare the constraints of a function's parameters (scikit-learn's ``validate_params``).

    Each parameter named in ``constraints`` is checked by :func:`check` and converted (its default too), in the
    signature's order, before the function's body runs, so the body works on checked values; a value no
    constraint accepts raises ``error`` with the one message (``The 'alpha' parameter must be ...``; ``named``:
    ``The 'order' parameter of read_runs must be ...``). The declaration stays readable as the function's
    ``parameter_constraints`` (parameter -> tuple of constraints) and ``parameter_error``. A call that does not
    fit the signature gets Python's own TypeError from the function."""
    declared = {name: c if isinstance(c, tuple) else (c,) for name, c in constraints.items()}

    def decorate(func: Callable) -> Callable:
        parameters = inspect.signature(func).parameters
        unknown = sorted(set(declared) - set(parameters))
        if unknown:  # a declaration error, found at import
            raise RuntimeError(f"{func.__qualname__}: constraints of no parameter: {unknown}")
        positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        places = {name: i for i, (name, p) in enumerate(parameters.items()) if p.kind in positional}
        # (name, its position or None, its default or _NOTHING, its constraints), in the signature's order
        plan = [(name, places.get(name), p.default if p.default is not p.empty else _NOTHING, declared[name])
                for name, p in parameters.items() if name in declared]
        where = func.__name__ if named else None

        @functools.wraps(func)
        def checked(*args: object, **kwargs: object) -> object:
            args = list(args)
            for name, place, default, allowed in plan:
                if place is not None and place < len(args):
                    args[place] = check(args[place], name, *allowed, func=where, error=error)
                elif name in kwargs:
                    kwargs[name] = check(kwargs[name], name, *allowed, func=where, error=error)
                elif default is not _NOTHING:  # a default is converted as a given value is (seed=None: drawn)
                    kwargs[name] = check(default, name, *allowed, func=where, error=error)
            return func(*args, **kwargs)

        checked.parameter_constraints = MappingProxyType(declared)
        checked.parameter_error = error
        return checked

    return decorate
