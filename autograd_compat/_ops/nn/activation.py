"""Activations and the softmax family; `tensor_softmax`/`tensor_log_softmax` are the
`dim`-required forms behind `torch.softmax` and `Tensor.softmax`.
"""

from __future__ import annotations

import functools
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..._pure import dtypes as _dtypes
from ..._pure import softmax as _softmax
from ..._pure.dtype_rules import FLOATING, require_kernel
from ..._pure.op import register as _register_op
from ..._pure.op import scalar_input
from ..._pure.opmath import REDUCED, opmath_dtype
from ..._pure.shapes import normalize_dim
from ..._tape.args import floating, numpy_names, scalar_type_name
from ..._tape.record import apply
from ._common import _inplace_result, _tensor, register

__all__ = [
    "celu",
    "elu",
    "gelu",
    "glu",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "leaky_relu",
    "log_softmax",
    "logsigmoid",
    "mish",
    "prelu",
    "relu",
    "relu6",
    "selu",
    "sigmoid",
    "silu",
    "softmax",
    "softmin",
    "softplus",
    "softshrink",
    "softsign",
    "tanh",
    "tanhshrink",
    "tensor_log_softmax",
    "tensor_softmax",
    "threshold",
]


# Scalar arguments (slopes, alpha, beta, bounds) are runtime inputs (`scalar_input`, float64,
# cast to x's dtype inside), so a new value never compiles; `shown_inputs=(0,)` keeps them out
# of next_functions.
def _leaky_relu_fn(x, negative_slope):
    return jnp.where(x > 0, x, x * negative_slope.astype(x.dtype))


def _elu_fn(x, alpha_scale, scale, input_scale):
    # where, not minimum: at x == 0 the derivative is PyTorch's alpha * scale, not half of it.
    # PyTorch tests x <= 0, so a NaN takes the linear branch: gradient `scale`, not NaN.
    negative_side = x <= 0
    negative_part = jnp.where(negative_side, x, jnp.zeros((), x.dtype))
    negative = alpha_scale.astype(x.dtype) * jnp.expm1(negative_part * input_scale.astype(x.dtype))
    return jnp.where(negative_side, negative, x * scale.astype(x.dtype))


def _gelu_fn(x, *, approximate):
    return jax.nn.gelu(x, approximate=approximate == "tanh")


def _silu_fn(x):
    return x * jax.nn.sigmoid(x)


def _softplus_fn(x, beta, threshold):
    beta = beta.astype(x.dtype)
    scaled = x * beta
    linear_region = scaled > threshold.astype(x.dtype)
    safe = jnp.where(linear_region, jnp.zeros((), x.dtype), scaled)
    return jnp.where(linear_region, x, jnp.log1p(jnp.exp(safe)) / beta)


def _hardtanh_fn(x, min_val, max_val):
    lo = min_val.astype(x.dtype)
    hi = max_val.astype(x.dtype)
    return jnp.where(x <= lo, lo, jnp.where(x >= hi, hi, x))


def _threshold_fn(x, threshold, value):
    # PyTorch tests x <= threshold: a NaN passes through, with gradient 1.
    return jnp.where(x <= threshold.astype(x.dtype), value.astype(x.dtype), x)


def _mish_fn(x):
    return x * jnp.tanh(jax.nn.softplus(x))


def _hardsigmoid_fn(x):
    # PyTorch's gradient is 1/6 only strictly inside (-3, 3): 0 at a NaN, whose value stays NaN.
    inside = (x > -3) & (x < 3)
    outside = jnp.where(x <= -3, 0.0, jnp.where(x >= 3, 1.0, lax.stop_gradient(x)))
    return jnp.where(inside, x / 6 + 0.5, outside).astype(x.dtype)


def _hardswish_fn(x):
    # x * clamp(x + 3, 0, 6) / 6 as PyTorch: NaN at -inf (-inf * 0) with gradient 0, gradient 1
    # at +inf and at NaN (its backward tests x <= -3, then x < 3). Double where: the quadratic
    # branch sees only the middle, so its derivative is never inf * 0.
    low, high = x <= -3, ~(x < 3)
    middle = jnp.where(low | high, jnp.zeros((), x.dtype), x)
    out = jnp.where(low, x * 0, jnp.where(high, x, middle * (middle + 3) / 6))
    return out.astype(x.dtype)


_SCALARS = dict(shown_inputs=(0,))
_LEAKY_RELU = register("leaky_relu", _leaky_relu_fn, node="LeakyReluBackward0", **_SCALARS)
_ELU = register("elu", _elu_fn, node="EluBackward0", **_SCALARS)
_GELU = register("gelu", _gelu_fn, node="GeluBackward0")
_SILU = register("silu", _silu_fn, node="SiluBackward0")
_SOFTPLUS = register("softplus", _softplus_fn, node="SoftplusBackward0", **_SCALARS)
_HARDTANH = register("hardtanh", _hardtanh_fn, node="HardtanhBackward0", **_SCALARS)
_THRESHOLD = register("threshold", _threshold_fn, node="ThresholdBackward0", **_SCALARS)
_MISH = register("mish", _mish_fn, node="MishBackward0")
_HARDSIGMOID = register("hardsigmoid", _hardsigmoid_fn, node="HardsigmoidBackward0")
_HARDSWISH = register("hardswish", _hardswish_fn, node="HardswishBackward0")
_LOGSIGMOID = register("logsigmoid", jax.nn.log_sigmoid, node="LogSigmoidBackward0")
_SOFTSIGN = register("softsign", lambda x: x / (1 + jnp.abs(x)), node="DivBackward0")
_TANHSHRINK = register("tanhshrink", lambda x: x - jnp.tanh(x), node="SubBackward0")


def _hardshrink_fn(x, lambd):
    return jnp.where(jnp.abs(x) > lambd.astype(x.dtype), x, jnp.zeros((), x.dtype))


def _softshrink_fn(x, lambd):
    lambd = lambd.astype(x.dtype)
    zero = jnp.zeros((), x.dtype)
    return jnp.where(x > lambd, x - lambd, jnp.where(x < -lambd, x + lambd, zero))


_HARDSHRINK = register("hardshrink", _hardshrink_fn, node="HardshrinkBackward0", **_SCALARS)
_SOFTSHRINK = register("softshrink", _softshrink_fn, node="SoftshrinkBackward0", **_SCALARS)


def _run(op, input, fname: str, inplace: bool = False, promote: bool = False, scalars=(), **static):
    """Apply `op` to `input` and the runtime scalar inputs `scalars` (Python numbers).
    `promote`: an integral input is cast to the default float first (ops PyTorch composes
    from float ops); the others take it as it is, and their dtype rules refuse it as PyTorch
    does (`_pure/dtype_rules`)."""
    _tensor(input, fname)
    x = floating(input) if promote else input
    values = [scalar_input(float(v)) for v in scalars]
    return _inplace_result(input, apply(op, x, *values, **static), inplace)


def _elu(input, fname: str, inplace: bool, alpha: float, scale: float, input_scale: float):
    return _run(_ELU, input, fname, inplace, scalars=(alpha * scale, scale, input_scale))


def relu(input, inplace: bool = False):
    """max(0, x): `torch.relu` (`torch.relu_` in place), the same op, as in PyTorch."""
    _tensor(input, "relu")
    return input.relu_() if inplace else input.relu()


def relu6(input, inplace: bool = False):
    """min(max(0, x), 6)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False):
    """x for x > 0, else negative_slope * x."""
    return _run(_LEAKY_RELU, input, "leaky_relu", inplace, scalars=(negative_slope,))


def elu(input, alpha: float = 1.0, inplace: bool = False):
    """x for x > 0, else alpha * (exp(x) - 1)."""
    return _elu(input, "elu", inplace, float(alpha), 1.0, 1.0)


def selu(input, inplace: bool = False):
    """scale * elu(x, alpha) with the self-normalizing constants."""
    return _elu(
        input,
        "selu",
        inplace,
        1.6732632423543772848170429916717,
        1.0507009873554804934193349852946,
        1.0,
    )


def celu(input, alpha: float = 1.0, inplace: bool = False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    return _elu(input, "celu", inplace, float(alpha), 1.0, 1.0 / alpha)


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
    return _run(_SOFTPLUS, input, "softplus", scalars=(beta, threshold))


def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
    """x clipped to [min_val, max_val]; zero gradient at and beyond the bounds."""
    return _run(_HARDTANH, input, "hardtanh", inplace, scalars=(min_val, max_val))


def threshold(input, threshold: float, value: float, inplace: bool = False):
    """x where x > threshold, else value."""
    return _run(_THRESHOLD, input, "threshold", inplace, scalars=(threshold, value))


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
    return _run(_SOFTSIGN, input, "softsign", promote=True)


def tanhshrink(input):
    return _run(_TANHSHRINK, input, "tanhshrink", promote=True)


def hardshrink(input, lambd: float = 0.5):
    """x where |x| > lambd, else 0."""
    return _run(_HARDSHRINK, input, "hardshrink", scalars=(lambd,))


def softshrink(input, lambd: float = 0.5):
    """x - lambd above lambd, x + lambd below -lambd, else 0; lambd must be >= 0."""
    _tensor(input, "softshrink")
    require_kernel("softshrink_check", input._stored.dtype, FLOATING)  # (before lambd's range)
    if not 0 <= lambd <= np.finfo(input._stored.dtype).max:
        raise RuntimeError(
            f"lambda must be in range [0, {np.finfo(input._stored.dtype).max:g}] for input "
            f"dtype {scalar_type_name(input.dtype)}, but found {lambd:g}"
        )
    return _run(_SOFTSHRINK, input, "softshrink", scalars=(lambd,))


def _prelu_fn(x, weight):
    if weight.size == 1:  # one shared value: the result has the input's shape, 0-d included
        weight = weight.reshape(())
    elif x.ndim > 1:
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
    if not input.ndim:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    dim = normalize_dim(dim, input.ndim)
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
    fn = _softmax.log_softmax if log else _softmax.softmax
    return fn(x.astype(jnp.float32), dim).astype(dtype)


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
    if np.dtype(dtype) in REDUCED and x.dtype == dtype:
        return _half_softmax(x, dim, dtype, log)
    fn = _softmax.log_softmax if log else _softmax.softmax
    compute = opmath_dtype(dtype)
    return fn(x.astype(compute), dim).astype(dtype)


def _softmax_fn(x, *, dim, dtype):
    return _softmax_like_fn(x, dim=dim, dtype=dtype, log=False, negate=False)


def _log_softmax_fn(x, *, dim, dtype):
    return _softmax_like_fn(x, dim=dim, dtype=dtype, log=True, negate=False)


def _softmin_fn(x, *, dim, dtype):
    return _softmax_like_fn(x, dim=dim, dtype=dtype, log=False, negate=True)


# Not through _opmath: half precision is handled inside, with PyTorch's backward formula.
_SOFTMAX = _register_op(
    "softmax", _softmax_fn, node="SoftmaxBackward0", saves="output", residuals="connected"
)
_LOG_SOFTMAX = _register_op(
    "log_softmax", _log_softmax_fn, node="LogSoftmaxBackward0", saves="output"
)
_SOFTMIN = _register_op("softmin", _softmin_fn, node="SoftmaxBackward0", saves="output")


def _softmax_like(op, name, input, dim, dtype):
    _tensor(input, name)
    if dim is None:
        dim = _softmax_dim(name, input.ndim)
    dim = normalize_dim(dim, input.ndim)
    if not input.ndim:
        dim = None
    out_dtype = input.dtype if dtype is None else _dtypes.as_dtype(dtype)
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


def _required_dim(op, name: str, position: int):
    """`torch.softmax(input, dim, dtype=None)` and `Tensor.softmax`: `dim` is required there
    (`position`: where PyTorch's argument parser counts it, for its TypeError on None)."""

    def softmax_like(input, dim, dtype=None):
        if dim is None:
            raise TypeError(
                f"{name}(): argument 'dim' (position {position}) must be int, not NoneType"
            )
        return _softmax_like(op, name, input, dim, dtype)

    softmax_like.__name__ = softmax_like.__qualname__ = name
    softmax_like.__doc__ = f"`{name}` along `dim` (required), as `torch.{name}`."
    return numpy_names(softmax_like)  # (native in PyTorch, unlike F.softmax: `axis` works)


tensor_softmax = _required_dim(_SOFTMAX, "softmax", 2)
tensor_log_softmax = _required_dim(_LOG_SOFTMAX, "log_softmax", 2)
# The Tensor methods (not exported: methods.py binds them), where `dim` is argument 1.
softmax_method = _required_dim(_SOFTMAX, "softmax", 1)
log_softmax_method = _required_dim(_LOG_SOFTMAX, "log_softmax", 1)
