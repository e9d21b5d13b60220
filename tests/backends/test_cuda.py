"""torch.cuda: answers as PyTorch without CUDA when JAX has no GPU backend (checked against the
installed CPU PyTorch), reports JAX's GPU when there is one (simulated), and resolves through
the torch alias."""

from __future__ import annotations

import re

import jax
import pytest

import autograd_compat
import autograd_compat as torch
from autograd_compat._pure import device as _device

no_gpu = pytest.mark.skipif(bool(_device._jax_devices("gpu")), reason="JAX has a GPU here")


@no_gpu
def test_without_a_gpu_matches_pytorch_without_cuda(real_torch):
    if real_torch.cuda.is_available():
        pytest.skip("the oracle PyTorch has CUDA")
    for lib in (torch, real_torch):
        assert lib.cuda.is_available() is False
        assert lib.cuda.device_count() == 0
        assert lib.cuda.is_bf16_supported() is False
        assert lib.cuda.empty_cache() is None
        assert lib.cuda.manual_seed(1) is None and lib.cuda.manual_seed_all(1) is None
    for name in ("current_device", "synchronize", "get_device_name"):
        with pytest.raises(AssertionError) as info:
            getattr(real_torch.cuda, name)()
        with pytest.raises(AssertionError, match=re.escape(str(info.value))):
            getattr(torch.cuda, name)()


@no_gpu
def test_seeding_without_a_gpu_leaves_the_cpu_stream_alone():
    torch.manual_seed(3)
    expected = torch.rand(2).tolist()
    torch.manual_seed(3)
    torch.cuda.manual_seed_all(5)
    assert torch.rand(2).tolist() == expected


def test_with_a_gpu(monkeypatch):
    """JAX's GPUs, simulated by the CPU device: count, name, seeding, synchronize."""
    cpu = jax.devices("cpu")[0]
    monkeypatch.setattr(_device, "_jax_devices", lambda platform: (cpu,))
    assert torch.cuda.is_available() and torch.cuda.is_bf16_supported()
    assert torch.cuda.device_count() == 1 and torch.cuda.current_device() == 0
    assert torch.cuda.get_device_name() == torch.cuda.get_device_name(0) == cpu.device_kind
    assert torch.cuda.synchronize() is None and torch.cuda.synchronize("cuda:0") is None
    torch.cuda.manual_seed(7)
    first = torch.rand(2).tolist()
    torch.cuda.manual_seed_all(7)
    assert torch.rand(2).tolist() == first
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        torch.cuda.get_device_name(1)


def test_torch_cuda_resolves_through_the_alias():
    with autograd_compat.alias_torch():
        import torch.cuda  # binds the local name `torch` to the aliased package
        from torch.cuda import is_available

        assert torch is autograd_compat and torch.cuda is autograd_compat.cuda
        assert is_available is autograd_compat.cuda.is_available
        device = "cuda" if torch.cuda.is_available() else "cpu"
        assert torch.ones(1, device=device).device.type == device


def test_missing_names_say_they_are_not_supported():
    with pytest.raises(AttributeError, match=r"torch\.cuda\.ipc_collect is not yet supported"):
        torch.cuda.ipc_collect()
