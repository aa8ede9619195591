"""Browsing models users register as a function: register_model.

A registered model is an :class:`~cwla.metrics.browsing.AdaptiveModel` whose continuation probability is
``function(i, r_i, cg(i), params)``, a numba function the scoring kernel calls at every rank
(:func:`cwla.scoring.kernels.kernel_for`). Its name joins the metric language (``Name(p=...)+AGG``), so it
may not be a name the parser reads otherwise (:func:`cwla.metrics.text.parser_name`); its defaults must be
values its parameters accept. When the function raises while a ranking is scored, the evaluation raises
:class:`~cwla.errors.UserFunctionError` naming the model, its parameters and the function's exception.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import attrs
import numba
import numpy as np

from ..errors import CwlaError, ParameterError, UserFunctionError
from ._declare import Param, declare
from .browsing import ADAPTIVE_CODE, MODELS, N_MODEL_PARAMS, USER_MODELS, AdaptiveModel
from .text import parser_name

__all__ = ["register_model"]


def _declared(name: str, params: Mapping[str, float | Param] | None) -> list:
    """The model's parameters as :class:`Param`, each default checked (a finite number its rule accepts)."""
    if params is not None and not isinstance(params, Mapping):
        raise ParameterError(f"the parameters of model {name!r} must be a dict {{name: default or Param}}, got "
                        f"{type(params).__name__}")
    declared = []
    for key, value in dict(params or {}).items():
        if not isinstance(key, str) or not key.isidentifier():
            raise CwlaError(f"a parameter's name must be an identifier: {key!r}")
        if isinstance(value, Param):
            p = attrs.evolve(value, name=key)
        elif isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
                or not math.isfinite(value):
            raise CwlaError(f"the default of parameter {key!r} of model {name!r} must be a finite number, got "
                             f"{value!r}")
        else:
            value = float(value)
            p = Param(key, "float", value, sample=(value / 2, value * 2) if value > 0 else None)
        if p.default is not None:
            p.check(name, p.default)  # a Param's default must follow its own rule (finite, in its bounds)
        declared.append(p)
    if len(declared) > N_MODEL_PARAMS:
        raise CwlaError(f"a model takes at most {N_MODEL_PARAMS} parameters, got {len(declared)}")
    return declared


def _jitted(function: Callable, name: str, declared: list) -> Callable:
    """``function`` compiled with numba and tried once at i = 1, r = 0.5, cg = 0.5 with the defaults."""
    if not callable(function):
        raise ParameterError(f"the function of model {name!r} must be callable: (i, r_i, cg(i), params) -> C(i)")
    jitted = function if hasattr(function, "py_func") else numba.njit(function)
    params = np.zeros(N_MODEL_PARAMS)
    for k, p in enumerate(declared):
        params[k] = p.kernel(p.default) if p.default is not None else 0.0
    try:
        value = jitted(1, 0.5, 0.5, params)
    except numba.core.errors.NumbaError as err:  # typing and lowering errors: it does not compile
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ParameterError(f"the function of model {name!r} must compile with numba as f(i: int, r: float, cg: float, "
                        f"params: float64 array) -> float; it does not: {first}") from None
    except Exception as err:  # the function's own exception
        raise UserFunctionError(f"the function of model {name!r} raised {type(err).__name__}: {err} when "
                                f"register_model tried it at i=1, r=0.5, cg=0.5 with its defaults params="
                                f"{params[:len(declared)].tolist()}") from err
    if not isinstance(value, float):
        raise ParameterError(f"the function of model {name!r} must return a float C(i), returned {value!r}")
    return jitted


def register_model(name: str, function: Callable[..., float], params: Mapping[str, float | Param] | None = None, *,
                   formula: str = "", reference: str = "", gain_free: bool = False, doc: str = "") -> type:
    """Register a browsing model given as a function: ``function(i, r, cg, params) -> C(i)``, numba-compilable
    (a plain Python function is compiled with ``numba.njit``), with i the rank (from 1), r = r_i the gain at
    rank i, cg = cg(i) = r_1 + ... + r_i and ``params`` a float64 array holding the model's parameters in
    the order given. C(i) must lie in [0, 1] (else the evaluation raises).

    ``params`` maps each parameter's name to its default (a finite number) or to a
    :class:`cwla.Param` (bounds, rule, sampling range for the Hypothesis strategies); at
    most six. Returns the model's class: ``Name(p=...)`` builds it, and ``Name(p=...)+AGG`` parses. The
    escape hatch costs a compilation: the scoring kernel is compiled again for each function, once per
    process (not cached on disk). Registering a name again replaces the model.

    Raises
    ------
    ValueError
        ``name`` is not an identifier or is a name the metric parser reads otherwise (a built-in model or
        aggregation in any case, an ir_measures or trec_eval measure, a Chen & Sakai name such as
        ``RBP_ERG``); a default is not a finite number its parameter accepts; more than six parameters.
    TypeError
        ``function`` is not callable, does not compile with numba, or does not return a float.
    cwla.errors.UserFunctionError
        ``function`` raised when tried once at i = 1, r = 0.5, cg = 0.5 with the defaults (and, later,
        :func:`cwla.evaluate` raises it when the function raises while a ranking is scored).

    Examples
    --------
    >>> import cwla
    >>> def inst(i, r, cg, p):
    ...     T = p[0]
    ...     return ((i - 1.0 + 2.0 * T - cg) / (i + 2.0 * T - cg)) ** 2
    >>> MyINST = cwla.register_model("MyINST", inst, {"T": 2.5}, formula="INST's")
    >>> str(cwla.parse_metric("MyINST(T=3)+ERG"))
    'MyINST(T=3)+ERG'
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise CwlaError(f"a model's name must be an identifier (letters, digits, _): {name!r}")
    if name in MODELS:
        raise CwlaError(f"{name!r} is a built-in browsing model; choose another name")
    taken = None if name in USER_MODELS else parser_name(name)
    if taken is not None:
        raise CwlaError(f"{name!r} cannot name a model: the metric parser reads it as {taken}; choose another name")
    declared = _declared(name, params)
    cls = declare(AdaptiveModel, name, ADAPTIVE_CODE, declared, formula=formula or "user-defined function",
                  reference=reference or "--", doc=doc or f"{name}: a user-defined browsing model.",
                  gain_free=gain_free, function=_jitted(function, name, declared))
    USER_MODELS[name] = cls
    return cls
