"""What checking the declared parameters costs a call: each entry point timed as called and unchecked.

    python benchmarks/bench_checks.py [--calls N] [--repeats R]

Every public function that declares its parameters' constraints (``validate_params``) checks and converts
them before its body runs. This times a few cheap entry points, where that check weighs most, as users call
them and through ``func.__wrapped__`` (the body alone, the arguments already valid), and prints the median
microseconds a call and the difference: the price of the declared checks. No data needed.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import discpower


def _per_call(func, args, kwargs, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        func(*args, **kwargs)
    return (time.perf_counter() - start) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    a, b = rng.random(30), rng.random(30)
    p = rng.random(50)
    cases = {
        "kendall_tau_b (30 systems)": (discpower.kendall_tau_b, (a, b), {"tie_tolerance": 0.0}),
        "adjust_pvalues (50, holm)": (discpower.adjust_pvalues, (p, "holm"), {"alpha": 0.05}),
        "tau_confidence_interval": (discpower.tau_confidence_interval, (0.5, 30), {"level": 0.95}),
        "design_power (paired_t)": (discpower.design_power, ("paired_t", 50), {"min_diff": 0.05, "variance": 0.02}),
    }
    print(f"{'entry point':30} {'checked µs':>11} {'body µs':>9} {'checks µs':>10}   (medians of {args.repeats} x "
          f"{args.calls} calls)")
    for name, (func, fargs, fkwargs) in cases.items():
        func(*fargs, **fkwargs)  # warm: imports, kernels
        checked, body = [], []
        for _ in range(args.repeats):  # interleaved
            checked.append(_per_call(func, fargs, fkwargs, args.calls))
            body.append(_per_call(func.__wrapped__, fargs, fkwargs, args.calls))
        c, u = statistics.median(checked), statistics.median(body)
        print(f"{name:30} {c:11.1f} {u:9.1f} {c - u:10.1f}")


if __name__ == "__main__":
    main()
