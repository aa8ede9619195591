"""Every public function and class of both packages refuses a bad argument with a library error that names the
parameter (issue 40; scikit-learn's common tests): called with an object of no accepted type for every
parameter it requires, each raises a CwlaError (DiscpowerError, ParameterError, InputError, ...: ValueErrors,
ParameterError a TypeError too), never an AttributeError, a bare TypeError or a crash from deeper down."""

from __future__ import annotations

import inspect
import re
import warnings

import numpy as np
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


# --------------------------------------------------------------------------- the declared constraints

def _declared():
    """(entry point, parameter, its constraints) for every public function that declares its parameters'
    constraints (``validate_params``), and the class methods that build the library's values."""
    entries = [(f"{package.__name__}.{name}", getattr(package, name)) for package in (cwla, discpower)
               for name in package.__all__]
    entries.append(("discpower.QrelsComparer.build", discpower.QrelsComparer.build))
    for label, func in entries:
        for name, constraints in getattr(func, "parameter_constraints", {}).items():
            yield pytest.param(func, name, constraints, id=f"{label}:{name}")


DECLARED = list(_declared())


def _example(constraint):
    """A value ``constraint`` accepts: its own example, or (a type the library builds) one built here."""
    try:
        return constraint.example()
    except NotImplementedError:
        if constraint.accepts(TEST_RESULT):
            return TEST_RESULT
        raise


#: a PairwiseTest, the value discpower's tests build
TEST_RESULT = discpower.paired_t_test(np.array([[0.1, 0.5, 0.2], [0.4, 0.6, 0.1], [0.3, 0.9, 0.2], [0.2, 0.7, 0.4]]))


def test_the_entry_points_declare_their_parameters():
    declaring = {p.id.split(":")[0] for p in DECLARED}
    assert len(declaring) >= 49 and len(DECLARED) >= 150, (len(declaring), len(DECLARED))


def _refused(constraints) -> list:
    """The values a parameter's constraints refuse, generated from them (each constraint's own, less those
    another constraint of the parameter accepts)."""
    return [value for c in constraints for value in c.refused() if not any(k.accepts(value) for k in constraints)]


@pytest.mark.parametrize("func, name, constraints", DECLARED)
def test_a_declared_parameter_refuses_what_its_constraints_refuse(func, name, constraints):
    signature = inspect.signature(func)
    declared = func.parameter_constraints
    refused = _refused(constraints)
    assert refused, f"no value is refused by {constraints}"
    for bad in refused:
        kwargs = {}
        for parameter in signature.parameters.values():
            if parameter.name == name or parameter.default is not parameter.empty or parameter.kind in (
                    parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                continue
            # another required parameter: a value its constraints accept, else one nothing accepts (the checks
            # run before the body, so it is never looked at)
            kwargs[parameter.name] = _example(declared[parameter.name][0]) if parameter.name in declared \
                else _Nothing()
        kwargs[name] = bad
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(func.parameter_error) as caught:
                func(**kwargs)
        assert isinstance(caught.value, CwlaError), caught.value
        assert re.match(rf"The {name!r} parameter (of {func.__name__} )?must be", str(caught.value)), (bad, caught.value)


def test_a_declared_parameter_is_converted_before_the_body_runs():
    seen = {}

    @cwla._validate.validate_params({"n": cwla._validate.Interval("int", 1, None, whole=True)})
    def count_of(n: int = 2.0) -> int:
        seen["n"] = n
        return n

    assert count_of(3.0) == 3 and type(seen["n"]) is int  # given by position
    assert count_of(n=4.0) == 4 and type(seen["n"]) is int  # by keyword
    assert count_of() == 2 and type(seen["n"]) is int  # the default too
    assert count_of.parameter_constraints["n"][0].accepts(5)
    with pytest.raises(cwla.errors.ParameterError, match="The 'n' parameter must be an integer >= 1. Got 0 instead."):
        count_of(0)

    @cwla._validate.validate_params({"k": cwla._validate.Interval("int", 1, None)}, named=True)
    def needs(a: object, k: int, *, flag: bool = False) -> tuple:
        return a, k

    assert needs("x", 2) == ("x", 2) and needs("x", k=3) == ("x", 3)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'k'"):  # Python's own message
        needs("x")
    with pytest.raises(cwla.errors.ParameterError, match="The 'k' parameter of needs must be"):
        needs("x", 0)


@pytest.mark.parametrize("name", list(cwla.scoring.evaluator.OPTION_CONSTRAINTS))
def test_an_option_of_evaluate_refuses_what_its_constraints_refuse(name):
    """The options of cwla.evaluate and cwla.Evaluator (those every discpower entry point passes on) are
    declared as data too: each refused value is refused by the Evaluator, naming the option."""
    qrels, runs = cwla.synthetic.collection(n_topics=3, n_runs=2, seed=0)
    for bad in _refused(cwla.scoring.evaluator.OPTION_CONSTRAINTS[name]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(CwlaError, match=f"The {name!r} parameter of Evaluator must be"):
                cwla.Evaluator(runs, ["nDCG@10"], **{name: bad})
