"""gradcheck / gradgradcheck: PyTorch's signature, passing on correct gradients, and PyTorch's
GradcheckError messages (the two Jacobians) on deliberately wrong custom backwards."""

from __future__ import annotations

import importlib
import inspect
import re

import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat.autograd.gradcheck import GradcheckError

V = [0.5, -1.5, 2.0]


def _their_error():
    """PyTorch's GradcheckError (torch.autograd.gradcheck is shadowed by the function)."""
    return importlib.import_module("torch.autograd.gradcheck").GradcheckError


def _double(lib, values=V):
    return lib.tensor(values, dtype=lib.float64, requires_grad=True)


def _wrong_square(lib):
    """x**2 whose backward is off by 50% (3x instead of 2x)."""

    class WrongSquare(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**2

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x

    return WrongSquare


def _detached_cube(lib):
    """x**3 with a right first derivative whose backward is not differentiable in x."""

    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x.detach() ** 2

    return Cube


def test_signatures_match_pytorch(real_torch):
    for name in ("gradcheck", "gradgradcheck"):
        ours = inspect.signature(getattr(torch.autograd, name))
        theirs = inspect.signature(getattr(real_torch.autograd, name))
        assert list(ours.parameters) == list(theirs.parameters)
        for param in ours.parameters:
            assert ours.parameters[param].default == theirs.parameters[param].default


def test_passes_on_correct_gradients():
    x, y = _double(torch), _double(torch, [1.0, 2.0, 3.0])
    assert torch.autograd.gradcheck(lambda a, b: ((a * b).sin(), a.exp() / b), (x, y))
    assert torch.autograd.gradcheck(lambda a: a.tanh() * 2, x, check_forward_ad=True)
    assert torch.autograd.gradcheck(lambda a: (a * a).sum(), (x,), check_batched_grad=True)
    assert torch.autograd.gradcheck(lambda a, k: a * k, (x, 3.0), fast_mode=True)
    assert torch.autograd.gradgradcheck(lambda a, b: (a * b).sin(), (x, y))


def test_catches_a_wrong_backward_with_pytorchs_message(real_torch):
    def fn(lib):
        lib.autograd.gradcheck(_wrong_square(lib).apply, (_double(lib),))

    with pytest.raises(_their_error()) as info:
        fn(real_torch)
    message = str(info.value)
    assert message.startswith("Jacobian mismatch for output 0 with respect to input 0,\n")
    with pytest.raises(GradcheckError, match=re.escape(message)):
        fn(torch)
    assert not torch.autograd.gradcheck(
        _wrong_square(torch).apply, (_double(torch),), raise_exception=False
    )
    assert issubclass(GradcheckError, RuntimeError)
    assert torch.autograd.gradcheck.GradcheckError is GradcheckError


def test_second_input_and_broadcast_message(real_torch):
    def fn(lib):
        matrix = lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64, requires_grad=True)
        lib.autograd.gradcheck(
            lambda a, c: _wrong_square(lib).apply(a) * c, (matrix, _double(lib, [1.0, 2.0]))
        )

    with pytest.raises(_their_error()) as info:
        fn(real_torch)
    with pytest.raises(GradcheckError, match=re.escape(str(info.value))):
        fn(torch)


def test_fast_mode_catches_a_wrong_backward():
    with pytest.raises(GradcheckError) as info:
        torch.autograd.gradcheck(_wrong_square(torch).apply, (_double(torch),), fast_mode=True)
    message = str(info.value)
    assert message.startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:")
    assert "we recompute numerical and analytical jacobians in slow mode" in message
    assert "analytical:\ntensor([[ 1.5000,  0.0000,  0.0000]" not in message


def test_gradgradcheck_catches_a_non_differentiable_backward(real_torch):
    def fn(lib):
        return lib.autograd.gradgradcheck(
            _detached_cube(lib).apply, (_double(lib),), raise_exception=False
        )

    assert torch.autograd.gradcheck(_detached_cube(torch).apply, (_double(torch),))
    assert fn(torch) is False and fn(real_torch) is False


def test_float32_inputs_warn_and_fail_like_pytorch(real_torch):
    def fn(lib):
        with pytest.warns(UserWarning, match="is not a double precision floating point"):
            lib.autograd.gradcheck(lambda a: a**2, (lib.tensor([1.0, 2.0], requires_grad=True),))

    with pytest.raises(_their_error()) as info:
        fn(real_torch)
    with pytest.raises(GradcheckError, match=re.escape(str(info.value))):
        fn(torch)


def test_input_errors_match_pytorch(real_torch):
    def fn(lib):
        lib.autograd.gradcheck(lambda a: a**2, (lib.tensor([1.0, 2.0], dtype=lib.float64),))

    with pytest.raises(ValueError) as info:
        fn(real_torch)
    with pytest.raises(ValueError, match=re.escape(str(info.value))):
        fn(torch)


def test_nondeterministic_backward():
    calls = []

    class Noisy(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            calls.append(1)
            return grad * (2 + len(calls) * 1e-3)

    with pytest.raises(GradcheckError, match="Backward is not reentrant"):
        torch.autograd.gradcheck(Noisy.apply, (_double(torch),), atol=1e-2)
    assert torch.autograd.gradcheck(Noisy.apply, (_double(torch),), atol=1e-2, nondet_tol=1.0)


def test_backward_must_scale_with_grad_output():
    class Offset(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2 + (grad == 0).double() * 1e-9

    with pytest.raises(GradcheckError, match="backward not multiplied by grad_output"):
        torch.autograd.gradcheck(Offset.apply, (_double(torch),))
    np.testing.assert_allclose(_double(torch).detach().numpy(), V)


def test_non_tensor_outputs_are_a_type_error(real_torch):
    """PyTorch fails with an AttributeError on `float.requires_grad`; ours says what is wrong."""
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    with pytest.raises(AttributeError):
        real_torch.autograd.gradcheck(
            lambda a: 3.0, (real_torch.ones(1, dtype=real_torch.float64, requires_grad=True),)
        )
    for func in (lambda a: 3.0, lambda a: (a * 2, None)):
        with pytest.raises(TypeError, match="expects `func` to return a Tensor or a tuple of"):
            torch.autograd.gradcheck(func, (x,))
