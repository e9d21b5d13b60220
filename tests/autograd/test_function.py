"""Custom autograd.Function: ctx API, PyTorch's checks and errors, double backward,
once_differentiable, and Function.from_jax (JAX functions, custom_vjp included, as ops)."""

from __future__ import annotations

import re
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._pure import errors as _errors
from autograd_compat._tape import fused as _fused
from autograd_compat.autograd.function import once_differentiable
from tests._helpers.torch_compare import cube_function


def _error(real_torch, fn):
    """The exception real PyTorch raises for `fn(real_torch)`."""
    with pytest.raises(Exception) as info:
        fn(real_torch)
    return info.value


def _assert_same_error(real_torch, fn):
    expected = _error(real_torch, fn)
    with pytest.raises(type(expected), match=re.escape(str(expected))):
        fn(torch)


def _square(lib):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x)
            ctx.k = k
            return x * x * k

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 2 * x * ctx.k, None

    return Square


def test_forward_backward_and_ctx_match_pytorch(real_torch):
    results = {}
    for lib in (torch, real_torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = _square(lib).apply(x, 3.0)
        node = y.grad_fn
        assert node.name() == "SquareBackward"
        assert type(node).__name__ == "SquareBackward"
        assert node.needs_input_grad == (True, False)
        assert node.k == 3.0  # the node is the ctx
        assert node.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"
        assert isinstance(node, lib.autograd.function.FunctionCtx)
        y.sum().backward()
        results[lib] = (y.detach().numpy(), x.grad.numpy())
    np.testing.assert_allclose(results[torch][0], results[real_torch][0])
    np.testing.assert_allclose(results[torch][1], results[real_torch][1])


def test_saved_tensors_are_freed_with_the_graph():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = _square(torch).apply(x, 2.0)
    assert y.grad_fn.saved_tensors[0] is x
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [8.0, 16.0, 24.0])
    with pytest.raises(RuntimeError, match=re.escape(_errors.BACKWARD_TWICE)):
        _ = y.grad_fn.saved_tensors
    with pytest.raises(RuntimeError, match=re.escape(_errors.BACKWARD_TWICE)):
        y.sum().backward()


def test_saved_tensor_modified_in_place_is_refused(real_torch):
    def fn(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = _square(lib).apply(x, 2.0)
        with lib.no_grad():
            x.mul_(2)
        y.sum().backward()

    _assert_same_error(real_torch, fn)


def test_setup_context_style_with_defaults_and_keywords(real_torch):
    def make(lib, log):
        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(x, k=2.0):
                return x * k

            @staticmethod
            def setup_context(ctx, inputs, output):
                log.append((len(inputs), inputs[1], tuple(output.shape)))
                ctx.k = inputs[1]

            @staticmethod
            def backward(ctx, grad):
                return grad * ctx.k, None

        return Scale

    for lib in (torch, real_torch):
        log = []
        scale = make(lib, log)
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        scale.apply(x).sum().backward()
        scale.apply(x, k=5.0).sum().backward()
        assert log == [(2, 2.0, (3,)), (2, 5.0, (3,))]
        np.testing.assert_allclose(x.grad.numpy(), [7.0, 7.0, 7.0])


def test_non_differentiable_outputs_and_materialized_grads(real_torch):
    def make(lib, log, materialize):
        class Split(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(materialize)
                index = (x > 1).long()
                ctx.mark_non_differentiable(index)
                return x * 2, x * 3, index, 7

            @staticmethod
            def backward(ctx, g1, g2, g_index, g_int):
                log.append(
                    tuple(None if g is None else (g.dtype, g.tolist()) for g in (g1, g2, g_index))
                    + (g_int,)
                )
                return g1 * 2 if g1 is not None else None

        return Split

    for materialize in (True, False):
        logs = []
        for lib in (torch, real_torch):
            log = []
            x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
            a, b, index, seven = make(lib, log, materialize).apply(x)
            assert (a.requires_grad, b.requires_grad, index.requires_grad) == (True, True, False)
            assert seven == 7
            a.sum().backward()
            logs.append([tuple(str(e) for e in entry) for entry in log])
        assert logs[0] == logs[1]


def test_mark_dirty_and_identity_outputs(real_torch):
    def make(lib):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad * 2

        class Identity(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad * 5

        return Double, Identity

    for lib in (torch, real_torch):
        double, identity = make(lib)
        leaf = lib.tensor([1.0, 2.0], requires_grad=True)
        a = leaf.clone()
        out = double.apply(a)
        assert out is a and a.grad_fn.name() == "DoubleBackward" and a._version == 2
        out.sum().backward()
        np.testing.assert_allclose(leaf.grad.numpy(), [2.0, 2.0])
        leaf.grad = None
        same = identity.apply(leaf)
        assert same is not leaf and same.grad_fn.name() == "IdentityBackward"
        same.sum().backward()
        np.testing.assert_allclose(leaf.grad.numpy(), [5.0, 5.0])

    def dirty_leaf(lib):
        double, _ = make(lib)
        double.apply(lib.tensor([1.0], requires_grad=True))

    _assert_same_error(real_torch, dirty_leaf)


def _bad(lib, name, result):
    return type(
        name,
        (lib.autograd.Function,),
        {
            "forward": staticmethod(lambda ctx, a, k=2: a * 2),
            "backward": staticmethod(lambda ctx, g: result(lib, g)),
        },
    )


@pytest.mark.parametrize(
    "name,result",
    [
        ("Count", lambda lib, g: (g, g, g)),
        ("Shape", lambda lib, g: (lib.ones(4), None)),
        ("NonTensor", lambda lib, g: (g, g)),
        ("Type", lambda lib, g: (3, None)),
        ("Few", lambda lib, g: g),
        ("Complex", lambda lib, g: (g.to(lib.complex64), None)),
        ("List", lambda lib, g: [g, None]),
    ],
)
def test_backward_results_are_checked_like_pytorch(real_torch, name, result):
    def fn(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        _bad(lib, name, result).apply(x, 2).sum().backward()

    _assert_same_error(real_torch, fn)


def test_bad_backward_messages_name_the_function(real_torch):
    """PyTorch's messages, verbatim: the count and the shape of the returned gradients."""

    def count(lib):
        x = lib.ones(2, 3, requires_grad=True)
        _bad(lib, "MyFn", lambda lib, g: g).apply(x, x).sum().backward()

    def shape(lib):
        x = lib.ones(2, 3, requires_grad=True)
        _bad(lib, "MyFn", lambda lib, g: (lib.ones(3), None)).apply(x).sum().backward()

    expected = {
        count: "function MyFnBackward returned an incorrect number of gradients (expected 2, "
        "got 1)",
        shape: "Function MyFnBackward returned an invalid gradient at index 0 - got [3] but "
        "expected shape compatible with [2, 3]",
    }
    for fn, message in expected.items():
        assert str(_error(real_torch, fn)) == message
        with pytest.raises(RuntimeError, match=re.escape(message)):
            fn(torch)


def _marking(lib, method, marked, result):
    """A Function whose forward calls `ctx.<method>(*marked(x))` and returns `result(x)`."""

    def forward(ctx, x):
        getattr(ctx, method)(*marked(x))
        return result(x)

    return type(
        "Marking",
        (lib.autograd.Function,),
        {"forward": staticmethod(forward), "backward": staticmethod(lambda ctx, g: g)},
    )


@pytest.mark.parametrize(
    "method,marked,result",
    [
        ("mark_non_differentiable", lambda x: (3.0,), lambda x: x * 2),
        ("mark_dirty", lambda x: (x, 3.0), lambda x: x.mul_(2)),
        ("mark_dirty", lambda x: (x,), lambda x: x * 2),
    ],
    ids=["non-differentiable-number", "dirty-number", "dirty-not-returned"],
)
def test_bad_marks_are_refused_like_pytorch(real_torch, method, marked, result):
    def fn(lib):
        x = lib.ones(2, requires_grad=True) * 1
        _marking(lib, method, marked, result).apply(x)

    _assert_same_error(real_torch, fn)


def test_non_tensor_forward_outputs_pass_through(real_torch):
    """A forward may return non-Tensors (a number, a list): returned as is, no grad_fn."""
    results = []
    for lib in (torch, real_torch):
        pair = type(
            "Pair",
            (lib.autograd.Function,),
            {
                "forward": staticmethod(lambda ctx, a: (a * 2, 3.0, [a])),
                "backward": staticmethod(lambda ctx, g, h, i: g),
            },
        )
        a, number, listed = pair.apply(lib.ones(2, requires_grad=True))
        results.append((a.grad_fn.name(), number, type(listed), listed[0].requires_grad))
    assert results[0] == results[1] == ("PairBackward", 3.0, list, True)


def test_broadcast_gradients_are_summed_and_cast(real_torch):
    grads = []
    for lib in (torch, real_torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        wide = _bad(lib, "Wide", lambda lib, g: (lib.ones(2, 3, dtype=lib.float64), None, None))
        wide.apply(x).sum().backward()
        assert x.grad.dtype == lib.float32
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


def test_double_backward_through_a_differentiable_backward(real_torch):
    out = {}
    for lib in (torch, real_torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (g,) = lib.autograd.grad(cube_function(lib).apply(x).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x, create_graph=True)
        (ggg,) = lib.autograd.grad(gg.sum(), x)
        out[lib] = (g.detach().numpy(), gg.detach().numpy(), ggg.numpy())
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(out[torch][0], 3 * x**2)
    np.testing.assert_allclose(out[torch][1], 6 * x)
    np.testing.assert_allclose(out[torch][2], [6.0, 6.0, 6.0])
    for ours, theirs in zip(out[torch], out[real_torch]):
        np.testing.assert_allclose(ours, theirs)


def test_saved_output_keeps_its_graph_for_double_backward():
    class Exp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            result = x.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad):
            (result,) = ctx.saved_tensors
            assert result.grad_fn is not None
            return grad * result

    x = torch.tensor([0.0, 1.0], requires_grad=True)
    (g,) = torch.autograd.grad(Exp.apply(x).sum(), x, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), np.exp([0.0, 1.0]), rtol=1e-6)


def test_once_differentiable(real_torch):
    def make(lib):
        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x**3

            @staticmethod
            @lib.autograd.function.once_differentiable
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return grad * 3 * x**2

        return Cube

    def twice(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        weight = lib.ones(2, requires_grad=True)
        (g,) = lib.autograd.grad(make(lib).apply(x), x, weight, create_graph=True)
        assert g.requires_grad
        lib.autograd.grad(g.sum(), x)

    _assert_same_error(real_torch, twice)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (g,) = torch.autograd.grad(make(torch).apply(x).sum(), x, create_graph=True)
    assert not g.requires_grad
    np.testing.assert_allclose(g.numpy(), [3.0, 12.0])
    assert once_differentiable is torch.autograd.function.once_differentiable


def test_custom_nodes_are_never_fused(monkeypatch):
    calls = []
    original = _fused.fused_backward
    monkeypatch.setattr(_fused, "fused_backward", lambda s: calls.append(s) or original(s))
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for _ in range(4):
        cube_function(torch).apply(x * 1.5).sum().backward()
    assert calls == []
    np.testing.assert_allclose(x.grad.numpy(), 4 * 3 * 1.5**3 * np.array([1.0, 4.0, 9.0]))


def test_node_hooks_run_on_custom_nodes():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = cube_function(torch).apply(x)
    seen = []
    y.grad_fn.register_prehook(lambda go: seen.append("pre"))
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 0,))
    y.sum().backward()
    assert seen == ["pre"]
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 0.0])


def test_api_errors(real_torch):
    def no_backward(lib):
        cls = type(
            "NoBackward",
            (lib.autograd.Function,),
            {"forward": staticmethod(lambda ctx, a: a * 2)},
        )
        cls.apply(lib.ones(2, requires_grad=True)).sum().backward()

    def save_int(lib):
        def forward(ctx, a):
            ctx.save_for_backward(a, 3)
            return a * 2

        cls = type("SaveInt", (lib.autograd.Function,), {"forward": staticmethod(forward)})
        cls.apply(lib.ones(2, requires_grad=True))

    _assert_same_error(real_torch, no_backward)
    _assert_same_error(real_torch, save_int)
    with pytest.warns(DeprecationWarning, match="should not be instantiated"):
        cube_function(torch)()


def test_no_graph_without_grad():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.no_grad():
        assert cube_function(torch).apply(x).grad_fn is None
    assert not cube_function(torch).apply(torch.ones(2)).requires_grad


# ----------------------------------------------------------------------------- from_jax
@jax.custom_vjp
def _clip_gradient(x):
    return x


def _clip_fwd(x):
    return x, None


def _clip_bwd(_, g):
    return (jnp.clip(g, -1.0, 1.0),)


_clip_gradient.defvjp(_clip_fwd, _clip_bwd)


def test_from_jax_keeps_a_custom_vjp():
    op = torch.autograd.Function.from_jax(_clip_gradient)
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = op(x)
    assert y.grad_fn.name() == "_clip_gradientBackward"
    (y * 5).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 1.0])


def test_from_jax_plain_function_differentiates_to_any_order():
    def poly(x, y, *, power):
        return (x**power * y).sum(), x * y

    op = torch.autograd.Function.from_jax(poly, "PolyBackward")
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = torch.tensor([2.0, 2.0, 2.0])
    total, product = op(x, y, power=3)
    assert total.grad_fn.name() == "PolyBackward" and product.grad_fn is total.grad_fn
    (g,) = torch.autograd.grad(total, x, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), x)
    expected_g = jax.grad(lambda a: poly(a, y.jax(), power=3)[0])(x.jax())
    np.testing.assert_allclose(g.detach().numpy(), expected_g)
    np.testing.assert_allclose(gg.numpy(), 6 * 2.0 * np.array([1.0, 2.0, 3.0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert op(x.detach(), y, power=2)[0].grad_fn is None
