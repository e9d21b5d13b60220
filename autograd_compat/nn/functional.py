"""torch.nn.functional: the nn ops, each a fused registered op (a pure JAX function).

Every function here checks its arguments in Python with PyTorch's error texts, then runs one
registered op: a pure JAX function of arrays plus static keyword arguments, whose backward is
`jax.vjp` of that same function (see DEVELOPERS.md). Fusing a layer into one op (a whole conv,
a whole LSTM, a whole cross-entropy) keeps the graph small, so a training step is a handful of
XLA calls. Where JAX's derivative differs from PyTorch's (binary cross-entropy at 0 and 1,
softplus past its threshold), the pure function is fixed with `jax.custom_jvp` or a
double-`where`, never with a hand-written backward.
"""

from __future__ import annotations

import functools
import math
import numbers
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._ops.elementwise import opmath as _opmath
from .._pure import dtypes as _dtypes
from .._pure.op import register as _register_op
from .._state import random as _random
from .._state.tensor import Tensor
from .._tape.args import floating, scalar_type_name
from .._tape.record import apply

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "batch_norm",
    "bilinear",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "celu",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "cosine_similarity",
    "cross_entropy",
    "dropout",
    "dropout1d",
    "dropout2d",
    "elu",
    "embedding",
    "gelu",
    "glu",
    "group_norm",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "huber_loss",
    "interpolate",
    "kl_div",
    "l1_loss",
    "layer_norm",
    "leaky_relu",
    "linear",
    "log_softmax",
    "logsigmoid",
    "max_pool1d",
    "max_pool2d",
    "mish",
    "mse_loss",
    "multi_head_attention_forward",
    "nll_loss",
    "normalize",
    "one_hot",
    "pad",
    "pairwise_distance",
    "prelu",
    "relu",
    "relu6",
    "scaled_dot_product_attention",
    "selu",
    "sigmoid",
    "silu",
    "smooth_l1_loss",
    "softmax",
    "softmin",
    "softplus",
    "softsign",
    "tanh",
    "tanhshrink",
    "threshold",
    "upsample",
]

_HIGHEST = lax.Precision.HIGHEST
_HALF = (np.dtype(jnp.float16), np.dtype(jnp.bfloat16))


def register(op_id: str, fn, **kwargs):
    """Register an nn op whose half-precision inputs are computed in float32."""
    return _register_op(op_id, _opmath(fn), **kwargs)


# ----------------------------------------------------------------------------- helpers
def _tensor(x, fname: str, name: str = "input", position: int = 1) -> Tensor:
    """`x` if it is a Tensor, else PyTorch's TypeError naming the function and argument."""
    if isinstance(x, Tensor):
        return x
    raise TypeError(
        f"{fname}(): argument '{name}' (position {position}) must be Tensor, not {type(x).__name__}"
    )


def _ntuple(value, n: int, name: str = "argument") -> tuple:
    """An int or a sequence as a tuple of `n` ints (PyTorch's _pair/_triple)."""
    if isinstance(value, Tensor):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        if len(value) == 1:
            return tuple(int(value[0]) for _ in range(n))
        if len(value) != n:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {n}")
        return tuple(int(v) for v in value)
    return (int(value),) * n


def _legacy_reduction(size_average, reduce, reduction: str) -> str:
    """PyTorch's `_Reduction.legacy_get_string`: the deprecated size_average/reduce flags."""
    if size_average is None and reduce is None:
        return reduction
    warnings.warn(
        "size_average and reduce args will be deprecated, please use reduction='"
        + _legacy_string(size_average, reduce)
        + "' instead.",
        UserWarning,
        stacklevel=3,
    )
    return _legacy_string(size_average, reduce)


def _legacy_string(size_average, reduce) -> str:
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        return "mean"
    return "sum" if reduce else "none"


def _check_reduction(reduction: str) -> str:
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss, reduction: str):
    if reduction == "mean":
        return jnp.mean(loss)
    if reduction == "sum":
        return jnp.sum(loss)
    return loss


def _same_dtype(*tensors):
    """Promote several float tensors to one dtype (PyTorch's binary-op promotion)."""
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = _dtypes.promote_types(dtype, t.dtype)
    if not (dtype.is_floating_point or dtype.is_complex):
        dtype = _dtypes.get_default_dtype()
    return [t if t.dtype is dtype else t.to(dtype) for t in tensors]


def _key_array():
    """Raw key data for one random draw from the global generator (an op input, not static)."""
    return _random.default_generator.next_key()


# ----------------------------------------------------------------------------- linear
def _linear_fn(x, w, *b):
    y = jnp.matmul(x, w.T, precision=_HIGHEST)
    return y + b[0] if b else y


_ADDMM = register("linear.addmm", _linear_fn, node="AddmmBackward0", saves="others")
_MM = register("linear.mm", _linear_fn, node="MmBackward0", saves="others")
_LINEAR_VIEW = register("linear.view", _linear_fn, node="ViewBackward0", saves="others")
_LINEAR_UNSAFE_VIEW = register(
    "linear.unsafe_view", _linear_fn, node="UnsafeViewBackward0", saves="others"
)


def _dtype_word(d: _dtypes.dtype) -> str:
    return scalar_type_name(d).lower()


def linear(input, weight, bias=None):
    """`input @ weight.T + bias`: one fused op (PyTorch's addmm), differentiated by jax.vjp."""
    _tensor(input, "linear")
    _tensor(weight, "linear", "weight", 2)
    if input.dtype is not weight.dtype:
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{_dtype_word(input.dtype)} != {_dtype_word(weight.dtype)}"
        )
    if input.ndim == 0 or input.shape[-1] != weight.shape[-1]:
        rows = math.prod(input.shape[:-1]) if input.ndim > 1 else 1
        cols = input.shape[-1] if input.ndim else 1
        w = weight.shape
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{cols} and "
            f"{w[-1]}x{w[0] if weight.ndim > 1 else 1})"
        )
    if input.ndim == 2:
        op = _ADDMM if bias is not None else _MM
    else:
        op = _LINEAR_VIEW if bias is not None else _LINEAR_UNSAFE_VIEW
    if bias is None:
        return apply(op, input, weight)
    return apply(op, input, weight, bias)


def _bilinear_fn(x1, x2, w, *b):
    y = jnp.einsum("...i,oij,...j->...o", x1, w, x2, precision=_HIGHEST)
    return y + b[0] if b else y


_BILINEAR = register("bilinear", _bilinear_fn, node="AddBackward0")
_BILINEAR_NO_BIAS = register("bilinear.no_bias", _bilinear_fn, node="ViewBackward0")


def bilinear(input1, input2, weight, bias=None):
    """`y = x1^T A x2 + b` for each output feature."""
    _tensor(input1, "bilinear", "input1")
    _tensor(input2, "bilinear", "input2", 2)
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError(
            "bilinear(): input batch dimensions do not match: got "
            f"{list(input1.shape[:-1])} and {list(input2.shape[:-1])}"
        )
    if input1.shape[-1] != weight.shape[1] or input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(
            f"bilinear(): input sizes {input1.shape[-1]} and {input2.shape[-1]} do not match the "
            f"weight of size {list(weight.shape)}"
        )
    if bias is None:
        return apply(_BILINEAR_NO_BIAS, input1, input2, weight)
    return apply(_BILINEAR, input1, input2, weight, bias)


# ----------------------------------------------------------------------------- convolution
def _dimension_numbers(nd: int):
    spatial = "DHW"[-nd:] if nd <= 3 else None
    return (f"NC{spatial}", f"OI{spatial}", f"NC{spatial}")


def _conv_fn(x, w, *b, stride, padding, dilation, groups, batched):
    if not batched:
        x = x[None]
    nd = w.ndim - 2
    y = lax.conv_general_dilated(
        x,
        w,
        window_strides=stride,
        padding=padding,
        rhs_dilation=dilation,
        feature_group_count=groups,
        dimension_numbers=_dimension_numbers(nd),
        precision=_HIGHEST,
    )
    if b:
        y = y + b[0].reshape((1, -1) + (1,) * nd)
    return y if batched else y[0]


def _conv_transpose_fn(x, w, *b, stride, padding, output_padding, dilation, groups, batched):
    if not batched:
        x = x[None]
    nd = w.ndim - 2
    cin, cout_g = w.shape[0], w.shape[1]
    kernel = w.shape[2:]
    # (Cin, Cout/g, k) -> (Cout, Cin/g, k), flipped: the transposed conv as a dilated conv.
    w = w.reshape((groups, cin // groups, cout_g) + kernel)
    w = jnp.swapaxes(w, 1, 2).reshape((groups * cout_g, cin // groups) + kernel)
    w = jnp.flip(w, axis=tuple(range(2, 2 + nd)))
    pads = tuple(
        (d * (k - 1) - p, d * (k - 1) - p + op)
        for k, p, op, d in zip(kernel, padding, output_padding, dilation)
    )
    y = lax.conv_general_dilated(
        x,
        w,
        window_strides=(1,) * nd,
        padding=pads,
        lhs_dilation=stride,
        rhs_dilation=dilation,
        feature_group_count=groups,
        dimension_numbers=_dimension_numbers(nd),
        precision=_HIGHEST,
    )
    if b:
        y = y + b[0].reshape((1, -1) + (1,) * nd)
    return y if batched else y[0]


_CONV = register("convolution", _conv_fn, node="ConvolutionBackward0")
_CONV_TRANSPOSE = register(
    "convolution.transposed", _conv_transpose_fn, node="ConvolutionBackward0"
)


def _check_conv_dtypes(input: Tensor, weight: Tensor, bias) -> None:
    if input.dtype is not weight.dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_type_name(input.dtype)} but found "
            f"{scalar_type_name(weight.dtype)}"
        )
    if bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(
            f"Input type ({_dtype_word(input.dtype)}) and bias type ({_dtype_word(bias.dtype)}) "
            "should be the same"
        )


def _conv(input, weight, bias, stride, padding, dilation, groups, nd: int, fname: str):
    _tensor(input, fname)
    _tensor(weight, fname, "weight", 2)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {fname}, but got "
            f"input of size: {list(input.shape)}"
        )
    _check_conv_dtypes(input, weight, bias)
    batched = input.ndim == nd + 2
    shape = tuple(input.shape) if batched else (1,) + tuple(input.shape)
    stride = _ntuple(stride, nd, "stride")
    dilation = _ntuple(dilation, nd, "dilation")
    kernel = tuple(weight.shape[2:])
    if isinstance(padding, str):
        if padding == "valid":
            pads = ((0, 0),) * nd
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            halves = []
            for k, d in zip(kernel, dilation):
                total = d * (k - 1)
                halves.append((total // 2, total - total // 2))
            pads = tuple(halves)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'. Expected 'valid' or 'same'")
    else:
        pads = tuple((p, p) for p in _ntuple(padding, nd, "padding"))
    if shape[1] != weight.shape[1] * groups:
        shown = list(input.shape)
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected input{shown} "
            f"to have {weight.shape[1] * groups} channels, but got {shape[1]} channels instead"
        )
    if weight.shape[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size {list(weight.shape)} instead"
        )
    padded = tuple(s + lo + hi for s, (lo, hi) in zip(shape[2:], pads))
    effective = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    if any(p < e for p, e in zip(padded, effective)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
            f"Kernel size: ({' x '.join(map(str, effective))}). Kernel size can't be greater "
            "than actual input size"
        )
    args = (input, weight) if bias is None else (input, weight, bias)
    return apply(
        _CONV,
        *args,
        stride=stride,
        padding=pads,
        dilation=dilation,
        groups=int(groups),
        batched=batched,
    )


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution over (N, C, L) or (C, L) input (lax.conv_general_dilated)."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution over (N, C, H, W) or (C, H, W) input (lax.conv_general_dilated).

    Example::

        >>> x = torch.randn(1, 3, 8, 8)
        >>> F.conv2d(x, torch.randn(4, 3, 3, 3), padding=1).shape
        torch.Size([1, 4, 8, 8])
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution over (N, C, D, H, W) or (C, D, H, W) input."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def _conv_transpose(
    input, weight, bias, stride, padding, output_padding, groups, dilation, nd, fname
):
    _tensor(input, fname)
    _tensor(weight, fname, "weight", 2)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {fname}, but got "
            f"input of size: {list(input.shape)}"
        )
    _check_conv_dtypes(input, weight, bias)
    batched = input.ndim == nd + 2
    channels = input.shape[1] if batched else input.shape[0]
    if channels != weight.shape[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected input"
            f"{list(input.shape)} to have {weight.shape[0]} channels, but got {channels} "
            "channels instead"
        )
    stride = _ntuple(stride, nd, "stride")
    padding = _ntuple(padding, nd, "padding")
    output_padding = _ntuple(output_padding, nd, "output_padding")
    dilation = _ntuple(dilation, nd, "dilation")
    for op, s, d in zip(output_padding, stride, dilation):
        if op >= s and op >= d:
            raise RuntimeError(
                "output padding must be smaller than either stride or dilation, but got "
                f"output_padding: {op}, stride: {s}, dilation: {d}"
            )
    args = (input, weight) if bias is None else (input, weight, bias)
    return apply(
        _CONV_TRANSPOSE,
        *args,
        stride=stride,
        padding=padding,
        output_padding=output_padding,
        dilation=dilation,
        groups=int(groups),
        batched=batched,
    )


def conv_transpose1d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):
    """1-D transposed convolution; weight is (C_in, C_out / groups, k)."""
    return _conv_transpose(
        input, weight, bias, stride, padding, output_padding, groups, dilation, 1,
        "conv_transpose1d",
    )  # fmt: skip


def conv_transpose2d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):
    """2-D transposed convolution ("deconvolution"); weight is (C_in, C_out / groups, kH, kW)."""
    return _conv_transpose(
        input, weight, bias, stride, padding, output_padding, groups, dilation, 2,
        "conv_transpose2d",
    )  # fmt: skip


# ----------------------------------------------------------------------------- pooling
def _pool_geometry(shape, kernel, stride, padding, dilation, ceil_mode, fname, channels=None):
    """PyTorch's pooling output sizes, and the extra high padding that ceil_mode needs."""
    out, extra = [], []
    for size, k, s, p, d in zip(shape, kernel, stride, padding, dilation):
        span = size + 2 * p - d * (k - 1) - 1
        n = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (n - 1) * s >= size + p:
            n -= 1
        out.append(n)
        extra.append(max(0, (n - 1) * s + d * (k - 1) + 1 - (size + 2 * p)))
    if any(n <= 0 for n in out):
        lead = () if channels is None else (channels,)
        sizes = "x".join(str(s) for s in lead + tuple(shape))
        outs = "x".join(str(n) for n in lead + tuple(out))
        raise RuntimeError(
            f"Given input size: ({sizes}). Calculated output size: ({outs}). Output size is "
            "too small"
        )
    return tuple(out), tuple(extra)


def _windows(x, *, kernel, stride, padding, dilation, out, extra, fill):
    """The pooling windows of x (..., *spatial) stacked on a new last axis (kernel offsets)."""
    nd = len(kernel)
    lead = x.ndim - nd
    pads = [(0, 0)] * lead + [(p, p + e) for p, e in zip(padding, extra)]
    xp = jnp.pad(x, pads, constant_values=fill)
    slices = []
    for offset in np.ndindex(*kernel):
        index = [slice(None)] * lead
        for o, s, d, n in zip(offset, stride, dilation, out):
            start = o * d
            index.append(slice(start, start + (n - 1) * s + 1, s))
        slices.append(xp[tuple(index)])
    return jnp.stack(slices, axis=-1)


def _max_pool_fn(x, *, kernel, stride, padding, dilation, out, extra, with_indices):
    windows = _windows(
        x,
        kernel=kernel,
        stride=stride,
        padding=padding,
        dilation=dilation,
        out=out,
        extra=extra,
        fill=-jnp.inf,
    )
    choice = jnp.argmax(windows, axis=-1)
    y = jnp.take_along_axis(windows, choice[..., None], axis=-1)[..., 0]
    if not with_indices:
        return y
    nd = len(kernel)
    offsets = np.array(list(np.ndindex(*kernel)))  # (K, nd)
    spatial = x.shape[-nd:]
    flat = jnp.zeros(choice.shape, jnp.int64)
    for axis in range(nd):
        grid = np.arange(out[axis]) * stride[axis] - padding[axis]
        grid = grid.reshape((-1,) + (1,) * (nd - 1 - axis))
        position = grid + jnp.asarray(offsets[:, axis] * dilation[axis])[choice]
        flat = flat * spatial[axis] + position
    return y, flat


_MAX_POOL = {
    1: register("max_pool1d", _max_pool_fn, node="MaxPool1DWithIndicesBackward0"),
    2: register("max_pool2d", _max_pool_fn, node="MaxPool2DWithIndicesBackward0"),
    3: register("max_pool3d", _max_pool_fn, node="MaxPool3DWithIndicesBackward0"),
}


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, nd):
    fname = f"max_pool{nd}d"
    _tensor(input, fname)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"{fname}: Expected {nd + 1}D or {nd + 2}D (batch mode) tensor for input, but got "
            f"{input.ndim}D"
        )
    kernel = _ntuple(kernel_size, nd, "kernel_size")
    stride = kernel if stride is None or stride == [] else _ntuple(stride, nd, "stride")
    padding = _ntuple(padding, nd, "padding")
    dilation = _ntuple(dilation, nd, "dilation")
    for k, p in zip(kernel, padding):
        if p * 2 > k:
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={p}, "
                f"kernel_size={k} and dilation={dilation[0]}"
            )
    out, extra = _pool_geometry(
        tuple(input.shape[-nd:]),
        kernel,
        stride,
        padding,
        dilation,
        ceil_mode,
        fname,
        input.shape[-nd - 1],
    )
    result = apply(
        _MAX_POOL[nd],
        input,
        kernel=kernel,
        stride=stride,
        padding=padding,
        dilation=dilation,
        out=out,
        extra=extra,
        with_indices=bool(return_indices),
    )
    return result


def max_pool1d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """1-D max pooling; the gradient goes to the first maximum of each window, as in PyTorch."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 1)


def max_pool2d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """2-D max pooling (with indices into each H*W plane when return_indices=True)."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 2)


def _avg_pool_fn(x, *, kernel, stride, padding, out, extra, count_include_pad, divisor_override):
    divisor = _avg_divisor(
        x.shape[-len(kernel) :], kernel, stride, padding, out, count_include_pad, divisor_override
    )
    windows = _windows(
        x,
        kernel=kernel,
        stride=stride,
        padding=padding,
        dilation=(1,) * len(kernel),
        out=out,
        extra=extra,
        fill=0.0,
    )
    return jnp.sum(windows, axis=-1) / jnp.asarray(divisor, x.dtype)


_AVG_POOL = {
    1: register(
        "avg_pool1d", _avg_pool_fn, node="AvgPool2DBackward0", saves="none"
    ),  # PyTorch: via avg_pool2d
    2: register("avg_pool2d", _avg_pool_fn, node="AvgPool2DBackward0", saves="none"),
    3: register("avg_pool3d", _avg_pool_fn, node="AvgPool3DBackward0", saves="none"),
}


def _avg_divisor(shape, kernel, stride, padding, out, count_include_pad, divisor_override):
    """Per-output-window divisors (a numpy constant at trace time), as PyTorch's kernel counts."""
    if divisor_override:
        return np.full(out, float(divisor_override))
    per_axis = []
    for size, k, s, p, n in zip(shape, kernel, stride, padding, out):
        counts = []
        for i in range(n):
            start = i * s - p
            end = min(start + k, size + p)
            pool = end - start
            start, end = max(start, 0), min(end, size)
            counts.append(pool if count_include_pad else end - start)
        per_axis.append(np.array(counts, dtype=np.float64))
    divisor = per_axis[0]
    for counts in per_axis[1:]:
        divisor = np.multiply.outer(divisor, counts)
    return divisor


def _avg_pool(
    input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, nd
):
    fname = f"avg_pool{nd}d"
    _tensor(input, fname)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"{fname}: Expected {nd + 1}D or {nd + 2}D (batch mode) tensor for input, but got "
            f"{input.ndim}D"
        )
    kernel = _ntuple(kernel_size, nd, "kernel_size")
    stride = kernel if stride is None or stride == [] else _ntuple(stride, nd, "stride")
    padding = _ntuple(padding, nd, "padding")
    for k, p in zip(kernel, padding):
        if p * 2 > k:
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={p}, "
                f"kernel_size={k} and dilation=1"
            )
    shape = tuple(input.shape[-nd:])
    out, extra = _pool_geometry(
        shape, kernel, stride, padding, (1,) * nd, ceil_mode, fname, input.shape[-nd - 1]
    )
    return apply(
        _AVG_POOL[nd],
        floating(input),
        kernel=kernel,
        stride=stride,
        padding=padding,
        out=out,
        extra=extra,
        count_include_pad=bool(count_include_pad),
        divisor_override=divisor_override,
    )


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """1-D average pooling."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1)


def avg_pool2d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    """2-D average pooling, with PyTorch's divisor rules at the borders."""
    return _avg_pool(
        input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 2
    )


def _adaptive_matrix(size: int, out: int) -> np.ndarray:
    """Row i averages input[floor(i * size / out) : ceil((i + 1) * size / out)]."""
    matrix = np.zeros((out, size))
    for i in range(out):
        start = (i * size) // out
        end = -(-((i + 1) * size) // out)
        matrix[i, start:end] = 1.0 / (end - start)
    return matrix


@functools.lru_cache(maxsize=256)
def _axis_matrix(spec: tuple) -> np.ndarray:
    """The linear map of one resized axis: spec = (kind, size, out, scale, align_corners)."""
    kind, size, out, scale, align_corners = spec
    if kind == "adaptive":
        return _adaptive_matrix(size, out)
    if kind == "nearest":
        return _nearest_matrix(size, out, scale)
    return _linear_matrix(size, out, scale, align_corners)


def _resize_fn(x, *, axes):
    """Apply one fixed linear map per trailing axis (pooling or interpolation), as an einsum."""
    matrices = [_axis_matrix(spec) for spec in axes]
    letters = "abcdefgh"
    nd = len(matrices)
    lead = "".join(letters[: x.ndim - nd])
    spatial_in = "ijk"[:nd]
    spatial_out = "pqr"[:nd]
    operands = [x]
    spec = [lead + spatial_in]
    for i, matrix in enumerate(matrices):
        operands.append(jnp.asarray(np.array(matrix), x.dtype))
        spec.append(spatial_out[i] + spatial_in[i])
    return jnp.einsum(",".join(spec) + "->" + lead + spatial_out, *operands, precision=_HIGHEST)


_ADAPTIVE_AVG = register(
    "adaptive_avg_pool", _resize_fn, node="AdaptiveAvgPool2DBackward0", saves="none"
)


def _adaptive_avg_pool(input, output_size, nd: int):
    fname = f"adaptive_avg_pool{nd}d"
    _tensor(input, fname)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"{fname}(): Expected {nd + 1}D or {nd + 2}D tensor, but got {list(input.shape)}"
        )
    shape = tuple(input.shape[-nd:])
    if not isinstance(output_size, (list, tuple)):
        output_size = (output_size,) * nd
    out = tuple(s if o is None else int(o) for o, s in zip(output_size, shape))
    axes = tuple(("adaptive", s, o, None, False) for s, o in zip(shape, out))
    return apply(_ADAPTIVE_AVG, floating(input), axes=axes)


def adaptive_avg_pool1d(input, output_size):
    """1-D adaptive average pooling to `output_size`."""
    return _adaptive_avg_pool(input, output_size, 1)


def adaptive_avg_pool2d(input, output_size):
    """2-D adaptive average pooling to `output_size` (an int, a pair, None keeps a size)."""
    return _adaptive_avg_pool(input, output_size, 2)


# ----------------------------------------------------------------------------- normalization
def _bn_train_fn(x, *affine, eps, has_weight, has_bias):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    mean = jnp.mean(x, axis=axes)
    var = jnp.mean(jnp.square(x - mean.reshape(shape)), axis=axes)
    y = (x - mean.reshape(shape)) * lax.rsqrt(var + eps).reshape(shape)
    affine = list(affine)
    if has_weight:
        y = y * affine.pop(0).reshape(shape)
    if has_bias:
        y = y + affine.pop(0).reshape(shape)
    count = x.size // x.shape[1]
    return y, mean, var * (count / max(count - 1, 1))


def _bn_eval_fn(x, mean, var, *affine, eps, has_weight, has_bias):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    y = (x - mean.reshape(shape)) * lax.rsqrt(var + eps).reshape(shape)
    affine = list(affine)
    if has_weight:
        y = y * affine.pop(0).reshape(shape)
    if has_bias:
        y = y + affine.pop(0).reshape(shape)
    return y


_BN_TRAIN = register("batch_norm", _bn_train_fn, node="NativeBatchNormBackward0")
_BN_EVAL = register("batch_norm.eval", _bn_eval_fn, node="NativeBatchNormBackward0")


@jax.jit
def _ema(running, statistic, momentum):
    """The running-statistics update: (1 - momentum) * running + momentum * statistic."""
    momentum = momentum.astype(running.dtype)
    return (1 - momentum) * running + momentum * statistic.astype(running.dtype)


def _update_running(buffer: Tensor, statistic, momentum: float) -> None:
    buffer._set_value(_ema(buffer._value, statistic, np.float64(momentum)))
    buffer._bump_version()


def batch_norm(
    input,
    running_mean,
    running_var,
    weight=None,
    bias=None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
):
    """Batch normalization over dim 1; in training, updates the running statistics in place.

    The running variance uses the unbiased batch variance, as in PyTorch.
    """
    _tensor(input, "batch_norm")
    if training:
        size = input.numel() // input.shape[1] if input.ndim > 1 else 0
        if size <= 1:
            raise ValueError(
                "Expected more than 1 value per channel when training, got input size "
                f"{input.shape}"
            )
    channels = input.shape[1]
    for name, t in (("weight", weight), ("bias", bias), ("running_mean", running_mean)):
        if t is not None and t.numel() != channels:
            raise RuntimeError(
                f"running_mean should contain {channels} elements not {t.numel()}"
                if name == "running_mean"
                else f"{name} should contain {channels} elements not {t.numel()}"
            )
    affine = [t for t in (weight, bias) if t is not None]
    flags = dict(eps=float(eps), has_weight=weight is not None, has_bias=bias is not None)
    if training or running_mean is None or running_var is None:
        y, mean, var = apply(_BN_TRAIN, input, *affine, **flags)
        if training and running_mean is not None and running_var is not None:
            _update_running(running_mean, mean._value, momentum)
            _update_running(running_var, var._value, momentum)
        return y
    return apply(_BN_EVAL, input, running_mean, running_var, *affine, **flags)


def _layer_norm_fn(x, *affine, dims, eps, has_weight, has_bias):
    axes = tuple(range(x.ndim - dims, x.ndim))
    mean = jnp.mean(x, axis=axes, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=axes, keepdims=True)
    y = (x - mean) * lax.rsqrt(var + eps)
    affine = list(affine)
    if has_weight:
        y = y * affine.pop(0)
    if has_bias:
        y = y + affine.pop(0)
    return y


_LAYER_NORM = register("layer_norm", _layer_norm_fn, node="NativeLayerNormBackward0")


def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-5):
    """Normalize over the trailing `normalized_shape` dims, then scale and shift."""
    _tensor(input, "layer_norm")
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(int(s) for s in normalized_shape)
    n = len(normalized_shape)
    if tuple(input.shape[input.ndim - n :]) != normalized_shape or n > input.ndim:
        raise RuntimeError(
            f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*, {', '.join(map(str, normalized_shape))}], but got input of size"
            f"{list(input.shape)}"
        )
    affine = [t for t in (weight, bias) if t is not None]
    return apply(
        _LAYER_NORM,
        input,
        *affine,
        dims=n,
        eps=float(eps),
        has_weight=weight is not None,
        has_bias=bias is not None,
    )


def _group_norm_fn(x, *affine, groups, eps, has_weight, has_bias):
    n, c = x.shape[0], x.shape[1]
    grouped = x.reshape(n, groups, -1)
    mean = jnp.mean(grouped, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(grouped - mean), axis=-1, keepdims=True)
    y = ((grouped - mean) * lax.rsqrt(var + eps)).reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    affine = list(affine)
    if has_weight:
        y = y * affine.pop(0).reshape(shape)
    if has_bias:
        y = y + affine.pop(0).reshape(shape)
    return y


_GROUP_NORM = register("group_norm", _group_norm_fn, node="NativeGroupNormBackward0")


def group_norm(input, num_groups: int, weight=None, bias=None, eps: float = 1e-5):
    """Normalize over groups of channels (dim 1), then scale and shift per channel."""
    _tensor(input, "group_norm")
    if input.ndim < 2 or input.shape[1] % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {list(input.shape)} and num_groups={num_groups}"
        )
    affine = [t for t in (weight, bias) if t is not None]
    return apply(
        _GROUP_NORM,
        input,
        *affine,
        groups=int(num_groups),
        eps=float(eps),
        has_weight=weight is not None,
        has_bias=bias is not None,
    )


def _normalize_fn(x, *, p, dim, eps):
    norm = _p_norm(x, p, dim, keepdims=True)
    return x / jnp.maximum(norm, eps)


def _p_norm(x, p, axis, keepdims=False):
    """The p-norm with a zero (not NaN) gradient at 0, as PyTorch's norm backward gives."""
    a = jnp.abs(x)
    if p == math.inf:
        return jnp.max(a, axis=axis, keepdims=keepdims)
    powered = jnp.sum(a**p, axis=axis, keepdims=keepdims)
    zero = powered == 0
    safe = jnp.where(zero, 1.0, powered)
    root = jnp.sqrt(safe) if p == 2 else safe ** (1.0 / p)
    return jnp.where(zero, 0.0, root)


_NORMALIZE = register("normalize", _normalize_fn, node="DivBackward0")


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None):
    """`input / max(||input||_p, eps)` along `dim`."""
    _tensor(input, "normalize")
    dim = dim % max(input.ndim, 1)
    return apply(_NORMALIZE, floating(input), p=float(p), dim=dim, eps=float(eps))


def _cosine_fn(x1, x2, *, dim, eps):
    x1, x2 = jnp.broadcast_arrays(x1, x2)
    dot = jnp.sum(x1 * x2, axis=dim)
    n1 = jnp.sqrt(jnp.sum(x1 * x1, axis=dim))
    n2 = jnp.sqrt(jnp.sum(x2 * x2, axis=dim))
    return dot / jnp.maximum(n1 * n2, eps)


_COSINE = register("cosine_similarity", _cosine_fn, node="DivBackward0")


def cosine_similarity(x1, x2, dim: int = 1, eps: float = 1e-8):
    """Cosine of the angle between x1 and x2 along `dim`."""
    _tensor(x1, "cosine_similarity", "x1")
    _tensor(x2, "cosine_similarity", "x2", 2)
    x1, x2 = _same_dtype(x1, x2)
    ndim = max(x1.ndim, x2.ndim)
    return apply(_COSINE, x1, x2, dim=dim % ndim, eps=float(eps))


def _pairwise_fn(x1, x2, *, p, eps, keepdim):
    return _p_norm(x1 - x2 + eps, p, -1, keepdims=keepdim)


_PAIRWISE = register("pairwise_distance", _pairwise_fn, node="NormBackward1")


def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
    """||x1 - x2 + eps||_p over the last dimension."""
    x1, x2 = _same_dtype(x1, x2)
    return apply(_PAIRWISE, x1, x2, p=float(p), eps=float(eps), keepdim=keepdim)


# ----------------------------------------------------------------------------- dropout
def _dropout_fn(x, key, *, p):
    keep = jax.random.bernoulli(jax.random.wrap_key_data(key), 1.0 - p, x.shape)
    scale = 0.0 if p >= 1.0 else 1.0 / (1.0 - p)
    return jnp.where(keep, x * jnp.asarray(scale, x.dtype), jnp.zeros((), x.dtype))


def _channel_dropout_fn(x, key, *, p, batched):
    shape = x.shape[:2] if batched else x.shape[:1]
    keep = jax.random.bernoulli(jax.random.wrap_key_data(key), 1.0 - p, shape)
    keep = keep.reshape(shape + (1,) * (x.ndim - len(shape)))
    scale = 0.0 if p >= 1.0 else 1.0 / (1.0 - p)
    return jnp.where(keep, x * jnp.asarray(scale, x.dtype), jnp.zeros((), x.dtype))


_DROPOUT = register("dropout", _dropout_fn, node="NativeDropoutBackward0")
_CHANNEL_DROPOUT = register("dropout.channel", _channel_dropout_fn, node="MulBackward0")


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _inplace_result(input: Tensor, result: Tensor, inplace: bool) -> Tensor:
    if not inplace:
        return result
    from .._tape.args import check_inplace, commit_inplace

    check_inplace(input)
    return commit_inplace(input, result)


def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero each element with probability p and scale the rest by 1/(1-p) (training only).

    The mask comes from this library's generator, so it differs from PyTorch's draws.
    """
    _tensor(input, "dropout")
    _check_p(p)
    if not training or p == 0.0:
        return input
    result = apply(_DROPOUT, input, _key_array(), p=float(p))
    return _inplace_result(input, result, inplace)


def _feature_dropout(input, p, training, inplace, nd, fname):
    _tensor(input, fname)
    _check_p(p)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"{fname}: Expected {nd + 1}D or {nd + 2}D input, but got input of size: "
            f"{list(input.shape)}"
        )
    if not training or p == 0.0:
        return input
    result = apply(_CHANNEL_DROPOUT, input, _key_array(), p=float(p), batched=input.ndim == nd + 2)
    return _inplace_result(input, result, inplace)


def dropout1d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of (N, C, L) input."""
    return _feature_dropout(input, p, training, inplace, 1, "dropout1d")


def dropout2d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of (N, C, H, W) input."""
    return _feature_dropout(input, p, training, inplace, 2, "dropout2d")


# ----------------------------------------------------------------------------- embedding
def _embedding_fn(weight, indices, *, padding_idx):
    out = jnp.take(weight, indices, axis=0)
    if padding_idx is not None:
        # No gradient flows to the padding row, as in PyTorch.
        mask = (indices == padding_idx)[..., None]
        out = jnp.where(mask, lax.stop_gradient(out), out)
    return out


_EMBEDDING = register("embedding", _embedding_fn, node="EmbeddingBackward0")


def embedding(
    input,
    weight,
    padding_idx=None,
    max_norm=None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
):
    """Rows of `weight` for the integer indices in `input`."""
    _tensor(input, "embedding")
    _tensor(weight, "embedding", "weight", 2)
    if input.dtype.is_floating_point or input.dtype.is_complex or input.dtype is _dtypes.bool:
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got torch.{scalar_type_name(input.dtype)}Tensor instead "
            "(while checking arguments for embedding)"
        )
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError(
            "embedding(): max_norm, scale_grad_by_freq and sparse are not yet supported by "
            "autograd_compat"
        )
    rows = weight.shape[0]
    if padding_idx is not None:
        if padding_idx < 0:
            padding_idx += rows
    if not isinstance(input._value, jax.core.Tracer) and input.numel():
        values = np.asarray(input._value)
        if values.min() < 0 or values.max() >= rows:
            raise IndexError("index out of range in self")
    return apply(_EMBEDDING, weight, input, padding_idx=padding_idx)


def _one_hot_fn(x, *, num_classes):
    return jax.nn.one_hot(x, num_classes, dtype=jnp.int64)


_ONE_HOT = register("one_hot", _one_hot_fn, node="OneHotBackward0", differentiable=False)


def one_hot(tensor, num_classes: int = -1):
    """An int64 one-hot encoding with a trailing class dimension."""
    _tensor(tensor, "one_hot", "self")
    if tensor.dtype is not _dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    values = np.asarray(tensor._value)
    if values.size and values.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(values.max()) + 1 if values.size else 0
    elif values.size and values.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return apply(_ONE_HOT, tensor, num_classes=int(num_classes))


# ----------------------------------------------------------------------------- activations
def _leaky_relu_fn(x, *, negative_slope):
    return jnp.where(x > 0, x, x * jnp.asarray(negative_slope, x.dtype))


def _elu_fn(x, *, alpha, scale, input_scale):
    # where, not minimum: at x == 0 the derivative is PyTorch's alpha * scale, not half of it.
    negative_part = jnp.where(x > 0, jnp.zeros((), x.dtype), x)
    negative = jnp.asarray(alpha * scale, x.dtype) * jnp.expm1(
        negative_part * jnp.asarray(input_scale, x.dtype)
    )
    return jnp.where(x > 0, x * jnp.asarray(scale, x.dtype), negative)


def _gelu_fn(x, *, approximate):
    return jax.nn.gelu(x, approximate=approximate == "tanh")


def _silu_fn(x):
    return x * jax.nn.sigmoid(x)


def _softplus_fn(x, *, beta, threshold):
    scaled = x * jnp.asarray(beta, x.dtype)
    linear_region = scaled > threshold
    safe = jnp.where(linear_region, jnp.zeros((), x.dtype), scaled)
    return jnp.where(linear_region, x, jnp.log1p(jnp.exp(safe)) / jnp.asarray(beta, x.dtype))


def _hardtanh_fn(x, *, min_val, max_val):
    lo = jnp.asarray(min_val, x.dtype)
    hi = jnp.asarray(max_val, x.dtype)
    return jnp.where(x <= lo, lo, jnp.where(x >= hi, hi, x))


def _threshold_fn(x, *, threshold, value):
    return jnp.where(x > threshold, x, jnp.asarray(value, x.dtype))


def _mish_fn(x):
    return x * jnp.tanh(jax.nn.softplus(x))


def _hardsigmoid_fn(x):
    return jnp.where(x <= -3, 0.0, jnp.where(x >= 3, 1.0, x / 6 + 0.5)).astype(x.dtype)


def _hardswish_fn(x):
    return jnp.where(x < -3, 0.0, jnp.where(x <= 3, x * (x + 3) / 6, x)).astype(x.dtype)


_LEAKY_RELU = register("leaky_relu", _leaky_relu_fn, node="LeakyReluBackward0")
_ELU = register("elu", _elu_fn, node="EluBackward0")
_GELU = register("gelu", _gelu_fn, node="GeluBackward0")
_SILU = register("silu", _silu_fn, node="SiluBackward0")
_SOFTPLUS = register("softplus", _softplus_fn, node="SoftplusBackward0")
_HARDTANH = register("hardtanh", _hardtanh_fn, node="HardtanhBackward0")
_THRESHOLD = register("threshold", _threshold_fn, node="ThresholdBackward0")
_MISH = register("mish", _mish_fn, node="MishBackward0")
_HARDSIGMOID = register("hardsigmoid", _hardsigmoid_fn, node="HardsigmoidBackward0")
_HARDSWISH = register("hardswish", _hardswish_fn, node="HardswishBackward0")
_LOGSIGMOID = register("logsigmoid", jax.nn.log_sigmoid, node="LogSigmoidBackward0")
_SOFTSIGN = register("softsign", lambda x: x / (1 + jnp.abs(x)), node="DivBackward0")
_TANHSHRINK = register("tanhshrink", lambda x: x - jnp.tanh(x), node="SubBackward0")


def _run(op, input, fname: str, inplace: bool = False, promote: bool = True, **static):
    _tensor(input, fname)
    x = floating(input) if promote else input
    return _inplace_result(input, apply(op, x, **static), inplace)


def relu(input, inplace: bool = False):
    """max(0, x): `torch.relu` (`torch.relu_` in place), the same op, as in PyTorch."""
    _tensor(input, "relu")
    return input.relu_() if inplace else input.relu()


def relu6(input, inplace: bool = False):
    """min(max(0, x), 6)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False):
    """x for x > 0, else negative_slope * x."""
    return _run(_LEAKY_RELU, input, "leaky_relu", inplace, negative_slope=float(negative_slope))


def elu(input, alpha: float = 1.0, inplace: bool = False):
    """x for x > 0, else alpha * (exp(x) - 1)."""
    return _run(_ELU, input, "elu", inplace, alpha=float(alpha), scale=1.0, input_scale=1.0)


def selu(input, inplace: bool = False):
    """scale * elu(x, alpha) with the self-normalizing constants."""
    return _run(
        _ELU,
        input,
        "selu",
        inplace,
        alpha=1.6732632423543772848170429916717,
        scale=1.0507009873554804934193349852946,
        input_scale=1.0,
    )


def celu(input, alpha: float = 1.0, inplace: bool = False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    return _run(
        _ELU, input, "celu", inplace, alpha=float(alpha), scale=1.0, input_scale=1.0 / alpha
    )


def gelu(input, approximate: str = "none"):
    """x * Phi(x) (exact, with erf) or its tanh approximation."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _run(_GELU, input, "gelu", approximate=approximate)


def silu(input, inplace: bool = False):
    """x * sigmoid(x) (swish)."""
    return _run(_SILU, input, "silu", inplace)


def mish(input, inplace: bool = False):
    """x * tanh(softplus(x))."""
    return _run(_MISH, input, "mish", inplace)


def softplus(input, beta: float = 1.0, threshold: float = 20.0):
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold."""
    return _run(_SOFTPLUS, input, "softplus", beta=float(beta), threshold=float(threshold))


def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
    """x clipped to [min_val, max_val]; zero gradient at and beyond the bounds."""
    return _run(
        _HARDTANH, input, "hardtanh", inplace, min_val=float(min_val), max_val=float(max_val)
    )


def threshold(input, threshold: float, value: float, inplace: bool = False):
    """x where x > threshold, else value."""
    return _run(
        _THRESHOLD, input, "threshold", inplace, threshold=float(threshold), value=float(value)
    )


def hardsigmoid(input, inplace: bool = False):
    return _run(_HARDSIGMOID, input, "hardsigmoid", inplace)


def hardswish(input, inplace: bool = False):
    return _run(_HARDSWISH, input, "hardswish", inplace)


def sigmoid(input):
    """`input.sigmoid()`, the op of `torch.sigmoid`, as in PyTorch."""
    return input.sigmoid()


def tanh(input):
    """`input.tanh()`, the op of `torch.tanh`, as in PyTorch."""
    return input.tanh()


def logsigmoid(input):
    return _run(_LOGSIGMOID, input, "log_sigmoid")


def softsign(input):
    return _run(_SOFTSIGN, input, "softsign")


def tanhshrink(input):
    return _run(_TANHSHRINK, input, "tanhshrink")


def _prelu_fn(x, weight):
    if weight.size > 1 and x.ndim > 1:
        weight = weight.reshape((1, -1) + (1,) * (x.ndim - 2))
    return jnp.where(x > 0, x, weight * x)


_PRELU = register("prelu", _prelu_fn, node="PreluKernelBackward0")


def prelu(input, weight):
    """x for x > 0, else weight * x (weight per channel, dim 1, or one shared value)."""
    _tensor(input, "prelu")
    _tensor(weight, "prelu", "weight", 2)
    channels = input.shape[1] if input.ndim > 1 else input.shape[0] if input.ndim else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise RuntimeError(
            f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
            f"{weight.numel()} and channel size = {channels}."
        )
    return apply(_PRELU, input, weight)


def _glu_fn(x, *, dim):
    a, b = jnp.split(x, 2, axis=dim)
    return a * jax.nn.sigmoid(b)


_GLU = register("glu", _glu_fn, node="GluBackward0")


def glu(input, dim: int = -1):
    """a * sigmoid(b), where a and b are the halves of input along `dim`."""
    _tensor(input, "glu")
    dim = dim % input.ndim
    if input.shape[dim] % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {dim} is size {input.shape[dim]}"
        )
    return apply(_GLU, input, dim=dim)


def _softmax_dim(name: str, ndim: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
        "dim=X as an argument.",
        UserWarning,
        stacklevel=3,
    )
    return 0 if ndim in (0, 1, 3) else 1


@functools.partial(jax.custom_jvp, nondiff_argnums=(1, 2, 3))
def _half_softmax(x, dim, dtype, log):
    """Softmax (or log-softmax) of a float16/bfloat16 input: computed in float32, rounded once.

    The derivative is PyTorch's softmax backward, which reads the *rounded* output: the
    tangent out * (t - sum(out * t)) (or t - sum(exp(out) * t) for the log version), in
    float32, transposes to PyTorch's g * out - out * sum(g * out) (or g - exp(out) * sum(g)).
    """
    fn = jax.nn.log_softmax if log else jax.nn.softmax
    return fn(x.astype(jnp.float32), axis=dim).astype(dtype)


@_half_softmax.defjvp
def _half_softmax_jvp(dim, dtype, log, primals, tangents):
    (x,), (t,) = primals, tangents
    out = _half_softmax(x, dim, dtype, log)
    o, t = out.astype(jnp.float32), t.astype(jnp.float32)
    if log:  # transposes to PyTorch's backward g - exp(out) * sum(g)
        dt = t - jnp.sum(jnp.exp(o) * t, axis=dim, keepdims=True)
    else:
        dt = o * (t - jnp.sum(o * t, axis=dim, keepdims=True))
    return out, dt.astype(dtype)


def _softmax_like_fn(x, *, dim, dtype, log, negate):
    x = -x if negate else x
    if np.dtype(dtype) in _HALF and x.dtype == dtype:
        return _half_softmax(x, dim, dtype, log)
    fn = jax.nn.log_softmax if log else jax.nn.softmax
    compute = jnp.float32 if np.dtype(dtype) in _HALF else dtype
    return fn(x.astype(compute), axis=dim).astype(dtype)


def _softmax_fn(x, *, dim, dtype):
    return _softmax_like_fn(x, dim=dim, dtype=dtype, log=False, negate=False)


def _log_softmax_fn(x, *, dim, dtype):
    return _softmax_like_fn(x, dim=dim, dtype=dtype, log=True, negate=False)


def _softmin_fn(x, *, dim, dtype):
    return _softmax_like_fn(x, dim=dim, dtype=dtype, log=False, negate=True)


# Not through _opmath: half precision is handled inside, with PyTorch's backward formula.
_SOFTMAX = _register_op("softmax", _softmax_fn, node="SoftmaxBackward0", saves="output")
_LOG_SOFTMAX = _register_op(
    "log_softmax", _log_softmax_fn, node="LogSoftmaxBackward0", saves="output"
)
_SOFTMIN = _register_op("softmin", _softmin_fn, node="SoftmaxBackward0", saves="output")


def _softmax_like(op, name, input, dim, dtype):
    _tensor(input, name)
    if dim is None:
        dim = _softmax_dim(name, input.ndim)
    if input.ndim:
        dim = dim % input.ndim
    elif dim not in (0, -1):
        raise IndexError(
            f"Dimension out of range (expected to be in range of [-1, 0], but got {dim})"
        )
    else:
        dim = None
    if dtype is not None:
        out_dtype = _dtypes.as_dtype(dtype)
    elif input.dtype.is_floating_point:
        out_dtype = input.dtype
    else:
        raise RuntimeError(
            f"\"{name}_lastdim_kernel_impl\" not implemented for '{scalar_type_name(input.dtype)}'"
        )
    return apply(op, input, dim=dim, dtype=out_dtype.jax)


def softmax(input, dim=None, _stacklevel: int = 3, dtype=None):
    """exp(x) / sum(exp(x)) along `dim`."""
    return _softmax_like(_SOFTMAX, "softmax", input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel: int = 3, dtype=None):
    """log(softmax(x)) along `dim`, computed stably."""
    return _softmax_like(_LOG_SOFTMAX, "log_softmax", input, dim, dtype)


def softmin(input, dim=None, _stacklevel: int = 3, dtype=None):
    """softmax(-x) along `dim`."""
    return _softmax_like(_SOFTMIN, "softmin", input, dim, dtype)


def _required_dim(op, name: str):
    """`torch.softmax(input, dim, dtype=None)` and `Tensor.softmax`: `dim` is required there."""

    def softmax_like(input, dim, dtype=None):
        return _softmax_like(op, name, input, dim, dtype)

    softmax_like.__name__ = softmax_like.__qualname__ = name
    softmax_like.__doc__ = f"`{name}` along `dim` (required), as `torch.{name}`."
    return softmax_like


tensor_softmax = _required_dim(_SOFTMAX, "softmax")
tensor_log_softmax = _required_dim(_LOG_SOFTMAX, "log_softmax")


# ----------------------------------------------------------------------------- losses
def _size_warning(target: Tensor, input: Tensor) -> None:
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            UserWarning,
            stacklevel=3,
        )


def _mse_fn(x, t, *, reduction):
    return _reduce(jnp.square(x - t), reduction)


def _l1_fn(x, t, *, reduction):
    return _reduce(jnp.abs(x - t), reduction)


def _smooth_l1_fn(x, t, *, reduction, beta):
    d = jnp.abs(x - t)
    return _reduce(jnp.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta), reduction)


def _huber_fn(x, t, *, reduction, delta):
    d = jnp.abs(x - t)
    return _reduce(jnp.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)), reduction)


_MSE = register("mse_loss", _mse_fn, node="MseLossBackward0")
_L1 = register("l1_loss", _l1_fn, node="MeanBackward0")
_SMOOTH_L1 = register("smooth_l1_loss", _smooth_l1_fn, node="SmoothL1LossBackward0")
_HUBER = register("huber_loss", _huber_fn, node="HuberLossBackward0")


def _regression(op, fname, input, target, reduction, **static):
    _tensor(input, fname)
    _tensor(target, fname, "target", 2)
    _size_warning(target, input)
    _check_reduction(reduction)
    x, t = _same_dtype(input, target)
    return apply(op, x, t, reduction=reduction, **static)


def mse_loss(input, target, size_average=None, reduce=None, reduction: str = "mean", weight=None):
    """Mean squared error (or its sum, or per element with reduction='none')."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if weight is not None:
        raise NotImplementedError("mse_loss(weight=) is not yet supported by autograd_compat")
    return _regression(_MSE, "mse_loss", input, target, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    """Mean absolute error."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _regression(_L1, "l1_loss", input, target, reduction)


def smooth_l1_loss(
    input, target, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0
):
    """Squared error below `beta` (scaled by 1/beta), absolute error above it."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        return _regression(_L1, "smooth_l1_loss", input, target, reduction)
    return _regression(_SMOOTH_L1, "smooth_l1_loss", input, target, reduction, beta=float(beta))


def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0, weight=None):
    """Squared error below `delta`, delta-scaled absolute error above it."""
    if weight is not None:
        raise NotImplementedError("huber_loss(weight=) is not yet supported by autograd_compat")
    return _regression(_HUBER, "huber_loss", input, target, reduction, delta=float(delta))


def _check_class_target(target: Tensor) -> None:
    if target.dtype not in (_dtypes.int64, _dtypes.uint8):
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {scalar_type_name(target.dtype)}"
        )


def _check_nll_shapes(input: Tensor, target: Tensor) -> None:
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    multi = "0D or 1D target tensor expected, multi-target not supported"
    if input.ndim == 1:
        if target.ndim != 0:
            raise RuntimeError(multi)
        return
    if target.ndim == 0 or (input.ndim == 2 and target.ndim != 1):
        raise RuntimeError(multi)
    if input.shape[0] != target.shape[0]:
        raise ValueError(
            f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
            f"({target.shape[0]})."
        )
    if input.ndim > 2 and tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(
            f"Expected target size {[input.shape[0]] + list(input.shape[2:])}, got "
            f"{list(target.shape)}"
        )


def _check_targets_in_range(target: Tensor, classes: int, ignore_index: int) -> None:
    if isinstance(target._value, jax.core.Tracer):
        return
    values = np.asarray(target._value).astype(np.int64)
    bad = values[(values != ignore_index) & ((values < 0) | (values >= classes))]
    if bad.size:
        raise IndexError(f"Target {int(bad.flat[0])} is out of bounds.")


def _class_last(x):
    """(N, C, d...) -> (N, d..., C); (C,) stays."""
    return jnp.moveaxis(x, 1, -1) if x.ndim > 1 else x


def _nll_parts(logp, t, w, ignore_index):
    """Per-element -w[t] * logp[t] and the weights w[t] (0 where t == ignore_index)."""
    logp = _class_last(logp)
    keep = t != ignore_index
    safe = jnp.where(keep, t, 0).astype(jnp.int32)
    picked = jnp.take_along_axis(logp, safe[..., None], axis=-1)[..., 0]
    weights = (
        keep.astype(logp.dtype) if w is None else jnp.where(keep, w[safe], 0).astype(logp.dtype)
    )
    return -picked * weights, weights


def _weighted_mean(total, weight):
    """total / weight; NaN when everything was ignored (weight 0), with a zero gradient
    there as PyTorch's nll_loss backward gives, instead of 0 * inf."""
    empty = weight == 0
    safe = jnp.where(empty, jnp.ones((), weight.dtype), weight)
    return jnp.where(empty, jnp.full((), jnp.nan, total.dtype), total / safe)


def _nll_reduce(losses, weights, reduction):
    if reduction == "mean":
        return _weighted_mean(jnp.sum(losses), jnp.sum(weights))
    if reduction == "sum":
        return jnp.sum(losses)
    return losses


def _nll_fn(logp, t, *w, ignore_index, reduction):
    losses, weights = _nll_parts(logp, t, w[0] if w else None, ignore_index)
    return _nll_reduce(losses, weights, reduction)


def _cross_entropy_fn(x, t, *w, ignore_index, reduction, label_smoothing):
    class_dim = 1 if x.ndim > 1 else 0
    logp = jax.nn.log_softmax(x, axis=class_dim)
    weight = w[0] if w else None
    losses, weights = _nll_parts(logp, t, weight, ignore_index)
    nll = _nll_reduce(losses, weights, reduction)
    if not label_smoothing:
        return nll
    classes = x.shape[class_dim]
    per_class = _class_last(logp)
    if weight is not None:
        per_class = per_class * weight
    smooth = -jnp.sum(per_class, axis=-1)
    keep = t != ignore_index
    smooth = jnp.where(keep, smooth, 0)
    if reduction == "mean":
        if weight is not None:
            safe = jnp.where(keep, t, 0).astype(jnp.int32)
            smooth = _weighted_mean(
                jnp.sum(smooth), jnp.sum(jnp.where(keep, weight[safe], 0)).astype(smooth.dtype)
            )
        else:
            smooth = _weighted_mean(jnp.sum(smooth), jnp.sum(keep).astype(smooth.dtype))
    elif reduction == "sum":
        smooth = jnp.sum(smooth)
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / classes)


def _cross_entropy_prob_fn(x, t, *w, reduction, label_smoothing):
    class_dim = 1 if x.ndim > 1 else 0
    classes = x.shape[class_dim]
    logp = jax.nn.log_softmax(x, axis=class_dim)
    if label_smoothing > 0:
        t = t * (1 - label_smoothing) + label_smoothing / classes
    terms = logp * t
    if w:
        terms = terms * w[0].reshape((-1,) + (1,) * (x.ndim - class_dim - 1))
    if reduction == "mean":
        return -jnp.sum(terms) / (x.size / classes)
    if reduction == "sum":
        return -jnp.sum(terms)
    return -jnp.sum(terms, axis=class_dim)


_NLL = register("nll_loss", _nll_fn, node="NllLossBackward0")
_CROSS_ENTROPY = register("cross_entropy", _cross_entropy_fn, node="NllLossBackward0")
_CROSS_ENTROPY_SMOOTH = register(
    "cross_entropy.label_smoothing", _cross_entropy_fn, node="AddBackward0"
)
_CROSS_ENTROPY_PROB = register("cross_entropy.probs", _cross_entropy_prob_fn, node="DivBackward1")


def _check_weight(weight, classes: int, fname: str):
    if weight is None:
        return []
    _tensor(weight, fname, "weight", 3)
    if weight.ndim != 1 or weight.numel() != classes:
        raise RuntimeError(
            f"weight tensor should be defined either for all {classes} classes or no classes but "
            f"got weight tensor of shape: {list(weight.shape)}"
        )
    return [weight]


def nll_loss(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
):
    """Negative log-likelihood of class indices given log-probabilities (N, C, d...)."""
    reduction = _check_reduction(_legacy_reduction(size_average, reduce, reduction))
    _tensor(input, "nll_loss")
    _tensor(target, "nll_loss", "target", 2)
    _check_nll_shapes(input, target)
    _check_class_target(target)
    classes = input.shape[1] if input.ndim > 1 else input.shape[0]
    extra = _check_weight(weight, classes, "nll_loss")
    _check_targets_in_range(target, classes, ignore_index)
    return apply(_NLL, input, target, *extra, ignore_index=int(ignore_index), reduction=reduction)


def cross_entropy(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
):
    """log_softmax + nll_loss in one op, for class indices or class probabilities.

    Example::

        >>> logits = torch.randn(4, 3, requires_grad=True)
        >>> F.cross_entropy(logits, torch.tensor([0, 2, 1, 0])).backward()
    """
    reduction = _check_reduction(_legacy_reduction(size_average, reduce, reduction))
    _tensor(input, "cross_entropy")
    _tensor(target, "cross_entropy", "target", 2)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    classes = input.shape[1] if input.ndim > 1 else input.shape[0]
    extra = _check_weight(weight, classes, "cross_entropy")
    if target.dtype.is_floating_point and target.shape == input.shape:
        x, t = _same_dtype(input, target)
        return apply(
            _CROSS_ENTROPY_PROB,
            x,
            t,
            *extra,
            reduction=reduction,
            label_smoothing=float(label_smoothing),
        )
    _check_nll_shapes(input, target)
    _check_class_target(target)
    _check_targets_in_range(target, classes, ignore_index)
    op = _CROSS_ENTROPY_SMOOTH if label_smoothing > 0 else _CROSS_ENTROPY
    return apply(
        op,
        floating(input),
        target,
        *extra,
        ignore_index=int(ignore_index),
        reduction=reduction,
        label_smoothing=float(label_smoothing),
    )


@jax.custom_jvp
def _bce_elementwise(x, t):
    log_x = jnp.maximum(jnp.log(x), -100.0)
    log_1mx = jnp.maximum(jnp.log1p(-x), -100.0)
    return -(t * log_x + (1 - t) * log_1mx)


@_bce_elementwise.defjvp
def _bce_jvp(primals, tangents):
    """PyTorch's BCE derivative: (x - t) / max(x (1 - x), 1e-12), finite at 0 and 1."""
    x, t = primals
    x_dot, t_dot = tangents
    out = _bce_elementwise(x, t)
    d_x = (x - t) / jnp.maximum((1 - x) * x, 1e-12)
    d_t = jnp.log1p(-x) - jnp.log(x)
    return out, d_x * x_dot + d_t * t_dot


def _bce_fn(x, t, *w, reduction):
    loss = _bce_elementwise(x, t)
    if w:
        loss = loss * w[0]
    return _reduce(loss, reduction)


def _bce_logits_fn(x, t, *extra, reduction, has_weight, has_pos_weight):
    extra = list(extra)
    weight = extra.pop(0) if has_weight else None
    pos_weight = extra.pop(0) if has_pos_weight else None
    log_sigmoid = jax.nn.log_sigmoid(x)
    if pos_weight is not None:
        log_sigmoid = log_sigmoid * ((pos_weight - 1) * t + 1)
    loss = (1 - t) * x - log_sigmoid
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


_BCE = register("binary_cross_entropy", _bce_fn, node="BinaryCrossEntropyBackward0")
_BCE_LOGITS = register(
    "binary_cross_entropy_with_logits", _bce_logits_fn, node="BinaryCrossEntropyWithLogitsBackward0"
)


def binary_cross_entropy(
    input, target, weight=None, size_average=None, reduce=None, reduction: str = "mean"
):
    """-(t log x + (1 - t) log(1 - x)), with logs clamped at -100 as in PyTorch."""
    reduction = _check_reduction(_legacy_reduction(size_average, reduce, reduction))
    _tensor(input, "binary_cross_entropy")
    _tensor(target, "binary_cross_entropy", "target", 2)
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )
    if not isinstance(input._value, jax.core.Tracer) and input.numel():
        values = np.asarray(input._value)
        if not ((values >= 0) & (values <= 1)).all():
            raise RuntimeError("all elements of input should be between 0 and 1")
    x, t = _same_dtype(input, target)
    extra = [] if weight is None else [weight.to(x.dtype)]
    return apply(_BCE, x, t, *extra, reduction=reduction)


def binary_cross_entropy_with_logits(
    input,
    target,
    weight=None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    pos_weight=None,
):
    """sigmoid + binary cross-entropy in one numerically stable op."""
    reduction = _check_reduction(_legacy_reduction(size_average, reduce, reduction))
    _tensor(input, "binary_cross_entropy_with_logits")
    _tensor(target, "binary_cross_entropy_with_logits", "target", 2)
    if target.shape != input.shape:
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    x, t = _same_dtype(input, target)
    extra = [e.to(x.dtype) for e in (weight, pos_weight) if e is not None]
    return apply(
        _BCE_LOGITS,
        x,
        t,
        *extra,
        reduction=reduction,
        has_weight=weight is not None,
        has_pos_weight=pos_weight is not None,
    )


def _kl_div_fn(x, t, *, reduction, log_target):
    if log_target:
        loss = jnp.exp(t) * (t - x)
    else:
        loss = jax.scipy.special.xlogy(t, t) - t * x
    if reduction == "batchmean":
        return jnp.sum(loss) / (x.shape[0] if x.ndim else 1)
    return _reduce(loss, reduction)


_KL_DIV = register("kl_div", _kl_div_fn, node="MeanBackward0")
_KL_DIV_SUM = register("kl_div.sum", _kl_div_fn, node="SumBackward0")
_KL_DIV_BATCHMEAN = register("kl_div.batchmean", _kl_div_fn, node="DivBackward0")
_KL_DIV_NONE = register("kl_div.none", _kl_div_fn, node="SubBackward0")


def kl_div(
    input,
    target,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    log_target: bool = False,
):
    """KL divergence with `input` as log-probabilities; use reduction='batchmean' for the math
    definition ('mean' averages over every element, with PyTorch's warning)."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.",
            UserWarning,
            stacklevel=2,
        )
    if reduction not in ("mean", "sum", "none", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _tensor(input, "kl_div")
    _tensor(target, "kl_div", "target", 2)
    x, t = _same_dtype(input, target)
    op = {"mean": _KL_DIV, "sum": _KL_DIV_SUM, "batchmean": _KL_DIV_BATCHMEAN}.get(
        reduction, _KL_DIV_NONE
    )
    return apply(op, x, t, reduction=reduction, log_target=bool(log_target))


# ----------------------------------------------------------------------------- attention
def _attention_fn(q, k, v, *extra, scale, causal, has_mask, mask_is_bool, dropout_p):
    extra = list(extra)
    mask = extra.pop(0) if has_mask else None
    key = extra.pop(0) if dropout_p > 0 else None
    scores = jnp.matmul(q, jnp.swapaxes(k, -1, -2), precision=_HIGHEST) * scale
    if causal:
        length, source = q.shape[-2], k.shape[-2]
        allowed = jnp.tril(jnp.ones((length, source), bool))
        scores = jnp.where(allowed, scores, -jnp.inf)
    if mask is not None:
        if mask_is_bool:
            scores = jnp.where(mask, scores, -jnp.inf)
        else:
            scores = scores + mask.astype(scores.dtype)
    weights = jax.nn.softmax(scores, axis=-1)
    if key is not None:
        weights = _dropout_fn(weights, key, p=dropout_p)
    return jnp.matmul(weights, v, precision=_HIGHEST)


_SDPA = register(
    "scaled_dot_product_attention",
    _attention_fn,
    node="ScaledDotProductFlashAttentionForCpuBackward0",
)


def scaled_dot_product_attention(
    query,
    key,
    value,
    attn_mask=None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale=None,
    enable_gqa: bool = False,
):
    """softmax(Q K^T * scale + mask) V, one fused op (dropout draws from our generator)."""
    _tensor(query, "scaled_dot_product_attention", "query")
    _tensor(key, "scaled_dot_product_attention", "key", 2)
    _tensor(value, "scaled_dot_product_attention", "value", 3)
    if is_causal and attn_mask is not None:
        raise RuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
            "is_causal=True"
        )
    if enable_gqa:
        raise NotImplementedError(
            "scaled_dot_product_attention(enable_gqa=True) is not yet supported by autograd_compat"
        )
    if not (query.dtype is key.dtype is value.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{query.dtype} key.dtype: {key.dtype} and value.dtype: {value.dtype} instead."
        )
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else float(scale)
    extra = []
    if attn_mask is not None:
        extra.append(attn_mask)
    if dropout_p > 0:
        extra.append(_key_array())
    return apply(
        _SDPA,
        query,
        key,
        value,
        *extra,
        scale=scale,
        causal=bool(is_causal),
        has_mask=attn_mask is not None,
        mask_is_bool=attn_mask is not None and attn_mask.dtype is _dtypes.bool,
        dropout_p=float(dropout_p),
    )


def _mha_fn(
    query,
    key,
    value,
    in_w,
    out_w,
    *extra,
    num_heads,
    has_in_bias,
    has_out_bias,
    kpm_kind,
    mask_kind,
    dropout_p,
    need_weights,
    average,
    causal,
):
    """Multi-head attention on (L, N, E) inputs, PyTorch's multi_head_attention_forward."""
    extra = list(extra)
    in_b = extra.pop(0) if has_in_bias else None
    out_b = extra.pop(0) if has_out_bias else None
    kpm = extra.pop(0) if kpm_kind else None
    mask = extra.pop(0) if mask_kind else None
    rng = extra.pop(0) if dropout_p > 0 else None
    length, batch, embed = query.shape
    source = key.shape[0]
    head = embed // num_heads
    w_q, w_k, w_v = jnp.split(in_w, 3)
    b_q, b_k, b_v = jnp.split(in_b, 3) if in_b is not None else (None, None, None)

    def project(x, w, b):
        y = jnp.matmul(x, w.T, precision=_HIGHEST)
        return y if b is None else y + b

    q = project(query, w_q, b_q)
    k = project(key, w_k, b_k)
    v = project(value, w_v, b_v)
    # (L, N, E) -> (N, H, L, head)
    q = q.reshape(length, batch, num_heads, head).transpose(1, 2, 0, 3)
    k = k.reshape(source, batch, num_heads, head).transpose(1, 2, 0, 3)
    v = v.reshape(source, batch, num_heads, head).transpose(1, 2, 0, 3)
    bias = jnp.zeros((batch, num_heads, length, source), q.dtype)
    if causal and mask is None:
        allowed = jnp.tril(jnp.ones((length, source), bool))
        bias = jnp.where(allowed, bias, -jnp.inf)
    if mask is not None:
        if mask.ndim == 3:
            mask = mask.reshape(batch, num_heads, length, source)
        bias = jnp.where(mask, -jnp.inf, bias) if mask_kind == "bool" else bias + mask
    if kpm is not None:
        kpm = kpm[:, None, None, :]
        bias = jnp.where(kpm, -jnp.inf, bias) if kpm_kind == "bool" else bias + kpm
    q = q * jnp.asarray(math.sqrt(1.0 / head), q.dtype)
    scores = jnp.matmul(q, jnp.swapaxes(k, -1, -2), precision=_HIGHEST) + bias
    weights = jax.nn.softmax(scores, axis=-1)
    attended = weights if rng is None else _dropout_fn(weights, rng, p=dropout_p)
    out = jnp.matmul(attended, v, precision=_HIGHEST)  # (N, H, L, head)
    out = out.transpose(2, 0, 1, 3).reshape(length, batch, embed)
    out = project(out, out_w, out_b)
    if not need_weights:
        return out
    if average:
        weights = jnp.mean(weights, axis=1)
    return out, weights


_MHA = register("multi_head_attention_forward", _mha_fn, node="ViewBackward0")


def _mask_kind(mask) -> str | None:
    if mask is None:
        return None
    return "bool" if mask.dtype is _dtypes.bool else "float"


def multi_head_attention_forward(
    query,
    key,
    value,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight,
    in_proj_bias,
    bias_k,
    bias_v,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight,
    out_proj_bias,
    training: bool = True,
    key_padding_mask=None,
    need_weights: bool = True,
    attn_mask=None,
    use_separate_proj_weight: bool = False,
    q_proj_weight=None,
    k_proj_weight=None,
    v_proj_weight=None,
    static_k=None,
    static_v=None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
):
    """Multi-head attention over (L, N, E) (or unbatched (L, E)) inputs, as one fused op."""
    if bias_k is not None or bias_v is not None or add_zero_attn or use_separate_proj_weight:
        raise NotImplementedError(
            "multi_head_attention_forward: add_bias_kv, add_zero_attn and separate projection "
            "weights (kdim/vdim) are not yet supported by autograd_compat"
        )
    if static_k is not None or static_v is not None:
        raise NotImplementedError(
            "multi_head_attention_forward: static_k/static_v are not yet supported by "
            "autograd_compat"
        )
    batched = query.ndim == 3
    if not batched:
        query, key, value = (t.reshape(t.shape[0], 1, t.shape[1]) for t in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.reshape(1, -1)
    embed = query.shape[2]
    if embed != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed}"
        )
    if embed % num_heads:
        raise AssertionError(f"embed_dim {embed} not divisible by num_heads {num_heads}")
    if is_causal and attn_mask is None:
        pass
    elif is_causal and need_weights:
        is_causal = False
    length, batch = query.shape[0], query.shape[1]
    source = key.shape[0]
    if attn_mask is not None:
        if attn_mask.ndim == 2 and tuple(attn_mask.shape) != (length, source):
            raise RuntimeError(
                f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                f"{(length, source)}."
            )
        if attn_mask.ndim == 3 and tuple(attn_mask.shape) != (batch * num_heads, length, source):
            raise RuntimeError(
                f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                f"{(batch * num_heads, length, source)}."
            )
    extra = [t for t in (in_proj_bias, out_proj_bias) if t is not None]
    if key_padding_mask is not None:
        extra.append(key_padding_mask)
    if attn_mask is not None:
        extra.append(attn_mask)
    p = float(dropout_p) if training else 0.0
    if p > 0:
        extra.append(_key_array())
    result = apply(
        _MHA,
        query,
        key,
        value,
        in_proj_weight,
        out_proj_weight,
        *extra,
        num_heads=int(num_heads),
        has_in_bias=in_proj_bias is not None,
        has_out_bias=out_proj_bias is not None,
        kpm_kind=_mask_kind(key_padding_mask),
        mask_kind=_mask_kind(attn_mask),
        dropout_p=p,
        need_weights=bool(need_weights),
        average=bool(average_attn_weights),
        causal=bool(is_causal) and attn_mask is None,
    )
    out, weights = result if need_weights else (result, None)
    if not batched:
        out = out.reshape(out.shape[0], out.shape[2])
        if weights is not None:
            weights = weights.reshape(tuple(weights.shape[1:]))
    return out, weights


# ----------------------------------------------------------------------------- pad, resize
def _pad_fn(x, *, pads, mode, value):
    if mode == "constant":
        config = [(lo, hi, 0) for lo, hi in pads]
        return lax.pad(x, jnp.asarray(value, x.dtype), config)
    return jnp.pad(
        x, pads, mode={"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
    )


_PAD = {
    "constant": register("pad.constant", _pad_fn, node="ConstantPadNdBackward0", saves="none"),
    "reflect": register("pad.reflect", _pad_fn, node="ReflectionPad2DBackward0", saves="none"),
    "replicate": register("pad.replicate", _pad_fn, node="ReplicationPad2DBackward0", saves="none"),
    "circular": register("pad.circular", _pad_fn, node="CopySlices", saves="none"),
}


def pad(input, pad, mode: str = "constant", value=None):
    """Pad (or, with negative sizes, crop) the last len(pad) // 2 dimensions.

    `pad` lists (left, right) for the last dim first, then the one before, and so on.
    """
    _tensor(input, "pad")
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(
            f"Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(pad)} and input of dimension {input.ndim}"
        )
    if mode not in _PAD:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    pairs = [(0, 0)] * input.ndim
    for i in range(len(pad) // 2):
        pairs[input.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    if mode != "constant":
        if value not in (None, 0):
            raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
        for size, (lo, hi) in zip(input.shape, pairs):
            if lo < 0 or hi < 0:
                raise NotImplementedError(f"negative padding is not supported for mode {mode}")
            if mode == "reflect" and (lo >= size or hi >= size) and (lo or hi):
                raise RuntimeError(
                    f"Argument #4: Padding size should be less than the corresponding input "
                    f"dimension, but got: padding ({lo}, {hi}) at dimension of input "
                    f"{list(input.shape)}"
                )
    fill = 0 if value is None else value
    if isinstance(fill, bool) or not isinstance(fill, numbers.Number):
        fill = float(fill)
    return apply(_PAD[mode], input, pads=tuple(pairs), mode=mode, value=fill)


def _nearest_matrix(size: int, out: int, scale) -> np.ndarray:
    """PyTorch's nearest source index floor(dst * scale), computed in float32 as its kernel."""
    matrix = np.zeros((out, size))
    for dst in range(out):
        if out == size:
            src = dst
        elif out == 2 * size:
            src = dst >> 1
        else:
            src = min(int(np.floor(np.float32(dst) * np.float32(scale))), size - 1)
        matrix[dst, src] = 1.0
    return matrix


def _linear_matrix(size: int, out: int, scale, align_corners: bool) -> np.ndarray:
    """PyTorch's (bi)linear source coordinates and weights along one axis, in float32."""
    matrix = np.zeros((out, size))
    for dst in range(out):
        if align_corners:
            src = np.float32(scale) * np.float32(dst)
        else:
            src = np.float32(scale) * np.float32(dst + 0.5) - np.float32(0.5)
            src = max(src, np.float32(0.0))
        low = min(int(np.floor(src)), size - 1)
        high = low + (1 if low < size - 1 else 0)
        lam = np.float32(src) - np.float32(low)
        matrix[dst, low] += 1.0 - lam
        matrix[dst, high] += lam
    return matrix


_UPSAMPLE = {
    ("nearest", 1): register(
        "interpolate.nearest1d", _resize_fn, node="UpsampleNearest1DBackward0", saves="none"
    ),
    ("nearest", 2): register(
        "interpolate.nearest2d", _resize_fn, node="UpsampleNearest2DBackward0", saves="none"
    ),
    ("nearest", 3): register(
        "interpolate.nearest3d", _resize_fn, node="UpsampleNearest3DBackward0", saves="none"
    ),
    ("linear", 1): register(
        "interpolate.linear", _resize_fn, node="UpsampleLinear1DBackward0", saves="none"
    ),
    ("bilinear", 2): register(
        "interpolate.bilinear", _resize_fn, node="UpsampleBilinear2DBackward0", saves="none"
    ),
    ("trilinear", 3): register(
        "interpolate.trilinear", _resize_fn, node="UpsampleTrilinear3DBackward0", saves="none"
    ),
}


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode: str = "nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias: bool = False,
):
    """Resize the spatial dims by nearest-neighbour or (bi/tri)linear interpolation.

    Each resize is a fixed linear map per axis (built once per shape), so it runs as one
    einsum and its gradient is exact.
    """
    _tensor(input, "interpolate")
    nd = input.ndim - 2
    if nd < 1:
        raise ValueError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
            f"the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
            f"nearest-exact (got {mode})"
        )
    if antialias:
        raise NotImplementedError(
            "interpolate(antialias=True) is not yet supported by autograd_compat"
        )
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError(
            "align_corners option can only be set with the interpolating modes: "
            "linear | bilinear | bicubic | trilinear"
        )
    if (mode, nd) not in _UPSAMPLE:
        if mode in ("linear", "bilinear", "trilinear", "nearest"):
            raise NotImplementedError(
                f"Got {input.ndim}D input, but {mode} mode needs "
                f"{ {'linear': 3, 'bilinear': 4, 'trilinear': 5}.get(mode, 3) }D input"
            )
        raise NotImplementedError(
            f"interpolate(mode='{mode}') is not yet supported by autograd_compat"
        )
    shape = tuple(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        out = _ntuple(size, nd, "size") if isinstance(size, (list, tuple)) else (int(size),) * nd
        scales: list[float | None] = [None] * nd
    elif scale_factor is not None:
        factors = (
            tuple(float(f) for f in scale_factor)
            if isinstance(scale_factor, (list, tuple))
            else (float(scale_factor),) * nd
        )
        out = tuple(int(math.floor(s * f)) for s, f in zip(shape, factors))
        scales = [None] * nd if recompute_scale_factor else list(factors)
    else:
        raise ValueError("either size or scale_factor should be defined")
    axes = []
    for s, o, factor in zip(shape, out, scales):
        if mode == "nearest":
            scale = 1.0 / factor if factor else s / o
            axes.append(("nearest", s, o, float(scale), False))
        else:
            if align_corners:
                scale = (s - 1) / (o - 1) if o > 1 else 0.0
            else:
                scale = 1.0 / factor if factor else s / o
            axes.append(("linear", s, o, float(scale), bool(align_corners)))
    return apply(_UPSAMPLE[(mode, nd)], floating(input), axes=tuple(axes))


def upsample(input, size=None, scale_factor=None, mode: str = "nearest", align_corners=None):
    """Deprecated alias of interpolate."""
    return interpolate(input, size, scale_factor, mode, align_corners)


def __getattr__(name: str):
    from .._alias import missing_attribute

    return missing_attribute(__name__, name)
