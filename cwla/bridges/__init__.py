"""cwla inside the tools people already run: the ``cwla`` command (trec_eval's flags and output,
:mod:`cwla.bridges.cli`), cwl_eval's drop-in (:mod:`cwla.bridges.cwl`) and the ir_measures / PyTerrier
provider (:mod:`cwla.bridges.ir_measures`, which needs ir_measures: imported on first use)."""
