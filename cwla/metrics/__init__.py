"""The metric language: browsing models C(i), aggregations A(i), gain maps, the measures outside C/W/L/A,
metrics composed of them, their one canonical text (printed and parsed) and Chen & Sakai's grid."""

from ._declare import Param
from .aggregations import ERG, ETG, PE, Aggregation, Avg, ERRAgg, Fin, Max
from .browsing import (AP, BPM, DCG, ERR, IFT, INSQ, INST, MODELS, NERR8, NERR9, NERR10, NERR11, NPV, RBP, RR, SET,
                       TBG, U, BrowsingModel, IFTGoal, IFTRate, Precision, Reciprocal, Tabulated, register_table,
                       tabulated)
from .counting import (Bpref, CountingMeasure, IPrec, Judged, NumQ, NumRel, NumRelRet, NumRet, Recall, RPrec, SetAP,
                       SetF, SetP)
from .gains import Binary, Exponential, GainMap, Linear, Regrade, Scaled, Table
from .grid import all_combinations, chen_sakai_grid, chen_sakai_metrics, chen_sakai_names, chen_sakai_paper_grid
from .metric import DEFAULTS, Metric
from .register import register_model
from .text import parse_gain, parse_metric

__all__ = [
    "AP", "DCG", "ERR", "INST", "RBP", "Precision", "BrowsingModel",
    "RR", "INSQ", "NERR8", "NERR9", "NERR10", "NERR11", "BPM", "TBG", "U", "IFTGoal", "IFTRate", "IFT", "SET", "NPV", "Reciprocal",
    "Tabulated", "tabulated", "register_table", "register_model", "Param", "MODELS",
    "ERG", "ETG", "Avg", "Max", "Fin", "PE", "ERRAgg", "Aggregation",
    "Linear", "Exponential", "Binary", "Scaled", "Table", "Regrade", "GainMap", "parse_gain",
    "CountingMeasure", "Recall", "RPrec", "Bpref", "Judged", "SetP", "SetF", "SetAP", "IPrec",
    "NumRel", "NumRet", "NumRelRet", "NumQ", "Metric", "DEFAULTS", "parse_metric",
    "all_combinations", "chen_sakai_metrics", "chen_sakai_names", "chen_sakai_grid", "chen_sakai_paper_grid",
]
