"""Property-testing kit for metrics: Hypothesis strategies and invariant checks.

Point it at a metric you composed yourself::

    from hypothesis import given
    from cwla import Metric, INST, PE
    from cwla.testing import collections, check_invariants

    MY_METRIC = Metric(INST(T=2.5), PE(beta=0.5), cutoff=10, depth=10, stop=True)

    @given(collections())
    def test_my_metric(data):
        qrels, runs = data
        check_invariants(MY_METRIC, qrels, runs)

Needs the ``hypothesis`` package (``pip install cwla[testing]``).
"""

from .invariants import (
    check_bounds,
    check_invariants,
    check_order_invariance,
    check_round_trip,
    check_stop_normalises,
    check_swap_monotone,
    check_unjudged_as_nonrelevant,
)
from .strategies import (aggregations, browsing_models, collections, counting_measures, declared, gain_maps, metrics,
                         rankings, tabulated_models)

__all__ = [
    "collections", "rankings", "metrics", "counting_measures", "browsing_models", "aggregations", "gain_maps",
    "declared", "tabulated_models",
    "check_invariants", "check_bounds", "check_order_invariance", "check_unjudged_as_nonrelevant",
    "check_swap_monotone", "check_stop_normalises", "check_round_trip",
]
