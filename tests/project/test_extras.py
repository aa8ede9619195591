""".ci/extras.py, the check CI runs in a venv holding one extra alone, works here too (with the packages this
environment has), and fails loudly: an unknown extra is a usage error."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow  # fresh processes: the slow tier

SCRIPT = ROOT / ".ci" / "extras.py"
#: the module each extra brings
NEEDS = {"testing": "hypothesis", "plots": "matplotlib", "ir-measures": "ir_measures", "pyterrier": "pyterrier"}


@pytest.mark.parametrize("extra", list(NEEDS))
def test_each_extras_check_passes_where_its_packages_are(extra):
    if importlib.util.find_spec(NEEDS[extra]) is None:
        pytest.skip(f"needs {NEEDS[extra]} (the {extra} extra)")
    done = subprocess.run([sys.executable, str(SCRIPT), extra], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"extra {extra!r} works alone" in done.stdout


def test_an_unknown_extra_is_a_usage_error():
    done = subprocess.run([sys.executable, str(SCRIPT), "nope"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "usage: python .ci/extras.py" in done.stderr
