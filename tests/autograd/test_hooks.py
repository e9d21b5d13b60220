"""Hooks: tensor hooks, post-accumulate-grad hooks, node hooks and prehooks (order and errors
as PyTorch's), multi-grad hooks, and saved-tensor hooks (pack/unpack, offload to numpy)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._tape import fused as _fused
from tests._helpers.torch_compare import cube_function


def _same_error(real_torch, fn):
    with pytest.raises(Exception) as info:
        fn(real_torch)
    expected = info.value
    with pytest.raises(type(expected), match=re.escape(str(expected))):
        fn(torch)


def _fmt(value):
    if value is None:
        return None
    if isinstance(value, tuple):
        return tuple(_fmt(v) for v in value)
    if isinstance(value, list):
        return [_fmt(v) for v in value]
    if isinstance(value, bool | str):
        return value
    return np.round(np.asarray(value.detach().numpy(), np.float64), 4).tolist()


def _hook_order_log(lib):
    log = []
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: log.append(("leaf tensor hook", _fmt(g))))
    x.register_post_accumulate_grad_hook(lambda t: log.append(("post acc", _fmt(t.grad))))
    y = x * 2
    z = y * y * 0.5
    accumulator = y.grad_fn.next_functions[0][0]
    accumulator.register_prehook(lambda go: log.append(("acc pre", _fmt(go))))
    accumulator.register_hook(lambda gi, go: log.append(("acc post", _fmt(gi), _fmt(go))))
    y.grad_fn.register_prehook(lambda go: log.append(("node pre", _fmt(go))))
    y.grad_fn.register_hook(lambda gi, go: log.append(("node post", _fmt(gi), _fmt(go))))
    y.register_hook(lambda g: log.append(("tensor hook", _fmt(g))))
    y.retain_grad()
    z.sum().backward()
    log.append(("retained", _fmt(y.grad)))
    return log


def test_hook_order_matches_pytorch(real_torch):
    assert _hook_order_log(torch) == _hook_order_log(real_torch)


def test_post_accumulate_grad_hook():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    handle = x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    (x * 3).sum().backward()
    (x * 3).sum().backward()
    assert seen == [[3.0, 3.0], [6.0, 6.0]]
    torch.autograd.grad((x * 3).sum(), x)  # grad() accumulates nothing: no hook
    assert len(seen) == 2
    handle.remove()
    (x * 3).sum().backward()
    assert len(seen) == 2


def test_post_accumulate_grad_hook_errors(real_torch):
    def non_leaf(lib):
        (lib.ones(2, requires_grad=True) * 2).register_post_accumulate_grad_hook(print)

    def no_grad(lib):
        lib.ones(2).register_post_accumulate_grad_hook(print)

    _same_error(real_torch, non_leaf)
    _same_error(real_torch, no_grad)


def test_node_hooks_replace_gradients_and_are_removable():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    handle = y.grad_fn.register_hook(lambda gi, go: (gi[0] * 10, gi[1]))
    pre = y.grad_fn.register_prehook(lambda go: (go[0] + 1,))
    y.sum().backward(retain_graph=True)
    np.testing.assert_array_equal(x.grad.numpy(), [40.0, 40.0])
    handle.remove()
    pre.remove()
    x.grad = None
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


@pytest.mark.parametrize(
    "install",
    [
        lambda lib, x, y: y.register_hook(lambda g: lib.ones(3)),
        lambda lib, x, y: y.register_hook(lambda g: g.double()),
        lambda lib, x, y: y.register_hook(lambda g: 3),
        lambda lib, x, y: x.register_hook(lambda g: lib.ones(3)),
        lambda lib, x, y: y.grad_fn.register_prehook(lambda go: (lib.ones(3),)),
        lambda lib, x, y: y.grad_fn.register_prehook(lambda go: go[0]),
        lambda lib, x, y: y.grad_fn.register_hook(lambda gi, go: (lib.ones(3), None)),
        lambda lib, x, y: y.grad_fn.register_hook(lambda gi, go: (lib.ones(2),)),
        lambda lib, x, y: y.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0])),
        lambda lib, x, y: y.grad_fn.register_hook(lambda gi, go: 3),
        lambda lib, x, y: x.register_post_accumulate_grad_hook(lambda t: t.grad),
        lambda lib, x, y: x.register_post_accumulate_grad_hook(lambda t: 3),
    ],
    ids=[
        "size",
        "dtype",
        "type",
        "leaf-size",
        "prehook-size",
        "prehook-not-tuple",
        "hook-size",
        "hook-count",
        "hook-replaces-none",
        "hook-not-tuple",
        "post-accumulate-tensor",
        "post-accumulate-type",
    ],
)
def test_bad_hook_results_are_refused(real_torch, install):
    def fn(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        install(lib, x, y)
        y.sum().backward()

    _same_error(real_torch, fn)


def test_hook_names_in_errors():
    def named_hook(grad):
        return torch.ones(3)

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.register_hook(named_hook)
    with pytest.raises(RuntimeError, match="hook 'named_hook' has changed the size of value"):
        y.sum().backward()


def _multi_log(lib):
    log = []
    a = lib.tensor([1.0], requires_grad=True)
    b = lib.tensor([2.0], requires_grad=True)
    lib.autograd.graph.register_multi_grad_hook((a, b), lambda gs: log.append(("all", _fmt(gs))))
    (a * 3).sum().backward()
    (a * b).sum().backward()
    handle = lib.autograd.graph.register_multi_grad_hook(
        (a, b), lambda g: log.append(("any", _fmt(g))), mode="any"
    )
    (a * b).sum().backward()
    handle.remove()
    (a * b).sum().backward()
    return log


def test_multi_grad_hook_matches_pytorch(real_torch):
    assert _multi_log(torch) == _multi_log(real_torch)
    with pytest.raises(ValueError, match="Expects mode to be one of"):
        torch.autograd.graph.register_multi_grad_hook((), print, mode="some")


def test_hooks_force_the_stepwise_executor(monkeypatch):
    calls = []
    original = _fused.fused_backward
    monkeypatch.setattr(_fused, "fused_backward", lambda s: calls.append(s) or original(s))
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append(1))
    for _ in range(3):
        (x.sin() * 2).sum().backward()
    assert calls == [] and len(seen) == 3


# ----------------------------------------------------------------------------- saved tensors hooks
def _packing_log(lib):
    log = []

    def pack(t):
        log.append(("pack", tuple(t.shape)))
        return t.detach().numpy().copy()

    def unpack(array):
        log.append(("unpack",))
        return lib.from_numpy(array)

    w = lib.tensor([1.0, 2.0], requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        out = ((w * w) * w).sum()
    log.append("forward done")
    out.backward()
    log.append(("grad", _fmt(w.grad)))
    return log


def test_saved_tensors_hooks_offload_to_numpy(real_torch):
    assert _packing_log(torch) == _packing_log(real_torch)


def test_saved_tensors_hooks_with_a_custom_function_and_create_graph():
    seen = []

    Cube = cube_function(torch)

    def pack(t):
        seen.append("pack")
        return np.asarray(t.detach().jax())

    def unpack(a):
        seen.append("unpack")
        return torch.from_numpy(a)

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = Cube.apply(x).sum()
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), [6.0, 12.0])
    assert seen == ["pack", "unpack"]


def test_save_on_cpu_and_disable():
    x = torch.tensor([0.5, 1.5], requires_grad=True)
    with torch.autograd.graph.save_on_cpu():
        y = (x.sin() * x).sum()
    y.backward()
    expected = np.cos([0.5, 1.5]) * [0.5, 1.5] + np.sin([0.5, 1.5])
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)
    with torch.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="no hooks here"):
            with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass


def test_unpack_must_return_a_tensor():
    x = torch.tensor([0.5, 1.5], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
        y = (x.exp()).sum()
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor"):
        y.backward()
