"""Shared fixtures: the location of ../shared/data and Hypothesis profiles.

Hypothesis runs with ``deadline=None``: numba compiles (or loads from its cache)
on the first example, which would trip a per-example deadline.
"""

import os
import sys
from pathlib import Path

# Before any numba kernel starts its OpenMP threads (and inherited by the tests' subprocesses): a thread that
# finished its share of a parallel kernel sleeps instead of spinning. With two test workers on two cores each
# worker's spinning threads took the CPU the other needed: the fast tier 55-59 -> 45-48 s wall, 95-102 -> 76-81 s
# CPU (2026-12-07). docs/performance.md says when this helps a user.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("ci", deadline=None, max_examples=120, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("dev", deadline=None, max_examples=20,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

#: the repository
ROOT = Path(__file__).resolve().parents[1]
#: ../shared/data beside the repository (absent on a bare checkout: those tests skip)
SHARED = ROOT.parent / "shared" / "data"


def site_hooks():
    """docs/_site_hooks.py, the site's build hooks (its ENTRY_POINTS), imported without mkdocs."""
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import _site_hooks
    finally:
        sys.path.pop(0)
    return _site_hooks


def shared_path(*parts) -> Path:
    """A path under ../shared/data, or skip the test when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"needs {path} (the shared TREC data beside the repository)")
    return path


@pytest.fixture(scope="session")
def mini():
    """The DL19 mini collection: (qrels path, sorted run paths, reference-outputs dir)."""
    root = shared_path("trec-dl-2019-passage-mini")
    return root / "qrels" / "qrels.dl19-passage.txt", sorted((root / "runs").iterdir()), root / "reference-outputs"


@pytest.fixture
def one_mib(monkeypatch):
    """Pretend 1 MiB of memory is available (discpower's memory checks)."""
    from discpower.stats import memory

    monkeypatch.setattr(memory, "available_memory", lambda: 2**20)
