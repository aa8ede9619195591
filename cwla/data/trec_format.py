"""The TREC file formats, declared once for both of cwla's parsers (the fast tokenizer of
:mod:`cwla.data._tokenize` and the careful readers of :mod:`cwla.data.readers`): the line layouts and the
grammar of a number.

A qrels line is ``qid iter docno grade``, a run line ``qid Q0 docno rank score tag`` (more fields are
allowed and ignored, as trec_eval does). A number is what pandas' C parser reads: an optional sign,
digits with an optional decimal point, an optional exponent (:data:`FLOAT_RE`); ``inf`` and ``nan``
are numbers in that grammar's sense only to be refused as not finite (:data:`NONFINITE_RE`).
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["QRELS_LAYOUT", "RUN_LAYOUT", "COSTS_LAYOUT", "FLOAT_RE", "INT_RE", "NONFINITE_RE", "Format", "QRELS_FORMAT",
           "COSTS_FORMAT", "RUN_FORMAT", "COST_RULE", "INT64_MIN", "INT64_MAX", "TOPIC_NAMES",
           "DOCNO_NAMES"]

#: the fields of a qrels line
QRELS_LAYOUT = "qid iter docno grade"
#: the fields of a costs file line (``cwla.read_costs``): a qrels line whose fourth field is the cost
COSTS_LAYOUT = "qid iter docno cost"
#: the fields of a run line (the first six are used)
RUN_LAYOUT = "qid Q0 docno rank score tag"

#: a decimal number
FLOAT_RE = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z", re.ASCII)
#: an integer
INT_RE = re.compile(r"[+-]?\d+\Z", re.ASCII)
#: what reads as infinity or not-a-number
NONFINITE_RE = re.compile(r"[+-]?(?:inf|infinity|nan)\Z", re.IGNORECASE)

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


class Format(NamedTuple):
    """Layout of one input kind (qrels or run)."""

    kind: str  # "qrels" or "run"
    layout: str  # the fields of a file line, for messages
    ncols: int  # number of fields of a file line (a run line may have more: the first ncols are used)
    extra_columns: bool  # lines may have more than ncols fields (trec_eval reads the first 6 of a run line)
    comments: bool  # lines whose first field starts with '#' are comments (trec_eval 10's qrels)
    # (file field, column, kind): kind "float" (a finite number), "cost" (a finite number > 0) or "int" (an
    # integer in the 64-bit range)
    numeric: tuple[tuple[int, str, str], ...]
    value: str  # the canonical name of the value column: "grade", "score" or "cost"
    # names an in-memory source may give each column (DataFrame columns, record attributes), preferred first:
    # ours, ir_datasets / ir_measures', PyTerrier's
    names: dict[str, tuple[str, ...]]
    output: tuple[str, ...]  # columns of the canonical frame, in order

    @property
    def accepted_columns(self) -> str:
        """The accepted column names, for messages."""
        parts = [" or ".join(self.names[role]) for role in ("topic", "docno", self.value)]
        rank = "[, rank]" if "rank" in self.names else ""
        return ", ".join(parts) + rank


TOPIC_NAMES = ("topic", "query_id", "qid")
DOCNO_NAMES = ("docno", "doc_id")

QRELS_FORMAT = Format(
    kind="qrels",
    layout=QRELS_LAYOUT,
    ncols=4,
    extra_columns=False,
    comments=True,
    numeric=((3, "grade", "float"),),
    value="grade",
    names={"topic": TOPIC_NAMES, "docno": DOCNO_NAMES, "grade": ("grade", "relevance", "label")},
    output=("topic", "docno", "grade"),
)

# a costs file is a qrels file whose fourth field is the cost; a qrels frame with the cost in its grade column
# is a costs frame too
COSTS_FORMAT = QRELS_FORMAT._replace(
    kind="costs",
    layout=COSTS_LAYOUT,
    numeric=((3, "cost", "cost"),),
    value="cost",
    names={"topic": TOPIC_NAMES, "docno": DOCNO_NAMES, "cost": ("cost", *QRELS_FORMAT.names["grade"])},
    output=("topic", "docno", "cost"),
)

#: what a cost must be, for the messages
COST_RULE = "costs must be finite and > 0 (cwl_eval: no free lunches)"

RUN_FORMAT = Format(
    kind="run",
    layout=RUN_LAYOUT,
    ncols=6,
    extra_columns=True,
    comments=False,
    numeric=((3, "rank", "int"), (4, "score", "float")),
    value="score",
    names={"topic": TOPIC_NAMES, "docno": DOCNO_NAMES, "score": ("score",), "rank": ("rank",)},
    output=("topic", "docno", "score", "rank"),
)
