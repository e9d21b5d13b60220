"""The masked operations of torch.masked on strided tensors (see the package docstring)."""

from __future__ import annotations

import math

from .._ops import comparison, elementwise, factories, order_statistics, reduce
from .._ops.reduce import vector_norm
from .._pure import dtypes as _dtypes
from .._state.tensor import Tensor
from ..nn import functional as F

__all__ = [
    "amax",
    "amin",
    "argmax",
    "argmin",
    "cumprod",
    "cumsum",
    "log_softmax",
    "logaddexp",
    "logsumexp",
    "mean",
    "median",
    "norm",
    "normalize",
    "prod",
    "softmax",
    "softmin",
    "std",
    "sum",
    "var",
]

_WIDENED = (_dtypes.uint8, _dtypes.bool, _dtypes.int8, _dtypes.int16, _dtypes.int32)


def _canonical_dim(dim, ndim: int) -> tuple[int, ...]:
    """`dim` as a sorted tuple of dimensions; None or () is every dimension."""
    if dim is None or dim == ():
        return tuple(range(ndim))
    ndim = max(ndim, 1)
    dims: list[int] = []
    for d in (dim,) if isinstance(dim, int) else dim:
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= ndim or d < -ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
                f"but got {d})"
            )
        dims.append(d % ndim)
    return tuple(sorted(dims))


def _input_mask(input: Tensor, *args, **kwargs) -> Tensor:
    """The keyword `mask` broadcast to the input's shape, as bool (PyTorch's private
    `torch.masked._input_mask`, which its OpInfo gradient wrapper calls)."""
    mask = kwargs.get("mask")
    if mask is None:
        raise ValueError("_input_mask requires explicit mask")
    if mask.shape != input.shape:
        if mask.ndim > input.ndim:
            raise IndexError(
                "_input_mask expected broadcastable mask (got mask dimensionality higher than of "
                "the input)"
            )
        mask = mask.clone().broadcast_to(input.shape)
    return mask.to(dtype=_dtypes.bool)


_REDUCTIONS = frozenset(
    ["sum", "prod", "amax", "amin", "argmax", "argmin", "mean", "median", "norm", "var", "std"]
    + ["logsumexp"]
)
_NORMALIZATIONS = frozenset(["softmax", "log_softmax", "softmin", "normalize", "cumsum", "cumprod"])


def _output_mask(op, input: Tensor, *args, **kwargs) -> Tensor:
    """Which output elements of the masked operation `op` on these arguments have a kept
    input element (PyTorch's private `torch.masked._output_mask`, which its OpInfo gradient
    wrapper calls)."""
    if not callable(op):
        raise ValueError(f"_output_mask expected masked operation (got {type(op).__name__} object)")
    if op.__name__ in _NORMALIZATIONS:
        return _input_mask(input, *args, **kwargs)
    if op.__name__ not in _REDUCTIONS:
        raise ValueError(
            f"_output_mask expected masked operation (got callable {op.__module__}.{op.__name__})"
        )
    if op.__name__ == "norm" and args:
        args = args[1:]
    dim = args[0] if args else kwargs.get("dim")
    kept = _input_mask(input, *args, **kwargs)
    keepdim = bool(kwargs.get("keepdim", False))
    for d in reversed(_canonical_dim(dim, input.ndim)):
        kept = kept.any(dim=d, keepdim=keepdim)
    return kept


def _identity(op: str, input: Tensor, ord=2.0):
    """The value a masked-out element takes for `op` (PyTorch's `_reduction_identity`)."""
    dtype = input.dtype
    floating = dtype.is_floating_point
    value: float
    if op == "sum" or (op == "norm" and ord != -math.inf):
        value = 0
    elif op == "prod":
        value = 1
    elif op in ("amax", "argmax", "logsumexp", "logaddexp"):
        value = -math.inf if floating else _dtypes.iinfo(dtype).min
    elif op in ("amin", "argmin") or op == "norm":
        value = math.inf if floating else _dtypes.iinfo(dtype).max
    elif op == "median" and floating:
        value = math.nan
    else:
        raise NotImplementedError(f"identity of {op} on {dtype} input")
    return factories.tensor(value, dtype=dtype, device=input.device)


def _masked(op: str, input: Tensor, mask, ord=2.0) -> Tensor:
    if mask is None:
        return input
    return comparison.where(_input_mask(input, mask=mask), input, _identity(op, input, ord))


def _sum_dtype(input: Tensor, dtype):
    if dtype is not None:
        return dtype
    return _dtypes.int64 if input.dtype in _WIDENED else input.dtype


def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The sum of the kept elements (masked-out ones count as 0)."""
    dtype = _sum_dtype(input, dtype)
    dims = _canonical_dim(dim, input.ndim)
    return reduce.sum(_masked("sum", input, mask), dims, bool(keepdim), dtype=dtype)


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The product of the kept elements (masked-out ones count as 1)."""
    dtype = _sum_dtype(input, dtype)
    result = _masked("prod", input, mask).to(dtype=dtype)
    for d in reversed(_canonical_dim(dim, input.ndim)):
        result = result.prod(dim=d, keepdim=bool(keepdim))
    return result


def cumsum(input, dim, *, dtype=None, mask=None):
    """The cumulative sum of the kept elements along `dim` (masked-out ones count as 0)."""
    dtype = input.dtype if dtype is None else dtype
    axis = _canonical_dim(dim, input.ndim)[0]
    return reduce.cumsum(_masked("sum", input, mask), axis, dtype=dtype).to(dtype=dtype)


def cumprod(input, dim, *, dtype=None, mask=None):
    """The cumulative product of the kept elements along `dim` (masked-out ones count as 1)."""
    dtype = input.dtype if dtype is None else dtype
    axis = _canonical_dim(dim, input.ndim)[0]
    return reduce.cumprod(_masked("prod", input, mask), axis, dtype=dtype).to(dtype=dtype)


def _extreme(op: str, fn):
    def extreme(input, dim=None, *, keepdim=False, dtype=None, mask=None):
        dtype = input.dtype if dtype is None else dtype
        masked = _masked(op, input, mask)
        return fn(masked, _canonical_dim(dim, masked.ndim), bool(keepdim)).to(dtype=dtype)

    extreme.__name__ = extreme.__qualname__ = op
    extreme.__doc__ = f"The {op} of the kept elements."
    return extreme


amax = _extreme("amax", reduce.amax)
amin = _extreme("amin", reduce.amin)


def _arg(op: str, fn):
    def arg(input, dim=None, *, keepdim=False, dtype=None, mask=None):
        dtype = input.dtype if dtype is None else dtype
        return fn(_masked(op, input, mask), dim, bool(keepdim)).to(dtype=dtype)

    arg.__name__ = arg.__qualname__ = op
    arg.__doc__ = f"The index of the {op[3:]} of the kept elements along `dim`."
    return arg


argmax = _arg("argmax", reduce.argmax)
argmin = _arg("argmin", reduce.argmin)


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """log(sum(exp)) of the kept elements."""
    dtype = input.dtype if dtype is None else dtype
    masked = _masked("logsumexp", input, mask)
    return reduce.logsumexp(masked, _canonical_dim(dim, masked.ndim), bool(keepdim)).to(dtype)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    """log(exp(input) + exp(other)) with masked-out elements of either at -inf."""
    dtype = input.dtype if dtype is None else dtype
    masked_input = _masked("logaddexp", input, input_mask)
    masked_other = _masked("logaddexp", other, other_mask)
    return elementwise.logaddexp(masked_input, masked_other).to(dtype=dtype)


def _count(input: Tensor, dim, keepdim: bool, mask):
    if mask is None:
        ones = factories.ones(input.shape, dtype=_dtypes.int64, device=input.device)
        return sum(ones, dim, keepdim=keepdim), None
    kept = _input_mask(input, mask=mask)
    return kept.sum(dim=_canonical_dim(dim, input.ndim), keepdim=bool(keepdim)), kept


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The mean of the kept elements (NaN where none is kept)."""
    source = "Optional"
    if dtype is None:
        dtype, source = input.dtype, "Input"
    if not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(
            f"mean(): Could not infer output dtype. {source} dtype must be either a floating "
            f"point or complex dtype. Got: {dtype}"
        )
    count, kept = _count(input, dim, keepdim, mask)
    return sum(input, dim, keepdim=keepdim, dtype=dtype, mask=kept) / count


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    """The median of the kept elements along `dim` (the lower of the two middle ones for an
    even count, NaN where none is kept)."""
    dtype = input.dtype if dtype is None else dtype
    axis = _canonical_dim(dim, input.ndim)[0]
    floating = input.dtype.is_floating_point
    if not floating:
        input = input.to(dtype=_dtypes.float32)
    output = order_statistics.nanmedian(_masked("median", input, mask), axis, bool(keepdim)).values
    if floating:
        return output
    if comparison.isnan(output).any():
        raise ValueError(
            "masked median expects no fully masked out rows if dtype is not floating point"
        )
    return output.to(dtype=dtype)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The vector `ord`-norm of the kept elements."""
    dtype = input.dtype if dtype is None else dtype
    masked = _masked("norm", input, mask, ord)
    dims = _canonical_dim(dim, input.ndim)
    return vector_norm(masked, ord, dims, bool(keepdim), dtype=dtype)


def _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt: bool):
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    offset = 1.0
    if unbiased is not None:
        offset = 1.0 if unbiased else 0.0
    if correction is not None:
        offset = float(correction)
    if dtype is None:
        dtype = input.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            dtype = _dtypes.float32
    compute = dtype if dtype.is_floating_point or dtype.is_complex else _dtypes.float32
    count, kept = _count(input, dim, True, mask)
    deviation = input - sum(input, dim, keepdim=True, dtype=dtype, mask=kept) / count
    total = sum(deviation * deviation.conj(), dim, keepdim=keepdim, dtype=compute, mask=kept)
    if not keepdim:
        count = count.reshape(total.shape)
    if offset != 0:
        real = total.real.dtype if compute.is_complex else compute
        count = count.to(real) - offset
        count = comparison.maximum(count, count.new_zeros([]))
    output = (total / count).to(dtype=dtype)
    return output.sqrt() if take_sqrt else output


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    """The variance of the kept elements (Bessel's correction by default)."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    """The standard deviation of the kept elements (Bessel's correction by default)."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, True)


def softmax(input, dim, *, dtype=None, mask=None):
    """softmax over `dim` with masked-out elements at -inf (so they get 0)."""
    dtype = input.dtype if dtype is None else dtype
    axis = _canonical_dim(dim, input.ndim)[0]
    return F.softmax(_masked("amax", input, mask), axis, dtype=dtype)


def log_softmax(input, dim, *, dtype=None, mask=None):
    """log_softmax over `dim` with masked-out elements at -inf."""
    dtype = input.dtype if dtype is None else dtype
    axis = _canonical_dim(dim, input.ndim)[0]
    return F.log_softmax(_masked("amax", input, mask), axis, dtype=dtype)


def softmin(input, dim, *, dtype=None, mask=None):
    """softmin over `dim` with masked-out elements at +inf (so they get 0)."""
    dtype = input.dtype if dtype is None else dtype
    axis = _canonical_dim(dim, input.ndim)[0]
    return F.softmin(_masked("amin", input, mask), axis, dtype=dtype)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    """input divided by the `ord`-norm of its kept elements along `dim` (at least eps)."""
    dtype = input.dtype if dtype is None else dtype
    masked = _masked("sum", input, mask)
    size = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    return masked / comparison.maximum(size, size.new_full([], eps))
