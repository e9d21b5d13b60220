"""torch.nn.init: in-place initializers with PyTorch's distributions and fan computations.

Each initializer writes into the tensor in place without recording a graph, like PyTorch's
`with torch.no_grad(): tensor.uniform_(...)`, and draws what PyTorch draws: on the CPU
backend its values, computed on the host (`_state/draws.py`), so initializing a model
compiles at most the two programs of large normal fills (`_state/avx2_normal.py`); in a
trace or on an accelerator, numpy draws seeded from the generator.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._alias import missing_attribute as _missing_attribute
from .._ops.random import host_generator
from .._pure import dtypes as _dtypes
from .._state import draws
from .._state.tensor import MetaTensor, Tensor
from . import _arrays

__all__ = [
    "calculate_gain",
    "constant_",
    "dirac_",
    "eye_",
    "kaiming_normal_",
    "kaiming_uniform_",
    "normal_",
    "ones_",
    "orthogonal_",
    "sparse_",
    "trunc_normal_",
    "uniform_",
    "xavier_normal_",
    "xavier_uniform_",
    "zeros_",
]


def _assign(tensor: Tensor, value: np.ndarray) -> Tensor:
    """Write a host array into `tensor` in place, outside autograd (bumps its version); a
    meta tensor has no values to write."""
    if not isinstance(tensor, MetaTensor):
        value = np.asarray(value).astype(tensor._stored.dtype)
        tensor._set_value(_arrays.place(value, like=tensor._value))
    tensor._bump_version()
    return tensor


def _check(tensor, fname: str) -> Tensor:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{fname}(): argument 'tensor' must be Tensor, not {type(tensor).__name__}")
    return tensor


def _shape(tensor: Tensor) -> tuple:
    return tuple(tensor._stored.shape)


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The recommended gain for a nonlinearity (e.g. sqrt(2) for relu, 5/3 for tanh)."""
    linear_fns = [
        "linear",
        "conv1d",
        "conv2d",
        "conv3d",
        "conv_transpose1d",
        "conv_transpose2d",
        "conv_transpose3d",
    ]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or isinstance(param, float):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor):
    dimensions = tensor.dim()
    if dimensions < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    num_input_fmaps = tensor.shape[1]
    num_output_fmaps = tensor.shape[0]
    receptive_field_size = 1
    if tensor.dim() > 2:
        for s in tensor.shape[2:]:
            receptive_field_size *= s
    return num_input_fmaps * receptive_field_size, num_output_fmaps * receptive_field_size


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _host_draws(tensor: Tensor, generator):
    """The generator to draw PyTorch's values from for `tensor`, or None: a trace or an
    accelerator takes numpy draws (`_arrays.rng`)."""
    return host_generator(generator, _dtypes.as_dtype(tensor._stored.dtype))


def _normal(tensor: Tensor, mean: float, std: float, generator) -> np.ndarray:
    """`tensor.normal_(mean, std)`'s values, in the tensor's shape (none drawn for meta)."""
    shape = _shape(tensor)
    if isinstance(tensor, MetaTensor):
        return np.zeros(shape)
    g = _host_draws(tensor, generator)
    if g is None:
        return _arrays.rng(generator).normal(mean, std, shape)
    return draws.normal(g, math.prod(shape), tensor._stored.dtype, mean, std).reshape(shape)


def _uniform(tensor: Tensor, a: float, b: float, generator) -> np.ndarray:
    """`tensor.uniform_(a, b)`'s values, in the tensor's shape (none drawn for meta)."""
    shape = _shape(tensor)
    if isinstance(tensor, MetaTensor):
        return np.zeros(shape)
    g = _host_draws(tensor, generator)
    if g is None:
        return _arrays.rng(generator).uniform(a, b, shape)
    return draws.uniform(g, math.prod(shape), tensor._stored.dtype, a, b).reshape(shape)


def _constant(tensor: Tensor, val: float) -> Tensor:
    return _assign(tensor, np.full(_shape(tensor), val))


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill with samples from U(a, b)."""
    _check(tensor, "uniform_")
    return _assign(tensor, _uniform(tensor, a, b, generator))


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill with samples from N(mean, std^2)."""
    _check(tensor, "normal_")
    return _assign(tensor, _normal(tensor, mean, std, generator))


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator=None,
) -> Tensor:
    """Fill with samples from N(mean, std^2) truncated to [a, b]."""
    _check(tensor, "trunc_normal_")
    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.",
            stacklevel=2,
        )
    return _assign(tensor, _truncated(tensor, mean, std, a, b, generator))


def _norm_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def _truncated(tensor: Tensor, mean: float, std: float, a: float, b: float, generator):
    """PyTorch's trunc_normal_ draws: with over 0.3 of the mass inside [a, b], normals whose
    rejected values are replaced from fresh full-size draws; else uniforms on [a, b]
    accepted where log(U) <= the log density below its peak, pending ones drawn again."""
    if _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std) > 0.3:
        lo, hi = np.asarray([a, b], tensor._stored.dtype)
        result = _normal(tensor, mean, std, generator)
        rejected = (result < lo) | (result > hi)
        while rejected.any():
            result = np.where(rejected, _normal(tensor, mean, std, generator), result)
            rejected = (result < lo) | (result > hi)
        return result
    dtype = tensor._stored.dtype
    mode = max(a, min(mean, b))
    log_peak = np.asarray(-0.5 * ((mode - mean) / std) ** 2, dtype)
    center, scale, half = (np.asarray(v, dtype) for v in (mean, std, -0.5))

    def rejects(candidates: np.ndarray) -> np.ndarray:
        log_density = ((candidates - center) / scale) ** 2 * half - log_peak
        return np.log(_uniform(tensor, 0.0, 1.0, generator)) > log_density

    result = _uniform(tensor, a, b, generator)
    pending = rejects(result)
    while pending.any():
        candidates = _uniform(tensor, a, b, generator)
        result = np.where(pending, candidates, result)
        pending = np.where(pending, rejects(candidates), pending)
    return result


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with `val`."""
    return _constant(_check(tensor, "constant_"), val)


def ones_(tensor: Tensor) -> Tensor:
    """Fill with 1."""
    return _constant(_check(tensor, "ones_"), 1)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill with 0."""
    return _constant(_check(tensor, "zeros_"), 0)


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity matrix."""
    _check(tensor, "eye_")
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    shape = _shape(tensor)
    return _assign(tensor, np.eye(shape[0], shape[1]))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-5-D conv weight with the Dirac delta (identity convolution)."""
    _check(tensor, "dirac_")
    dimensions = tensor.ndim
    if dimensions not in [3, 4, 5]:
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tuple(tensor.shape)
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    value = np.zeros(sizes, dtype=np.float64)
    for g in range(groups):
        for d in range(min_dim):
            index = (g * out_chans_per_grp + d, d) + tuple(s // 2 for s in sizes[2:])
            value[index] = 1
    return _assign(tensor, value)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot uniform: U(-a, a), a = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(_check(tensor, "xavier_uniform_"))
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return _assign(tensor, _uniform(tensor, -a, a, generator))


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot normal: N(0, std^2), std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(_check(tensor, "xavier_normal_"))
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return _assign(tensor, _normal(tensor, 0.0, std, generator))


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str, fname: str):
    """He initialization's std, gain / sqrt(fan); None (after PyTorch's warning) when `tensor`
    has no elements."""
    _check(tensor, fname)
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    return gain / math.sqrt(fan)


def _kaiming(name: str, doc: str, fill):
    """kaiming_uniform_ and kaiming_normal_, one signature (PyTorch's): the std from
    `_kaiming_std`, then `fill(tensor, std, generator)` draws the values."""

    def kaiming_(
        tensor: Tensor,
        a: float = 0,
        mode: str = "fan_in",
        nonlinearity: str = "leaky_relu",
        generator=None,
    ) -> Tensor:
        std = _kaiming_std(tensor, a, mode, nonlinearity, name)
        if std is None:
            return tensor
        return fill(tensor, std, generator)

    kaiming_.__name__ = kaiming_.__qualname__ = name
    kaiming_.__doc__ = doc
    return kaiming_


def _uniform_with_std(tensor: Tensor, std: float, generator) -> Tensor:
    bound = math.sqrt(3.0) * std
    return _assign(tensor, _uniform(tensor, -bound, bound, generator))


kaiming_uniform_ = _kaiming(
    "kaiming_uniform_",
    "He uniform: U(-bound, bound), bound = gain * sqrt(3 / fan).",
    _uniform_with_std,
)
kaiming_normal_ = _kaiming(
    "kaiming_normal_",
    "He normal: N(0, std^2), std = gain / sqrt(fan).",
    lambda tensor, std, generator: _assign(tensor, _normal(tensor, 0.0, std, generator)),
)


def orthogonal_(tensor: Tensor, gain: float = 1, generator=None) -> Tensor:
    """A (semi-)orthogonal matrix (QR of a Gaussian, signs fixed), scaled by `gain`."""
    _check(tensor, "orthogonal_")
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flattened = _normal(tensor, 0.0, 1.0, generator).reshape(rows, cols).astype(np.float64)
    if rows < cols:
        flattened = flattened.T
    q, r = np.linalg.qr(flattened)
    d = np.diag(r, 0)
    q *= np.sign(d)
    if rows < cols:
        q = q.T
    return _assign(tensor, q.reshape(_shape(tensor)) * gain)


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """A 2-D matrix of N(0, std) values with `ceil(sparsity * rows)` zeros in each column, at
    rows drawn by a random permutation per column (Martens, 2010), as PyTorch draws them."""
    _check(tensor, "sparse_")
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = _shape(tensor)
    num_zeros = math.ceil(sparsity * rows)
    values = _normal(tensor, 0.0, std, generator)
    g = _host_draws(tensor, None)
    rng = _arrays.rng() if g is None else None
    for col in range(cols):  # PyTorch draws these from the global generator
        order = rng.permutation(rows) if rng is not None else draws.randperm(g, rows)
        values[order[:num_zeros], col] = 0.0
    return _assign(tensor, values)


def _make_deprecated(fn):
    new_name = fn.__name__
    old_name = new_name[:-1]

    def deprecated(*args, **kwargs):
        warnings.warn(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
            FutureWarning,
            stacklevel=2,
        )
        return fn(*args, **kwargs)

    deprecated.__name__ = old_name
    return deprecated


uniform = _make_deprecated(uniform_)
normal = _make_deprecated(normal_)
constant = _make_deprecated(constant_)
xavier_uniform = _make_deprecated(xavier_uniform_)
xavier_normal = _make_deprecated(xavier_normal_)
kaiming_uniform = _make_deprecated(kaiming_uniform_)
kaiming_normal = _make_deprecated(kaiming_normal_)
orthogonal = _make_deprecated(orthogonal_)


def __getattr__(name: str):
    return _missing_attribute(__name__, name)
