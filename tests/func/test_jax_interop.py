"""Code written against the Tensor API runs inside jax.jit, jax.vmap and jax.grad."""

from __future__ import annotations

import chex
import jax
import jax.numpy as jnp
import numpy as np

import autograd_compat as torch


def _model(w, x):
    """A PyTorch-style function: Tensors in, Tensor out, eager ops only."""
    return ((x @ w).tanh() * 2 + 1).sum()


def _pure_model(w, x):
    return (jnp.tanh(x @ w) * 2 + 1).sum()


def _grad_by_backward(w_array, x_array):
    """PyTorch's stateful idiom — leaf, backward, .grad — as a pure function of arrays."""
    w = torch.from_jax(w_array, requires_grad=True)
    _model(w, torch.from_jax(x_array)).backward()
    return w.grad.jax()


W = jnp.array([[0.5, -1.0], [2.0, 0.25], [0.1, 0.3]], jnp.float32)
X = jnp.array([[1.0, 2.0, 3.0], [0.5, -0.5, 0.0]], jnp.float32)


class TensorCodeUnderTransforms(chex.TestCase):
    @chex.variants(with_jit=True, without_jit=True)
    def test_backward_inside_a_transform(self):
        grad = self.variant(_grad_by_backward)(W, X)
        chex.assert_trees_all_close(grad, jax.grad(_pure_model)(W, X), rtol=1e-6)

    @chex.variants(with_jit=True, without_jit=True)
    def test_forward_inside_a_transform(self):
        fn = self.variant(lambda w, x: _model(torch.from_jax(w), torch.from_jax(x)).jax())
        chex.assert_trees_all_close(fn(W, X), _pure_model(W, X), rtol=1e-6)


def test_jax_grad_differentiates_through_tensor_ops():
    fn = lambda w: _model(torch.from_jax(w), torch.from_jax(X)).jax()  # noqa: E731
    chex.assert_trees_all_close(jax.grad(fn)(W), jax.grad(_pure_model)(W, X), rtol=1e-6)


def test_vmap_over_tensor_code_and_backward():
    batch = jnp.stack([W, W * 2, W * -1])
    grads = jax.vmap(_grad_by_backward, in_axes=(0, None))(batch, X)
    expected = jax.vmap(jax.grad(_pure_model), in_axes=(0, None))(batch, X)
    chex.assert_trees_all_close(grads, expected, rtol=1e-5, atol=1e-6)


def test_tensor_is_a_pytree():
    t = torch.tensor([1.0, 2.0], requires_grad=True)
    leaves, treedef = jax.tree_util.tree_flatten({"w": t, "n": 3})
    assert any(leaf is t.jax() for leaf in leaves)
    doubled = jax.tree_util.tree_map(lambda v: v * 2, t)
    assert isinstance(doubled, torch.Tensor) and doubled.requires_grad
    assert doubled.tolist() == [2.0, 4.0]
    out = jax.jit(lambda tensor: tensor * 3)(torch.tensor([1.0, 2.0]))
    assert isinstance(out, torch.Tensor) and out.tolist() == [3.0, 6.0]


def test_explicit_conversions():
    array = jnp.arange(3.0)
    t = torch.from_jax(array)
    assert t.jax() is array and torch.to_jax(t) is array
    np.testing.assert_array_equal(t.numpy(), [0.0, 1.0, 2.0])


def test_repr_of_a_traced_tensor_does_not_crash():
    seen = []
    jax.jit(lambda v: seen.append(repr(torch.from_jax(v))) or v)(jnp.ones(2))
    assert "traced" in seen[0]
