"""Checkpoints shared with real PyTorch: our save -> torch.load, torch.save -> our load (state
dicts, optimizer states, every dtype, views sharing storage, whole modules); loading without
torch importable; malicious pickles refused with PyTorch's own error and nothing executed."""

from __future__ import annotations

import importlib
import os
import pathlib
import pickle
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import autograd_compat as torch
import autograd_compat.nn as nn
from tests._helpers.paths import ROOT

DTYPES = (
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "bool",
)


def _numpy(t) -> np.ndarray:
    """A tensor of either library as a numpy array (bfloat16 as float32, exactly)."""
    if "bfloat16" in str(t.dtype):
        t = t.float()
    return t.detach().numpy()


def _values(library) -> dict:
    """One small tensor per dtype, the same numbers in either library."""
    base = library.tensor([[-2.0, 0.0, 1.5], [3.0, 0.25, 7.0]])
    out = {}
    for name in DTYPES:
        dtype = getattr(library, name)
        if name.startswith("complex"):
            out[name] = library.tensor([[1 + 2j, -3j, 0.5], [2.0, -1 - 1j, 4j]], dtype=dtype)
        else:
            out[name] = (base.abs() if name == "uint8" else base).to(dtype)
    return out


def _model(library):
    library.manual_seed(0)
    return library.nn.Sequential(library.nn.Linear(3, 4), library.nn.BatchNorm1d(4))


def _trained(library):
    """A model and an Adam optimizer after one step (so the optimizer has state)."""
    model = _model(library)
    opt = library.optim.Adam(model.parameters(), lr=0.01)
    model(library.ones(5, 3)).pow(2).sum().backward()
    opt.step()
    return model, opt


def _assert_state_dicts_equal(ours, theirs) -> None:
    assert list(ours) == list(theirs)
    for key in ours:
        np.testing.assert_array_equal(_numpy(ours[key]), _numpy(theirs[key]), err_msg=key)


def test_our_checkpoint_loads_in_pytorch(tmp_path, real_torch):
    model, opt = _trained(torch)
    path = tmp_path / "ours.pt"
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": 7}, path)
    checkpoint = real_torch.load(path)  # weights_only=True, PyTorch's default
    assert checkpoint["step"] == 7
    _assert_state_dicts_equal(model.state_dict(), checkpoint["model"])
    assert checkpoint["model"]._metadata == model.state_dict()._metadata
    theirs, their_opt = _trained(real_torch)
    theirs.load_state_dict(checkpoint["model"])
    their_opt.load_state_dict(checkpoint["opt"])
    state = their_opt.state_dict()
    assert state["param_groups"] == opt.state_dict()["param_groups"]
    for index, entry in opt.state_dict()["state"].items():
        for key, value in entry.items():
            np.testing.assert_array_equal(_numpy(value), _numpy(state["state"][index][key]))


def test_pytorch_checkpoint_loads_here(tmp_path, real_torch):
    theirs, their_opt = _trained(real_torch)
    path = tmp_path / "theirs.pt"
    real_torch.save({"model": theirs.state_dict(), "opt": their_opt.state_dict()}, path)
    checkpoint = torch.load(path)
    model, opt = _trained(torch)
    model.load_state_dict(checkpoint["model"])
    opt.load_state_dict(checkpoint["opt"])
    _assert_state_dicts_equal(model.state_dict(), theirs.state_dict())
    assert opt.state_dict()["param_groups"] == their_opt.state_dict()["param_groups"]
    assert opt.state_dict()["state"][0]["step"].item() == 1.0
    np.testing.assert_array_equal(
        _numpy(opt.state_dict()["state"][0]["exp_avg"]),
        _numpy(their_opt.state_dict()["state"][0]["exp_avg"]),
    )
    param = real_torch.nn.Parameter(real_torch.ones(2))
    param.note = "kept"  # PyTorch saves it with _rebuild_parameter_with_state
    real_torch.save(param, path)
    loaded = torch.load(path)
    assert type(loaded) is nn.Parameter and loaded.requires_grad and loaded.note == "kept"
    plain = real_torch.ones(2)
    plain.note = "lost"  # _rebuild_from_type_v2: our tensors have no attributes
    real_torch.save(plain, path)
    with pytest.raises(RuntimeError, match=r"a tensor saved with Python attributes \(note\)"):
        torch.load(path)


def test_every_dtype_both_ways(tmp_path, real_torch):
    ours_path, theirs_path = tmp_path / "ours.pt", tmp_path / "theirs.pt"
    torch.save(_values(torch), ours_path)
    real_torch.save(_values(real_torch), theirs_path)
    in_torch, here = real_torch.load(ours_path), torch.load(theirs_path)
    for name in DTYPES:
        assert str(in_torch[name].dtype) == str(here[name].dtype) == f"torch.{name}"
        expected = _numpy(_values(real_torch)[name])
        np.testing.assert_array_equal(_numpy(in_torch[name]), expected, err_msg=name)
        np.testing.assert_array_equal(_numpy(here[name]), expected, err_msg=name)


def _views(library) -> dict:
    base = library.arange(12.0).reshape(3, 4)
    return {
        "base": base,
        "cols": base[:, 1:3],
        "t": base.t(),
        "row": base[2],
        "diagonal": base.diagonal(),
        "expanded": base[1].expand(2, 4),
        "tied": base.detach(),
    }


def test_views_keep_their_layout_and_share_storage_both_ways(tmp_path, real_torch):
    ours_path, theirs_path = tmp_path / "ours.pt", tmp_path / "theirs.pt"
    torch.save(_views(torch), ours_path)
    real_torch.save(_views(real_torch), theirs_path)
    with zipfile.ZipFile(ours_path) as archive:  # one storage, saved once
        assert [n for n in archive.namelist() if "/data/" in n] == ["ours/data/0"]
    in_torch, here = real_torch.load(ours_path), torch.load(theirs_path)
    for name, expected in _views(real_torch).items():
        for loaded in (in_torch[name], here[name]):
            np.testing.assert_array_equal(_numpy(loaded), _numpy(expected), err_msg=name)
            assert loaded.stride() == expected.stride(), name
            assert loaded.storage_offset() == expected.storage_offset(), name
        assert in_torch[name].untyped_storage().data_ptr() == in_torch["base"].data_ptr()
    here["base"][2, 2] = -1.0  # one storage: a write through one is seen by all
    real = _views(real_torch)
    real["base"][2, 2] = -1.0
    for name in real:
        np.testing.assert_array_equal(_numpy(here[name]), _numpy(real[name]), err_msg=name)


_LOADER = """
import sys
sys.modules["torch"] = None  # `import torch` fails from here on
import autograd_compat as torch
try:
    import torch as real
except ImportError:
    real = None
assert real is None, "torch was importable"
checkpoint = torch.load(sys.argv[1])
print(*checkpoint["w"].tolist(), checkpoint["opt"]["state"][0]["step"].item())
"""


def test_a_pytorch_checkpoint_loads_where_torch_cannot_be_imported(tmp_path, real_torch):
    w = real_torch.nn.Parameter(real_torch.tensor([1.0, -2.0]))
    opt = real_torch.optim.Adam([w])
    (w * w).sum().backward()
    opt.step()
    path = tmp_path / "theirs.pt"
    real_torch.save({"w": w, "opt": opt.state_dict()}, path)
    result = subprocess.run(
        [sys.executable, "-c", _LOADER, str(path)], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(v) for v in w.tolist()] + ["1.0"]


def _write_archive(path, data_pkl: bytes) -> None:
    """A checkpoint whose pickle is `data_pkl`, in PyTorch's layout."""
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("archive/data.pkl", data_pkl)
        archive.writestr("archive/byteorder", "little")
        archive.writestr("archive/version", "3\n")


class _Payload:
    """What an attacker pickles: unpickling it calls os.system."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self):
        import os

        return os.system, (self.command,)


def _malicious(marker: pathlib.Path) -> dict:
    command = f"touch {marker}".encode()
    string = b"X" + len(command).to_bytes(4, "little") + command
    return {
        "os.system": b"\x80\x02cos\nsystem\n" + string + b"\x85R.",
        "reduce payload": pickle.dumps({"w": _Payload(f"touch {marker}")}, protocol=2),
        "eval": b"\x80\x02c__builtin__\neval\n" + string + b"\x85R.",
        "subprocess": b"\x80\x02csubprocess\ncall\n" + string + b"\x85R.",
        "append to a dict": b"\x80\x02}K\x01a.",
        "build a dict": b"\x80\x02}}b.",
        "protocol 4": pickle.dumps({"a": 1}, protocol=4),
    }


def test_malicious_pickles_are_refused_with_pytorchs_error_and_nothing_runs(tmp_path, real_torch):
    marker = tmp_path / "executed"
    for name, data in _malicious(marker).items():
        path = tmp_path / f"{name}.pt"
        _write_archive(path, data)
        with pytest.raises(pickle.UnpicklingError) as ours:
            if name == "protocol 4":
                with pytest.warns(UserWarning, match="Detected pickle protocol 4"):
                    torch.load(path)
            else:
                torch.load(path)
        with pytest.raises(pickle.UnpicklingError) as theirs:
            with pytest.warns(UserWarning) if name == "protocol 4" else _no_warning():
                real_torch.load(path)
        assert str(ours.value) == str(theirs.value), name
        assert "weights_only" in str(ours.value)
        assert not marker.exists(), name


class _no_warning:
    def __enter__(self):
        return self

    def __exit__(self, *args):
        return False


def test_whole_modules_load_only_with_weights_only_false(tmp_path, real_torch, monkeypatch):
    ours_path, theirs_path = tmp_path / "ours.pt", tmp_path / "theirs.pt"
    model = nn.Sequential(nn.Linear(3, 2), nn.ReLU())
    theirs = real_torch.nn.Sequential(real_torch.nn.Linear(3, 2), real_torch.nn.ReLU())
    torch.save(model, ours_path)
    real_torch.save(theirs, theirs_path)
    messages = []
    for load, path in ((torch.load, ours_path), (real_torch.load, theirs_path)):
        with pytest.raises(pickle.UnpicklingError) as error:
            load(path)
        messages.append(str(error.value))
    assert messages[0] == messages[1]  # both name torch.nn.modules.container.Sequential
    assert "GLOBAL torch.nn.modules.container.Sequential was not an allowed global" in messages[0]
    x = torch.randn(4, 3)
    loaded = torch.load(ours_path, weights_only=False)  # no warning: as PyTorch
    assert type(loaded) is nn.Sequential
    np.testing.assert_array_equal(_numpy(loaded(x)), _numpy(model(x)))
    # each library loads the other's whole module into its own classes
    in_torch = real_torch.load(ours_path, weights_only=False)
    np.testing.assert_allclose(
        _numpy(in_torch(real_torch.from_numpy(x.numpy()))), _numpy(model(x)), rtol=1e-6
    )
    here = torch.load(theirs_path, weights_only=False)
    assert type(here[0]) is nn.Linear
    np.testing.assert_allclose(
        _numpy(here(x)), _numpy(theirs(real_torch.from_numpy(x.numpy()))), rtol=1e-6
    )
    with pytest.raises(RuntimeError, match="Can not safely load weights when explicit pickle"):
        torch.load(ours_path, pickle_module=pickle, weights_only=True)
    assert type(torch.load(ours_path, pickle_module=pickle)) is nn.Sequential
    # PyTorch's environment overrides, with its warning
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    warned = []
    for load in (torch.load, real_torch.load):
        with pytest.warns(UserWarning, match="TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD") as record:
            assert type(load(ours_path)).__name__ == "Sequential"
        warned.append(str(record[0].message))
    assert warned[0] == warned[1]
    monkeypatch.delenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD")
    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "1")
    with pytest.raises(pickle.UnpicklingError, match="weights_only"):
        torch.load(ours_path, weights_only=False)


def test_a_cuda_checkpoint_needs_map_location_without_a_gpu(tmp_path, real_torch):
    path = tmp_path / "ours.pt"
    torch.save({"w": torch.ones(2)}, path)
    with zipfile.ZipFile(path) as archive:
        records = {name: archive.read(name) for name in archive.namelist()}
    pkl = records["ours/data.pkl"]
    records["ours/data.pkl"] = pkl.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
    assert records["ours/data.pkl"] != pkl
    cuda_path = tmp_path / "cuda.pt"
    with zipfile.ZipFile(cuda_path, "w") as archive:
        for name, data in records.items():
            archive.writestr(name, data)
    if torch.cuda.is_available():  # restored where it was saved, as PyTorch does
        assert torch.load(cuda_path)["w"].device == torch.device("cuda:0")
    else:
        with pytest.raises(RuntimeError) as ours:
            torch.load(cuda_path)
        with pytest.raises(RuntimeError) as theirs:
            real_torch.load(cuda_path)
        assert str(ours.value) == str(theirs.value)
    for map_location in ("cpu", {"cuda:0": "cpu"}):
        loaded = torch.load(cuda_path, map_location=map_location)["w"]
        assert loaded.device == torch.device("cpu") and loaded.tolist() == [1.0, 1.0]


def test_safe_globals_allow_what_the_user_trusts(tmp_path, real_torch):
    path = tmp_path / "numpy.pt"
    real_torch.save({"a": np.arange(3, dtype=np.int16), "s": np.float32(0.5)}, path)
    names = real_torch.serialization.get_unsafe_globals_in_checkpoint(path)
    trusted = [
        getattr(importlib.import_module(m), n) for m, _, n in (x.rpartition(".") for x in names)
    ]
    with pytest.raises(pickle.UnpicklingError, match="add_safe_globals"):
        torch.load(path)
    errors = []  # not enough: numpy's dtype classes are built too (PyTorch's message says so)
    for library in (torch, real_torch):
        with (
            library.serialization.safe_globals(trusted),
            pytest.raises(pickle.UnpicklingError) as e,
        ):
            library.load(path)
        errors.append(str(e.value))
    assert errors[0] == errors[1] and "numpy.dtypes.Int16DType" in errors[0]
    trusted += [type(np.dtype(np.int16)), type(np.dtype(np.float32))]
    with torch.serialization.safe_globals(trusted):
        assert torch.serialization.get_safe_globals() == trusted
        loaded = torch.load(path)
    with real_torch.serialization.safe_globals(trusted):
        expected = real_torch.load(path)
    np.testing.assert_array_equal(loaded["a"], expected["a"])
    assert loaded["a"].dtype == np.int16 and loaded["s"] == expected["s"] == np.float32(0.5)
    assert torch.serialization.get_safe_globals() == []
    with pytest.raises(pickle.UnpicklingError, match="add_safe_globals"):
        torch.load(path)  # allowed only inside the context
    marker = tmp_path / "executed"
    _write_archive(path, _malicious(marker)["os.system"])
    torch.serialization.add_safe_globals([(os.system, "os.system")])
    try:
        with pytest.raises(pickle.UnpicklingError, match="whose module os is blocked"):
            torch.load(path)  # never, even when allowed
    finally:
        torch.serialization.clear_safe_globals()
    assert not marker.exists()
