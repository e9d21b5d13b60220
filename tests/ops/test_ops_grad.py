"""The issue-2 ops, each checked three ways: against the pure JAX function (value and
jax.vjp), against float64 central differences, and against real PyTorch when installed."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograd_compat as torch

# (id, function of autograd_compat/torch tensors, the same in jax.numpy, input shapes, domain)
POSITIVE = (0.5, 2.0)
ANY = (-2.0, 2.0)
SPECS = [
    ("add", lambda a, b: a + b, lambda a, b: a + b, [(2, 3), (3,)], ANY),
    ("radd_scalar", lambda a: 2.5 + a, lambda a: 2.5 + a, [(2, 3)], ANY),
    ("sub", lambda a, b: a - b, lambda a, b: a - b, [(2, 1), (1, 3)], ANY),
    ("rsub_scalar", lambda a: 1.5 - a, lambda a: 1.5 - a, [(3,)], ANY),
    ("mul", lambda a, b: a * b, lambda a, b: a * b, [(2, 3), (2, 3)], ANY),
    ("mul_scalar", lambda a: a * 3, lambda a: a * 3, [(2, 3)], ANY),
    ("div", lambda a, b: a / b, lambda a, b: a / b, [(2, 3), (3,)], POSITIVE),
    ("rdiv_scalar", lambda a: 2 / a, lambda a: 2 / a, [(3,)], POSITIVE),
    ("pow_tensor", lambda a, b: a**b, lambda a, b: a**b, [(3,), (3,)], POSITIVE),
    ("pow_int", lambda a: a**3, lambda a: a**3, [(2, 3)], ANY),
    ("pow_float", lambda a: a**1.5, lambda a: a**1.5, [(3,)], POSITIVE),
    ("rpow", lambda a: 2**a, lambda a: 2.0**a, [(3,)], ANY),
    ("neg", lambda a: -a, lambda a: -a, [(2, 3)], ANY),
    ("abs", lambda a: a.abs(), jnp.abs, [(2, 3)], ANY),
    ("exp", lambda a: a.exp(), jnp.exp, [(2, 3)], ANY),
    ("log", lambda a: a.log(), jnp.log, [(2, 3)], POSITIVE),
    ("sqrt", lambda a: a.sqrt(), jnp.sqrt, [(2, 3)], POSITIVE),
    ("sin", lambda a: a.sin(), jnp.sin, [(2, 3)], ANY),
    ("cos", lambda a: a.cos(), jnp.cos, [(2, 3)], ANY),
    ("tanh", lambda a: a.tanh(), jnp.tanh, [(2, 3)], ANY),
    ("sigmoid", lambda a: a.sigmoid(), jax.nn.sigmoid, [(2, 3)], ANY),
    ("relu", lambda a: a.relu(), jax.nn.relu, [(2, 3)], ANY),
    ("sum", lambda a: a.sum(), jnp.sum, [(2, 3)], ANY),
    ("sum_dim", lambda a: a.sum(1), lambda a: a.sum(1), [(2, 3)], ANY),
    (
        "sum_keepdim",
        lambda a: a.sum((0, 1), keepdim=True),
        lambda a: a.sum((0, 1), keepdims=True),
        [(2, 3)],
        ANY,
    ),
    ("mean", lambda a: a.mean(), jnp.mean, [(2, 3)], ANY),
    (
        "mean_dim",
        lambda a: a.mean(-1, keepdim=True),
        lambda a: a.mean(-1, keepdims=True),
        [(2, 3)],
        ANY,
    ),
    ("norm", lambda a: a.norm(), jnp.linalg.norm, [(2, 3)], ANY),
    ("norm_p1_dim", lambda a: a.norm(p=1, dim=0), lambda a: jnp.abs(a).sum(0), [(2, 3)], ANY),
    ("norm_p3", lambda a: a.norm(p=3), lambda a: (jnp.abs(a) ** 3).sum() ** (1 / 3), [(2, 3)], ANY),
    ("matmul", lambda a, b: a @ b, jnp.matmul, [(2, 3), (3, 4)], ANY),
    ("matmul_batched", lambda a, b: a @ b, jnp.matmul, [(2, 2, 3), (3, 4)], ANY),
    ("matmul_vec", lambda a, b: a @ b, jnp.matmul, [(2, 3), (3,)], ANY),
    ("dot", lambda a, b: a @ b, jnp.matmul, [(3,), (3,)], ANY),
    ("mm", lambda a, b: a.mm(b), jnp.matmul, [(2, 3), (3, 2)], ANY),
    ("reshape", lambda a: a.reshape(3, -1), lambda a: a.reshape(3, -1), [(2, 3)], ANY),
    ("view", lambda a: a.view(6), lambda a: a.reshape(6), [(2, 3)], ANY),
    ("transpose", lambda a: a.transpose(0, 1), lambda a: a.T, [(2, 3)], ANY),
    ("t", lambda a: a.t(), lambda a: a.T, [(2, 3)], ANY),
    ("T", lambda a: a.T, lambda a: a.T, [(2, 3)], ANY),
    ("slice", lambda a: a[1:3], lambda a: a[1:3], [(4, 3)], ANY),
    ("select_column", lambda a: a[:, 0], lambda a: a[:, 0], [(4, 3)], ANY),
    ("step_slice", lambda a: a[::2, 1:], lambda a: a[::2, 1:], [(4, 3)], ANY),
    (
        "chain",
        lambda a, b: ((a * b).tanh() + a.exp() / 3).mean(),
        lambda a, b: (jnp.tanh(a * b) + jnp.exp(a) / 3).mean(),
        [(2, 3), (2, 3)],
        ANY,
    ),
]
IDS = [spec[0] for spec in SPECS]


def _inputs(shapes, domain, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    low, high = domain
    arrays = [rng.uniform(low, high, size=shape).astype(dtype) for shape in shapes]
    if domain is ANY:  # keep away from the kinks of abs/relu/norm
        arrays = [np.where(np.abs(a) < 0.1, 0.3, a) for a in arrays]
    return arrays


def _ours(fn, arrays):
    leaves = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = fn(*leaves)
    weights = np.linspace(0.5, 1.5, max(out.numel(), 1)).reshape(tuple(out.shape))
    out.backward(torch.tensor(weights, dtype=out.dtype))
    return out.detach().numpy(), [leaf.grad.numpy() for leaf in leaves], weights


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_against_jax(spec):
    """Forward equals the pure function; the gradient equals jax.vjp of it."""
    _, fn, jax_fn, shapes, domain = spec
    arrays = _inputs(shapes, domain, np.float32)
    value, grads, weights = _ours(fn, arrays)
    expected, vjp = jax.vjp(jax_fn, *[jnp.asarray(a) for a in arrays])
    np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-6)
    expected_grads = vjp(jnp.asarray(weights, expected.dtype))
    for grad, expected_grad, array in zip(grads, expected_grads, arrays):
        assert grad.shape == array.shape and grad.dtype == np.float32
        np.testing.assert_allclose(grad, expected_grad, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_against_finite_differences(spec):
    """In float64, the gradient of sum(w * f(x)) matches central differences."""
    _, fn, _, shapes, domain = spec
    arrays = _inputs(shapes, domain)
    _, grads, weights = _ours(fn, arrays)
    eps = 1e-6

    def objective(values):
        with torch.no_grad():
            out = fn(*[torch.tensor(v) for v in values]).numpy()
        return float((out * weights).sum())

    for index, array in enumerate(arrays):
        numeric = np.zeros_like(array)
        for position in np.ndindex(array.shape):
            plus = [a.copy() for a in arrays]
            minus = [a.copy() for a in arrays]
            plus[index][position] += eps
            minus[index][position] -= eps
            numeric[position] = (objective(plus) - objective(minus)) / (2 * eps)
        np.testing.assert_allclose(grads[index], numeric, rtol=1e-6, atol=1e-6)


@pytest.mark.torch
@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_against_pytorch(spec, real_torch):
    """Same values, gradients, dtypes and grad_fn name as real PyTorch."""
    _, fn, _, shapes, domain = spec
    arrays = _inputs(shapes, domain, np.float32)
    ours = [torch.tensor(a, requires_grad=True) for a in arrays]
    theirs = [real_torch.tensor(a, requires_grad=True) for a in arrays]
    out_ours, out_theirs = fn(*ours), fn(*theirs)
    assert str(out_ours.dtype) == str(out_theirs.dtype)
    assert tuple(out_ours.shape) == tuple(out_theirs.shape)
    assert out_ours.grad_fn.name() == out_theirs.grad_fn.name()
    np.testing.assert_allclose(
        out_ours.detach().numpy(), out_theirs.detach().numpy(), rtol=1e-5, atol=1e-6
    )
    out_ours.sum().backward()
    out_theirs.sum().backward()
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "op",
    [
        lambda x: x.relu(),
        lambda x: x.abs(),
        lambda x: x.norm(),
        lambda x: x.norm(p=3),
        lambda x: x**0,
        lambda x: x**2,
    ],
    ids=["relu", "abs", "norm", "norm_p3", "pow0", "pow2"],
)
def test_gradient_at_zero_is_finite_as_in_pytorch(op):
    """Kinks get PyTorch's subgradient (0), never a NaN."""
    x = torch.zeros(3, requires_grad=True)
    op(x).sum().backward()
    assert np.all(np.isfinite(x.grad.numpy()))
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(3, np.float32))


def test_pow_tensor_exponent_gradient_at_zero_base():
    base = torch.tensor([0.0, 2.0], requires_grad=True)
    exponent = torch.tensor([2.0, 3.0], requires_grad=True)
    (base**exponent).sum().backward()
    np.testing.assert_allclose(exponent.grad.numpy(), [0.0, 8 * np.log(2)], rtol=1e-6)
    np.testing.assert_allclose(base.grad.numpy(), [0.0, 12.0])


@pytest.mark.parametrize(
    "fn",
    [
        lambda a, b: a < b,
        lambda a, b: a <= b,
        lambda a, b: a > b,
        lambda a, b: a >= b,
        lambda a, b: a == b,
        lambda a, b: a != b,
    ],
    ids=["lt", "le", "gt", "ge", "eq", "ne"],
)
def test_comparisons_are_boolean_and_not_differentiable(fn):
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = fn(a, 2.0)
    assert out.dtype is torch.bool and not out.requires_grad and out.grad_fn is None
    expected = fn(np.array([1.0, 2.0, 3.0]), 2.0)
    np.testing.assert_array_equal(out.numpy(), expected)
    np.testing.assert_array_equal(fn(a, torch.tensor([2.0, 2.0, 2.0])).numpy(), expected)


def test_functions_and_methods_agree():
    x = torch.tensor([[0.5, 1.0], [1.5, 2.0]])
    for name in [
        "exp",
        "log",
        "sqrt",
        "sin",
        "cos",
        "tanh",
        "sigmoid",
        "relu",
        "abs",
        "neg",
        "sum",
        "mean",
        "norm",
        "t",
    ]:
        np.testing.assert_array_equal(
            getattr(torch, name)(x).numpy(), getattr(x, name)().numpy(), err_msg=name
        )
    np.testing.assert_array_equal(torch.matmul(x, x).numpy(), (x @ x).numpy())
    np.testing.assert_array_equal(torch.mm(x, x).numpy(), x.mm(x).numpy())
    np.testing.assert_array_equal(torch.reshape(x, (4,)).numpy(), x.reshape(4).numpy())
    np.testing.assert_array_equal(torch.transpose(x, 0, 1).numpy(), x.transpose(0, 1).numpy())
