"""Numeric columns of in-memory qrels, runs and costs: a complex value is refused unless its imaginary part is 0,
and a rank outside the 64-bit integer range is refused (never wrapped), naming the row; as the file reader does."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cwla.data.readers import read_costs, read_qrels, read_run
from cwla.errors import InputError


def _qrels(grades):
    return pd.DataFrame({"topic": "q", "docno": [f"d{i}" for i in range(len(grades))], "grade": grades})


def _run(ranks):
    n = len(ranks)
    return pd.DataFrame({"topic": "q", "docno": [f"d{i}" for i in range(n)], "score": np.arange(n, 0, -1.0),
                         "rank": ranks})


# ---------------------------------------------------------------------------
# complex values
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("read, source, message", [
    (read_qrels, _qrels(pd.Series([1, 1 + 2j], dtype=object)),
     r"^qrels DataFrame, row 1: grade \(1\+2j\) is not a real number$"),
    (read_qrels, _qrels(np.array([1, 2 - 1j])), r"^qrels DataFrame, row 1: grade \(2-1j\) is not a real number$"),
    (read_qrels, _qrels(pd.Series([1.0, np.complex64(1 + 2j)], dtype=object)),
     r"^qrels DataFrame, row 1: grade \(1\+2j\) is not a real number$"),
    (read_qrels, {"q": {"a": 1, "b": 1 + 2j}},
     r"^qrels dict, topic 'q', docno 'b': grade \(1\+2j\) is not a real number$"),
    (read_run, pd.DataFrame({"topic": "q", "docno": ["a", "b"], "score": pd.Series([2.0, 1j], dtype=object)}),
     r"^run DataFrame, row 1: score 1j is not a real number$"),
    (read_run, {"q": {"a": 3 + 4j}}, r"^run dict, topic 'q', docno 'a': score \(3\+4j\) is not a real number$"),
    (read_run, _run(pd.Series([1, 2 + 1j], dtype=object)),
     r"^run DataFrame, row 1: rank \(2\+1j\) is not a real number$"),
    (read_costs, pd.DataFrame({"topic": "q", "docno": ["a", "b"], "cost": [1, 1 + 2j]}),
     r"^costs DataFrame, row 1: cost \(1\+2j\) is not a real number; costs must be finite and > 0"),
])
def test_a_complex_value_is_not_a_real_number(read, source, message):
    with pytest.raises(InputError, match=message):
        read(source)


def test_a_complex_value_with_no_imaginary_part_is_its_real_part():
    """The documented choice: ``2+0j`` is 2 (as NumPy's real-valued results often come out complex)."""
    assert read_qrels(_qrels(pd.Series([1, 2 + 0j], dtype=object)))["grade"].tolist() == [1.0, 2.0]
    assert read_qrels(_qrels(np.array([1 + 0j, 3 + 0j])))["grade"].tolist() == [1.0, 3.0]
    assert read_run(_run(np.array([1 + 0j, 2 + 0j])))["rank"].tolist() == [1, 2]


# ---------------------------------------------------------------------------
# ranks outside the 64-bit range
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("ranks, shown", [
    (pd.Series([1, 2**70], dtype=object), "1180591620717411303424"),
    (pd.Series([1, -(2**63) - 1], dtype=object), "-9223372036854775809"),
    (np.array([1, 2**63], dtype=np.uint64), "9223372036854775808"),
    (np.array([1, 2**64 - 1], dtype=np.uint64), "18446744073709551615"),
    (np.array([1.0, 1e30]), r"1e\+30"),
    (np.array([1.0, -1e19]), r"-1e\+19"),
    (pd.Series([1, "9223372036854775808"], dtype=object), "'9223372036854775808'"),
    (pd.Series([1, complex(2.0**63, 0)], dtype=object), r"\(9.223372036854776e\+18\+0j\)"),
    (pd.Series([1, 10**400], dtype=object), r"100000000000000000000000000000\.\.\.0000000000 \(401 characters\)"),
    (pd.Series([1, "1" + "0" * 400], dtype=object), r"'10000000000000000000000000000\.\.\.000000000' \(403 characters\)"),
])
def test_a_rank_outside_the_64_bit_range_is_refused_not_wrapped(ranks, shown):
    with pytest.raises(InputError, match=rf"^run DataFrame, row 1: rank {shown} is out of the 64-bit integer range$"):
        read_run(_run(ranks))


def test_a_rank_out_of_range_in_a_file_gets_the_same_words(tmp_path):
    (tmp_path / "run").write_text(f"q Q0 a 1 2 R\nq Q0 b {2**70} 1 R\n")
    with pytest.raises(InputError, match=r"run, line 2: rank '1180591620717411303424' is out of the 64-bit integer "
                                         r"range$"):
        read_run(tmp_path / "run")


@pytest.mark.parametrize("ranks, expected", [
    (pd.Series([1, 2**63 - 1], dtype=object), [1, 2**63 - 1]),  # rounds to 2**63 as a float: decided exactly
    (pd.Series([2**63 - 1, "3"], dtype=object), [2**63 - 1, 3]),
    (pd.Series([1, "9223372036854775807"], dtype=object), [1, 2**63 - 1]),
    (pd.Series([1, -(2**63)], dtype=object), [1, -(2**63)]),
    (np.array([1, 2**63 - 1], dtype=np.uint64), [1, 2**63 - 1]),
    (np.array([1.0, -(2.0**63)]), [1, -(2**63)]),
    (np.array([3, 2**62 + 1], dtype=np.int64), [3, 2**62 + 1]),
    (pd.Series([1, complex(-(2.0**63), 0)], dtype=object), [1, -(2**63)]),
    (pd.Series([1, "9223372036854775807.0"], dtype=object), [1, 2**63 - 1]),  # the exact decimal, not the float
    (pd.Series([1, "9.223372036854775807e18"], dtype=object), [1, 2**63 - 1]),
])
def test_ranks_at_the_edges_of_the_64_bit_range_are_kept_exactly(ranks, expected):
    assert read_run(_run(ranks))["rank"].tolist() == expected


@pytest.mark.parametrize("read, source, message", [
    (read_qrels, {"q": {"a": 10**400}}, r"^qrels dict, topic 'q', docno 'a': grade 1000000000000000000000000000"
                                        r"00\.\.\.0000000000 \(401 characters\) is not a finite number$"),
    (read_costs, {"q": {"a": 10**400}}, r"^costs dict, topic 'q', docno 'a': cost .* is not a finite number; costs "
                                        r"must be finite and > 0"),
])
def test_an_int_beyond_float64_is_not_a_finite_number(read, source, message):
    with pytest.raises(InputError, match=message):
        read(source)

