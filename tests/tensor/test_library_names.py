"""Names the PyTorch libraries import and call, against real PyTorch: `torch.types`,
`torch.random` (fork_rng, thread_safe_generator), `torch.SymInt` and the `sym_*` functions,
`nn.utils` (clip_grads_with_norm_, skip_init, stateless, the fusion functions),
`full` with a 0-d tensor as its value, and `element in tensor`."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as torch


def _parameters(lib, grads):
    params = []
    for grad in grads:
        p = lib.nn.Parameter(lib.zeros(len(grad)))
        p.grad = lib.tensor(grad)
        params.append(p)
    return params


def test_clip_grads_with_norm_scales_by_a_given_total(real_torch):
    grads = [[3.0, 4.0], [12.0]]
    for max_norm in (1.0, 100.0):
        ours, theirs = _parameters(torch, grads), _parameters(real_torch, grads)
        total = torch.nn.utils.get_total_norm([p.grad for p in ours])
        torch.nn.utils.clip_grads_with_norm_(ours, max_norm, total)
        real_total = real_torch.nn.utils.get_total_norm([p.grad for p in theirs])
        real_torch.nn.utils.clip_grads_with_norm_(theirs, max_norm, real_total)
        assert float(total) == pytest.approx(13.0)
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-6)
    torch.nn.utils.clip_grads_with_norm_([torch.nn.Parameter(torch.ones(1))], 1.0, 2.0)  # no grad


def test_skip_init_and_the_other_nn_utils_names(real_torch):
    linear = torch.nn.utils.skip_init(torch.nn.Linear, 3, 2, bias=False)
    assert linear.weight.shape == (2, 3) and linear.weight.device.type == "cpu"
    assert not linear.weight.is_meta and linear.weight.requires_grad
    with pytest.raises(RuntimeError, match="Expected a Module; got <class 'int'>"):
        torch.nn.utils.skip_init(int)

    class NoDevice(torch.nn.Module):
        pass

    with pytest.raises(RuntimeError, match="Module must support a 'device' arg"):
        torch.nn.utils.skip_init(NoDevice)
    model = torch.nn.Linear(2, 1)
    with pytest.warns(FutureWarning, match="torch.func.functional_call"):
        out = torch.nn.utils.stateless.functional_call(
            model, {"weight": torch.ones(1, 2), "bias": torch.zeros(1)}, (torch.ones(1, 2),)
        )
    assert out.tolist() == [[2.0]]
    assert torch.nn.utils.fuse_conv_bn_eval is torch.nn.utils.fusion.fuse_conv_bn_eval
    net = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 2), torch.nn.ReLU())
    assert torch.nn.utils.convert_conv2d_weight_memory_format(net, torch.channels_last) is net
    assert net[0].weight.is_contiguous(memory_format=torch.channels_last)
    assert set(real_torch.nn.utils.__all__) <= set(dir(torch.nn.utils))


def test_fork_rng_restores_the_generator(real_torch):
    draws = []
    for lib in (torch, real_torch):
        lib.manual_seed(0)
        with lib.random.fork_rng():
            inside = lib.rand(3)
        after = lib.rand(3)
        with lib.random.fork_rng(enabled=False):
            lib.rand(1)
        draws.append((inside.tolist(), after.tolist(), lib.rand(1).tolist()))
        assert lib.random.thread_safe_generator() is None  # not in a thread worker
    assert draws[0] == draws[1] and draws[0][0] == draws[0][1]
    torch.manual_seed(1)
    with pytest.raises(ValueError), torch.random.fork_rng():  # restored when the block raises
        torch.rand(2)
        raise ValueError
    real_torch.manual_seed(1)
    assert torch.rand(1).item() == real_torch.rand(1).item()


def test_types_and_symbolic_numbers(real_torch):
    from autograd_compat.types import Device, Number, _device, _dtype, _size, py_sym_types

    assert _device is torch.device and _dtype is torch.dtype
    assert torch.Size([2]) and isinstance(torch.Size([2]), _size.__args__[0])
    assert str not in py_sym_types and Number.__args__ == (int, float, bool)
    assert type(None) in Device.__args__
    assert not isinstance(3, torch.SymInt) and issubclass(torch.SymInt, torch.SymInt)
    with pytest.raises(TypeError, match="shapes are concrete ints"):
        torch.SymInt(3)
    for name, args in [
        ("sym_int", (-2.7,)),
        ("sym_float", (3,)),
        ("sym_max", (2, 3.5)),
        ("sym_min", (2, 3)),
        ("sym_not", (1,)),
        ("sym_ite", (True, 1, 2)),
        ("sym_sum", ([1, 2, 3],)),
    ]:
        ours, theirs = getattr(torch, name)(*args), getattr(real_torch, name)(*args)
        assert (ours, type(ours)) == (theirs, type(theirs)), name
    for args in ((1, 1, 2), (True, 1, 2.0)):
        with pytest.raises(AssertionError) as theirs:
            real_torch.sym_ite(*args)
        with pytest.raises(AssertionError, match=str(theirs.value)):
            torch.sym_ite(*args)


def test_full_takes_a_zero_dim_tensor_as_its_value(real_torch):
    for lib in (torch, real_torch):
        assert lib.full((2,), fill_value=lib.tensor(3), dtype=lib.int64).tolist() == [3, 3]
        assert lib.full((2,), fill_value=lib.tensor(2.5), dtype=lib.int64).tolist() == [2, 2]
        assert lib.full((2,), fill_value=lib.tensor(2.5)).dtype is lib.float32
        with pytest.raises(TypeError, match="argument 'fill_value' must be Number, not Tensor"):
            lib.full((2,), fill_value=lib.tensor([3]))


def test_in_looks_for_an_equal_entry(real_torch):
    for lib in (torch, real_torch):
        x = lib.tensor([[1, 2], [3, 0]])
        assert 0 in x and 5 not in x and lib.tensor([1, 2]) in x and 2.0 in x
        with pytest.raises(RuntimeError, match="only supports Tensor or scalar"):
            _ = "a" in x
