"""Gain aggregations A(i): what the user has when stopping at rank i.

The score of a metric is sum_{i<=H} L(i) A(i) (Moffat et al., SIGIR 2022;
Chen & Sakai 2023 name the seven below). cg(i) = sum_{j<=i} r_j, E = sum_{i<=H} V(i).

=============  =========================================  ==================================
aggregation    A(i)                                       reading
=============  =========================================  ==================================
``ERG``        cg(i) / E                                  expected rate of gain (cwl EU)
``ETG``        cg(i)                                      expected total gain (cwl ETU)
``avg``        cg(i) / i                                  average gain of what was read
``max``        max_{j<=i} r_j                             the best document seen
``fin``        r_i                                        the last document seen
``PE(beta)``   beta max_{j<=i} r_j + (1 - beta) r_i       peak-end rule (Kahneman)
``ERR``        1 / i                                      reciprocal rank of the stop
=============  =========================================  ==================================
"""

from __future__ import annotations

from ._declare import Param, declare

__all__ = ["Aggregation", "ERG", "ETG", "Avg", "Max", "Fin", "PE", "ERRAgg", "AGGREGATIONS"]


class Aggregation:
    """Base class of the aggregations. ``code`` and ``params`` are what the kernels see."""

    #: True when A(i) does not depend on the gains (only the ERR aggregation).
    gain_free = False
    declared: tuple = ()


ERG = declare(Aggregation, "ERG", 0, formula="cg(i) / E", reference="Moffat et al. 2022 (cwl_eval's EU)",
              doc="Expected rate of gain: A(i) = cg(i) / E.")
ETG = declare(Aggregation, "ETG", 1, formula="cg(i)", reference="Moffat et al. 2022 (cwl_eval's ETU)",
              doc="Expected total gain: A(i) = cg(i).")
Avg = declare(Aggregation, "Avg", 2, text="avg", formula="cg(i) / i", reference="Chen & Sakai 2023",
              doc="Average gain: A(i) = cg(i) / i.")
Max = declare(Aggregation, "Max", 3, text="max", formula="max_{j<=i} r_j", reference="Chen & Sakai 2023",
              doc="Maximum gain seen: A(i) = max_{j<=i} r_j.")
Fin = declare(Aggregation, "Fin", 4, text="fin", formula="r_i", reference="Chen & Sakai 2023",
              doc="Final gain: A(i) = r_i.")
PE = declare(Aggregation, "PE", 5, [Param("beta", "float", 0.5, 0.0, 1.0, rule="in [0, 1]", doc="weight of the peak")],
             formula="beta max_{j<=i} r_j + (1 - beta) r_i", reference="Chen & Sakai 2023 (Kahneman's peak-end rule)",
             doc="Peak-end: A(i) = beta max_{j<=i} r_j + (1 - beta) r_i.")
ERRAgg = declare(Aggregation, "ERRAgg", 6, text="ERR", formula="1 / i", reference="Chapelle et al. 2009", gain_free=True,
                 doc="Reciprocal rank of the stopping point: A(i) = 1 / i.")
#: Name -> class, in Chen & Sakai's order.
AGGREGATIONS = {cls.name: cls for cls in (ERG, ETG, Avg, Max, Fin, PE, ERRAgg)}
