"""Chen & Sakai's names of metrics (``MODEL_AGG``: ``RBP_ERG``, ``INST_PE``, ``ERR_ERR``): the browsing models'
parameters of their 6 x 7 grid, and the model names users write from other tools' habits. The parser
(:mod:`cwla.metrics.text`) reads the names.
"""

from __future__ import annotations

from .browsing import AP, DCG, ERR, INST, RBP, Precision

__all__ = ["CHEN_SAKAI_DEFAULTS", "MODEL_HINTS"]

#: Chen & Sakai 2023's parameters for their 6 x 7 grid (their AP is cwl_eval's: R = the relevant documents
#: retrieved; see cwla.metrics.grid.chen_sakai_paper_grid).
CHEN_SAKAI_DEFAULTS = {
    "Precision": Precision(k=10),
    "DCG": DCG(k=10),
    "RBP": RBP(p=0.8),
    "INST": INST(T=2.5),
    "AP": AP(R="retrieved"),
    "ERR": ERR(),
}

#: model names users write in a MODEL_AGG name from other tools' habits (``P_ERG``, ``map_ERG``, ``ndcg_ERG``)
MODEL_HINTS = {"p": "Precision", "prec": "Precision", "map": "AP", "ndcg": "DCG", "sdcg": "DCG", "mrr": "RR"}
