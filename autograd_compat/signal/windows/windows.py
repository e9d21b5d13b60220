"""Window functions as PyTorch defines them: each evaluates a formula on `linspace` sample
points in the requested dtype (float32 or float64), so the values round as PyTorch's.

A symmetric window (`sym=True`, the default) of length M is the periodic window of length
M - 1 plus its first point again; a periodic one (`sym=False`) suits spectral analysis.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ..._ops.factories import arange, empty, linspace, ones, tensor
from ..._ops.special_math import i0
from ..._ops.unary import cos, exp, sin, sqrt
from ..._pure import dtypes as _dtypes
from ..._pure.layouts import strided

__all__ = [
    "bartlett",
    "blackman",
    "cosine",
    "exponential",
    "gaussian",
    "general_cosine",
    "general_hamming",
    "hamming",
    "hann",
    "kaiser",
    "nuttall",
]


def _checked_dtype(name: str, M: int, dtype, layout):
    """PyTorch's checks of a window's length, layout and dtype; the dtype to use."""
    dtype = _dtypes.get_default_dtype() if dtype is None else dtype
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (_dtypes.float32, _dtypes.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    return dtype


def _trivial(M: int, dtype, device, requires_grad: bool, one_is_ones: bool = True):
    """The window of length 0 (empty) or 1 (a one), or None for longer windows."""
    if M == 0:
        return empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    if M == 1 and one_is_ones:
        return ones((1,), dtype=dtype, device=device, requires_grad=requires_grad)
    return None


def _points(start, end, M: int, dtype, device, requires_grad: bool):
    return linspace(start, end, M, dtype=dtype, device=device, requires_grad=requires_grad)


def _span(M: int, sym: bool) -> int:
    """The denominator length: M - 1 for a symmetric window, M for a periodic one."""
    return M - 1 if sym else M


def exponential(
    M: int, *, center: float | None = None, tau: float = 1.0, sym: bool = True, dtype=None,
    layout=strided, device=None, requires_grad: bool = False,
):  # fmt: skip
    """exp(-|n - center| / tau)."""
    dtype = _checked_dtype("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    trivial = _trivial(M, dtype, device, requires_grad, one_is_ones=False)
    if trivial is not None:
        return trivial
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    k = _points(-center / tau, (M - 1 - center) / tau, M, dtype, device, requires_grad)
    return exp(-k.abs())


def cosine(
    M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,
    requires_grad: bool = False,
):  # fmt: skip
    """sin(pi (n + 1/2) / M): the half-period sine window."""
    dtype = _checked_dtype("cosine", M, dtype, layout)
    trivial = _trivial(M, dtype, device, requires_grad, one_is_ones=False)
    if trivial is not None:
        return trivial
    step = math.pi / (M + 1 if not sym and M > 1 else M)
    return sin(_points(0.5 * step, (M - 0.5) * step, M, dtype, device, requires_grad))


def gaussian(
    M: int, *, std: float = 1.0, sym: bool = True, dtype=None, layout=strided, device=None,
    requires_grad: bool = False,
):  # fmt: skip
    """exp(-(n - center)² / (2 std²))."""
    dtype = _checked_dtype("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    trivial = _trivial(M, dtype, device, requires_grad, one_is_ones=False)
    if trivial is not None:
        return trivial
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    scale = 1 / (std * math.sqrt(2))
    k = _points(start * scale, (start + M - 1) * scale, M, dtype, device, requires_grad)
    return exp(-(k**2))


def kaiser(
    M: int, *, beta: float = 12.0, sym: bool = True, dtype=None, layout=strided, device=None,
    requires_grad: bool = False,
):  # fmt: skip
    """I0(beta sqrt(1 - (2n / (M - 1) - 1)²)) / I0(beta)."""
    dtype = _checked_dtype("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    trivial = _trivial(M, dtype, device, requires_grad)
    if trivial is not None:
        return trivial
    b = tensor(beta, dtype=dtype, device=device)
    step = 2.0 * b / _span(M, sym)
    end = (-b + (M - 1) * step).clamp_max(b)
    k = _points(-b.item(), end.item(), M, dtype, device, requires_grad)
    return i0(sqrt(b * b - k.pow(2))) / i0(b)


def general_cosine(
    M, *, a: Iterable, sym: bool = True, dtype=None, layout=strided, device=None,
    requires_grad: bool = False,
):  # fmt: skip
    """sum_i (-1)^i a_i cos(2 pi i n / (M - 1)): the family of Hann, Hamming, Blackman."""
    dtype = _checked_dtype("general_cosine", M, dtype, layout)
    trivial = _trivial(M, dtype, device, requires_grad)
    if trivial is not None:
        return trivial
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    step = 2 * math.pi / _span(M, sym)
    k = _points(0, (M - 1) * step, M, dtype, device, requires_grad)
    signed = tensor([(-1) ** i * w for i, w in enumerate(a)], dtype=dtype, device=device)
    orders = arange(signed.shape[0], dtype=dtype, device=device)
    return (signed.unsqueeze(-1) * cos(orders.unsqueeze(-1) * k)).sum(0)


def general_hamming(
    M, *, alpha: float = 0.54, sym: bool = True, dtype=None, layout=strided, device=None,
    requires_grad: bool = False,
):  # fmt: skip
    """alpha - (1 - alpha) cos(2 pi n / (M - 1))."""
    return general_cosine(
        M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device,
        requires_grad=requires_grad,
    )  # fmt: skip


def hamming(
    M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,
    requires_grad: bool = False,
):  # fmt: skip
    """The Hamming window: general_hamming with alpha 0.54."""
    return general_hamming(
        M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad
    )


def hann(
    M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,
    requires_grad: bool = False,
):  # fmt: skip
    """The Hann window: general_hamming with alpha 0.5."""
    return general_hamming(
        M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
        requires_grad=requires_grad,
    )  # fmt: skip


def blackman(
    M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,
    requires_grad: bool = False,
):  # fmt: skip
    """The Blackman window: general_cosine with (0.42, 0.5, 0.08)."""
    dtype = _checked_dtype("blackman", M, dtype, layout)
    return general_cosine(
        M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, device=device,
        requires_grad=requires_grad,
    )  # fmt: skip


def bartlett(
    M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,
    requires_grad: bool = False,
):  # fmt: skip
    """The triangular window 1 - |2n / (M - 1) - 1|."""
    dtype = _checked_dtype("bartlett", M, dtype, layout)
    trivial = _trivial(M, dtype, device, requires_grad)
    if trivial is not None:
        return trivial
    step = 2 / _span(M, sym)
    return 1 - _points(-1, -1 + (M - 1) * step, M, dtype, device, requires_grad).abs()


def nuttall(
    M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,
    requires_grad: bool = False,
):  # fmt: skip
    """The minimum 4-term Blackman-Harris window of Nuttall."""
    return general_cosine(
        M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype,
        layout=layout, device=device, requires_grad=requires_grad,
    )  # fmt: skip
