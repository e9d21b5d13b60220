"""torch.backends, matmul precision, threads, jit, onnx, nn.parallel and distributed: the
modules scripts import, with PyTorch's defaults and errors."""

from __future__ import annotations

import importlib

import pytest

import autograd_compat as torch
from autograd_compat import _alias
from tests._helpers.torch_compare import check_error


@pytest.fixture
def restore_precision():
    yield
    torch.set_float32_matmul_precision("highest")


def test_backend_switches_have_pytorch_defaults_and_are_settable(real_torch):
    for name in ("enabled", "benchmark", "deterministic", "allow_tf32"):
        assert getattr(torch.backends.cudnn, name) == getattr(real_torch.backends.cudnn, name)
    assert torch.backends.mps.is_available() is False
    assert torch.backends.mkldnn.is_available() == real_torch.backends.mkldnn.is_available()
    assert torch.backends.cuda.matmul.allow_tf32 == real_torch.backends.cuda.matmul.allow_tf32
    torch.backends.cudnn.benchmark = True
    assert importlib.import_module("autograd_compat.backends.cudnn").benchmark is True
    torch.backends.cudnn.benchmark = False
    with torch.backends.cudnn.flags(enabled=False):
        assert torch.backends.cudnn.enabled is False
    assert torch.backends.cudnn.enabled is True


def test_matmul_precision_follows_pytorch(real_torch, restore_precision):
    assert torch.get_float32_matmul_precision() == "highest"
    torch.backends.cuda.matmul.allow_tf32 = True
    assert torch.get_float32_matmul_precision() == "high"
    import jax

    assert jax.config.jax_default_matmul_precision == "high"
    torch.set_float32_matmul_precision("medium")
    assert torch.backends.cuda.matmul.allow_tf32 is True
    with pytest.warns(UserWarning, match="is not one of 'highest', 'high', or 'medium'"):
        torch.set_float32_matmul_precision("fast")
    assert torch.get_float32_matmul_precision() == "medium"
    torch.set_float32_matmul_precision("highest")
    assert jax.config.jax_default_matmul_precision == "highest"


def test_threads(real_torch):
    before = torch.get_num_threads()
    torch.set_num_threads(3)
    assert torch.get_num_threads() == 3
    torch.set_num_threads(before)
    check_error(lambda t: t.set_num_threads(0), real_torch)


def test_jit_runs_the_code_and_onnx_refuses():
    model = torch.nn.Linear(2, 1)
    x = torch.ones(3, 2)
    assert torch.jit.script(model)(x).equal(model(x))
    assert torch.jit.trace(model, x)(x).equal(model(x))
    assert torch.jit.script(lambda v: v * 2)(x).equal(x * 2)
    assert torch.jit.is_scripting() is False
    with pytest.raises(NotImplementedError, match="jax.export"):
        torch.onnx.export(model, (x,), "model.onnx")


def test_parallel_and_distributed(real_torch):
    model = torch.nn.Linear(2, 1)
    wrapped = torch.nn.DataParallel(model)
    assert wrapped.module is model
    assert list(wrapped.state_dict()) == list(
        real_torch.nn.DataParallel(real_torch.nn.Linear(2, 1)).state_dict()
    )
    assert wrapped(torch.ones(3, 2)).equal(model(torch.ones(3, 2)))
    assert torch.distributed.is_initialized() is False
    assert torch.distributed.is_available() is real_torch.distributed.is_available()
    check_error(lambda t: t.distributed.get_rank(), real_torch)
    check_error(lambda t: t.distributed.all_reduce(t.ones(1)), real_torch)
    check_error(lambda t: t.nn.parallel.DistributedDataParallel(t.nn.Linear(2, 1)), real_torch)


def test_modules_import_under_the_alias():
    with _alias.alias_torch():
        for name in (
            "torch.backends.cudnn",
            "torch.backends.mps",
            "torch.jit",
            "torch.onnx",
            "torch.distributed",
            "torch.nn.parallel",
            "torch.testing",
        ):
            assert importlib.import_module(name).__name__.startswith("autograd_compat")
