"""The input types of the public API, named once: what signatures, docstrings and the API reference show.

Every reader accepts more than a type checker can say (an object with ``to_dict()``, as ranx's
``Qrels`` and ``Run``, or an iterable of ir_datasets' namedtuples): these aliases name the forms, and
:func:`cwla.read_qrels` / :func:`cwla.read_runs` check them at run time with clear errors.
The public home of the aliases is this module, ``cwla.typing`` (as ``numpy.typing``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Union

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

# the types below are named as strings (forward references), not imported: this module sits under
# every other one of cwla, so that any of them can use the aliases

__all__ = ["PathLike", "QrelsLike", "RunLike", "RunsLike", "MetricLike", "MetricsLike", "Matrix", "ArrayLike",
           "SubtopicsLike"]

#: a file path (text or gzip; ``-`` is not special)
PathLike = Union[str, "os.PathLike[str]"]
#: qrels: a TREC qrels file, a frame (ours, PyTerrier's, ir_datasets'), ``{topic: {docno: grade}}``,
#: records with query_id, doc_id, relevance, or an object with ``to_dict()`` of that shape
QrelsLike = Union[PathLike, pd.DataFrame, Mapping[str, Mapping[str, float]], Iterable[object]]
#: subtopic qrels (``cwla.read_subtopics``): an ndeval file, a frame ``topic, subtopic, docno, grade``, a dict
#: ``{topic: {subtopic: {docno: grade}}}``, or Subtopics read before
SubtopicsLike = Union[PathLike, pd.DataFrame, Mapping[str, Mapping[str, Mapping[str, float]]], "Subtopics"]
#: one run: a TREC run file, a frame, ``{topic: {docno: score}}``, records, an object with ``to_dict()``
RunLike = Union[PathLike, pd.DataFrame, Mapping[str, Mapping[str, float]], Iterable[object]]
#: runs: one run, a list of them, ``{name: run}``, a frame with a system column, or a RunSet
RunsLike = Union[RunLike, Sequence[RunLike], Mapping[str, RunLike], "RunSet"]
#: a metric: a text any of whose names cwla parses, a Metric or a counting measure
MetricLike = Union[str, "Metric", "CountingMeasure"]
#: metrics: one, a sequence, or ``{label: metric}``
MetricsLike = Union[MetricLike, Sequence[MetricLike], Mapping[str, MetricLike]]
#: a topics x systems score matrix
Matrix = Union[np.ndarray, ArrayLike, pd.DataFrame]
