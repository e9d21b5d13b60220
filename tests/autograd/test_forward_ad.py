"""Forward-mode AD: dual_level, make_dual, unpack_dual; tangents of library ops against
jax.jvp of the same math and against PyTorch; custom Function jvp; PyTorch's errors."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograd_compat as torch
import autograd_compat.autograd.forward_ad as fwAD
from autograd_compat._state.modes import modes

# real PyTorch warns about torch.jit.script the first time its forward AD is used
pytestmark = pytest.mark.filterwarnings("ignore:.*torch.jit.script.*:DeprecationWarning")

A = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, 0.75]], np.float32)
B = np.array([[1.0, 2.0, -0.5], [0.3, -0.7, 1.1]], np.float32)
TA = np.array([[1.0, 0.5, -1.0], [0.25, 2.0, 1.0]], np.float32)
TB = np.array([[0.1, -0.2, 0.3], [1.0, 0.0, -1.0]], np.float32)

# (ours on Tensors, the same math in jax.numpy)
OPS = {
    "sin-exp": (lambda a, b: a.sin() * b.exp(), lambda a, b: jnp.sin(a) * jnp.exp(b)),
    "div-pow": (lambda a, b: a / (b**2 + 1), lambda a, b: a / (b**2 + 1)),
    "tanh-sigmoid": (
        lambda a, b: a.tanh() + b.sigmoid(),
        lambda a, b: jnp.tanh(a) + 1 / (1 + jnp.exp(-b)),
    ),
    "relu-abs": (lambda a, b: a.relu() * b.abs(), lambda a, b: jnp.maximum(a, 0) * jnp.abs(b)),
    "matmul": (lambda a, b: a @ b.t(), lambda a, b: a @ b.T),
    "reductions": (
        lambda a, b: a.sum(1) * b.mean(0)[:2] + a.norm(),
        lambda a, b: a.sum(1) * b.mean(0)[:2] + jnp.linalg.norm(a),
    ),
    "shapes": (
        lambda a, b: a.reshape(3, 2).transpose(0, 1) * b[:, 1:2],
        lambda a, b: a.reshape(3, 2).T * b[:, 1:2],
    ),
    "log-sqrt": (
        lambda a, b: (a * a + 1).log() - (b * b).sqrt(),
        lambda a, b: jnp.log(a * a + 1) - jnp.sqrt(b * b),
    ),
}


@pytest.mark.parametrize("name", list(OPS))
def test_tangents_match_jax_jvp(name):
    ours, pure = OPS[name]
    with fwAD.dual_level():
        a = fwAD.make_dual(torch.tensor(A), torch.tensor(TA))
        b = fwAD.make_dual(torch.tensor(B), torch.tensor(TB))
        primal, tangent = fwAD.unpack_dual(ours(a, b))
    expected_primal, expected_tangent = jax.jit(lambda *p: jax.jvp(pure, p[:2], p[2:]))(
        A, B, TA, TB
    )
    np.testing.assert_allclose(primal.numpy(), expected_primal, rtol=1e-6)
    np.testing.assert_allclose(tangent.numpy(), expected_tangent, rtol=1e-5, atol=1e-6)


def test_against_pytorch(real_torch):
    results = []
    for lib in (torch, real_torch):
        with lib.autograd.forward_ad.dual_level():
            a = lib.autograd.forward_ad.make_dual(lib.tensor(A), lib.tensor(TA))
            out = a.sin().sum(1) * 3 + (a @ lib.tensor(B).t().exp()).sum(0)
            primal, tangent = lib.autograd.forward_ad.unpack_dual(out)
            results.append((primal.numpy(), tangent.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5)


def test_unpack_dual_and_levels():
    x = torch.tensor([1.0, 2.0])
    with fwAD.dual_level() as level:
        assert level == 0
        dual = fwAD.make_dual(x, torch.tensor([1.0, 0.0]))
        unpacked = fwAD.unpack_dual(dual)
        assert isinstance(unpacked, fwAD.UnpackedDualTensor)
        assert unpacked._fields == ("primal", "tangent")
        assert fwAD.unpack_dual(unpacked.primal).tangent is None
        assert fwAD.unpack_dual(x).tangent is None
        y = dual * 2
        assert fwAD.unpack_dual(y).tangent.tolist() == [2.0, 0.0]
    assert fwAD.unpack_dual(y).tangent is None
    assert modes.fw_level is None and len(modes.duals) == 0


def test_tangent_dtype_and_integer_outputs():
    with fwAD.dual_level():
        x = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0], dtype=torch.float64))
        y = x * 3
        assert fwAD.unpack_dual(y).tangent.dtype == torch.float32
        assert fwAD.unpack_dual(x > 1).tangent is None


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib: lib.autograd.forward_ad.make_dual(lib.ones(2), lib.ones(2)),
        lambda lib: _in_level(
            lib, lambda: lib.autograd.forward_ad.make_dual(lib.ones(2), lib.ones(3))
        ),
        lambda lib: _in_level(
            lib, lambda: lib.autograd.forward_ad.make_dual(lib.tensor([1, 2]), lib.ones(2))
        ),
        lambda lib: _in_level(lib, lambda: lib.autograd.forward_ad.enter_dual_level()),
    ],
    ids=["no-level", "size", "integer", "nested"],
)
def test_errors_match_pytorch(real_torch, fn):
    with pytest.raises(Exception) as info:
        fn(real_torch)
    expected = info.value
    with pytest.raises(type(expected), match=re.escape(str(expected))):
        fn(torch)


def _in_level(lib, fn):
    with lib.autograd.forward_ad.dual_level():
        return fn()


def test_reverse_mode_still_works_on_duals():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    with fwAD.dual_level():
        dual = fwAD.make_dual(w, torch.tensor([1.0, 1.0]))
        out = (dual * dual).sum()
        assert fwAD.unpack_dual(out).tangent.item() == 6.0
        out.backward()
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 4.0])


def _mul_function(lib, log):
    class Mul(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, k):
            ctx.save_for_forward(a, b)
            ctx.k = k
            return a * b * k

        @staticmethod
        def backward(ctx, g):
            return None, None, None

        @staticmethod
        def jvp(ctx, ta, tb, tk):
            log.append((ta.tolist(), tb.tolist(), tk))
            a, b = ctx.saved_tensors
            return (ta * b + a * tb) * ctx.k

    return Mul


def test_custom_function_jvp(real_torch):
    results = []
    for lib in (torch, real_torch):
        log = []
        with lib.autograd.forward_ad.dual_level():
            a = lib.autograd.forward_ad.make_dual(lib.tensor([1.0, 2.0]), lib.ones(2))
            out = _mul_function(lib, log).apply(a, lib.tensor([3.0, 4.0]), 2.0)
            results.append((log, lib.autograd.forward_ad.unpack_dual(out).tangent.tolist()))
    assert results[0] == results[1]

    def no_jvp(lib):
        cls = type(
            "NoJvp",
            (lib.autograd.Function,),
            {
                "forward": staticmethod(lambda ctx, a: a * 2),
                "backward": staticmethod(lambda ctx, g: g),
            },
        )
        with lib.autograd.forward_ad.dual_level():
            cls.apply(lib.autograd.forward_ad.make_dual(lib.ones(2), lib.ones(2)))

    with pytest.raises(NotImplementedError) as info:
        no_jvp(real_torch)
    with pytest.raises(NotImplementedError, match=re.escape(str(info.value))):
        no_jvp(torch)


# In-place ops carry tangents (`commit_inplace`, `fill_`, `setitem` and views).

INPLACE = {
    "mul_": lambda lib, p: (p * 1).mul_(2),
    "add_-dual-into-plain": lambda lib, p: lib.zeros(3).add_(p),
    "add_-plain": lambda lib, p: (p * 1).add_(lib.ones(3)),
    "fill_": lambda lib, p: (p * 1).fill_(2),
    "zero_": lambda lib, p: (p * 1).zero_(),
    "copy_-dual": lambda lib, p: lib.zeros(3).copy_(p),
    "copy_-plain": lambda lib, p: (p * 1).copy_(lib.ones(3)),
    "through-a-view": lambda lib, p: _through_view(p * 1),
    "setitem": lambda lib, p: _setitem(lib.zeros(3), p[0] * 5),
}


def _through_view(y):
    y[1:].mul_(2)
    return y


def _setitem(y, value):
    y[1] = value
    return y


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_ops_carry_tangents_like_pytorch(real_torch, name):
    results = []
    for lib in (torch, real_torch):
        forward_ad = lib.autograd.forward_ad
        with forward_ad.dual_level():
            p = forward_ad.make_dual(lib.tensor([1.0, 2.0, 3.0]), lib.tensor([1.0, 3.0, 5.0]))
            primal, tangent = forward_ad.unpack_dual(INPLACE[name](lib, p))
            results.append((primal.tolist(), None if tangent is None else tangent.tolist()))
    assert results[0] == results[1]
    assert modes.fw_level is None and len(modes.duals) == 0


def _dual_reprs(lib):
    forward_ad = lib.autograd.forward_ad
    wide = np.linspace(-1.2345, 2.5, 30).astype(np.float32)
    with forward_ad.dual_level():
        p = forward_ad.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 3.0]))
        return [
            repr(p),
            repr(p.sum()),
            repr(forward_ad.make_dual(lib.tensor(2.0), lib.tensor(1 / 3))),
            repr(forward_ad.make_dual(lib.tensor(wide), lib.tensor(wide * 2))),
            repr(forward_ad.make_dual(lib.ones(2, 2), lib.ones(2, 2))),
            repr(p.double()),
            repr(forward_ad.make_dual(lib.ones(2, requires_grad=True), lib.ones(2))),
        ]


def test_dual_repr_shows_the_tangent_like_pytorch(real_torch):
    assert _dual_reprs(torch) == _dual_reprs(real_torch)


def test_make_dual_is_a_view_node_like_pytorch(real_torch):
    names = []
    for lib in (torch, real_torch):
        with lib.autograd.forward_ad.dual_level():
            x = lib.ones(2, requires_grad=True)
            names.append(lib.autograd.forward_ad.make_dual(x, lib.ones(2)).grad_fn.name())
    assert names[0] == names[1] == "ViewBackward0"
