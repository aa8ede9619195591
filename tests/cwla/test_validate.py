"""cwla's one parameter check (scikit-learn's manner): one message, constraints that convert, no bool as a number."""

import math

import numpy as np
import pytest

from cwla._validate import (CALLABLE, FLAG, NONE, Instance, Interval, Options, Predicate, check, finite_float, fmt,
                            strict_int)


def test_the_one_message_names_the_parameter_the_function_the_rule_and_the_value():
    with pytest.raises(ValueError) as err:
        check(1.5, "alpha", Interval("real", 0, 1, closed="neither"), func="compare_qrels")
    assert str(err.value) == ("The 'alpha' parameter of compare_qrels must be a number in the open interval "
                              "(0, 1). Got 1.5 instead.")
    with pytest.raises(KeyError, match="The 'n' parameter must be an integer >= 1 or None. Got 0 instead."):
        check(0, "n", Interval("int", 1, None), NONE, error=KeyError)
    with pytest.raises(ValueError, match="must be why not. Got 'x' instead."):
        check("x", "y", Interval("int"), rule="why not")


@pytest.mark.parametrize("constraint, good, bad", [
    (Interval("int", 1, None), [1, np.int64(7), 10**30], [0, True, 1.0, "3", None, math.nan]),
    (Interval("int", 1, None, whole=True), [1, 10.0, np.float64(3.0)], [0.5, True, math.inf, 0]),
    (Interval("real", 0, 1), [0, 1, 0.5, np.float32(0.25)], [-0.1, 1.01, math.nan, math.inf, False, "0.5"]),
    (Interval("real", 0, 1, closed="neither"), [0.5], [0, 1]),
    (Interval("real", 0, 1, closed="left"), [0], [1]),
    (Interval("real", 0, 1, closed="right"), [1], [0]),
    (Options(("drop", "relabel")), ["drop"], ["DROP", None, 0]),
    (Options((None, "linear")), [None, "linear"], ["quadratic"]),
    (FLAG, [True, False, np.bool_(True)], [0, 1, None, "True"]),
    (CALLABLE, [len, lambda: 0], [3, "f"]),
    (Instance(str, "a text"), ["a"], [b"a", 1]),
    (Predicate(lambda v: v % 2 == 0, "an even number"), [2, 4], [3, "x"]),
])
def test_constraints_accept_and_refuse(constraint, good, bad):
    for value in good:
        assert constraint.accepts(value), value
        check(value, "p", constraint)
    for value in bad:
        assert not constraint.accepts(value), value
        with pytest.raises(ValueError, match="The 'p' parameter must be"):
            check(value, "p", constraint)


def test_constraints_convert():
    assert type(check(np.int64(3), "n", Interval("int", 1, None))) is int
    assert type(check(10.0, "n", Interval("int", 1, None, whole=True))) is int
    assert type(check(np.float32(0.5), "a", Interval("real", 0, 1))) is float
    assert check(np.bool_(True), "f", FLAG) is True
    assert check(None, "x", Interval("int"), NONE) is None


def test_rules_as_the_messages_state_them():
    assert str(Interval("int", 1, None)) == "an integer >= 1"
    assert str(Interval("real", 0, None, closed="neither")) == "a finite number > 0"
    assert str(Interval("real", 0, 1)) == "a number in [0, 1]"
    assert str(Interval("int", 0, 2**64, closed="left")) == "an integer in [0, 2**64)"
    assert str(Interval("real")) == "a finite number"
    assert str(Options(("a", "b", "c"))) == "'a', 'b' or 'c'"
    assert str(FLAG) == "True or False"


def test_strict_conversions_and_fmt():
    assert strict_int(3.0) == 3 and type(strict_int(np.int64(2))) is int
    for bad in (True, "3", 2.5, None):
        with pytest.raises(TypeError):
            strict_int(bad)
    with pytest.raises(TypeError):
        strict_int(math.inf)
    assert finite_float("2.5") == 2.5
    with pytest.raises(ValueError):
        finite_float(math.inf)
    assert (fmt(3.0), fmt(0.1), fmt(1e20)) == ("3", "0.1", "1e+20")


def test_long_values_are_cut_in_the_message():
    with pytest.raises(ValueError) as err:
        check("x" * 500, "name", Options(("a",)))
    assert len(str(err.value)) < 200 and str(err.value).endswith("... instead.")
