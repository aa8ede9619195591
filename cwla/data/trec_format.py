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

__all__ = ["QRELS_LAYOUT", "RUN_LAYOUT", "COSTS_LAYOUT", "FLOAT_RE", "INT_RE", "NONFINITE_RE"]

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
