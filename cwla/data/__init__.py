"""Files to run store to collection: the readers of qrels and runs (TREC files, frames, dicts, records),
the run store (:class:`RunSet`: runs read once, saved and opened memory-mapped), qrels joined with runs
(:class:`Collection`), ndeval's subtopic qrels (:class:`Subtopics`), the opener and writer of files, and the
synthetic collection."""

from . import synthetic
from .collection import Collection, Judgements, prepare
from .readers import read_costs, read_qrels, read_run, run_name
from .runset import RunSet, is_run_store, open_runs, read_runs
from .subtopics import Subtopics, read_subtopics

__all__ = ["read_qrels", "read_run", "read_costs", "run_name", "read_runs", "RunSet", "open_runs", "is_run_store",
           "Judgements", "Collection", "prepare", "synthetic", "read_subtopics", "Subtopics"]
