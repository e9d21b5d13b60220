"""save/load: PyTorch's checkpoint format, loaded without running code; the former format (a
zip of .npy arrays and a JSON manifest) still loads; corrupt files fail clearly.

Checks against real PyTorch are in test_checkpoints_torch.py."""

from __future__ import annotations

import io
import json
import math
import os
import pickle
import signal
import subprocess
import sys
import tracemalloc
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import autograd_compat as torch
import autograd_compat.nn as nn
from autograd_compat._serialization.pickler import SavedStorage
from tests._helpers.paths import TESTS


def test_round_trip_of_nested_objects(tmp_path):
    shared = torch.arange(6).reshape(2, 3)
    obj = {
        "float": torch.tensor([1.5, -2.0], requires_grad=True),
        "bf16": torch.ones(2, dtype=torch.bfloat16),
        "ints": [shared, shared, (1, 2.5, "x", None, True)],
        3: {"nan": float("nan"), "inf": -math.inf, "c": 1 + 2j, "bytes": b"\x00\x01"},
        "meta": (torch.float64, torch.device("cpu"), torch.Size([2, 3])),
        "set": {1, 2},
    }
    path = tmp_path / "obj.pt"
    torch.save(obj, path)
    back = torch.load(path)
    assert back["float"].requires_grad and back["float"].tolist() == [1.5, -2.0]
    assert back["bf16"].dtype is torch.bfloat16
    assert back["ints"][0] is back["ints"][1]  # shared tensors stay shared
    assert back["ints"][2] == (1, 2.5, "x", None, True)
    assert math.isnan(back[3]["nan"]) and back[3]["inf"] == -math.inf and back[3]["c"] == 1 + 2j
    assert back[3]["bytes"] == b"\x00\x01" and back["set"] == {1, 2}
    assert back["meta"] == (torch.float64, torch.device("cpu"), torch.Size([2, 3]))
    with zipfile.ZipFile(path) as archive:  # PyTorch's layout; the shared tensor stored once
        assert sorted(archive.namelist()) == [
            "obj/.data/serialization_id",
            "obj/.format_version",
            "obj/.storage_alignment",
            "obj/byteorder",
            "obj/data.pkl",
            "obj/data/0",
            "obj/data/1",
            "obj/data/2",
            "obj/version",
        ]
        assert archive.read("obj/data/2") == np.arange(6, dtype=np.int64).tobytes()
    # numpy objects are pickled as PyTorch pickles them: loading them needs weights_only=False
    torch.save({"numpy": np.arange(4, dtype=np.int16), "scalar": np.float32(0.25)}, path)
    with pytest.raises(pickle.UnpicklingError, match="weights_only"):
        torch.load(path)
    back = torch.load(path, weights_only=False)
    assert back["numpy"].dtype == np.int16 and back["scalar"] == np.float32(0.25)


def test_state_dicts_and_optimizer_states(tmp_path):
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    model(torch.randn(5, 3)).sum().backward()
    opt.step()
    buffer = io.BytesIO()
    torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, buffer)
    buffer.seek(0)
    checkpoint = torch.load(buffer, map_location="cpu", weights_only=True)
    assert isinstance(checkpoint["model"], OrderedDict)
    assert list(checkpoint["model"]) == list(model.state_dict())
    assert checkpoint["model"]._metadata == model.state_dict()._metadata
    fresh = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    fresh.load_state_dict(checkpoint["model"])
    for a, b in zip(fresh.state_dict().values(), model.state_dict().values()):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    fresh_opt = torch.optim.Adam(fresh.parameters(), lr=0.01)
    fresh_opt.load_state_dict(checkpoint["opt"])
    assert fresh_opt.state_dict()["param_groups"] == opt.state_dict()["param_groups"]
    assert fresh_opt.state_dict()["state"][0]["step"].item() == 1.0
    param = nn.Parameter(torch.ones(2))
    torch.save(param, tmp_path / "p.pt")
    loaded = torch.load(tmp_path / "p.pt")
    assert type(loaded) is nn.Parameter and loaded.requires_grad


def test_corrupt_truncated_and_foreign_files_raise_clear_errors(tmp_path):
    path = tmp_path / "ok.pt"
    torch.save({"w": torch.ones(100)}, path)
    data = path.read_bytes()
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(RuntimeError, match="not a valid checkpoint.*truncated or corrupt"):
        torch.load(truncated)
    corrupt = tmp_path / "corrupt.pt"
    index = data.index(np.ones(100, np.float32).tobytes()) + 200  # inside the storage
    corrupt.write_bytes(data[:index] + bytes([data[index] ^ 0xFF]) + data[index + 1 :])
    with pytest.raises(RuntimeError, match="not a valid checkpoint.*CRC"):
        torch.load(corrupt)
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"not a checkpoint at all")
    with pytest.raises(RuntimeError, match="not a complete zip archive"):
        torch.load(garbage)
    with pytest.raises(FileNotFoundError):
        torch.load(tmp_path / "missing.pt")
    with pytest.raises(TypeError, match="pickling Tensors is not supported"):
        pickle.dumps(torch.ones(1))
    stream = io.BytesIO()  # what cannot be pickled fails before anything is written
    with pytest.raises(pickle.PicklingError):
        torch.save({"f": lambda x: x}, stream)
    with pytest.raises(pickle.PicklingError):
        torch.save({"f": lambda x: x}, path)
    assert stream.getvalue() == b"" and path.read_bytes() == data


def test_a_storage_that_does_not_fit_its_tensors_is_refused(tmp_path):
    path = tmp_path / "ok.pt"
    torch.save(torch.ones(4), path)
    with zipfile.ZipFile(path) as archive:
        records = {name: archive.read(name) for name in archive.namelist()}
    short = tmp_path / "short.pt"
    with zipfile.ZipFile(short, "w") as archive:
        for name, data in records.items():
            archive.writestr(name, data[:8] if name.endswith("data/0") else data)
    with pytest.raises(RuntimeError, match="data/0 declares 8 bytes, but it holds 16"):
        torch.load(short)
    # a tensor reaching past its storage's end (a crafted layout) is refused too
    pkl = records["ok/data.pkl"]
    crafted = tmp_path / "crafted.pt"
    with zipfile.ZipFile(crafted, "w") as archive:
        for name, data in records.items():
            if name.endswith("data.pkl"):  # offset 0 -> 3: elements 3..6 of a storage of 4
                data = data.replace(b"K\x00K\x04\x85", b"K\x03K\x04\x85")
                assert data != pkl
            archive.writestr(name, data)
    with pytest.raises(RuntimeError, match="does not fit in its storage of 4 elements"):
        torch.load(crafted)


# ----------------------------------------------------------------------------- robustness
def _crafted(path, root, arrays, members):
    """A checkpoint written by hand: `arrays` are the manifest's specs, `members` maps a name
    to its bytes."""
    manifest = {"format": "autograd_compat.checkpoint", "version": 1, "root": root}
    manifest["arrays"] = arrays
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("manifest.json", json.dumps(manifest))
        for name, data in members.items():
            archive.writestr(name, data)


def _npy(array) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def test_checkpoints_saved_into_one_stream_load_in_turn():
    buffer = io.BytesIO()
    torch.save({"step": 1, "w": torch.ones(2)}, buffer)
    torch.save({"step": 2, "w": torch.zeros(3)}, buffer)
    buffer.seek(0)
    first = torch.load(buffer)
    second = torch.load(buffer)
    assert (first["step"], first["w"].tolist()) == (1, [1.0, 1.0])
    assert (second["step"], second["w"].tolist()) == (2, [0.0, 0.0, 0.0])
    assert buffer.tell() == len(buffer.getvalue())


def test_a_member_larger_than_the_manifest_declares_is_refused_before_inflating(tmp_path):
    path = tmp_path / "bomb.pt"
    header = _npy(np.zeros(2, np.float32))[:-8]

    def zeros(member):  # 128 MiB of zeros, deflated to about 128 KiB
        member.write(header)
        chunk = bytes(2**20)
        for _ in range(128):
            member.write(chunk)

    root = {"tensor": 0, "requires_grad": False, "parameter": False}
    spec = {"file": "arrays/0.npy", "dtype": "float32", "shape": [2]}
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        manifest = {"format": "autograd_compat.checkpoint", "version": 1, "root": root}
        archive.writestr("manifest.json", json.dumps({**manifest, "arrays": [spec]}))
        with archive.open("arrays/0.npy", "w", force_zip64=True) as member:
            zeros(member)
    assert path.stat().st_size < 2**20
    tracemalloc.start()
    try:
        with pytest.raises(RuntimeError, match="declares .* bytes, but the manifest's"):
            torch.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20  # nothing was inflated
    # an archive member the manifest does not declare is refused too
    spec = {"file": "arrays/0.npy", "dtype": "float32", "shape": [2]}
    _crafted(path, root, [spec], {"arrays/0.npy": _npy(np.ones(2, np.float32))})
    assert torch.load(path).tolist() == [1.0, 1.0]
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("arrays/extra.npy", _npy(np.ones(3)))
    with pytest.raises(RuntimeError, match="which the manifest does not declare"):
        torch.load(path)


def test_a_payload_of_another_dtype_than_the_manifest_says_is_refused(tmp_path):
    path = tmp_path / "mislabelled.pt"
    root = {"tensor": 0, "requires_grad": False, "parameter": False}
    spec = {"file": "arrays/0.npy", "dtype": "bfloat16", "shape": [8]}
    # 16 bytes of float64: as bfloat16 bits they would be 8 values of garbage
    members = {"arrays/0.npy": _npy(np.array([1.0, 2.0]))}
    _crafted(path, root, [spec], members)
    with pytest.raises(RuntimeError, match="holds float64, the manifest says bfloat16"):
        torch.load(path)


def test_deeply_nested_manifest_raises_a_runtime_error(tmp_path):
    path = tmp_path / "deep.pt"
    depth = 100_000
    manifest = (
        '{"format": "autograd_compat.checkpoint", "version": 1, "arrays": [], "root": '
        + "[" * depth
        + "]" * depth
        + "}"
    )
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("manifest.json", manifest)
    with pytest.raises(RuntimeError, match="nested deeper than Python's recursion limit"):
        torch.load(path)
    nested: list = []
    for _ in range(200):  # what save writes, load reads back
        nested = [nested]
    torch.save(nested, path)
    assert torch.load(path) == nested


def test_a_save_that_fails_midway_keeps_the_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.pt"
    torch.save({"w": torch.ones(2), "b": torch.zeros(1)}, path)
    path.chmod(0o640)
    before = path.read_bytes()
    original = SavedStorage.data
    calls = []

    def failing_data(self):
        calls.append(1)
        if len(calls) == 2:  # the second storage, after the first was written
            raise OSError(28, "No space left on device")
        return original(self)

    monkeypatch.setattr(SavedStorage, "data", failing_data)
    with pytest.raises(OSError, match="No space left"):
        torch.save({"w": torch.full((2,), 5.0), "b": torch.ones(1)}, path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert torch.load(path)["w"].tolist() == [1.0, 1.0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ckpt.pt"]  # no temporary left
    torch.save({"w": torch.full((2,), 5.0)}, path)  # a good save replaces it, same mode
    assert torch.load(path)["w"].tolist() == [5.0, 5.0]
    assert path.stat().st_mode & 0o777 == 0o640


def _text(value: str) -> bytes:
    """The pickle opcode pushing the string `value` (BINUNICODE)."""
    return b"X" + len(value).to_bytes(4, "little") + value.encode()


def _tensor_pickle(size: bytes, stride: bytes) -> bytes:
    """A protocol-2 pickle of `_rebuild_tensor_v2` over a float storage of 4 elements, with
    the given pickled size and stride tuples."""
    storage = b"(" + _text("storage") + b"ctorch\nFloatStorage\n" + _text("0") + _text("cpu")
    return (
        b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n("
        + storage
        + b"K\x04tQK\x00"
        + size
        + stride
        + b"\x89ccollections\nOrderedDict\n)RtR."
    )


def test_crafted_pickles_cannot_make_huge_allocations(tmp_path):
    def archive_with(pkl: bytes):
        path = tmp_path / "crafted.pt"
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("archive/data.pkl", pkl)
            archive.writestr("archive/data/0", np.arange(4, dtype=np.float32).tobytes())
        return path

    ok = archive_with(_tensor_pickle(b"K\x02K\x02\x86", b"K\x02K\x01\x86"))
    assert torch.load(ok).tolist() == [[0.0, 1.0], [2.0, 3.0]]
    # an expanded tensor (stride 0) of 2**50 elements over 4 floats: refused, nothing allocated
    huge = b"\x8a\x07" + (2**50).to_bytes(7, "little") + b"\x85"
    with pytest.raises(RuntimeError, match="takes 4503599627370496 bytes, more than this"):
        torch.load(archive_with(_tensor_pickle(huge, b"K\x00\x85")))
    # bytearray(n) would allocate n bytes: only bytearray(text) is allowed
    pkl = b"\x80\x02c__builtin__\nbytearray\n\x8a\x06" + (2**40).to_bytes(6, "little") + b"\x85R."
    with pytest.raises(RuntimeError, match="not a valid checkpoint.*bytearray of int"):
        torch.load(archive_with(pkl))


def test_a_checkpoint_of_the_former_format_still_loads():
    """tests/data/former_format.pt was written by this library's former `save` (a zip of .npy
    arrays and a JSON manifest): a state dict, a Parameter, bfloat16, a shared tensor."""
    path = TESTS / "data" / "former_format.pt"
    checkpoint = torch.load(path)
    with zipfile.ZipFile(path) as archive:
        manifest = json.loads(archive.read("manifest.json"))
        stored = [np.load(io.BytesIO(archive.read(s["file"]))) for s in manifest["arrays"]]
    model = nn.Linear(3, 2)
    model.load_state_dict(checkpoint["model"])
    assert checkpoint["model"]._metadata == model.state_dict()._metadata
    np.testing.assert_array_equal(model.weight.detach().numpy(), stored[0])
    np.testing.assert_array_equal(model.bias.detach().numpy(), stored[1])
    assert checkpoint["step"] == 3 and checkpoint["meta"] == (torch.float16, torch.Size([2]))
    assert type(checkpoint["p"]) is nn.Parameter and checkpoint["p"].requires_grad
    assert checkpoint["p"].tolist() == [0.5, -1.0]
    assert checkpoint["bf16"].dtype is torch.bfloat16 and checkpoint["bf16"].tolist() == [1.5, -2.0]
    assert checkpoint["ints"][0] is checkpoint["ints"][1]
    assert checkpoint["ints"][0].tolist() == [0, 1, 2, 3]


def test_safe_globals_match_the_names_a_checkpoint_carries():
    """The library's classes given to `safe_globals` are allowed under the names a pickle
    gives them, PyTorch's ("torch.nn.modules.dropout.Dropout"), in a whole-model load."""
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout(0.1))
    buffer = io.BytesIO()
    torch.save(model, buffer)
    allowed = [torch.nn.Sequential, torch.nn.Linear, torch.nn.Dropout]
    with torch.serialization.safe_globals(allowed):
        loaded = torch.load(io.BytesIO(buffer.getvalue()))
    assert type(loaded[1]) is torch.nn.Dropout
    torch.testing.assert_close(loaded[0].weight, model[0].weight)


def test_a_save_removes_what_a_killed_save_left(tmp_path):
    """A save killed mid-write leaves its temporary file; the next save to that path removes
    it, and keeps the temporaries of writers still running and of other files."""
    target = tmp_path / "model.pt"
    child = (
        "import sys, time\n"
        "from autograd_compat._serialization.archive import write_atomically\n"
        "def write(handle):\n"
        "    handle.write(b'partial')\n"
        "    print('writing', flush=True)\n"
        "    time.sleep(600)\n"
        f"write_atomically({str(target)!r}, write)\n"
    )
    with subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True) as w:
        assert w.stdout.readline().strip() == "writing"
        w.send_signal(signal.SIGKILL)
    (stale,) = tmp_path.glob(".model.pt.*.tmp")
    running = tmp_path / f".model.pt.{os.getpid()}.0123abcd.tmp"  # a live writer's
    other = tmp_path / ".other.pt.999999999.0123abcd.tmp"  # another file's
    running.write_bytes(b"x")
    other.write_bytes(b"x")
    torch.save(torch.ones(2), str(target))
    assert not stale.exists()
    assert running.exists() and other.exists()
    torch.testing.assert_close(torch.load(str(target)), torch.ones(2))
