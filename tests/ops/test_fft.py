"""torch.fft against real PyTorch: values, dtypes, grad_fn names, gradients (real inputs with
float64 finite differences too; complex inputs and complex cotangents in PyTorch's
conjugate convention), errors, frequencies, shifts and the printing of complex results."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as ac
from tests._helpers.torch_compare import arr, assert_same, check_case, check_error

X = arr((3, 4))
X3 = arr((2, 3, 4), seed=1)
R = np.random.default_rng(5)
Z = R.standard_normal((3, 4)) + 1j * R.standard_normal((3, 4))  # complex128

# name -> (function of (lib, x), input)
CASES = {
    "fft": (lambda t, x: t.fft.fft(x), X),
    "fft_pad": (lambda t, x: t.fft.fft(x, n=6), X),
    "fft_trim_dim0": (lambda t, x: t.fft.fft(x, 2, dim=0, norm="ortho"), X),
    "ifft": (lambda t, x: t.fft.ifft(x), X),
    "ifft_ortho_pad": (lambda t, x: t.fft.ifft(x, 5, norm="ortho"), X),
    "rfft": (lambda t, x: t.fft.rfft(x), X),
    "rfft_odd": (lambda t, x: t.fft.rfft(x, n=5, dim=0, norm="forward"), X),
    "rfft_abs_sum": (lambda t, x: t.fft.rfft(x).abs().sum(), X),
    "irfft_n": (lambda t, x: t.fft.irfft(x, n=5, norm="ortho"), X),
    "irfft_of_rfft": (lambda t, x: t.fft.irfft(t.fft.rfft(x) * (1 + 2j), n=4), X),
    "irfft_of_rfft_odd": (lambda t, x: t.fft.irfft(t.fft.rfft(x, 5) ** 2, n=5, norm="forward"), X),
    "hfft": (lambda t, x: t.fft.hfft(x), X),
    "hfft_n": (lambda t, x: t.fft.hfft(t.fft.rfft(x) * 1j, n=5, norm="ortho"), X),
    "ihfft": (lambda t, x: t.fft.ihfft(x), X),
    "ihfft_forward": (lambda t, x: t.fft.ihfft(x, n=6, norm="forward"), X),
    "fft2": (lambda t, x: t.fft.fft2(x), X),
    "irfft2_of_rfft2": (lambda t, x: t.fft.irfft2(t.fft.rfft2(x) * 1j, s=(3, 4)), X),
    "ihfft2": (lambda t, x: t.fft.ihfft2(x), X),
    "fftn": (lambda t, x: t.fft.fftn(x), X3),
    "fftn_s": (lambda t, x: t.fft.fftn(x, s=(-1, 5), norm="ortho"), X3),
    "fftn_empty_dim": (lambda t, x: t.fft.fftn(x, dim=()), X),
    "ifftn": (lambda t, x: t.fft.ifftn(x, dim=(-1, 0)), X3),
    "rfftn": (lambda t, x: t.fft.rfftn(x, s=(2, 4, 6)), X3),
    "irfftn": (lambda t, x: t.fft.irfftn(x, dim=(0, 1)), X3),
    "irfftn_s": (lambda t, x: t.fft.irfftn(x, s=(3, -1), norm="forward"), X3),
    "hfftn": (lambda t, x: t.fft.hfftn(x), X3),
    "ihfftn": (lambda t, x: t.fft.ihfftn(x, dim=(2, 0), norm="ortho"), X3),
    "fftshift": (lambda t, x: t.fft.fftshift(x), X3),
    "ifftshift": (lambda t, x: t.fft.ifftshift(x, dim=(0, 1)), X3),
    "roundtrip": (lambda t, x: t.fft.ifft(t.fft.fft(x, norm="ortho"), norm="ortho").abs(), X),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_pytorch(name, real_torch):
    """Values, dtypes, grad_fn names and float64 gradients (vs PyTorch and finite
    differences; complex outputs get real cotangents here)."""
    fn, x = CASES[name]
    check_case(fn, [x], real_torch)


@pytest.mark.torch
@pytest.mark.parametrize(
    "fn",
    [
        lambda t, x: t.fft.fft(x.to(t.float32)),
        lambda t, x: t.fft.rfft2(x.to(t.float32), norm="ortho"),
        lambda t, x: t.fft.irfft(x.to(t.float32)),
        lambda t, x: t.fft.fft((x * 10).to(t.int64)),
        lambda t, x: t.fft.hfft((x > 0).to(t.bool), n=3),
    ],
    ids=["float32", "rfft2_float32", "irfft_float32", "int64", "bool"],
)
def test_dtypes(fn, real_torch):
    """float32 in, complex64 out; integers and bools are transformed as the default dtype."""
    check_case(fn, [X], real_torch, grads=False)


# name -> function of (lib, z) for a complex z
COMPLEX = {
    "fft": lambda t, z: t.fft.fft(z),
    "ifft_pad": lambda t, z: t.fft.ifft(z, n=6, dim=0),
    "irfft_odd": lambda t, z: t.fft.irfft(z, n=7, norm="ortho"),
    "hfft": lambda t, z: t.fft.hfft(z, n=5),
    "ifftn_s": lambda t, z: t.fft.ifftn(z, s=(2, 5)),
    "irfft2": lambda t, z: t.fft.irfft2(z),
    "hfft2": lambda t, z: t.fft.hfft2(z, s=(3, 5), norm="ortho"),
}


def _complex_grad(lib, fn, z: np.ndarray, seed: int = 2):
    """(output values, gradient of <output, cotangent> w.r.t. z) with a complex cotangent
    where the output is complex."""
    x = lib.tensor(z, requires_grad=True)
    out = fn(lib, x)
    rng = np.random.default_rng(seed)
    ct = rng.standard_normal(tuple(out.shape))
    if out.dtype.is_complex:
        ct = ct + 1j * rng.standard_normal(tuple(out.shape))
    (grad,) = lib.autograd.grad(out, x, lib.tensor(ct, dtype=out.dtype))
    return out.detach().numpy(), grad.numpy()


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(COMPLEX))
def test_complex_input_against_pytorch(name, real_torch):
    """Complex inputs and complex cotangents: values and PyTorch's (conjugate Wirtinger)
    gradients."""
    fn = COMPLEX[name]
    ours = _complex_grad(ac, fn, Z)
    theirs = _complex_grad(real_torch, fn, Z)
    assert ours[0].dtype == theirs[0].dtype
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10, atol=1e-12)


def test_complex_gradient_finite_differences():
    """The gradient of a real function of a complex input is d/dRe + i d/dIm (PyTorch's
    convention), checked by central differences of |fft(z)|^2 weighted, in float64."""
    w = np.random.default_rng(3).standard_normal((3, 4))

    def loss(z: np.ndarray) -> float:
        out = ac.fft.fft(ac.tensor(z), dim=0).abs() ** 2
        return float((out * ac.tensor(w)).sum())

    z = ac.tensor(Z, requires_grad=True)
    ((ac.fft.fft(z, dim=0).abs() ** 2) * ac.tensor(w)).sum().backward()
    grad = z.grad.numpy()
    eps = 1e-6
    direction = np.random.default_rng(4).standard_normal((2, 3, 4))
    step = direction[0] + 1j * direction[1]
    numeric = (loss(Z + eps * step) - loss(Z - eps * step)) / (2 * eps)
    analytic = float(np.sum(grad.real * direction[0] + grad.imag * direction[1]))
    np.testing.assert_allclose(analytic, numeric, rtol=1e-6)


def test_second_order_matches_pytorch(real_torch):
    """create_graph through an FFT: the gradient of the gradient."""
    results = []
    for lib in (ac, real_torch):
        x = lib.tensor(X, requires_grad=True)
        y = (lib.fft.rfft(x).abs() ** 3).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        results.append(gg.detach().numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-9)


# ----------------------------------------------------------------------------- errors
ERRORS = {
    "dim_out_of_range": lambda t: t.fft.fft(t.ones(3, 4), dim=2),
    "zero_dim": lambda t: t.fft.fft(t.tensor(1.0)),
    "norm": lambda t: t.fft.fft(t.ones(4), norm="bad"),
    "norm_nd": lambda t: t.fft.rfftn(t.ones(4), norm="Ortho"),
    "n_zero": lambda t: t.fft.fft(t.ones(4), n=0),
    "n_negative": lambda t: t.fft.ihfft(t.ones(4), n=-1),
    "irfft_length_one": lambda t: t.fft.irfft(t.ones(1)),
    "irfft_n_zero": lambda t: t.fft.irfft(t.ones(4), n=0),
    "rfft_complex": lambda t: t.fft.rfft(t.ones(4, dtype=t.complex64)),
    "ihfft_complex": lambda t: t.fft.ihfft(t.ones(4, dtype=t.complex128)),
    "rfftn_complex": lambda t: t.fft.rfft2(t.ones(2, 4, dtype=t.complex128)),
    "ihfft2_complex": lambda t: t.fft.ihfft2(t.ones(2, 4, dtype=t.complex128)),
    "half": lambda t: t.fft.fft(t.ones(4, dtype=t.float16)),
    "bfloat16": lambda t: t.fft.rfft(t.ones(4, dtype=t.bfloat16)),
    "fft2_of_1d": lambda t: t.fft.fft2(t.ones(4)),
    "s_dim_lengths": lambda t: t.fft.fftn(t.ones(3, 4), s=(2, 3), dim=(0,)),
    "dims_unique": lambda t: t.fft.fftn(t.ones(3, 4), dim=(0, -2)),
    "s_too_long": lambda t: t.fft.ifftn(t.ones(3, 4), s=(2, 3, 4)),
    "s_zero": lambda t: t.fft.fftn(t.ones(3, 4), s=(0, 3)),
    "irfft2_s_zero": lambda t: t.fft.irfft2(t.ones(3, 4), s=(2, 0)),
    "not_a_tensor": lambda t: t.fft.fft([1.0, 2.0]),
    "fftshift_dim": lambda t: t.fft.fftshift(t.ones(2, 3), dim=3),
    "fftfreq_negative": lambda t: t.fft.fftfreq(-1),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name, real_torch):
    check_error(ERRORS[name], real_torch)


# ----------------------------------------------------------------------------- frequencies
@pytest.mark.torch
@pytest.mark.parametrize(
    "fn",
    [
        lambda t: t.fft.fftfreq(5),
        lambda t: t.fft.fftfreq(8, d=0.1),
        lambda t: t.fft.fftfreq(7, 0.3, dtype=t.float64),
        lambda t: t.fft.rfftfreq(7, d=2.5),
        lambda t: t.fft.rfftfreq(10, dtype=t.float64, requires_grad=True),
        lambda t: t.fft.fftshift(t.fft.fftfreq(6)),
        lambda t: t.fft.ifftshift(t.fft.fftshift(t.fft.fftfreq(5))),
    ],
)
def test_frequencies(fn, real_torch):
    """Exact values (rounded in the target dtype as PyTorch rounds them) and dtypes."""
    assert_same(fn(ac), fn(real_torch), tolerance={"torch.float32": (0, 0)})


@pytest.mark.torch
def test_complex_printing(real_torch):
    """Complex results print as PyTorch's."""
    for fn in (
        lambda t: t.fft.fft(t.tensor([1.0, 2.0, 3.0, 4.0])),
        lambda t: t.fft.ifft(t.tensor([1.0, 2.0, 3.0], requires_grad=True)),
        lambda t: t.tensor([[1e-5 + 2j, 3 - 1j], [0j, -0j]], dtype=t.complex128),
        lambda t: t.tensor(1.5 - 2j),
    ):
        assert repr(fn(ac)) == repr(fn(real_torch))
