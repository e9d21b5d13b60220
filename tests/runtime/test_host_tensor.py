"""Small leaves made from host data stay on the host until first used (`HostTensor`): every
read sees the data the factory copied, whatever the user does to their array afterwards, and a
compiled call that takes the host copy gives eager's results."""

from __future__ import annotations

import copy

import chex
import jax
import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._state.tensor import HostTensor, Tensor
from tests._helpers.torch_compare import check_error

_DATA = np.array([[0.5, -1.0, 2.0], [3.0, 0.25, -4.0]], np.float32)


def test_a_small_numpy_leaf_waits_on_the_host_and_becomes_a_plain_tensor_when_read():
    t = torch.tensor(_DATA)
    assert isinstance(t, HostTensor)
    assert isinstance(t.jax(), jax.Array)  # the first read transfers it
    assert type(t) is Tensor
    chex.assert_trees_all_equal(np.asarray(t.jax()), _DATA)


def test_the_leaf_holds_a_copy_of_the_users_array():
    data = _DATA.copy()
    t = torch.tensor(data)
    data[0, 0] = 99.0  # PyTorch's torch.tensor copies: the tensor keeps the old value
    assert t[0, 0].item() == 0.5
    u = torch.tensor(data)
    compiled = torch.compile(lambda x: x * 2)
    compiled(u)  # the first call runs eagerly, the second compiles
    v = torch.tensor(data)
    data[1, 1] = -7.0
    np.testing.assert_array_equal(compiled(v).numpy(), np.where(data == -7.0, 0.25, data) * 2)


def test_a_big_array_is_transferred_at_once():
    data = np.ones(1 << 17, np.float32)
    t = torch.tensor(data)
    assert type(t) is Tensor
    np.testing.assert_array_equal(t.numpy(), data)


@pytest.mark.parametrize("size", [3, 1 << 17], ids=["small", "big"])
@pytest.mark.parametrize("factory", ["tensor", "as_tensor", "from_numpy"])
def test_data_in_the_other_byte_order_is_refused_as_pytorch_does(size, factory, real_torch):
    data = np.arange(2.0 * size).reshape(2, size).astype(">f8")
    check_error(lambda torch: getattr(torch, factory)(data), real_torch)


def test_data_of_no_pytorch_dtype_fails_at_the_factory():
    with pytest.raises((TypeError, jax.errors.JaxRuntimeError)):
        torch.tensor(np.array([1, 2], np.dtype("datetime64[s]")))


def test_in_place_ops_autograd_and_deepcopy_on_a_host_leaf():
    t = torch.tensor(_DATA)
    t.add_(1.0)
    np.testing.assert_array_equal(t.numpy(), _DATA + 1)
    assert t._version == 1
    x = torch.tensor(_DATA, requires_grad=True)
    assert isinstance(x, HostTensor) and x.requires_grad and x.is_leaf
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * _DATA)
    y = torch.tensor(_DATA, requires_grad=True)
    z = copy.deepcopy(y)
    assert type(z) is Tensor and z.requires_grad and z is not y
    np.testing.assert_array_equal(z.detach().numpy(), _DATA)


def test_a_compiled_step_takes_host_leaves_and_matches_eager():
    weight = torch.nn.Parameter(torch.ones(3, 2))

    def step(x):
        weight.grad = None
        loss = ((x @ weight).tanh() ** 2).sum()
        loss.backward()
        return loss

    compiled = torch.compile(step)
    for _ in range(4):  # eager first call, then compiled; fresh leaves each call
        x_eager, x_compiled = torch.tensor(_DATA), torch.tensor(_DATA)
        expected = step(x_eager).item()
        grad = weight.grad.numpy().copy()
        assert compiled(x_compiled).item() == pytest.approx(expected, rel=1e-6)
        np.testing.assert_allclose(weight.grad.numpy(), grad, rtol=1e-6)


@torch.no_grad()
def test_a_host_leaf_passed_again_becomes_a_device_array():
    compiled = torch.compile(lambda x: x.sin())
    for _ in range(2):  # the first call runs eagerly, the second compiles
        compiled(torch.tensor(_DATA))
    t = torch.tensor(_DATA)
    first = compiled(t)
    assert isinstance(t, HostTensor)  # the program took the host copy
    second = compiled(t)
    assert type(t) is Tensor  # passed again: transferred once, for the calls after
    np.testing.assert_allclose(first.numpy(), np.sin(_DATA), rtol=1e-6)
    np.testing.assert_array_equal(first.numpy(), second.numpy())


def test_a_differentiable_compiled_call_reads_a_host_leaf_as_an_op_does():
    compiled = torch.compile(lambda x: x.sin())
    compiled(torch.tensor(_DATA, requires_grad=True))
    t = torch.tensor(_DATA, requires_grad=True)
    out = compiled(t)  # one node of the graph: its input is a device array
    assert type(t) is Tensor
    out.sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), np.cos(_DATA), rtol=1e-6)
