"""A create_graph `autograd.grad` met again is recorded as one op (`_tape/fused.record_whole`):
its gradients, of every order, are the node-by-node recording's, JAX's, finite differences'
and PyTorch's; graphs with hooks or an unreached target keep the node-by-node recording."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograd_compat as torch  # (which turns on JAX's x64 mode: float64 here)

X = np.array([[0.3, -1.2, 0.5], [0.8, 0.1, -0.4]])
W = np.array([[0.5, -1.0], [2.0, 0.25], [-0.3, 0.7]])
WHOLE = "GradBackward"  # the node of a backward recorded as one op


def _penalty(lib, x, w):
    """WGAN-GP's shape: the squared input gradient of a tanh layer, and that gradient."""
    (g,) = lib.autograd.grad((x @ w).tanh().sum(), x, create_graph=True)
    return (g**2).sum() + (g * x).sum(), g


def _penalty_jax(x, w):
    g = jax.grad(lambda u: jnp.tanh(u @ w).sum())(x)
    return (g**2).sum() + (g * x).sum()


def _steps(lib, n: int) -> list:
    """`n` steps of the penalty's backward: (grad_fn name of g, g, x.grad, w.grad) each."""
    out = []
    for _ in range(n):
        x = lib.tensor(X, requires_grad=True)
        w = lib.tensor(W, requires_grad=True)
        penalty, g = _penalty(lib, x, w)
        penalty.backward()
        out.append((g.grad_fn.name(), g.detach().numpy(), x.grad.numpy(), w.grad.numpy()))
    return out


def test_a_repeated_double_backward_is_one_node_with_jax_gradients():
    steps = _steps(torch, 4)
    names = [name for name, *_ in steps]
    assert names[0] != WHOLE and names[1:] == [WHOLE] * 3  # (node by node the first time)
    gx, gw = jax.grad(_penalty_jax, argnums=(0, 1))(jnp.asarray(X), jnp.asarray(W))
    g = jax.grad(lambda u: jnp.tanh(u @ jnp.asarray(W)).sum())(jnp.asarray(X))
    for _, g_ours, x_grad, w_grad in steps:
        np.testing.assert_allclose(g_ours, g, rtol=1e-12)
        np.testing.assert_allclose(x_grad, gx, rtol=1e-12)
        np.testing.assert_allclose(w_grad, gw, rtol=1e-12)


def test_the_whole_op_gradients_match_finite_differences():
    _steps(torch, 2)  # the structure met before: the next backward is recorded whole
    w = torch.tensor(W, requires_grad=True)
    penalty, g = _penalty(torch, torch.tensor(X, requires_grad=True), w)
    assert g.grad_fn.name() == WHOLE
    (gw,) = torch.autograd.grad(penalty, w)
    eps, expected = 1e-6, np.zeros_like(W)
    for index in np.ndindex(W.shape):
        up, down = W.copy(), W.copy()
        up[index] += eps
        down[index] -= eps
        expected[index] = (_penalty_jax(X, up) - _penalty_jax(X, down)) / (2 * eps)
    np.testing.assert_allclose(gw.numpy(), expected, rtol=1e-6, atol=1e-8)


@pytest.mark.torch
def test_repeated_double_backwards_match_pytorch(real_torch):
    for (_, *ours), (_, *theirs) in zip(_steps(torch, 3), _steps(real_torch, 3)):
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, rtol=1e-12)


def test_a_third_derivative_through_the_whole_op():
    for _ in range(3):
        x = torch.tensor(1.5, requires_grad=True, dtype=torch.float64)
        (d1,) = torch.autograd.grad(x**3 * x.sin(), x, create_graph=True)
        (d2,) = torch.autograd.grad(d1, x, create_graph=True)
        (d3,) = torch.autograd.grad(d2, x)
    assert d1.grad_fn.name() == WHOLE and d2.grad_fn.name() == WHOLE
    third = jax.grad(jax.grad(jax.grad(lambda v: v**3 * jnp.sin(v))))(1.5)
    assert d3.item() == pytest.approx(float(third), rel=1e-12)


def test_a_tensor_hook_keeps_the_backward_node_by_node():
    calls = []
    for _ in range(3):
        x = torch.tensor(X, requires_grad=True)
        h = x @ torch.tensor(W)
        h.register_hook(lambda grad: calls.append(grad.shape) or grad * 2)
        (g,) = torch.autograd.grad(h.tanh().sum(), x, create_graph=True)
        assert g.grad_fn.name() != WHOLE
    assert len(calls) == 3
    expected = 2 * jax.grad(lambda u: jnp.tanh(u @ jnp.asarray(W)).sum())(jnp.asarray(X))
    np.testing.assert_allclose(g.detach().numpy(), expected, rtol=1e-12)


def test_an_unreached_target_keeps_allow_unused_none():
    for _ in range(3):
        x = torch.tensor(X, requires_grad=True)
        unused = torch.tensor(W, requires_grad=True)
        g, none = torch.autograd.grad(
            (x * x).sum(), (x, unused), create_graph=True, allow_unused=True
        )
        assert none is None and g.grad_fn.name() != WHOLE
    np.testing.assert_allclose(g.detach().numpy(), 2 * X)


def test_one_structure_differentiated_for_other_targets_in_turn():
    """The hot pass (`_tape/hot.hot_schedule` with targets) checks where the targets lie: a
    graph of the same nodes differentiated for x, then y, then both, gives each its own
    gradients."""

    def f(a, b):
        return (a * b * jnp.sin(a)).sum()

    xs, ys = jnp.asarray(X[0]), jnp.asarray(X[1])
    for targets in ("x", "y", "x", "y", "xy", "xy", "x"):
        x = torch.tensor(X[0], requires_grad=True)
        y = torch.tensor(X[1], requires_grad=True)
        wanted = [t for name, t in (("x", x), ("y", y)) if name in targets]
        grads = torch.autograd.grad((x * y * x.sin()).sum(), wanted, create_graph=True)
        argnums = tuple(i for i, name in enumerate("xy") if name in targets)
        expected = jax.grad(f, argnums=argnums)(xs, ys)
        for g, e in zip(grads, expected):
            np.testing.assert_allclose(g.detach().numpy(), e, rtol=1e-12)
        (second,) = torch.autograd.grad(sum(g.sum() for g in grads), x)
        e2 = jax.grad(lambda a, n=argnums: sum(v.sum() for v in jax.grad(f, n)(a, ys)))(xs)
        np.testing.assert_allclose(second.numpy(), e2, rtol=1e-12)


def test_a_hook_registered_once_the_graph_is_hot_runs():
    for _ in range(3):
        x = torch.tensor(X, requires_grad=True)
        (g,) = torch.autograd.grad((x**3).sum(), x, create_graph=True)
    assert g.grad_fn.name() == WHOLE
    x = torch.tensor(X, requires_grad=True)
    y = x**3
    y.register_hook(lambda grad: grad * 10)
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 30 * X**2, rtol=1e-12)


def test_a_saved_value_changed_in_place_fails_at_grad_once_hot():
    for _ in range(3):
        x = torch.tensor(X, requires_grad=True)
        h = x * 2
        (g,) = torch.autograd.grad((h * h).sum(), x, create_graph=True)
    assert g.grad_fn.name() == WHOLE
    x = torch.tensor(X, requires_grad=True)
    h = x * 2
    out = (h * h).sum()
    h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        torch.autograd.grad(out, x, create_graph=True)
