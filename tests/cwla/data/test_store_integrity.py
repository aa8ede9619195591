"""Run stores written atomically and checked on open: two writers racing for one folder, stores changed after
they were written, and a property test over stores damaged at random (bytes flipped, files cut or grown,
manifest fields edited, files removed)."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cwla
from cwla.data.store import manifest_digest
from cwla.errors import InputError, ParameterError

METRICS = ["nDCG@10", "AP", "RBP(p=0.8)+ERG", "NumRet"]


@pytest.fixture(scope="module")
def collection():
    return cwla.synthetic.collection(n_topics=6, n_runs=3, seed=11)


@pytest.fixture(scope="module")
def template(collection, tmp_path_factory):
    """A saved store and what its runs score."""
    qrels, runs = collection
    folder = cwla.read_runs(runs).save(tmp_path_factory.mktemp("template") / "store")
    return folder, cwla.evaluate(qrels, folder, METRICS)


def _copy(folder: Path, to: Path) -> Path:
    shutil.copytree(folder, to)
    return to


def _rewrite_manifest(folder: Path, edit) -> None:
    manifest = json.loads((folder / "manifest.json").read_text())
    edit(manifest)
    (folder / "manifest.json").write_text(json.dumps(manifest))


def _same_scores(a, b) -> None:
    assert a.runs == b.runs and a.topics == b.topics and a.labels == b.labels
    assert np.array_equal(a.values, b.values) and np.array_equal(a.residuals, b.residuals)


# ---------------------------------------------------------------------------
# two writers, one folder
# ---------------------------------------------------------------------------


def _race(k, run_set, root, rounds, barrier, results):
    for i in range(rounds):
        barrier.wait()
        try:
            run_set.save(root / f"store{i}")
            results.put((i, k, "saved"))
        except InputError as exc:
            results.put((i, k, f"InputError: {exc}"))
        except BaseException as exc:  # noqa: BLE001 - the test reports it
            results.put((i, k, f"{type(exc).__name__}: {exc}"))


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs the fork start method")
def test_two_processes_saving_into_one_folder_at_once_give_one_store_and_one_clear_error(collection, tmp_path):
    _, runs = collection
    writers = [cwla.read_runs({f"{who}{n}": run for n, run in enumerate(runs.values())}) for who in ("a", "b")]
    rounds = 50
    ctx = multiprocessing.get_context("fork")
    barrier, results = ctx.Barrier(2), ctx.Queue()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads (Python >= 3.12): ours do no numba
        workers = [ctx.Process(target=_race, args=(k, writers[k], tmp_path, rounds, barrier, results))
                   for k in range(2)]
        for w in workers:
            w.start()
    outcomes = {}
    for _ in range(2 * rounds):
        i, k, what = results.get(timeout=120)
        outcomes.setdefault(i, {})[k] = what
    for w in workers:
        w.join(timeout=60)
        assert w.exitcode == 0
    for i in range(rounds):
        saved = [k for k, what in outcomes[i].items() if what == "saved"]
        assert len(saved) == 1, outcomes[i]
        loser = outcomes[i][1 - saved[0]]
        assert loser.startswith("InputError: cannot write a run store to ") and (
            "something else was written there while this store was being written" in loser
            or "the folder is not empty (it holds a run store)" in loser), loser
        assert cwla.open_runs(tmp_path / f"store{i}").names == writers[saved[0]].names
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"store{i}" for i in range(rounds))  # no leftovers


def test_a_save_into_a_folder_that_fills_meanwhile_keeps_nothing(collection, tmp_path, monkeypatch):
    """Another writer's file appears between the emptiness check and the rename: the rename refuses, the
    temporary folder goes, the other's file stays."""
    import cwla.data.store as store

    _, runs = collection
    target = tmp_path / "store"
    target.mkdir()
    real = store._rename_onto

    def late(tmp, folder, what):
        (folder / "theirs.txt").write_text("x")
        return real(tmp, folder, what)

    monkeypatch.setattr(store, "_rename_onto", late)
    with pytest.raises(InputError, match="something else was written there while this store was being written"):
        cwla.read_runs(runs).save(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store"]
    assert [p.name for p in target.iterdir()] == ["theirs.txt"]


def test_a_store_saved_into_an_empty_folder_keeps_the_folders_permissions(collection, tmp_path):
    _, runs = collection
    target = tmp_path / "store"
    target.mkdir()
    os.chmod(target, 0o750)
    cwla.read_runs(runs).save(target)
    assert (target.stat().st_mode & 0o777) == 0o750 and cwla.open_runs(target).names == tuple(runs)


# ---------------------------------------------------------------------------
# stores changed after they were written
# ---------------------------------------------------------------------------


def test_a_pair_id_moved_to_another_topic_is_refused(template, tmp_path):
    folder, _ = template
    store = _copy(folder, tmp_path / "s")
    run_set = cwla.open_runs(store)
    first, second = int(run_set.pair_starts[0]), int(run_set.pair_starts[1])
    path = store / "doc_ids.npy"
    ids = np.load(path)
    ids[0] = second if ids[0] != second else first  # in range: only the checksum sees it
    np.save(path, ids)
    with pytest.raises(InputError, match=r"run store .*: doc_ids.npy was changed after the store was written "
                                         r"\(its xxh3_64 checksum is '[0-9a-f]{16}', its bytes give"):
        cwla.open_runs(store)
    assert cwla.open_runs(store, verify=False).doc_ids[0][0] == ids[0]  # verify=False: structure only


def test_lengths_shifted_between_topics_are_refused(template, tmp_path):
    folder, _ = template
    store = _copy(folder, tmp_path / "s")
    lengths = np.load(store / "lengths.npy")
    lengths[0, 0] -= 1
    lengths[0, 1] += 1  # same sum, same shapes
    np.save(store / "lengths.npy", lengths)
    with pytest.raises(InputError, match="lengths.npy was changed after the store was written"):
        cwla.open_runs(store)


def test_a_changed_lengths_file_is_named_not_the_doc_ids_it_disagrees_with(template, tmp_path):
    """Issue 41: a lengths.npy whose sum changed was reported as a doc_ids.npy of the wrong shape; with verify the
    checksum names lengths.npy, and without it the message names both files and what decides the shape."""
    folder, _ = template
    store = _copy(folder, tmp_path / "s")
    lengths = np.load(store / "lengths.npy")
    lengths[0, 0] += 1  # one more document than doc_ids.npy holds
    np.save(store / "lengths.npy", lengths)
    with pytest.raises(InputError, match="lengths.npy was changed after the store was written"):
        cwla.open_runs(store)
    with pytest.raises(InputError, match=r"doc_ids.npy has shape \(\d+,\), but the lengths of lengths.npy \(their "
                                         r"sum\) give \(\d+,\): one of them was changed"):
        cwla.open_runs(store, verify=False)


def test_a_manifest_dtype_that_differs_says_which_not_a_contradiction(template, tmp_path):
    """Issue 41: "holds int64 of shape (4420,); the manifest expects int64 of shape (4420,)" -- the manifest's
    dtype field differed in its spelling only; the message now says which field and what it should be."""
    folder, _ = template
    store = _copy(folder, tmp_path / "s")
    _rewrite_manifest(store, lambda m: m["arrays"]["lengths"].__setitem__("dtype", "int64"))
    with pytest.raises(InputError, match=r"manifest.json records the dtype 'int64' for lengths.npy; a run store "
                                         r"holds '<i8' \(int64\) there"):
        cwla.open_runs(store, verify=False)


def test_an_edited_manifest_is_refused(template, tmp_path):
    folder, expected = template
    store = _copy(folder, tmp_path / "s")
    _rewrite_manifest(store, lambda m: m["names"].reverse())
    with pytest.raises(InputError, match=r"manifest.json was changed after the store was written \(its xxh3_64 "
                                         r"checksum is '[0-9a-f]{16}', its content gives '[0-9a-f]{16}'\)"):
        cwla.open_runs(store)
    assert cwla.open_runs(store, verify=False).names == tuple(reversed(expected.runs))


def test_a_garbled_npy_header_is_an_input_error(template, tmp_path):
    folder, _ = template
    store = _copy(folder, tmp_path / "s")
    data = bytearray((store / "scores.npy").read_bytes())
    data[12:20] = b"'descr(("  # inside the header's dict: an unterminated token
    (store / "scores.npy").write_bytes(bytes(data))
    with pytest.raises(InputError, match=r"scores.npy is corrupt or truncated: its .npy header is unreadable"):
        cwla.open_runs(store)


def test_a_manifest_whose_topics_repeat_is_an_input_error(template, tmp_path):
    folder, _ = template
    store = _copy(folder, tmp_path / "s")
    _rewrite_manifest(store, lambda m: m["topics"].__setitem__(1, m["topics"][0]))
    with pytest.raises(InputError, match=r"manifest.json's 'topics' must be distinct; \['.*'\] appear more than once"):
        cwla.open_runs(store, verify=False)


def test_an_array_file_longer_than_its_header_says_is_refused(template, tmp_path):
    folder, _ = template
    store = _copy(folder, tmp_path / "s")
    with open(store / "doc_ids.npy", "ab") as f:
        f.write(b"\0" * 8)
    with pytest.raises(InputError, match=r"doc_ids.npy is corrupt or longer than its header says \([\d,]+ bytes, "
                                         r"its header and the manifest need [\d,]+\)"):
        cwla.open_runs(store, verify=False)


def test_a_version_1_store_opens_only_unverified(template, tmp_path):
    """Stores written before checksums (format version 1) open with verify=False."""
    folder, expected = template
    store = _copy(folder, tmp_path / "s")

    def old(m):
        m["version"] = 1
        del m["checksum"]
        for entry in m["arrays"].values():
            del entry["xxh3_64"]

    _rewrite_manifest(store, old)
    with pytest.raises(InputError, match="manifest.json records no xxh3_64 checksum .*open it with verify=False"):
        cwla.open_runs(store)
    _same_scores(cwla.evaluate(cwla.synthetic.collection(n_topics=6, n_runs=3, seed=11)[0],
                               cwla.open_runs(store, verify=False), METRICS), expected)


def test_the_manifest_records_every_arrays_checksum_and_its_own(template):
    folder, _ = template
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["version"] == cwla.data.runset.STORE_VERSION == 2
    assert manifest["checksum"] == {"xxh3_64": manifest_digest(manifest)}
    import xxhash

    for entry in manifest["arrays"].values():
        array = np.load(folder / entry["file"])
        assert entry["xxh3_64"] == xxhash.xxh3_64_hexdigest(np.ascontiguousarray(array).view(np.uint8))


def test_verify_must_be_a_flag(template):
    with pytest.raises(ParameterError, match="verify"):
        cwla.open_runs(template[0], verify="yes")


# ---------------------------------------------------------------------------
# the machine's record of files it has verified (cwla.data._verified)
# ---------------------------------------------------------------------------


@pytest.fixture
def record(tmp_path, monkeypatch):
    """An empty record in its own cache folder, and a count of the array files hashed."""
    from cwla.data import _verified, store

    monkeypatch.setattr(_verified, "cache_dir", lambda: str(tmp_path / "cache"))
    hashed = []
    scan = store._scan
    monkeypatch.setattr(store, "_scan", lambda path, *args: hashed.append(os.path.basename(path)) or scan(path, *args))
    return hashed


def _aged(folder: Path, monkeypatch) -> None:
    """Make the store's files look last changed long ago to the record: their modification times 100 s back,
    the clock the record reads 3 s on (past RACY_NS: their change times are now)."""
    from cwla.data import _verified

    from cwla.data import store

    old = _verified.now_ns() - 100 * 10**9
    for f in folder.iterdir():
        os.utime(f, ns=(old, old))
    monkeypatch.setattr(store, "now_ns", lambda: _verified.now_ns() + _verified.RACY_NS + 10**9)


def test_a_store_verified_once_is_not_hashed_again(template, tmp_path, record, monkeypatch):
    store = _copy(template[0], tmp_path / "s")
    _aged(store, monkeypatch)
    cwla.open_runs(store)
    assert sorted(record) == sorted(f for f in _FILES if f.endswith(".npy"))  # every array hashed once
    record.clear()
    _same_scores(cwla.evaluate(cwla.synthetic.collection(n_topics=6, n_runs=3, seed=11)[0], cwla.open_runs(store),
                               METRICS), template[1])
    assert record == []  # its stamps are unchanged: nothing hashed


def test_a_file_changed_after_it_was_recorded_is_hashed_again_and_refused(template, tmp_path, record, monkeypatch):
    store = _copy(template[0], tmp_path / "s")
    _aged(store, monkeypatch)
    cwla.open_runs(store)
    record.clear()
    ids = np.load(store / "doc_ids.npy")
    ids[[0, 1]] = ids[[1, 0]] if ids[0] != ids[1] else ids[[0, 1]] + [1, -1]  # same size, in range
    np.save(store / "doc_ids.npy", ids)
    with pytest.raises(InputError, match="doc_ids.npy was changed after the store was written"):
        cwla.open_runs(store)
    assert record == ["doc_ids.npy"]  # the only file whose stamp changed


def test_a_store_just_written_is_hashed_on_every_open(template, tmp_path, record):
    store = _copy(template[0], tmp_path / "s")  # its change times are now: within RACY_NS
    cwla.open_runs(store)
    first = sorted(record)
    record.clear()
    cwla.open_runs(store)
    assert sorted(record) == first and len(first) == 7
    assert not (tmp_path / "cache" / "verified-stores").exists()


def test_a_copied_store_or_a_garbled_record_is_hashed_again(template, tmp_path, record, monkeypatch):
    from cwla.data import _verified
    from cwla.data import store as store_module

    store = _copy(template[0], tmp_path / "s")
    _aged(store, monkeypatch)
    cwla.open_runs(store)
    (path,) = (tmp_path / "cache" / "verified-stores").iterdir()
    record.clear()
    path.write_text("{not json")
    cwla.open_runs(store)
    assert len(record) == 7 and json.loads(path.read_text())["folder"] == str(store)  # hashed and recorded again
    record.clear()
    monkeypatch.setattr(store_module, "now_ns", _verified.now_ns)  # the true clock again
    moved = store.rename(tmp_path / "moved")
    copy = _copy(moved, tmp_path / "copy")
    cwla.open_runs(moved)  # another folder: no record of it yet
    cwla.open_runs(copy)  # new files, new stamps (and within RACY_NS: not recorded)
    assert len(record) == 14
    assert _verified.recorded(str(copy)) == {}


def test_a_store_on_a_file_system_held_in_memory_is_never_recorded(template, tmp_path, record, monkeypatch):
    from cwla.data import _verified

    monkeypatch.setattr(_verified, "file_system", lambda folder: "tmpfs")
    store = _copy(template[0], tmp_path / "s")
    _aged(store, monkeypatch)
    cwla.open_runs(store)
    cwla.open_runs(store)
    assert len(record) == 14 and _verified.recorded(str(store)) == {}


def test_the_file_system_of_a_folder_is_read_from_the_mount_table(tmp_path):
    from cwla.data import _verified

    if not os.path.exists("/proc/self/mountinfo"):
        pytest.skip("no /proc/self/mountinfo (not Linux)")
    assert _verified.file_system("/proc/self") == "proc"
    assert _verified.file_system(str(tmp_path)) not in (None, "proc")
    table = tmp_path / "mountinfo"
    table.write_text("22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
                     "23 22 0:5 / /dev/shm rw,nosuid shared:2 - tmpfs tmpfs rw\n"
                     "24 22 0:6 / /data/my\\040disk rw shared:3 - xfs /dev/sdb1 rw\n"
                     "garbled line\n")
    kinds = {folder: _verified.file_system(folder, str(table)) for folder in
             ("/dev/shm/store", "/dev/shm", "/dev/shmx", "/data/my disk/store", "/data/my", "/home")}
    assert kinds == {"/dev/shm/store": "tmpfs", "/dev/shm": "tmpfs", "/dev/shmx": "ext4",
                     "/data/my disk/store": "xfs", "/data/my": "ext4", "/home": "ext4"}
    assert _verified.file_system("/home", str(tmp_path / "none")) is None


def test_forget_drops_the_record(template, tmp_path, record, monkeypatch):
    from cwla.data import _verified

    store = _copy(template[0], tmp_path / "s")
    _aged(store, monkeypatch)
    cwla.open_runs(store)
    assert _verified.recorded(str(store))
    _verified.forget(str(store))
    assert _verified.recorded(str(store)) == {}


def test_without_a_cache_folder_every_open_hashes(template, tmp_path, record, monkeypatch):
    from cwla.data import _verified

    monkeypatch.setattr(_verified, "cache_dir", lambda: None)
    store = _copy(template[0], tmp_path / "s")
    _aged(store, monkeypatch)
    cwla.open_runs(store)
    cwla.open_runs(store)
    assert len(record) == 14


def test_a_file_removed_while_the_store_is_opened_is_an_input_error(template, tmp_path, monkeypatch):
    from cwla.data import store as store_module

    store = _copy(template[0], tmp_path / "s")

    def gone(path):
        raise FileNotFoundError(2, "No such file or directory", path)

    monkeypatch.setattr(store_module, "stamp", gone)
    with pytest.raises(InputError, match=r"run store .*: \w+\.npy cannot be read \(No such file or directory\); "
                                         r"was the store removed or changed while it was opened\?"):
        cwla.open_runs(store)


# ---------------------------------------------------------------------------
# stores damaged at random
# ---------------------------------------------------------------------------

_FILES = ["manifest.json", "doc_ids.npy", "scores.npy", "lengths.npy", "pair_starts.npy", "docno_offsets.npy",
          "docno_hashes.npy", "docno_blob.npy"]
_FIELDS = ["names", "topics", "ties", "order", "version", "format", "checksum", "arrays"] + \
    [f"arrays.{key}.{field}" for key in ("doc_ids", "scores", "lengths", "pair_starts", "docno_offsets",
                                         "docno_hashes", "docno_blob") for field in ("file", "dtype", "shape", "xxh3_64")]
_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 10**6), st.floats(allow_nan=True),
                    st.text(max_size=8), st.lists(st.integers(-2, 50), max_size=3), st.lists(st.text(max_size=3),
                                                                                           max_size=3),
                    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))


@st.composite
def _damage(draw):
    how = draw(st.sampled_from(["flip", "truncate", "grow", "edit", "remove", "swap"]))
    file = draw(st.sampled_from(_FILES))
    if how == "flip":
        return how, file, (draw(st.integers(0, 10**9)), draw(st.integers(1, 255)))
    if how in ("truncate", "grow"):
        return how, file, draw(st.integers(0, 10**9))
    if how == "edit":
        return how, draw(st.sampled_from(_FIELDS)), draw(_VALUES)
    if how == "swap":
        return how, file, draw(st.sampled_from(_FILES))
    return how, file, None


def _apply(store: Path, damage) -> None:
    """One damage; a damage to what an earlier one removed or broke does nothing."""
    how, what, arg = damage
    if how == "edit":
        try:
            manifest = json.loads((store / "manifest.json").read_text())
            *path, last = what.split(".")
            node = manifest
            for key in path:
                node = node[key]
            node[last] = arg
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            return
        (store / "manifest.json").write_text(json.dumps(manifest))
        return
    path = store / what
    if not path.exists() or (how == "swap" and not (store / arg).exists()):
        return
    data = bytearray(path.read_bytes())
    if not data and how in ("flip", "truncate"):
        return
    if how == "flip":
        data[arg[0] % len(data)] ^= arg[1]
    elif how == "truncate":
        data = data[:arg % len(data)]
    elif how == "grow":
        data += bytes([arg % 256]) * (1 + arg % 64)
    elif how == "remove":
        path.unlink()
        return
    elif how == "swap":
        other = store / arg
        data, other_data = other.read_bytes(), bytes(data)
        other.write_bytes(other_data)
    path.write_bytes(bytes(data))


@pytest.mark.slow
@settings(max_examples=240, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(damages=st.lists(_damage(), min_size=1, max_size=3))
def test_a_damaged_store_scores_as_the_original_or_is_refused(template, collection, tmp_path_factory, damages):
    """240 stores damaged at random (derandomised): each opens and scores exactly as the original, or is
    refused with an InputError; unverified, it is refused or scores without a crash."""
    folder, expected = template
    qrels, _ = collection
    store = _copy(folder, tmp_path_factory.mktemp("damaged") / "s")
    for damage in damages:
        _apply(store, damage)
    try:
        opened = cwla.open_runs(store)
    except InputError as exc:
        assert str(exc).startswith(f"run store {store}")
    else:
        _same_scores(cwla.evaluate(qrels, opened, METRICS), expected)
    try:
        unverified = cwla.open_runs(store, verify=False)
    except InputError:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            cwla.evaluate(qrels, unverified, METRICS)  # other numbers may come out, never a crash
        except InputError:
            pass
    shutil.rmtree(store.parent)
