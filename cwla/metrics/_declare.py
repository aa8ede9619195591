"""Declaring a browsing model or an aggregation once: its parameters (bounds, defaults, text form, what the
kernel sees), its formula and reference. The attrs class, the parser's parameter lists, the kernel codes,
the catalogue (docs/metrics.md), the validation messages and the Hypothesis strategies all derive from the
declaration (:func:`declare`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import attrs

from .._validate import FLAG, Interval, fmt, shown, strict_float, strict_int
from ..errors import CwlaError, ParameterError

__all__ = ["Param", "declare"]


@attrs.frozen
class Param:
    """One parameter of a model or an aggregation.

    ``kind`` is ``"int"``, ``"float"``, ``"choice"``, ``"flag"`` (True or False) or ``"value"`` (anything
    ``parse`` turns into the field's value, raising a CwlaError otherwise; ``show`` gives its text). Numbers
    must lie in [lo, hi] (an end is open when ``lo_open``/``hi_open``); ``none`` is the text of an allowed None
    (DCG's ``k=none``, the kernel sees inf). A choice lists ``(text, kernel value)`` pairs. ``rule`` overrides
    the generated rule in error messages; ``sample`` is the range the Hypothesis strategies draw from (default:
    the bounds, clipped).
    """

    name: str
    kind: str
    default: object
    lo: float = -math.inf
    hi: float = math.inf
    lo_open: bool = False
    hi_open: bool = False
    none: str | None = None
    choices: tuple = ()
    rule: str | None = None
    sample: tuple | None = None
    doc: str = ""
    parse: Callable[[object], object] | None = None
    show: Callable[[object], str] | None = None
    none_text: bool = True  # the string ``none`` stands for None (DCG's k=none); False: only None itself

    def describe(self) -> str:
        """The rule a value must follow, as in the error messages."""
        if self.rule:
            return self.rule
        if self.kind == "choice":
            return "one of " + ", ".join(repr(c) for c, _ in self.choices)
        if self.kind == "flag":
            return f"True, False or {self.none}" if self.none else "True or False"
        what = "an integer" if self.kind == "int" else "a finite number"
        if math.isinf(self.lo) and math.isinf(self.hi):
            text = what
        elif math.isinf(self.hi):
            text = f"{what} {'>' if self.lo_open else '>='} {fmt(self.lo)}"
        elif math.isinf(self.lo):
            text = f"{what} {'<' if self.hi_open else '<='} {fmt(self.hi)}"
        else:
            text = f"{what} in {'(' if self.lo_open else '['}{fmt(self.lo)}, {fmt(self.hi)}{')' if self.hi_open else ']'}"
        return text + (f" or {self.none}" if self.none else "")

    @property
    def annotation(self) -> str:
        """The field's type, as the generated ``__init__`` and the API reference show it."""
        kind = {"int": "int", "float": "float", "choice": "str", "flag": "bool", "value": "object"}[self.kind]
        return f"{kind} | None" if self.none else kind

    def convert(self, value: object) -> object:
        if value is None and self.none:
            return None
        if isinstance(value, str) and self.none and self.none_text and value == self.none:
            return None
        if self.kind == "choice":
            return value
        if self.kind == "flag":
            if not FLAG.accepts(value):
                raise ParameterError(f"expected True or False, got {value!r}")
            return FLAG.convert(value)
        if self.kind == "value":
            return self.parse(value)
        return strict_int(value) if self.kind == "int" else strict_float(value)

    def field(self, owner: str, **kwargs: object) -> object:
        """This parameter as an attrs field of ``owner``'s class: converted (:meth:`convert`; a value of the wrong
        kind refused with :meth:`check`'s message, naming the parameter), then checked (:meth:`check`)."""

        def convert(value: object, p: Param = self) -> object:
            try:
                return p.convert(value)
            except CwlaError as err:
                if p.kind == "value":  # its parser's own message, naming the parameter
                    raise type(err)(f"{p.name!r} of {owner}: {err}") from None
                raise ParameterError(f"'{p.name}' of {owner} must be {p.describe()}: {shown(value)}") from None

        def validate(instance: object, attribute: object, value: object, p: Param = self) -> None:
            p.check(owner, value)

        convert.__annotations__ = {"value": self.annotation, "return": self.annotation}  # what __init__ shows
        return attrs.field(default=self.default, converter=convert, validator=validate, **kwargs)

    def check(self, owner: str, value: object) -> None:
        if value is None and self.none:
            return
        if self.kind in ("flag", "value"):  # its conversion checked it
            return
        bad = ParameterError(f"'{self.name}' of {owner} must be {self.describe()}: {value!r}")
        if self.kind == "choice":
            if value not in [c for c, _ in self.choices]:
                raise bad
            return
        if not self.interval().accepts(value):
            raise bad

    def interval(self) -> Interval:
        """The bounds of a number, as the parameter check sees them (finite, ends open or closed)."""
        closed = {(False, False): "both", (False, True): "left", (True, False): "right", (True, True): "neither"}
        return Interval("int" if self.kind == "int" else "real", None if self.lo == -math.inf else self.lo,
                        None if self.hi == math.inf else self.hi, closed=closed[(self.lo_open, self.hi_open)])

    def kernel(self, value: object) -> float:
        """The float the kernel sees."""
        if value is None:
            return math.inf
        if self.kind == "choice":
            return dict(self.choices)[value]
        return float(value)

    def text(self, value: object) -> str:
        if value is None:
            return self.none
        if self.kind == "choice":
            return value
        if self.kind == "flag":
            return str(value)
        if self.kind == "value":
            return self.show(value)
        return str(value) if self.kind == "int" else fmt(value)

    def strategy(self) -> object:
        """A Hypothesis strategy of valid values."""
        from hypothesis import strategies as st

        if self.kind == "choice":
            return st.sampled_from([c for c, _ in self.choices])
        if self.kind == "flag":
            return st.one_of(st.none(), st.booleans()) if self.none else st.booleans()
        if self.kind == "value":
            return st.just(self.default)
        lo, hi = self.sample if self.sample else (max(self.lo, -5.0), min(self.hi, 5.0))
        if self.kind == "int":
            values = st.integers(int(math.ceil(lo)), int(math.floor(hi)))
        else:
            values = st.floats(lo, hi, exclude_min=self.lo_open and lo == self.lo,
                               exclude_max=self.hi_open and hi == self.hi, allow_nan=False)
        return st.one_of(st.none(), values) if self.none else values


def declare(base: type, name: str, code: int, params: Iterable[Param] = (), *, formula: str, reference: str = "",
            doc: str = "", text: str | None = None, **class_vars: object) -> type:
    """An attrs frozen subclass of ``base`` named ``name`` with one field per :class:`Param`, validated
    by it; ``code`` and ``class_vars`` become class variables, ``params`` the kernel's floats, ``str()`` the
    canonical text ``TEXT(p=v, ...)`` (just ``TEXT`` without parameters; ``text`` defaults to ``name``)."""
    params = tuple(params)
    text = text or name
    reserved = {"name", "code", "params", "declared", "formula", "reference"} | set(class_vars) | \
        {n for k in base.__mro__ for n in vars(k)}
    clash = [p.name for p in params if p.name in reserved or p.name.startswith("_")]
    if clash:
        raise CwlaError(f"{text}: a parameter may not be named {clash[0]!r} (reserved: "
                         f"{', '.join(sorted(n for n in reserved if not n.startswith('_')))}, and names starting "
                         f"with _)")

    def kernel_params(self: object) -> tuple[float, ...]:
        return tuple(p.kernel(getattr(self, p.name)) for p in params)

    def to_text(self: object) -> str:
        if not params:
            return text
        return f"{text}({', '.join(f'{p.name}={p.text(getattr(self, p.name))}' for p in params)})"

    namespace = {p.name: p.field(text) for p in params}
    namespace.update(
        __doc__=(doc or name) + f"\n\n    C/A: {formula}" + (f"\n\n    Reference: {reference}" if reference else ""),
        __str__=to_text,
        name=text,
        params=property(kernel_params, doc="The float parameters passed to the kernel."),
        code=code,
        declared=params,
        formula=formula,
        reference=reference,
        __annotations__={p.name: p.annotation for p in params},
        __module__=base.__module__,
        __qualname__=name,
    )
    namespace.update(class_vars)
    return attrs.frozen(type(name, (base,), namespace))
