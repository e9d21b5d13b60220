"""autograd.functional against PyTorch (values, result structure, errors) and against JAX's own
transforms of the pure function; create_graph, strict mode, the tape fallback, batched grads,
and chex variants (under jax.jit and without)."""

from __future__ import annotations

import re

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._tape import engine as _engine
from autograd_compat.autograd import functional
from tests._helpers.torch_compare import cube_function

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], np.float32)
Y = np.array([1.0, 2.0, 3.0], np.float32)
V2 = np.array([1.0, -2.0], np.float32)


def _structure(result):
    """Containers, shapes and values of a (nested) functional result."""
    if isinstance(result, tuple | list):
        return type(result).__name__, [_structure(r) for r in result]
    return tuple(result.shape), np.asarray(result.detach().numpy(), np.float64)


def _assert_same(ours, theirs, rtol=1e-5):
    kind_a, kind_b = ours[0], theirs[0]
    assert kind_a == kind_b
    if isinstance(kind_a, str):
        assert len(ours[1]) == len(theirs[1])
        for a, b in zip(ours[1], theirs[1]):
            _assert_same(a, b, rtol)
    else:
        np.testing.assert_allclose(ours[1], theirs[1], rtol=rtol, atol=1e-6)


CASES = {
    "jacobian": lambda L, F: F.jacobian(lambda x: (x.exp() * 2).sum(1), L.tensor(X)),
    "jacobian-tuples": lambda L, F: F.jacobian(
        lambda x, y: (x * y, (x * y).sum()), (L.tensor(X), L.tensor(Y))
    ),
    "jacobian-forward": lambda L, F: F.jacobian(
        lambda x, y: (x * y).sum(1),
        (L.tensor(X), L.tensor(Y)),
        vectorize=True,
        strategy="forward-mode",
    ),
    "jacobian-forward-tuples": lambda L, F: F.jacobian(
        lambda x, y: (x * 2, y.sin()),
        (L.tensor(X), L.tensor(Y)),
        vectorize=True,
        strategy="forward-mode",
    ),
    "hessian": lambda L, F: F.hessian(lambda x: (x**3).sum(), L.tensor(Y)),
    "hessian-tuples": lambda L, F: F.hessian(
        lambda x, y: (x.sin() * y).sum(), (L.tensor(X), L.tensor(Y))
    ),
    "hessian-forward": lambda L, F: F.hessian(
        lambda x, y: (x.sin() * y).sum(),
        (L.tensor(X), L.tensor(Y)),
        vectorize=True,
        outer_jacobian_strategy="forward-mode",
    ),
    "vjp": lambda L, F: F.vjp(lambda x: x.exp().sum(1), L.tensor(X), L.tensor(V2)),
    "vjp-tuples": lambda L, F: F.vjp(
        lambda x, y: (x * y, y * 2), (L.tensor(X), L.tensor(Y)), (L.tensor(X), L.tensor(Y))
    ),
    "vjp-scalar": lambda L, F: F.vjp(lambda x: (x * x).sum(), L.tensor(Y)),
    "jvp": lambda L, F: F.jvp(lambda x: x.exp().sum(1), L.tensor(X), L.tensor(X)),
    "jvp-tuples": lambda L, F: F.jvp(
        lambda x, y: (x * y, y.sin()), (L.tensor(X), L.tensor(Y)), (L.tensor(X), L.tensor(Y))
    ),
    "vhp": lambda L, F: F.vhp(lambda x: (x**3).sum(), L.tensor(Y), L.tensor(Y)),
    "hvp": lambda L, F: F.hvp(
        lambda x, y: (x**3 * y).sum(), (L.tensor(Y), L.tensor(Y)), (L.tensor(Y), L.tensor(Y))
    ),
    "detach-and-no-grad": lambda L, F: F.jacobian(
        lambda x: x.detach() * x + _no_grad_times_three(L, x) * x, L.tensor(Y)
    ),
    "independent-input": lambda L, F: F.jacobian(lambda x, y: x * 2, (L.tensor(Y), L.tensor(Y))),
    "inner-grad": lambda L, F: (
        F.jacobian(lambda x: _inner_grad(L, x, True), L.tensor(Y)),
        F.jacobian(lambda x: _inner_grad(L, x, False), L.tensor(Y)),
    ),
    "item-fallback": lambda L, F: F.jacobian(
        lambda x: x * 2 if x.sum().item() > 0 else x, L.tensor(Y)
    ),
}


def _inner_grad(lib, x, create_graph):
    """A gradient taken inside the function: constant for PyTorch unless create_graph."""
    (g,) = lib.autograd.grad((x**3).sum(), x, create_graph=create_graph)
    return g


def _no_grad_times_three(lib, x):
    with lib.no_grad():
        return x * 3


@pytest.mark.filterwarnings("ignore:.*torch.jit.script.*:DeprecationWarning")
@pytest.mark.parametrize("case", list(CASES))
def test_against_pytorch(real_torch, case):
    ours = CASES[case](torch, torch.autograd.functional)
    theirs = CASES[case](real_torch, real_torch.autograd.functional)
    _assert_same(_structure(ours), _structure(theirs))


def test_against_jax_transforms():
    def pure(x, y):
        return jnp.tanh(x * y).sum(1) ** 2

    def ours(x, y):
        return (x * y).tanh().sum(1) ** 2

    x, y = torch.tensor(X), torch.tensor(Y)
    jac = functional.jacobian(ours, (x, y))
    expected = jax.jit(jax.jacrev(pure, argnums=(0, 1)))(X, Y)
    for a, b in zip(jac, expected):
        np.testing.assert_allclose(a.numpy(), b, rtol=1e-5, atol=1e-6)
    hess = functional.hessian(lambda x, y: ours(x, y).sum(), (x, y))
    expected = jax.jit(jax.hessian(lambda a, b: pure(a, b).sum(), argnums=(0, 1)))(X, Y)
    for row, exp_row in zip(hess, expected):
        for a, b in zip(row, exp_row):
            np.testing.assert_allclose(a.numpy(), b, rtol=1e-4, atol=1e-5)


STRICT = {
    "independent": lambda L, F: F.jacobian(
        lambda x, y: x * 2, (L.tensor(Y), L.tensor(Y)), strict=True
    ),
    "no-grad-output": lambda L, F: F.vjp(
        lambda x: L.ones(3), L.tensor(Y), L.tensor(Y), strict=True
    ),
    "linear-hessian": lambda L, F: F.hessian(lambda x: (x * 2).sum(), L.tensor(Y), strict=True),
    "linear-create-graph": lambda L, F: F.jacobian(
        lambda x: x * 2, L.tensor(Y), create_graph=True, strict=True
    ),
    "vectorize": lambda L, F: F.jacobian(lambda x: x * 2, L.tensor(Y), strict=True, vectorize=True),
    "forward-no-vectorize": lambda L, F: F.jacobian(
        lambda x: x * 2, L.tensor(Y), strategy="forward-mode"
    ),
    "forward-create-graph": lambda L, F: F.jacobian(
        lambda x: x * 2, L.tensor(Y), create_graph=True, strategy="forward-mode", vectorize=True
    ),
    "bad-output": lambda L, F: F.jacobian(lambda x: 3, L.tensor(Y)),
    "bad-input": lambda L, F: F.vjp(lambda x: x, (L.tensor(Y), 2)),
    "v-none": lambda L, F: F.vjp(lambda x: x * 2, L.tensor(Y)),
    "v-size": lambda L, F: F.jvp(lambda x: x * 2, L.tensor(Y), L.tensor(V2)),
    "v-count": lambda L, F: F.jvp(lambda x, y: x, (L.tensor(Y), L.tensor(Y)), (L.tensor(Y),)),
    "hessian-vector-output": lambda L, F: F.hessian(lambda x: x * 2, L.tensor(Y)),
    "vhp-tuple-output": lambda L, F: F.vhp(lambda x: (x.sum(),), L.tensor(Y), L.tensor(Y)),
}


@pytest.mark.parametrize("case", list(STRICT))
def test_errors_match_pytorch(real_torch, case):
    with pytest.raises(Exception) as info:
        STRICT[case](real_torch, real_torch.autograd.functional)
    expected = info.value
    with pytest.raises(type(expected), match=re.escape(str(expected))):
        STRICT[case](torch, torch.autograd.functional)


def test_strict_mode_passes_and_matches_when_valid(real_torch):
    def case(L, F):
        return F.hessian(
            lambda x, y: (x.sin() * y.sin()).sum(), (L.tensor(Y), L.tensor(Y)), strict=True
        )

    ours = case(torch, torch.autograd.functional)
    theirs = case(real_torch, real_torch.autograd.functional)
    _assert_same(_structure(ours), _structure(theirs))


def test_create_graph_connects_inputs_and_closures(real_torch):
    results = []
    for lib in (torch, real_torch):
        x = lib.tensor(Y, requires_grad=True)
        w = lib.tensor(Y[::-1].copy(), requires_grad=True)
        jac = lib.autograd.functional.jacobian(
            lambda t, w=w: (t * w).sin() * t, x, create_graph=True
        )
        assert jac.requires_grad
        gx, gw = lib.autograd.grad(jac.sum(), (x, w))
        out, vjp = lib.autograd.functional.vjp(
            lambda t: (t**3).sum(), x, lib.tensor(2.0), create_graph=True
        )
        (gv,) = lib.autograd.grad(vjp.sum(), x)
        results.append([gx.numpy(), gw.numpy(), gv.numpy(), out.detach().numpy()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5)
    x = torch.tensor(Y, requires_grad=True)
    plain = functional.jacobian(lambda t: t**2, x)
    assert not plain.requires_grad


def test_custom_function_inside_uses_its_own_backward(real_torch):
    def case(lib):
        class Straight(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a.round()

            @staticmethod
            def backward(ctx, g):
                return g * 1.0

        return lib.autograd.functional.jacobian(lambda t: Straight.apply(t) * t, lib.tensor(Y))

    _assert_same(_structure(case(torch)), _structure(case(real_torch)))


def test_a_large_jacobian_is_one_compiled_call(monkeypatch):
    """No loop over rows (no engine backward at all); the compiled transform is cached."""
    backward_runs = []
    monkeypatch.setattr(_engine, "run_backward", lambda *a, **k: backward_runs.append(1))
    calls = []

    def f(x):
        calls.append(1)
        return x.sin() * x.sum()

    values = np.linspace(-1, 2, 300)
    x = torch.tensor(values, dtype=torch.float64)
    jac = functional.jacobian(f, x)
    size = len(functional._ops_cache)
    again = functional.jacobian(f, x * 0.5)
    assert len(functional._ops_cache) == size
    assert calls == [1, 1] and backward_runs == []
    for v, result in ((values, jac), (values * 0.5, again)):
        expected = np.diag(np.cos(v) * v.sum()) + np.sin(v)[:, None]
        np.testing.assert_allclose(result.numpy(), expected, rtol=1e-10, atol=1e-12)


def test_batched_grad_matches_pytorch(real_torch):
    results = []
    for lib in (torch, real_torch):
        x = lib.tensor(X, requires_grad=True)
        y = lib.tensor(Y, requires_grad=True)
        out = (x * y).sin().sum(1)
        basis = lib.tensor(np.stack([V2, V2[::-1].copy(), V2 * 3]))
        gx, gy = lib.autograd.grad(out, (x, y), basis, is_grads_batched=True)
        results.append((gx.numpy(), gy.numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5)

    def mismatch(lib):
        x = lib.tensor(Y, requires_grad=True)
        lib.autograd.grad(x * 2, x, lib.ones(2, 2), is_grads_batched=True)

    with pytest.raises(RuntimeError) as info:
        mismatch(real_torch)
    with pytest.raises(RuntimeError, match=re.escape(str(info.value))):
        mismatch(torch)


def test_batched_grad_through_a_custom_function_and_create_graph():
    Cube = cube_function(torch)

    x = torch.tensor(Y, requires_grad=True)
    out = Cube.apply(x)
    eye = torch.tensor(np.eye(3, dtype=np.float32))
    (jac,) = torch.autograd.grad(out, x, eye, is_grads_batched=True, retain_graph=True)
    np.testing.assert_allclose(jac.numpy(), np.diag(3 * Y**2))
    (jac,) = torch.autograd.grad(out, x, eye, is_grads_batched=True, create_graph=True)
    (second,) = torch.autograd.grad(jac.sum(), x)
    np.testing.assert_allclose(second.numpy(), 6 * Y)


def _leaf(lib):
    return lib.tensor([1.0, 2.0], requires_grad=True)


# autograd.grad / autograd.backward arguments: PyTorch pairs outputs and grads with zip (extra
# grads are ignored), then counts; its exception type and text for each bad argument.
GRAD_ARGUMENTS = {
    "backward-extra-grads": lambda lib, x: lib.autograd.backward(
        [(x * 2).sum(), (x * 3).sum()], [lib.tensor(1.0)] * 3
    ),
    "grad-extra-grads": lambda lib, x: lib.autograd.grad(
        [(x * 2).sum()], [x], [lib.tensor(1.0)] * 2
    ),
    "grad-fewer-grads": lambda lib, x: lib.autograd.grad(
        [(x * 2).sum(), (x * 2).sum()], [x], [lib.tensor(1.0)]
    ),
    "grad-input-not-tensor": lambda lib, x: lib.autograd.grad((x * 2).sum(), [x, 3.0]),
    "grad-output-not-tensor": lambda lib, x: lib.autograd.grad([(x * 2).sum(), 3.0], [x]),
    "grad-no-inputs": lambda lib, x: lib.autograd.grad((x * 2).sum(), []),
    "backward-output-not-tensor": lambda lib, x: lib.autograd.backward([(x * 2).sum(), 3.0]),
    "backward-grad-list-of-floats": lambda lib, x: (x * 2).backward([1.0, 1.0]),
    "backward-input-not-tensor": lambda lib, x: lib.autograd.backward((x * 2).sum(), inputs=[3.0]),
    "backward-input-no-grad": lambda lib, x: (x * 2).sum().backward(inputs=[lib.ones(2)]),
    "backward-no-inputs": lambda lib, x: (x * 2).sum().backward(inputs=[]),
    "batched-materialize": lambda lib, x: lib.autograd.grad(
        (x * 2).sum(), [x, _leaf(lib)], lib.ones(3), is_grads_batched=True, materialize_grads=True
    ),
}


@pytest.mark.parametrize("name", list(GRAD_ARGUMENTS))
def test_grad_and_backward_arguments_match_pytorch(real_torch, name):
    def outcome(lib):
        x = _leaf(lib)
        try:
            result = GRAD_ARGUMENTS[name](lib, x)
        except Exception as error:  # noqa: BLE001 -- the outcome compared is the error
            return type(error).__name__, str(error)
        return _structure(result if result is not None else x.grad)

    np.testing.assert_equal(outcome(torch), outcome(real_torch))


def test_backward_inputs_retain_their_grad_like_pytorch(real_torch):
    results = []
    for lib in (torch, real_torch):
        x = _leaf(lib)
        h = x * 2
        (h * h).sum().backward(inputs=[h])
        results.append((h.retains_grad, h.grad.tolist(), x.grad))
    assert results[0] == results[1] == (True, [4.0, 8.0], None)


class FunctionalVariantsTest(chex.TestCase):
    """The functional API inside jax.jit and outside it (chex variants)."""

    @chex.variants(with_jit=True, without_jit=True)
    def test_jacobian_and_hessian(self):
        def compute(x):
            t = torch.from_jax(x)
            jac = functional.jacobian(lambda a: a.sin() * a.sum(), t)
            hess = functional.hessian(lambda a: (a.sin() * a.sum()).sum(), t)
            return jac.jax(), hess.jax()

        x = jnp.asarray(Y)
        jac, hess = self.variant(compute)(x)

        def pure(a):
            return jnp.sin(a) * a.sum()

        np.testing.assert_allclose(jac, jax.jit(jax.jacrev(pure))(x), rtol=1e-5)
        expected = jax.jit(jax.hessian(lambda a: pure(a).sum()))(x)
        np.testing.assert_allclose(hess, expected, rtol=1e-5)

    @chex.variants(with_jit=True, without_jit=True)
    def test_vjp_and_jvp(self):
        def compute(x, v):
            t, tv = torch.from_jax(x), torch.from_jax(v)
            _, vjp = functional.vjp(lambda a: a.exp() * 2, t, tv)
            _, jvp = functional.jvp(lambda a: a.exp() * 2, t, tv)
            return vjp.jax(), jvp.jax()

        x, v = jnp.asarray(Y), jnp.asarray(Y[::-1].copy())
        vjp, jvp = self.variant(compute)(x, v)
        np.testing.assert_allclose(vjp, jnp.exp(x) * 2 * v, rtol=1e-6)
        np.testing.assert_allclose(jvp, jnp.exp(x) * 2 * v, rtol=1e-6)
