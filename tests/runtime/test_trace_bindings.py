"""What a trace binds (`_state/trace_bindings`) is its own thread's: another thread reads the
real slots, and unbinding leaves the object as it was, of its own class."""

from __future__ import annotations

import threading

import jax.numpy as jnp
import numpy as np

import autograd_compat as torch
from autograd_compat._state import trace_bindings
from autograd_compat._state.tensor import Tensor
from autograd_compat._state.torch_function import dispatches


def _in_another_thread(read):
    seen: list = []
    reader = threading.Thread(target=lambda: seen.append(read()))
    reader.start()
    reader.join()
    return seen[0]


def test_a_bound_tensor_shows_its_binding_here_and_its_slots_elsewhere():
    param = torch.nn.Parameter(torch.ones(2))
    alias = param.detach()  # (one version counter for both)
    real = param._value
    bindings = trace_bindings.Bindings()
    for t in (param, alias):
        bindings.bind(t, trace_bindings.TENSOR_SLOTS)
    try:
        param._value, param._grad = jnp.zeros(2), torch.ones(2)
        alias._version_counter[0] += 1
        value, stored, grad, version = _in_another_thread(
            lambda: (param._value, param._stored, param._grad, param._version)
        )
        assert value is real and stored is real and grad is None and version == 0
        np.testing.assert_array_equal(param.detach().numpy(), [0.0, 0.0])
        assert param.grad is not None and param._version == 1
        assert isinstance(param, torch.nn.Parameter) and type(param).__name__ == "Parameter"
    finally:
        bindings.unbind()
    assert type(param) is torch.nn.Parameter
    assert param._value is real and param._grad is None and param._version == 0


def test_a_bound_plain_tensor_dispatches_and_copies_as_a_plain_one():
    t = torch.ones(2)
    bindings = trace_bindings.Bindings()
    bindings.bind(t, trace_bindings.TENSOR_SLOTS)
    try:
        assert type(t) is not Tensor and not dispatches(type(t))
        assert type(type(t)._wrap(jnp.ones(2))) is Tensor
    finally:
        bindings.unbind()
    assert type(t) is Tensor


def test_an_object_two_traces_bind_stays_bound_until_both_end():
    t = torch.ones(2)
    outer, inner = trace_bindings.Bindings(), trace_bindings.Bindings()
    outer.bind(t, trace_bindings.TENSOR_SLOTS)
    inner.bind(t, trace_bindings.TENSOR_SLOTS)
    t._value = jnp.zeros(2)
    inner.unbind()
    assert type(t) is not Tensor and float(t._value.sum()) == 0.0
    outer.unbind()
    assert type(t) is Tensor and float(t._value.sum()) == 2.0
