"""torch.hann_window, hamming_window, blackman_window, bartlett_window and kaiser_window:
PyTorch's own formulas on `arange` sample points in the requested dtype, in its order of
operations (so the values round as PyTorch's), as leaves that require grad when asked.

A periodic window (the default, suited to `stft`) of length N is the symmetric window of
length N + 1 without its last point. torch.signal.windows holds the newer `sym=` forms.
"""

from __future__ import annotations

import math

from .._pure import dtypes as _dtypes
from .._pure.layouts import strided
from .._state.tensor import Tensor
from .comparison import where
from .factories import arange, empty, ones
from .special_math import i0
from .unary import cos, sqrt

__all__ = ["bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window"]

# C++ names of the integral dtypes in PyTorch's "expects floating point dtypes" message
_CPP_NAMES = {
    _dtypes.int64: "long int",
    _dtypes.int32: "int",
    _dtypes.int16: "short int",
    _dtypes.int8: "signed char",
    _dtypes.uint8: "unsigned char",
    _dtypes.bool: "bool",
}


def _options(dtype, layout, device, pin_memory: bool, requires_grad: bool) -> dict:
    """The factory keywords of a window function."""
    return {
        "dtype": dtype,
        "layout": layout,
        "device": device,
        "pin_memory": pin_memory,
        "requires_grad": requires_grad,
    }


def _window(name: str, window_length: int, periodic: bool, options: dict, formula) -> Tensor:
    """`formula(k, n)` on the points k = 0..n-1 (n one more when `periodic`, whose last point
    is dropped), after PyTorch's checks; lengths 0 and 1 give an empty tensor and a one."""
    dtype = options["dtype"] or _dtypes.get_default_dtype()
    device, requires_grad = options["device"], options["requires_grad"]
    if options["pin_memory"]:
        raise RuntimeError(
            "pin_memory=True requires a CUDA or other accelerator backend; no pinned memory "
            "allocator is available on this system."
        )
    if options["layout"] not in (None, strided):
        raise RuntimeError(f"{name} is not implemented for sparse types, got: {options['layout']}")
    if not dtype.is_floating_point:
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype="
            f"{_CPP_NAMES.get(dtype, str(dtype))}, device=cpu, layout=Strided (default), "
            f"requires_grad={str(requires_grad).lower()}"
            f"{'' if requires_grad else ' (default)'}, pinned_memory=false, "
            "memory_format=(nullopt))"
        )
    if window_length < 0:
        raise RuntimeError(
            f"{name} requires non-negative window_length, got window_length={window_length}"
        )
    if window_length <= 1:
        make = empty if window_length == 0 else ones
        return make((window_length,), dtype=dtype, device=device, requires_grad=requires_grad)
    n = window_length + 1 if periodic else window_length
    window = formula(arange(n, dtype=dtype, device=device), n)
    if periodic:
        window = window[: n - 1].contiguous()
    return window.requires_grad_(requires_grad)


def _hamming(alpha: float, beta: float):
    """The formula of the generalised Hamming window."""
    return lambda k, n: cos(k * (2.0 * math.pi / (n - 1))) * -beta + alpha


def hamming_window(
    window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
    dtype=None, layout=strided, device=None, pin_memory: bool = False,
    requires_grad: bool = False,
):  # fmt: skip
    """alpha - beta cos(2 pi k / (N - 1)), the generalised Hamming window.

    Example:
        >>> torch.hamming_window(4, False)
        tensor([0.0800, 0.7700, 0.7700, 0.0800])
    """
    options = _options(dtype, layout, device, pin_memory, requires_grad)
    return _window(
        "hamming_window",
        window_length,
        periodic,
        options,
        _hamming(alpha, beta),
    )


def hann_window(
    window_length: int, periodic: bool = True, *, dtype=None, layout=strided, device=None,
    pin_memory: bool = False, requires_grad: bool = False,
):  # fmt: skip
    """The Hann window, 0.5 - 0.5 cos(2 pi k / (N - 1)) (`hamming_window` with 0.5, 0.5)."""
    options = _options(dtype, layout, device, pin_memory, requires_grad)
    return _window(
        "hann_window",
        window_length,
        periodic,
        options,
        _hamming(0.5, 0.5),
    )


def _blackman(k, n):
    w = k * (math.pi / (n - 1))
    return cos(w * 4) * 0.08 - cos(w * 2) * 0.5 + 0.42


def blackman_window(
    window_length: int, periodic: bool = True, *, dtype=None, layout=strided, device=None,
    pin_memory: bool = False, requires_grad: bool = False,
):  # fmt: skip
    """0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1))."""
    options = _options(dtype, layout, device, pin_memory, requires_grad)
    return _window("blackman_window", window_length, periodic, options, _blackman)


def _bartlett(k, n):
    w = k * (2.0 / (n - 1))
    return where(k >= ((n - 1) >> 1) + 1, -w + 2, w)


def bartlett_window(
    window_length: int, periodic: bool = True, *, dtype=None, layout=strided, device=None,
    pin_memory: bool = False, requires_grad: bool = False,
):  # fmt: skip
    """The triangular window: 2k / (N - 1) rising, then falling back to 0."""
    options = _options(dtype, layout, device, pin_memory, requires_grad)
    return _window("bartlett_window", window_length, periodic, options, _bartlett)


def kaiser_window(
    window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype=None,
    layout=strided, device=None, pin_memory: bool = False, requires_grad: bool = False,
):  # fmt: skip
    """I0(beta sqrt(1 - ((k - a) / a)^2)) / I0(beta) with a = (N - 1) / 2."""
    options = _options(dtype, layout, device, pin_memory, requires_grad)

    def formula(k, n):  # (PyTorch's kernel computes half precision in float32)
        x = k.float() if k.dtype in (_dtypes.float16, _dtypes.bfloat16) else k
        a = (n - 1) / 2.0
        ratio = (x - a) / a
        top = i0(sqrt((1 - ratio * ratio).abs()) * beta)
        return (top / i0(ones((), dtype=x.dtype) * beta)).to(k.dtype)

    return _window("kaiser_window", window_length, periodic, options, formula)
