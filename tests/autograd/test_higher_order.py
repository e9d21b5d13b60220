"""create_graph=True: derivatives of any order by nesting jax.vjp, checked against JAX."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograd_compat as torch


def test_third_derivative_of_a_cube():
    x = torch.tensor(1.5, requires_grad=True)
    y = x**3
    (d1,) = torch.autograd.grad(y, x, create_graph=True)
    (d2,) = torch.autograd.grad(d1, x, create_graph=True)
    (d3,) = torch.autograd.grad(d2, x)
    assert d1.item() == pytest.approx(3 * 1.5**2)
    assert d2.item() == pytest.approx(6 * 1.5)
    assert d3.item() == pytest.approx(6.0)
    assert d1.requires_grad and d1.grad_fn is not None and not d3.requires_grad


def test_backward_with_create_graph_gives_a_differentiable_grad():
    x = torch.tensor([0.5, -1.0], requires_grad=True)
    (x.sin() * x).sum().backward(create_graph=True)
    first = x.grad
    assert first.grad_fn is not None
    (g2,) = torch.autograd.grad(first.sum(), x)
    expected = jax.grad(lambda v: jax.grad(lambda u: (jnp.sin(u) * u).sum())(v).sum())(
        jnp.array([0.5, -1.0])
    )
    np.testing.assert_allclose(g2.numpy(), expected, rtol=1e-6)


def _loss(w, inp):
    return ((inp @ w).tanh() ** 2).sum() + (w * w.exp()).mean()


def test_hessian_rows_match_jax_hessian():
    w0 = np.array([[0.3, -0.2], [0.5, 0.1]], np.float64)
    inp_np = np.array([[1.0, 2.0], [0.5, -1.0], [0.0, 0.3]])
    w = torch.tensor(w0, requires_grad=True)
    inp = torch.tensor(inp_np)
    (g,) = torch.autograd.grad(_loss(w, inp), w, create_graph=True)
    flat = g.reshape(-1)
    rows = []
    for i in range(4):
        (row,) = torch.autograd.grad(flat[i], w, retain_graph=True)
        rows.append(row.numpy().reshape(-1))
    expected = jax.hessian(lambda v: _loss_jax(v, jnp.asarray(inp_np)))(jnp.asarray(w0))
    np.testing.assert_allclose(np.stack(rows), np.asarray(expected).reshape(4, 4), rtol=1e-10)


def _loss_jax(w, inp):
    return (jnp.tanh(inp @ w) ** 2).sum() + (w * jnp.exp(w)).mean()


def test_gradient_penalty_style_double_backward():
    """WGAN-GP: the norm of an input gradient, itself differentiated w.r.t. the weights."""
    w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    x = torch.tensor([[1.0, 2.0]], requires_grad=True)
    out = (x @ w).tanh().sum()
    (gx,) = torch.autograd.grad(out, x, create_graph=True)
    penalty = ((gx.norm() - 1) ** 2).sum()
    penalty.backward()

    def penalty_jax(wj):
        gxj = jax.grad(lambda xj: jnp.tanh(xj @ wj).sum())(jnp.array([[1.0, 2.0]]))
        return (jnp.linalg.norm(gxj) - 1) ** 2

    expected = jax.grad(penalty_jax)(jnp.array([[0.5, -1.0], [2.0, 0.25]], jnp.float32))
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.torch
def test_higher_order_matches_pytorch(real_torch):
    results = []
    for lib in (torch, real_torch):
        x = lib.tensor([0.3, 0.7, -0.4], requires_grad=True)
        y = (x.exp() * x.sin()).sum() + (x**4).mean()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x, create_graph=True)
        (t,) = lib.autograd.grad((h * h).sum(), x)
        results.append([v.detach().numpy() for v in (g, h, t)])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_second_derivative_of_the_2_norm_at_a_zero_element_matches_pytorch(real_torch):
    """d/dx0 of (x / |x|)_0 is 1/|x| at x0 = 0, as PyTorch's formula x / |x| gives: the 2-norm
    squares x itself, not |x| (whose sign has a zero slope there)."""
    results = []
    for lib in (real_torch, torch):
        x = lib.tensor([[0.0, 3.0, -4.0], [1.0, 0.0, 2.0]], requires_grad=True)
        (g,) = lib.autograd.grad(lib.linalg.vector_norm(x, 2, dim=1).sum(), x, create_graph=True)
        (h,) = lib.autograd.grad(g[0, 0] + g[1, 1] + (g**2).sum(), x)
        (g_all,) = lib.autograd.grad(x.norm(), x, create_graph=True)
        (h_all,) = lib.autograd.grad(g_all[0, 0], x)
        results.append([t.detach().numpy() for t in (g, h, g_all, h_all)])
    for expected, ours in zip(*results):
        np.testing.assert_allclose(ours, expected, rtol=1e-5, atol=1e-6)
    assert results[1][1][0, 0] == pytest.approx(1 / 5)
