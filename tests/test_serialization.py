"""save/load: a zip of .npy arrays and a JSON manifest; never pickle, safe on corrupt files."""

from __future__ import annotations

import io
import math
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import autograd_compat as torch
import autograd_compat.nn as nn


def test_round_trip_of_nested_objects(tmp_path):
    shared = torch.arange(6).reshape(2, 3)
    obj = {
        "float": torch.tensor([1.5, -2.0], requires_grad=True),
        "bf16": torch.ones(2, dtype=torch.bfloat16),
        "ints": [shared, shared, (1, 2.5, "x", None, True)],
        3: {"nan": float("nan"), "inf": -math.inf, "c": 1 + 2j, "bytes": b"\x00\x01"},
        "meta": (torch.float64, torch.device("cpu"), torch.Size([2, 3])),
        "numpy": np.arange(4, dtype=np.int16),
        "scalar": np.float32(0.25),
    }
    path = tmp_path / "obj.pt"
    torch.save(obj, path)
    back = torch.load(path)
    assert back["float"].requires_grad and back["float"].tolist() == [1.5, -2.0]
    assert back["bf16"].dtype is torch.bfloat16
    assert back["ints"][0] is back["ints"][1]  # shared tensors stay shared
    assert back["ints"][2] == (1, 2.5, "x", None, True)
    assert math.isnan(back[3]["nan"]) and back[3]["inf"] == -math.inf and back[3]["c"] == 1 + 2j
    assert back[3]["bytes"] == b"\x00\x01"
    assert back["meta"] == (torch.float64, torch.device("cpu"), torch.Size([2, 3]))
    assert back["numpy"].dtype == np.int16 and back["scalar"] == np.float32(0.25)
    with zipfile.ZipFile(path) as archive:
        assert not any(name.endswith(".pkl") for name in archive.namelist())


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
    index = data.index(b"\x93NUMPY") + 200
    corrupt.write_bytes(data[:index] + bytes([data[index] ^ 0xFF]) + data[index + 1 :])
    with pytest.raises(RuntimeError, match="not a valid checkpoint"):
        torch.load(corrupt)
    pickled = tmp_path / "pickle.pt"
    with zipfile.ZipFile(pickled, "w") as archive:
        archive.writestr("archive/data.pkl", b"cos\nsystem\n(S'echo hacked'\ntR.")
    with pytest.raises(RuntimeError, match="never unpickles"):
        torch.load(pickled)
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"not a checkpoint at all")
    with pytest.raises(RuntimeError, match="not a complete zip archive"):
        torch.load(garbage)
    with pytest.raises(FileNotFoundError):
        torch.load(tmp_path / "missing.pt")
    with pytest.raises(TypeError, match="cannot save an object of type object"):
        torch.save({"x": object()}, tmp_path / "bad.pt")
    with pytest.raises(TypeError, match="pickling Tensors is not supported"):
        import pickle

        pickle.dumps(torch.ones(1))


def test_real_pytorch_checkpoint_is_refused(tmp_path, real_torch):
    path = tmp_path / "real.pt"
    real_torch.save({"w": real_torch.ones(2)}, path)
    with pytest.raises(RuntimeError, match="written by PyTorch's torch.save"):
        torch.load(path)
