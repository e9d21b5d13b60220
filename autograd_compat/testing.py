"""torch.testing: `assert_close` (PyTorch's default tolerances, error types and messages) and
`make_tensor` (random tensors in PyTorch's default value ranges).

`assert_close` compares tensors, numpy arrays, Python numbers and (nested) sequences and
mappings of them, as PyTorch's does: shapes, dtypes (`check_dtype`), devices
(`check_device`), then values with `|actual - expected| <= atol + rtol * |expected|`
elementwise (NaN equal only with `equal_nan`). A mismatch raises AssertionError with PyTorch's
message ("Tensor-likes are not close!", mismatched elements, greatest differences and their
indices); `rtol` and `atol` must be given both or neither (ValueError).
"""

from __future__ import annotations

import collections.abc
import math

import numpy as np

from ._ops.factories import as_tensor
from ._ops.random import rand, randint
from ._pure import dtypes as _dtypes
from ._state.tensor import Tensor

__all__ = ["assert_close", "make_tensor"]

# PyTorch's default (rtol, atol) per dtype (torch/testing/_comparison.py); exact elsewhere.
_DEFAULT_TOLERANCES = {
    _dtypes.float16: (1e-3, 1e-5),
    _dtypes.bfloat16: (1.6e-2, 1e-5),
    _dtypes.float32: (1.3e-6, 1e-5),
    _dtypes.float64: (1e-7, 1e-7),
    _dtypes.complex64: (1.3e-6, 1e-5),
    _dtypes.complex128: (1e-7, 1e-7),
}


class _Mismatch(Exception):
    """An assertion failure found while walking the inputs (the message, without the item)."""

    def __init__(self, message: str, exc_type: type = AssertionError) -> None:
        super().__init__(message)
        self.message = message
        self.exc_type = exc_type


def _tolerances(*dtypes, rtol, atol) -> tuple:
    if (rtol is None) ^ (atol is None):
        missing = "atol" if atol is None else "rtol"
        raise ValueError(
            f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {missing}."
        )
    if rtol is not None:
        return rtol, atol
    pairs = [_DEFAULT_TOLERANCES.get(d, (0.0, 0.0)) for d in dtypes]
    return max(r for r, _ in pairs), max(a for _, a in pairs)


def _mismatch_message(identifier, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol) -> str:
    equality = rtol == 0 and atol == 0

    def line(kind: str, diff, idx, tol) -> str:
        if idx is None:
            text = f"{kind.title()} difference: {diff}"
        else:
            text = f"Greatest {kind} difference: {diff} at index {idx}"
        if not equality:
            text += f" (up to {tol} allowed)"
        return text + "\n"

    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += line("absolute", abs_diff, abs_idx, atol)
    msg += line("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def _isclose(actual: np.ndarray, expected: np.ndarray, rtol, atol, equal_nan) -> np.ndarray:
    """torch.isclose, in the arrays' dtype."""
    with np.errstate(invalid="ignore", over="ignore"):
        close = actual == expected
        if actual.dtype.kind in "fc":
            finite = np.isfinite(actual) & np.isfinite(expected)
            diff = np.abs(actual - expected)
            allowed = np.asarray(atol, diff.dtype) + np.asarray(rtol, diff.dtype) * np.abs(
                expected
            ).astype(diff.dtype)
            close = close | (finite & (diff <= allowed))
            if equal_nan:
                close = close | (np.isnan(actual) & np.isnan(expected))
        elif rtol or atol:
            diff = np.abs(actual.astype(np.float64) - expected.astype(np.float64))
            close = close | (diff <= atol + rtol * np.abs(expected.astype(np.float64)))
    return close


def _item(x: np.ndarray):
    return x.item()


def _scalar_message(actual, expected, rtol, atol) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_message(
        "Scalars",
        f"Expected {expected} but got {actual}.",
        abs_diff,
        None,
        atol,
        rel_diff,
        None,
        rtol,
    )


def _compare_tensors(
    actual: Tensor, expected: Tensor, rtol, atol, equal_nan, check_dtype, check_device
) -> None:
    for name in ("shape", "dtype", "device") if check_device else ("shape", "dtype"):
        if name == "dtype" and not check_dtype:
            continue
        a, e = getattr(actual, name), getattr(expected, name)
        if a != e:
            if name == "device":
                a, e = repr(a), repr(e)
            raise _Mismatch(f"The values for attribute '{name}' do not match: {a} != {e}.")
    rtol, atol = _tolerances(actual.dtype, expected.dtype, rtol=rtol, atol=atol)
    a = np.asarray(actual.detach()._value)
    e = np.asarray(expected.detach()._value)
    if a.dtype != e.dtype:
        common = _dtypes.promote_types(actual.dtype, expected.dtype).jax
        a, e = a.astype(common), e.astype(common)
    matches = _isclose(a, e, rtol, atol, equal_nan)
    if matches.all():
        return
    if a.shape == ():
        raise _Mismatch(_scalar_message(_item(a), _item(e), rtol, atol))
    if a.dtype.kind not in "fc":
        a, e = a.astype(np.int64), e.astype(np.int64)
    flat_a, flat_e, flat_m = a.reshape(-1), e.reshape(-1), matches.reshape(-1)
    total = flat_m.size
    mismatches = total - int(flat_m.sum())
    extra = f"Mismatched elements: {mismatches} / {total} ({mismatches / total:.1%})"
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        abs_diff = np.abs(flat_a - flat_e)
        abs_diff[flat_m] = 0
        if abs_diff.dtype.kind in "fc":
            rel_diff = abs_diff / np.abs(flat_e)
        else:  # integer true division gives the default float dtype in PyTorch
            real = np.dtype(_dtypes.get_default_dtype().jax)
            rel_diff = abs_diff.astype(real) / np.abs(flat_e).astype(real)
        rel_diff[flat_m] = 0

    def greatest(values: np.ndarray):
        nan = np.isnan(values) if values.dtype.kind in "fc" else np.zeros(values.shape, bool)
        i = int(np.argmax(nan)) if nan.any() else int(np.argmax(values))
        return values[i].item(), tuple(int(j) for j in np.unravel_index(i, a.shape))

    max_abs, abs_idx = greatest(abs_diff)
    max_rel, rel_idx = greatest(rel_diff)
    raise _Mismatch(
        _mismatch_message("Tensor-likes", extra, max_abs, abs_idx, atol, max_rel, rel_idx, rtol)
    )


def _is_number(x) -> bool:
    return isinstance(x, (bool, int, float, complex, np.number))


def _number_dtype(x) -> _dtypes.dtype:
    if isinstance(x, (bool, np.bool_)):
        return _dtypes.bool
    if isinstance(x, (int, np.integer)):
        return _dtypes.int64
    if isinstance(x, (float, np.floating)):
        return _dtypes.float64
    return _dtypes.complex128


def _compare(actual, expected, rtol, atol, equal_nan, check_dtype, check_device) -> None:
    options = (rtol, atol, equal_nan, check_dtype, check_device)
    tensor_like = (Tensor, np.ndarray)
    if isinstance(actual, tensor_like) and isinstance(expected, tensor_like):
        if isinstance(actual, np.ndarray) != isinstance(expected, np.ndarray):
            raise _unhandled(actual, expected)
        _compare_tensors(as_tensor(actual), as_tensor(expected), *options)
        return
    if _is_number(actual) and _is_number(expected):
        if check_dtype and type(actual) is not type(expected):
            raise _Mismatch(
                f"The values for attribute 'type' do not match: {type(actual)} != {type(expected)}."
            )
        rtol, atol = _tolerances(
            _number_dtype(actual), _number_dtype(expected), rtol=rtol, atol=atol
        )
        if actual == expected or (equal_nan and _isnan(actual) and _isnan(expected)):
            return
        if abs(actual - expected) <= atol + rtol * abs(expected) and not _isnan(actual - expected):
            return
        raise _Mismatch(_scalar_message(actual, expected, rtol, atol))
    if isinstance(actual, str) or isinstance(expected, str):
        pass
    elif isinstance(actual, collections.abc.Sequence) and isinstance(
        expected, collections.abc.Sequence
    ):
        if len(actual) != len(expected):
            raise _Mismatch(
                f"The length of the sequences mismatch: {len(actual)} != {len(expected)}"
            )
        for index, (a, e) in enumerate(zip(actual, expected)):
            _nested(a, e, f"[{index}]", *options)
        return
    elif isinstance(actual, collections.abc.Mapping) and isinstance(
        expected, collections.abc.Mapping
    ):
        keys_a, keys_e = set(actual), set(expected)
        if keys_a != keys_e:
            missing = sorted(keys_e - keys_a, key=repr)
            extra = sorted(keys_a - keys_e, key=repr)
            raise _Mismatch(
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {missing}\n"
                f"Additional keys in the actual mapping: {extra}"
            )
        for key in expected:
            _nested(actual[key], expected[key], f"[{key!r}]", *options)
        return
    raise _unhandled(actual, expected)


def _unhandled(actual, expected) -> _Mismatch:
    """PyTorch's TypeError for a pair of inputs that no comparison handles."""
    return _Mismatch(
        f"No comparison pair was able to handle inputs of type {type(actual)} and "
        f"{type(expected)}.",
        TypeError,
    )


def _nested(actual, expected, where: str, *args) -> None:
    try:
        _compare(actual, expected, *args)
    except _Mismatch as mismatch:
        if "\n\nThe failure occurred for item " in mismatch.message:
            head, _, path = mismatch.message.rpartition("The failure occurred for item ")
            mismatch.message = f"{head}The failure occurred for item {where}{path}"
        elif mismatch.exc_type is AssertionError:
            mismatch.message += f"\n\nThe failure occurred for item {where}"
        raise


def _isnan(x) -> bool:
    try:
        return (
            bool(math.isnan(x.real) or math.isnan(x.imag))
            if isinstance(x, complex)
            else bool(math.isnan(x))
        )
    except TypeError:
        return False


def assert_close(
    actual,
    expected,
    *,
    allow_subclasses: bool = True,
    rtol=None,
    atol=None,
    equal_nan: bool = False,
    check_device: bool = True,
    check_dtype: bool = True,
    check_layout: bool = True,
    check_stride: bool = False,
    msg=None,
) -> None:
    """Assert that `actual` and `expected` are close, as `torch.testing.assert_close`.

    Args:
        actual, expected: tensors, numpy arrays, numbers, or sequences/mappings of them.
        rtol, atol (float, optional): tolerances; both or neither. Default: by dtype
            (float32: 1.3e-6 and 1e-5, float64: 1e-7 and 1e-7, integers: exact, ...).
        equal_nan (bool): NaNs compare equal.
        check_dtype, check_device (bool): require equal dtypes / devices.
        msg (str or callable, optional): replaces the message (a callable gets it and
            returns the new one).

    Raises:
        AssertionError: a mismatch (PyTorch's message); ValueError for one of rtol/atol;
        TypeError for inputs that cannot be compared.

    Example::

        >>> torch.testing.assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0 + 1e-7]))
        >>> torch.testing.assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.5]))
        Traceback (most recent call last):
          ...
        AssertionError: Tensor-likes are not close!
        <BLANKLINE>
        Mismatched elements: 1 / 2 (50.0%)
        Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)
        Greatest relative difference: 0.20000000298023224 at index (1,) (up to 1.3e-06 allowed)
    """
    __tracebackhide__ = True
    if (rtol is None) ^ (atol is None):
        _tolerances(rtol=rtol, atol=atol)  # raises PyTorch's ValueError
    try:
        _compare(actual, expected, rtol, atol, equal_nan, check_dtype, check_device)
    except _Mismatch as mismatch:
        message = mismatch.message
        if mismatch.exc_type is AssertionError and msg is not None:
            message = msg(message) if callable(msg) else msg
        raise mismatch.exc_type(message) from None


def make_tensor(
    *shape,
    dtype,
    device=None,
    low=None,
    high=None,
    requires_grad: bool = False,
    noncontiguous: bool = False,
    exclude_zero: bool = False,
    memory_format=None,
) -> Tensor:
    """A tensor of `shape` with random values in [low, high), PyTorch's `make_tensor`.

    Defaults: [-9, 9) for floating and complex dtypes, [-9, 10) for signed integers, [0, 10)
    for uint8, {False, True} for bool. `exclude_zero` replaces zeros (by the smallest normal
    number for floats, 1 for integers). Values come from this library's generator.
    """
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    shape = tuple(int(s) for s in shape)
    d = _dtypes.as_dtype(dtype)
    if d is _dtypes.bool:
        value = randint(0, 2, shape, device=device).bool()
    elif d.is_floating_point or d.is_complex:
        lo = -9.0 if low is None else float(low)
        hi = 9.0 if high is None else float(high)
        if math.isnan(lo) or math.isnan(hi):
            raise ValueError(f"`low` and `high` cannot be NaN, but got low={lo} and high={hi}")
        if lo > hi:
            raise ValueError(f"`low` must be less than or equal to `high`, but got {lo} >= {hi}")
        real = _dtypes.float64 if d in (_dtypes.float64, _dtypes.complex128) else _dtypes.float32
        parts = 2 if d.is_complex else 1
        samples = [rand(shape, dtype=real, device=device) * (hi - lo) + lo for _ in range(parts)]
        value = samples[0] if parts == 1 else samples[0] + 1j * samples[1]
        value = value.to(d)
        if exclude_zero:
            tiny = float(np.finfo(np.dtype(real.jax)).tiny)
            value = value.masked_fill(value == 0, tiny)
    else:
        info = np.iinfo(np.dtype(d.jax))
        lo = (0 if info.min == 0 else -9) if low is None else math.ceil(low)
        hi = 10 if high is None else math.ceil(high)
        lo, hi = max(lo, int(info.min)), min(hi, int(info.max) + 1)
        if lo >= hi:
            raise ValueError(f"`low` must be less than `high`, but got {lo} >= {hi}")
        value = randint(lo, hi, shape, device=device, dtype=d)
        if exclude_zero:
            value = value.masked_fill(value == 0, 1)
    if requires_grad:
        value.requires_grad_(True)
    return value
