"""Gain maps: formulas, range errors, texts."""

import re

import attrs
import numpy as np
import pytest

from cwla import Binary, Exponential, GainMap, GainRangeError, Linear, Table, parse_gain

GRADES = np.array([-1.0, 0.0, 1.0, 2.0, 3.0])


def test_linear():
    np.testing.assert_allclose(Linear(3).table(GRADES), [0, 0, 1 / 3, 2 / 3, 1])
    # without gmax: the collection's largest grade (passed in), never a per-topic value
    np.testing.assert_allclose(Linear().table(GRADES, max_grade=3.0), [0, 0, 1 / 3, 2 / 3, 1])
    np.testing.assert_allclose(Linear(4).table(GRADES), [0, 0, 0.25, 0.5, 0.75])


def test_exponential_is_chapelles():
    np.testing.assert_allclose(Exponential(4).table(GRADES), [0, 0, 1 / 16, 3 / 16, 7 / 16])
    np.testing.assert_allclose(Exponential(3).table(GRADES), [0, 0, 1 / 8, 3 / 8, 7 / 8])


def test_binary_threshold():
    np.testing.assert_array_equal(Binary(2).table(GRADES), [0, 0, 0, 1, 1])
    np.testing.assert_array_equal(Binary(1).table(GRADES), [0, 0, 1, 1, 1])


def test_table():
    t = Table({0: 0, 1: 0.142857, 2: 0.428571, 3: 1})
    np.testing.assert_allclose(t.table(GRADES[1:]), [0, 0.142857, 0.428571, 1])
    with pytest.raises(GainRangeError, match=re.escape("has no gain for grade -1 found in the qrels")):
        t.table(GRADES)


@pytest.mark.parametrize("gain, message", [
    (Linear(2), "gain map linear(gmax=2) maps grade 3 to 1.5, outside [0, 1]"),
    (Exponential(1), "gain map exponential(gmax=1) maps grade 2 to 1.5, outside [0, 1]"),
    (Table({-1: 0, 0: 0, 1: 0.5, 2: 2, 3: 1}), "maps grade 2 to 2.0, outside [0, 1]"),
])
def test_gains_outside_unit_interval_are_errors_naming_grade_and_map(gain, message):
    with pytest.raises(GainRangeError, match=re.escape(message)):
        gain.table(GRADES)


@pytest.mark.parametrize("text, gain", [
    ("linear:3", Linear(3)), ("linear", Linear()), ("linear(gmax=3)", Linear(3)), ("linear(3)", Linear(3)),
    ("exponential:4", Exponential(4)), ("exp:4", Exponential(4)), ("binary:2", Binary(2)),
    ("binary(threshold=2)", Binary(2)), ("table(0:0, 1:0.5, 2:1)", Table({0: 0, 1: 0.5, 2: 1})),
])
def test_parse_gain(text, gain):
    assert parse_gain(text) == gain
    assert parse_gain(str(gain)) == gain


@pytest.mark.parametrize("text, message", [
    ("cubic:2", "unknown gain map 'cubic'"),
    ("linear:0", "'gmax' of linear must be > 0, got 0"),
    ("linear:x", "'gmax' of linear must be a number, got 'x'"),
    ("table(1)", "table() takes GRADE:GAIN pairs"),
])
def test_bad_gain_texts(text, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_gain(text)


def test_a_users_gain_map_without_a_name_prints_as_its_repr():
    @attrs.frozen
    class Doubled(GainMap):
        def gains(self, grades, max_grade):
            return grades * 2.0

    assert str(Doubled()) == repr(Doubled()) == "Doubled()"
    with pytest.raises(GainRangeError, match=r"gain map .*Doubled\(\) maps grade 1 to 2.0"):
        Doubled().table([0, 1])
    assert str(Linear(3)) == "linear(gmax=3)" and str(Linear()) == "linear"
