"""Reductions written in the form XLA:CPU runs fast: softmax's shift by a maximum that ignores
NaN (`_pure/softmax`) and a bias's gradient summed as a product with ones (`_pure/row_sums`).
Each must give the plain formulation's numbers and derivatives, and keep the form that makes it
fast (checked in the jaxpr, since XLA would otherwise be free to take the slow one)."""

from __future__ import annotations

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._pure import row_sums, softmax

NAN, INF = float("nan"), float("inf")
ROWS = np.array(
    [
        [1.0, 2.0, 3.0, -1.0],
        [-INF, 0.5, -INF, 2.0],  # masked keys
        [-INF, -INF, -INF, -INF],  # every key masked: NaN, as jax.nn's and PyTorch's
        [NAN, 1.0, 2.0, 3.0],  # a NaN anywhere: the whole row NaN
        [1.0, 2.0, 3.0, NAN],
        [INF, 1.0, 0.0, 0.0],  # an infinity: NaN
        [-0.0, 0.0, -0.0, 0.0],
        [1e30, -1e30, 1e30, 88.0],
    ],
    np.float32,
)


def _primitives(fn, *args) -> set:
    """The names of every primitive in `fn`'s jaxpr, nested ones included."""
    names = set()

    def walk(jaxpr):
        for eqn in jaxpr.eqns:
            names.add(eqn.primitive.name)
            for param in eqn.params.values():
                for sub in param if isinstance(param, (tuple, list)) else (param,):
                    sub = getattr(sub, "jaxpr", sub)  # a ClosedJaxpr's
                    if hasattr(sub, "eqns"):
                        walk(sub)

    walk(jax.make_jaxpr(fn)(*args).jaxpr)
    return names


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_gives_jax_nns_numbers(log, dtype):
    ours = softmax.log_softmax if log else softmax.softmax
    theirs = jax.nn.log_softmax if log else jax.nn.softmax
    x = jnp.asarray(ROWS, dtype)
    for axis in (-1, 0):
        chex.assert_trees_all_close(jax.jit(ours, static_argnums=1)(x, axis), theirs(x, axis))


@pytest.mark.parametrize("log", [False, True])
def test_softmax_derivatives_are_jax_nns(log):
    ours = softmax.log_softmax if log else softmax.softmax
    theirs = jax.nn.log_softmax if log else jax.nn.softmax
    x = jnp.asarray(np.random.default_rng(0).standard_normal((3, 5)), jnp.float64)
    weights = jnp.arange(15.0).reshape(3, 5)
    for axis in (-1, 0):
        loss_ours = lambda v, a=axis: jnp.sum(ours(v, a) * weights)  # noqa: E731
        loss_theirs = lambda v, a=axis: jnp.sum(theirs(v, a) * weights)  # noqa: E731
        chex.assert_trees_all_close(jax.grad(loss_ours)(x), jax.grad(loss_theirs)(x))
        chex.assert_trees_all_close(jax.hessian(loss_ours)(x), jax.hessian(loss_theirs)(x))


def test_softmax_of_a_scalar_and_of_every_axis():
    chex.assert_trees_all_close(softmax.softmax(jnp.float32(3.0), None), jnp.float32(1.0))
    x = jnp.asarray(ROWS[:2])
    chex.assert_trees_all_close(softmax.log_softmax(x, None), jax.nn.log_softmax(x, axis=None))


def test_the_shift_is_no_nan_propagating_max():
    """XLA's max reduction propagates NaN and XLA:CPU emits it as a scalar loop; the shift must
    stay a reduction by select."""
    names = _primitives(lambda v: softmax.softmax(v, -1), jnp.asarray(ROWS))
    assert "reduce_max" not in names and "reduce" in names


def test_softmax_cross_entropy_and_attention_with_nan_and_masked_rows_match_pytorch(real_torch):
    def run(module):
        x = module.tensor(ROWS, requires_grad=True)
        outs = [
            module.softmax(x, -1),
            module.log_softmax(x, 1),
            module.nn.functional.cross_entropy(x[:2], module.tensor([1, 3]), reduction="none"),
        ]
        q = module.tensor(ROWS[:4].reshape(1, 1, 4, 4))
        outs.append(module.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True))
        outs[0].sum().backward()
        return [o.detach().numpy() for o in outs] + [x.grad.numpy()]

    for ours, theirs in zip(run(torch), run(real_torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("length, source", [(7, 4), (4, 7)])
def test_causal_attention_takes_a_plain_softmax_and_matches_pytorch(real_torch, length, source):
    """Every query of causal attention sees the first key, so no row is masked everywhere and
    the op skips that check (no `reduce_and`); values and the gradients of all three inputs
    are PyTorch's, with fewer queries than keys and more."""
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal((2, 3, n, 8)) for n in (length, source, source)]

    def run(module):
        q, k, v = [module.tensor(a, requires_grad=True) for a in arrays]
        out = module.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        (out * module.tensor(arrays[0][..., :1])).sum().backward()
        return [out.detach().numpy()] + [t.grad.numpy() for t in (q, k, v)]

    for ours, theirs in zip(run(torch), run(real_torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
    attention = torch.nn.functional.scaled_dot_product_attention
    names = _primitives(
        lambda q, k: (
            attention(torch.Tensor(q), torch.Tensor(k), torch.Tensor(k), is_causal=True)._value
        ),
        jnp.asarray(arrays[0]),
        jnp.asarray(arrays[1]),
    )
    assert "reduce_and" not in names and "dot_general" in names


@pytest.mark.parametrize("shape", [(6, 4), (2, 3, 4)])
def test_add_row_gives_the_sum_over_rows_as_a_product(shape):
    y = jnp.asarray(np.random.default_rng(1).standard_normal(shape), jnp.float64)
    v = jnp.asarray(np.arange(4.0))
    weights = jnp.arange(float(np.prod(shape))).reshape(shape)

    def loss(y, v):
        return jnp.sum(row_sums.add_row(y, v) ** 2 * weights)

    def plain(y, v):
        return jnp.sum((y + v) ** 2 * weights)

    chex.assert_trees_all_close(jax.grad(loss, (0, 1))(y, v), jax.grad(plain, (0, 1))(y, v))
    chex.assert_trees_all_close(jax.hessian(loss, 1)(y, v), jax.hessian(plain, 1)(y, v))
    chex.assert_trees_all_close(
        jax.jvp(lambda v: row_sums.add_row(y, v), (v,), (v,))[1], jnp.broadcast_to(v, shape)
    )
    pullback = jax.vjp(row_sums.add_row, y, v)[1]
    names = _primitives(pullback, jnp.ones(shape, jnp.float64))
    assert "dot_general" in names and "reduce_sum" not in names


def test_add_row_leaves_half_precision_and_broadcasting_to_plain_addition():
    for y, v in [
        (jnp.ones((4, 3), jnp.bfloat16), jnp.ones(3, jnp.bfloat16)),
        (jnp.ones((4, 3)), jnp.ones((1, 3))),
        (jnp.ones((4, 3)), jnp.ones(1)),
        (jnp.ones(3), jnp.ones(3)),
    ]:
        pullback = jax.vjp(row_sums.add_row, y, v)[1]
        assert "dot_general" not in _primitives(pullback, jnp.ones(y.shape, y.dtype))


def test_a_mean_along_rows_is_a_product_and_xlas_mean_elsewhere():
    x = jnp.asarray(np.random.default_rng(4).standard_normal((6, 5)), jnp.float64)
    for axes in [(1,), (0,)]:
        chex.assert_trees_all_close(
            row_sums.mean_along_rows(x, axes), jnp.mean(x, axis=axes, keepdims=True)
        )

    def loss(v):
        return jnp.sum(row_sums.mean_along_rows(v * v, (1,)) * jnp.arange(6.0)[:, None])

    chex.assert_trees_all_close(
        jax.grad(loss)(x), jax.grad(lambda v: jnp.sum(jnp.mean(v * v, 1) * jnp.arange(6.0)))(x)
    )
    assert "dot_general" in _primitives(lambda v: row_sums.mean_along_rows(v, (1,)), x)
    assert "dot_general" not in _primitives(lambda v: row_sums.mean_along_rows(v, (0,)), x)
    half = jnp.ones((4, 3), jnp.bfloat16)
    assert "dot_general" not in _primitives(lambda v: row_sums.mean_along_rows(v, (1,)), half)


@pytest.mark.parametrize("norm", ["linear", "layer_norm"])
def test_a_bias_over_a_batch_of_sequences_matches_pytorch(norm, real_torch):
    """A linear layer's and a layer norm's weight and bias gradients over (batch, sequence)
    rows, where the sums over the rows are products with ones."""
    rng = np.random.default_rng(2)
    data = rng.standard_normal((3, 5, 8)).astype(np.float32)
    weight = rng.standard_normal((6, 8) if norm == "linear" else (8,)).astype(np.float32)
    bias = rng.standard_normal(6 if norm == "linear" else 8).astype(np.float32)

    def run(module):
        x = module.tensor(data, requires_grad=True)
        w = module.tensor(weight, requires_grad=True)
        b = module.tensor(bias, requires_grad=True)
        functional = module.nn.functional
        if norm == "linear":
            y = functional.linear(x, w, b)
        else:
            y = functional.layer_norm(x, (8,), w, b)
        (
            y * module.tensor(np.arange(y.numel(), dtype=np.float32).reshape(y.shape))
        ).sum().backward()
        return [y.detach().numpy(), x.grad.numpy(), w.grad.numpy(), b.grad.numpy()]

    for ours, theirs in zip(run(torch), run(real_torch)):
        np.testing.assert_allclose(ours, theirs, rtol=2e-5, atol=1e-4)


def test_an_lstms_bias_gradients_over_its_steps_match_pytorch(real_torch):
    """The input and recurrent biases' gradients, summed over every step and sequence (a
    product with ones for the input's, `ones @ g` for the recurrent one's tangent)."""
    rng = np.random.default_rng(3)
    data = rng.standard_normal((7, 3, 4)).astype(np.float32)

    def run(module):
        module.manual_seed(0)
        lstm = module.nn.LSTM(4, 5, num_layers=2)
        with module.no_grad():
            for p, init in zip(lstm.parameters(), rng_params):
                p.copy_(module.tensor(init))
        out, _ = lstm(module.tensor(data))
        (out * out).sum().backward()
        return [p.grad.numpy() for p in lstm.parameters()]

    shapes = [tuple(p.shape) for p in torch.nn.LSTM(4, 5, num_layers=2).parameters()]
    rng_params = [rng.standard_normal(shape).astype(np.float32) * 0.5 for shape in shapes]
    for ours, theirs in zip(run(torch), run(real_torch)):
        np.testing.assert_allclose(ours, theirs, rtol=2e-5, atol=2e-5)
