"""Compiling ahead (cwla/_ahead.py): when the second process starts, and how the first waits for its kernels.
The cold runs themselves are in tests/project/test_compile_set.py."""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from cwla import _ahead


@pytest.fixture
def fresh(monkeypatch):
    """A process that has not started the second one yet; ``started`` lists the keys it would start it with."""
    started = []
    monkeypatch.setattr(_ahead, "_started", False)
    monkeypatch.setattr(_ahead, "_worker", None)
    monkeypatch.setattr(_ahead, "_owner", 0)
    monkeypatch.setattr(_ahead, "_start", lambda key, folder: started.append(key))
    monkeypatch.setattr(_ahead, "_cores", lambda: 2)
    monkeypatch.delenv(_ahead.ENV, raising=False)
    monkeypatch.delenv(_ahead._CHILD, raising=False)
    return started


def _never():
    raise AssertionError("the cache is read again only for a kernel of AHEAD while the second process runs")


def test_the_readers_first_miss_starts_it_once(fresh):
    assert _ahead.after_a_miss("cwla.scoring.kernels.score_cells_metrics", "k", "cache", _never) is None  # no process yet
    assert fresh == []
    assert _ahead.after_a_miss("cwla.data._tokenize.check_bytes", "k", "cache", _never) is None  # compiled here
    assert _ahead.after_a_miss("cwla.data._tokenize._scan", "k", "cache", _never) is None
    assert fresh == ["k"]


@pytest.mark.parametrize("setting", ["off", "child", "one core", "no interpreter", "frozen"])
def test_it_does_not_start_when_turned_off_in_the_second_process_on_one_core_or_without_python(
        fresh, monkeypatch, setting):
    if setting == "off":
        monkeypatch.setenv(_ahead.ENV, "0")
    elif setting == "child":
        monkeypatch.setenv(_ahead._CHILD, "1")
    elif setting == "one core":
        monkeypatch.setattr(_ahead, "_cores", lambda: 1)
    elif setting == "no interpreter":
        monkeypatch.setattr("sys.executable", "")
    else:
        monkeypatch.setattr("sys.frozen", True, raising=False)
    _ahead.after_a_miss("cwla.data._tokenize.check_bytes", "k", "cache", _never)
    assert fresh == []


class _Worker:
    """A second process that ends after ``polls`` polls."""

    def __init__(self, polls):
        self.polls = polls
        self.stopped = False

    def poll(self):
        self.polls -= 1
        return 0 if self.polls < 0 or self.stopped else None

    def terminate(self):
        self.stopped = True

    def wait(self, timeout=None):
        return 0


def _running(monkeypatch, polls, since=None):
    worker = _Worker(polls)
    monkeypatch.setattr(_ahead, "_worker", worker)
    monkeypatch.setattr(_ahead, "_owner", os.getpid())
    monkeypatch.setattr(_ahead, "_since", time.monotonic() if since is None else since)
    monkeypatch.setattr(_ahead, "_POLL", 0.0)
    return worker


def _loads(results):
    calls = []

    def load():
        calls.append(1)
        return results[len(calls) - 1] if len(calls) <= len(results) else None

    return load, calls


def test_a_kernel_of_the_second_process_is_waited_for_until_the_cache_has_it(fresh, monkeypatch):
    _running(monkeypatch, polls=100)
    load, calls = _loads([None, None, "kernel"])
    assert _ahead.after_a_miss("cwla.data._join.join_run", "k", "cache", load) == "kernel" and len(calls) == 3
    # a kernel the second process does not compile is compiled here at once
    assert _ahead.after_a_miss("cwla.scoring.kernels.trec_cells", "k", "cache", _never) is None


def test_when_the_second_process_ends_without_it_the_kernel_is_compiled_here(fresh, monkeypatch):
    _running(monkeypatch, polls=3)
    load, calls = _loads([])
    assert _ahead.after_a_miss("cwla.data._join.join_run", "k", "cache", load) is None and len(calls) == 4


def test_a_second_process_running_too_long_is_stopped_and_the_rest_compiled_here(fresh, monkeypatch):
    worker = _running(monkeypatch, polls=100, since=time.monotonic() - _ahead._PATIENCE - 1)
    assert _ahead.after_a_miss("cwla.data._join.join_run", "k", "cache", _never) is None
    assert worker.stopped and _ahead._worker is None
    assert _ahead.after_a_miss("cwla.data._join.order_cells", "k", "cache", _never) is None


def test_a_forked_child_does_not_wait_for_its_parents_second_process(fresh, monkeypatch):
    _running(monkeypatch, polls=100)
    monkeypatch.setattr(_ahead, "_owner", os.getpid() + 1)
    assert _ahead.after_a_miss("cwla.data._join.join_run", "k", "cache", _never) is None


def _second(key, folder):
    """The second process's exit code, run as the first would start it (but for the one starting it)."""
    env = {**os.environ, _ahead._CHILD: "1", "CWLA_CACHE_DIR": os.path.dirname(folder)}
    return subprocess.run(_ahead.command(key, folder), env=env, capture_output=True, timeout=120).returncode


def test_the_second_process_compiles_nothing_for_other_sources_another_folder_or_beside_another(tmp_path):
    from cwla._numba import _sources_key, cache_dir

    fcntl = pytest.importorskip("fcntl")
    folder = cache_dir()
    if folder is None:
        pytest.skip("no writable kernel cache here")
    key = _sources_key()[0]
    assert _second("0" * 32, folder) == 2
    assert _second(key, str(tmp_path / "elsewhere")) == 2
    with open(os.path.join(folder, ".compile-ahead.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another second process compiling into this folder
        try:
            assert _second(key, folder) == 2
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
