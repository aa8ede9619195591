"""Every public function and class of both packages refuses a bad argument with a library error that names the
parameter (issue 40; scikit-learn's common tests): called with an object of no accepted type for every
parameter it requires, each raises a CwlaError (DiscpowerError, ParameterError, InputError, ...: ValueErrors,
ParameterError a TypeError too), never an AttributeError, a bare TypeError or a crash from deeper down."""

from __future__ import annotations

import inspect
import re
import warnings

import pytest

import cwla
import discpower
from cwla.errors import CwlaError

#: the values the library builds and returns (results, prepared data): constructed by its functions, not by users
BUILT = {
    "cwla": {"Collection", "Evaluation", "Judgements", "Param", "RunSet", "Subtopics"},
    "discpower": {"Calibration", "FamilyConsistency", "KnownTruthCollection", "KnownTruthErrors", "MetaEvaluation",
                  "MetricInfluence", "PairwiseTest", "QrelsComparer", "QrelsComparison", "RankingSimilarity",
                  "RunStability", "SplitHalfConsistency", "Stability", "Sweep", "SystemComparison"},
}


class _Nothing:
    """A value no parameter accepts."""

    def __repr__(self) -> str:
        return "<nothing>"


def _entry_points():
    for package in (cwla, discpower):
        for name in package.__all__:
            obj = getattr(package, name, None)
            if not callable(obj) or name in BUILT[package.__name__] or name.startswith("is_"):
                continue  # (a predicate answers False for anything that is not what it looks for)
            if isinstance(obj, type) and issubclass(obj, (BaseException, Warning)):
                continue
            try:
                signature = inspect.signature(obj)
            except (TypeError, ValueError):
                continue
            required = [p.name for p in signature.parameters.values()
                        if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
            if required:
                yield pytest.param(obj, signature, required, id=f"{package.__name__}.{name}")


@pytest.mark.parametrize("func, signature, required", list(_entry_points()))
def test_a_bad_argument_is_refused_by_a_library_error_naming_it(func, signature, required):
    bad = _Nothing()
    args, kwargs = [], {}
    for name in required:
        parameter = signature.parameters[name]
        if parameter.kind is parameter.KEYWORD_ONLY:
            kwargs[name] = bad
        else:
            args.append(bad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(CwlaError) as caught:
            func(*args, **kwargs)
    message = str(caught.value)
    named = [name for name in signature.parameters if re.search(rf"\b{re.escape(name)}\b", message)]
    # the parameter by name, or (a function of one value: read_qrels(), table()) the function and what it got
    itself = func.__name__.lower() in message.lower() and re.search(r"<nothing>|_Nothing", message)
    assert named or itself, message
