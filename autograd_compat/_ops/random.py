"""Random sampling: rand/randn/randint/randperm and their *_like forms, normal, bernoulli,
and the in-place random fills (normal_, uniform_, bernoulli_, random_, exponential_).

Eager draws on the CPU backend are PyTorch's: `_state/draws.py` computes them from the
generator's mt19937 outputs on the host (`host_generator` decides). Traced draws, complex
dtypes and accelerator backends take a JAX key from the generator instead (`_state/random.py`).
"""

from __future__ import annotations

import functools
import math
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .._pure import dtypes as _dtypes
from .._pure import executables
from .._pure import memory as _memory
from .._pure.device import host_to_device
from .._pure.dtype_rules import require_kernel
from .._pure.op import constant, register
from .._pure.shapes import broadcast_shapes, factory_shape, new_shape, type_name
from .._state import draws as _draws
from .._state import random as _random
from .._state.tensor import Tensor
from .._tape.args import check_inplace, commit_inplace, scalar_type_name
from .._tape.record import apply
from .factories import _finish, _float_dtype, _place, is_meta_device, meta
from .joining import _no_match
from .out_arg import takes_out
from .shape import cat, narrow, reshape

__all__ = [
    "_standard_gamma",
    "bernoulli",
    "normal",
    "rand",
    "rand_like",
    "randint",
    "randint_like",
    "randn",
    "randn_like",
    "randperm",
]


_uniform = executables.jit(jax.random.uniform, static_argnums=(1, 2))
_normal = executables.jit(jax.random.normal, static_argnums=(1, 2))


_HOST_DTYPES = frozenset((_dtypes.float16, _dtypes.bfloat16, _dtypes.float32, _dtypes.float64))


# Eager draws on the CPU backend are PyTorch's. False: every draw takes a JAX key from the
# generator, so an eager draw equals the one a compiled call drawing once makes.
PYTORCH_STREAM = True


def host_generator(generator, dtype: _dtypes.dtype | None = None) -> _random.Generator | None:
    """The generator (the global one for None) when this draw is PyTorch's: eager, on the
    CPU backend, a real floating dtype (or none given); else None, and the draw takes a JAX
    key. Accelerator backends keep JAX's on-device generator: PyTorch's CUDA stream differs
    from its CPU one anyway, and a host engine would send every sample across."""
    g = generator or _random.default_generator
    if dtype is not None and dtype not in _HOST_DTYPES:
        return None
    if not PYTORCH_STREAM or not _on_cpu() or g.traced():
        return None
    return g


@functools.cache
def _on_cpu() -> bool:
    """Whether JAX's default backend is the CPU (asked at the first draw, not at import)."""
    return jax.default_backend() == "cpu"


def _from_host(flat: np.ndarray, shape: tuple, dtype: _dtypes.dtype) -> jax.Array:
    """A fresh draw on the device: handed over, so on the CPU an aligned one is not copied."""
    return host_to_device(flat.reshape(shape).astype(dtype.jax, copy=False), owned=True)


def _normal_noise(generator, shape: tuple, dtype: _dtypes.dtype, mean=0.0, std=1.0):
    """normal_(mean, std) of a fresh tensor: PyTorch's values eagerly on the CPU backend."""
    g = host_generator(generator, dtype)
    if g is None:
        noise = _normal(_random.key(generator), shape, dtype.jax)
        return noise * jnp.asarray(std, dtype.jax) + jnp.asarray(mean, dtype.jax)
    flat = _draws.normal(g, math.prod(shape), np.dtype(dtype.jax), float(mean), float(std))
    return _from_host(flat, shape, dtype)


def _uniform_noise(generator, shape: tuple, dtype: _dtypes.dtype, low=0.0, high=1.0):
    """uniform_(low, high) of a fresh tensor: PyTorch's values eagerly on the CPU backend."""
    g = host_generator(generator, dtype)
    if g is None:
        unit = _uniform(_random.key(generator), shape, dtype.jax)
        return unit * jnp.asarray(high - low, dtype.jax) + jnp.asarray(low, dtype.jax)
    flat = _draws.uniform(g, math.prod(shape), np.dtype(dtype.jax), low, high)
    return _from_host(flat, shape, dtype)


_OPTIONS = (
    "Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device "
    "device = None, bool pin_memory = False, bool requires_grad = False)"
)
_SAMPLE_SIGNATURES = (
    f" * (tuple of ints size, *, torch.Generator generator, {_OPTIONS}",
    f" * (tuple of ints size, *, {_OPTIONS}",
)


def _sample(
    sampler, fname: str, sizes: tuple, size, generator, dtype, device, requires_grad: bool
) -> Tensor:
    """rand's and randn's samples (`sampler`: `_uniform_noise` or `_normal_noise`) from the
    global (or given) generator; the size is given as `sizes` or by the keyword `size`, not
    both; `fname` names the call in size errors."""
    if (size is None) == (not sizes):
        keywords = {} if size is None else {"size": size}
        raise _no_match(fname, sizes, _SAMPLE_SIGNATURES, reasons=False, keywords=keywords)
    shape, dtype = factory_shape(sizes, size, fname), _float_dtype(dtype)
    require_kernel(_KERNELS[fname], dtype.jax)
    if is_meta_device(device):  # nothing drawn: the generator does not advance
        return meta(shape, dtype, requires_grad)
    _memory.check_size(shape, dtype.itemsize, device)  # before the generator advances
    value = sampler(generator, shape, dtype)
    return _finish(_place(value, device), requires_grad)


# PyTorch's kernels drawing rand's and randn's samples, which its dtype errors name.
_KERNELS = {"rand": "check_uniform_bounds", "randn": "normal_kernel_cpu"}


@takes_out
def rand(
    *sizes, size=None, generator=None, dtype=None, device=None, requires_grad: bool = False
) -> Tensor:
    """Uniform samples in [0, 1) from the global (or given) generator."""
    return _sample(_uniform_noise, "rand", sizes, size, generator, dtype, device, requires_grad)


@takes_out
def randn(
    *sizes, size=None, generator=None, dtype=None, device=None, requires_grad: bool = False
) -> Tensor:
    """Standard normal samples from the global (or given) generator."""
    return _sample(_normal_noise, "randn", sizes, size, generator, dtype, device, requires_grad)


# ----------------------------------------------------------------------------- random
_randint = executables.jit(jax.random.randint, static_argnums=(1, 4))
_permutation = executables.jit(jax.random.permutation, static_argnums=(1,))


def _check_size(fname: str, size, position: int | None) -> tuple:
    """`size` of randint/normal: a tuple (or list) of non-negative ints, PyTorch's errors."""
    return new_shape((size,), fname, position=position, sequence=True)


def _check_from_to(low: int, high: int) -> None:
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )


_INT64_MAX = 2**63 - 1


def _wide_randint_fn(key, shape: tuple, offset, span):
    """Uniform int64 in [offset, offset + span) modulo 2**64 (span 0 stands for 2**64): a
    range jax.random.randint cannot take, its bounds being int64."""
    bits = jax.random.bits(key, shape, jnp.uint64)
    value = jnp.where(span == 0, bits, bits % jnp.maximum(span, jnp.uint64(1)))
    return (value + offset).astype(jnp.int64)


_wide_randint = executables.jit(_wide_randint_fn, static_argnums=(1,))


def _integers(generator, shape: tuple, low: int, high: int, dtype: _dtypes.dtype):
    """Uniform integers in [low, high) as `dtype` (drawn as int64, then cast): PyTorch's
    `draw % (high - low) + low` eagerly on the CPU backend."""
    g = host_generator(generator)
    if g is None and high > _INT64_MAX:  # past int64's range (random_() of int64: [0, 2**63))
        span, offset = np.uint64((high - low) % 2**64), np.uint64(low % 2**64)
        return _wide_randint(_random.key(generator), shape, offset, span).astype(dtype.jax)
    if g is None:
        value = _randint(_random.key(generator), shape, low, high, jnp.int64)
        return value.astype(dtype.jax)
    return _from_host(_draws.integers(g, math.prod(shape), high - low, low), shape, dtype)


@takes_out
def randint(
    *args,
    size=None,
    generator=None,
    dtype=None,
    device=None,
    requires_grad: bool = False,
    low=None,
    high=None,
) -> Tensor:
    """Uniform random integers in [low, high): `randint(high, size)` or
    `randint(low, high, size)`, each argument positional or by keyword; int64 unless `dtype`
    is given."""
    bounds = _randint_arguments(args, {"high": high, "low": low, "size": size})
    shape = _check_size("randint", bounds.size, bounds.size_position)
    low, high = int(bounds.low), int(bounds.high)
    _check_from_to(low, high)
    dtype = _dtypes.as_dtype(dtype) if dtype is not None else _dtypes.int64
    _check_bounds(low, high, dtype)
    if is_meta_device(device):
        return meta(shape, dtype, requires_grad)
    _memory.check_size(shape, 8, device)  # drawn as int64, before the generator advances
    return _finish(_place(_integers(generator, shape, low, high, dtype), device), requires_grad)


_RANDINT_FORMS = (("high", "size"), ("low", "high", "size"))
_RANDINT_SIGNATURES = (
    f" * (int high, tuple of ints size, *, torch.Generator generator, {_OPTIONS}",
    f" * (int high, tuple of ints size, *, {_OPTIONS}",
    f" * (int low, int high, tuple of ints size, *, torch.Generator generator, {_OPTIONS}",
    f" * (int low, int high, tuple of ints size, *, {_OPTIONS}",
)


class _RandintArguments(NamedTuple):
    """randint's arguments bound to one of its forms; `size_position` is None when the size
    was given by keyword (PyTorch's size errors name the position only otherwise)."""

    low: Any
    high: Any
    size: Any
    size_position: int | None


def _randint_arguments(args: tuple, given: dict) -> _RandintArguments:
    """`args` and the keywords in `given` (None: not given) bound to the first of randint's
    forms they fit, as PyTorch's parser does; its TypeError when none fits."""
    keywords = {k: v for k, v in given.items() if v is not None}
    for names in _RANDINT_FORMS:
        positional = dict(zip(names, args))
        if len(args) > len(names) or set(positional) & set(keywords) or set(keywords) - set(names):
            continue
        bound = {**positional, **keywords}
        sequences = [isinstance(bound.get(n), (tuple, list)) for n in names]
        if len(bound) == len(names) and (len(names) == 2 or sequences == [False, False, True]):
            position = names.index("size") + 1 if "size" in positional else None
            return _RandintArguments(bound.get("low", 0), bound["high"], bound["size"], position)
    raise _no_match("randint", args, _RANDINT_SIGNATURES, reasons=False, keywords=keywords)


# The C type names of PyTorch's random_from_to bounds check.
_BOUND_NAMES = {
    _dtypes.uint8: "unsigned char",
    _dtypes.int8: "signed char",
    _dtypes.int16: "short int",
    _dtypes.int32: "int",
    _dtypes.bool: "bool",
}


def _check_bounds(low: int, high: int, dtype: _dtypes.dtype) -> None:
    """PyTorch's error when [low, high) does not fit a narrow integral dtype."""
    name = _BOUND_NAMES.get(dtype)
    if name is None:
        return
    info = np.iinfo(dtype.jax) if dtype is not _dtypes.bool else np.iinfo(np.uint8)
    top = 1 if dtype is _dtypes.bool else info.max
    if not info.min <= low <= top:
        raise RuntimeError(f"from is out of bounds for {name}")
    if not info.min <= high - 1 <= top:
        raise RuntimeError(f"to - 1 is out of bounds for {name}")


@takes_out
def randperm(
    n: int, *, generator=None, dtype=None, device=None, requires_grad: bool = False
) -> Tensor:
    """A random permutation of 0..n-1 (int64 unless `dtype` is given)."""
    if type(n) is not int:
        if isinstance(n, bool) or not hasattr(n, "__index__"):
            raise TypeError(
                f"randperm(): argument 'n' (position 1) must be int, not {type_name(n)}"
            )
        n = n.__index__()
    new_shape((n,), "randperm")
    dtype = _dtypes.as_dtype(dtype) if dtype is not None else _dtypes.int64
    _memory.check_size((n,), 8, device)  # drawn as int64, before the generator advances
    g = host_generator(generator)
    if g is None:
        value = _permutation(_random.key(generator), n).astype(dtype.jax)
    else:
        value = _from_host(_draws.randperm(g, n), (n,), dtype)
    return _finish(_place(value, device), requires_grad)


def _random_like_dtype(input: Tensor, dtype, kernel: str) -> _dtypes.dtype:
    d = _dtypes.as_dtype(dtype) if dtype is not None else input.dtype
    require_kernel(kernel, d.jax)
    return d


def rand_like(
    input, *, dtype=None, device=None, requires_grad: bool = False, memory_format=None
) -> Tensor:
    """Uniform samples in [0, 1) with the shape (and dtype) of `input`."""
    d = _random_like_dtype(input, dtype, "check_uniform_bounds")
    return rand(tuple(input.shape), dtype=d, device=device, requires_grad=requires_grad)


def randn_like(
    input, *, dtype=None, device=None, requires_grad: bool = False, memory_format=None
) -> Tensor:
    """Standard normal samples with the shape (and dtype) of `input`."""
    d = _random_like_dtype(input, dtype, "normal_kernel_cpu")
    return randn(tuple(input.shape), dtype=d, device=device, requires_grad=requires_grad)


def randint_like(
    input,
    low: int = 0,
    high: int | None = None,
    *,
    dtype=None,
    device=None,
    requires_grad: bool = False,
    memory_format=None,
) -> Tensor:
    """Random integers in [low, high) (`randint_like(input, high)` also works) with the shape
    and dtype of `input`."""
    if high is None:
        low, high = 0, low
    low, high = int(low), int(high)
    _check_from_to(low, high)
    d = _dtypes.as_dtype(dtype) if dtype is not None else input.dtype
    value = _integers(None, tuple(input.shape), low, high, d)
    return _finish(_place(value, device), requires_grad)


def _unit_double(generator, shape: tuple):
    """float64 uniforms in [0, 1) (53-bit, from 64-bit draws: PyTorch's bernoulli_(p))."""
    g = host_generator(generator)
    if g is None:
        return _uniform(_random.key(generator), shape, jnp.float64)
    with g.lock:
        flat = _draws.unit(g, math.prod(shape), 53)
    return _from_host(flat, shape, _dtypes.float64)


def _sampled(mean, std, sample):
    """normal(mean, std) with tensors: the sample, drawn outside; PyTorch's gradient to mean
    and std is zero."""
    return sample


def _bernoulli_sample(p, uniform):
    """1 where `uniform` is below p (a host draw passes that outcome itself, as bools)."""
    if uniform.dtype == jnp.bool_:
        return uniform.astype(p.dtype)
    return (uniform < p).astype(p.dtype)


def _replace(x, sample):
    """The op of an in-place random fill: the new value, with zero gradient to the old one."""
    return jnp.broadcast_to(sample.astype(x.dtype), x.shape)


def _normal_signature_error(mean, std) -> TypeError:
    def kind(v):
        return "Tensor" if isinstance(v, Tensor) else type(v).__name__

    return TypeError(
        f"normal() received an invalid combination of arguments - got ({kind(mean)}, "
        f"{kind(std)}), but expected one of:\n"
        " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
        " * (Tensor mean, float std = 1, *, torch.Generator generator = None, "
        "Tensor out = None)\n"
        " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
        " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, "
        "Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
        "torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n"
    )


def _check_std_scalar(std) -> None:
    if std < 0:
        shown = int(std) if float(std).is_integer() else std
        raise RuntimeError(f"normal expects std >= 0.0, but found std {shown}")


@takes_out
def normal(
    mean,
    std=1.0,
    size=None,
    *,
    generator=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """Normal samples `mean + std * N(0, 1)`; `mean`/`std` may be tensors (broadcast; their
    gradient is zero, as PyTorch's NormalBackward nodes give).
    With two numbers, `size` is required."""
    mean_t, std_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mean_t and not std_t:
        if size is None:
            raise _normal_signature_error(mean, std)
        _check_std_scalar(std)
        d = _float_dtype(dtype)
        value = _normal_noise(generator, _check_size("normal", size, 3), d, mean, std)
        return _finish(_place(value, device), requires_grad)
    if size is not None:
        raise _normal_signature_error(mean, std)
    for t in (mean, std):
        if isinstance(t, Tensor) and not (t.dtype.is_floating_point or t.dtype.is_complex):
            raise NotImplementedError(
                f"\"normal_kernel_cpu\" not implemented for '{scalar_type_name(t.dtype)}'"
            )
    if std_t:
        std_value = std._value
        if not isinstance(std_value, jax.core.Tracer) and bool(np.any(np.asarray(std_value) < 0)):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    else:
        _check_std_scalar(std)
    if mean_t and std_t:
        shape = broadcast_shapes(tuple(mean.shape), tuple(std.shape))
        d = _dtypes.promote_types(mean.dtype, std.dtype)
        name = "NormalBackward3"
    elif mean_t:
        shape, d, name = tuple(mean.shape), mean.dtype, "NormalBackward1"
        std = constant(float(std), d.jax)
    else:
        shape, d, name = tuple(std.shape), std.dtype, "NormalBackward2"
        mean = constant(float(mean), d.jax)
    return apply(_RANDOM_OPS[name], mean, std, _scaled_noise(generator, shape, d, mean, std))


def _scaled_noise(generator, shape: tuple, d: _dtypes.dtype, mean, std):
    """PyTorch's `normal(mean, std)` with a tensor: standard normals times std, plus mean, each
    step rounded in the dtype (on the host when the draw is, so no multiply-add is fused)."""
    values = [v._value if isinstance(v, Tensor) else v for v in (mean, std)]
    g = host_generator(generator, d)
    if g is None or any(isinstance(v, jax.core.Tracer) for v in values):
        return _scale_shift(_normal_noise(generator, shape, d), values[1], values[0])
    dtype = np.dtype(d.jax)
    noise = _draws.normal(g, math.prod(shape), dtype, 0.0, 1.0).reshape(shape)
    center, scale = (np.asarray(v).astype(dtype) for v in values)
    return _from_host((noise * scale).astype(dtype) + center, shape, d)


@executables.jit
def _scale_shift(noise, std, mean):
    return (noise * std + mean).astype(noise.dtype)


def _no_derivative_bernoulli():
    @jax.custom_jvp
    def sample(p_tensor, uniform, p):
        return (uniform < p).astype(p_tensor.dtype)

    @sample.defjvp
    def _jvp(primals, tangents):
        raise RuntimeError("derivative for aten::bernoulli is not implemented")

    return sample


_bernoulli_p = _no_derivative_bernoulli()


# The random ops by node name, registered at import: the new value as a function of the noise
# (reparameterized for `normal` with tensor arguments), zero gradient to the old value.
_RANDOM_OPS = {
    node: register(op_id, fn, node=node, saves=saves)
    for node, op_id, fn, saves in (
        ("NormalBackward0", "normal_", _replace, "none"),
        ("NormalBackward1", "normal.tensor_float", _sampled, "none"),
        ("NormalBackward2", "normal.float_tensor", _sampled, "none"),
        ("NormalBackward3", "normal.tensor_tensor", _sampled, "none"),
        ("UniformBackward0", "uniform_", _replace, "none"),
        ("BernoulliBackward0", "bernoulli", _bernoulli_sample, "none"),
        ("torch::autograd::NotImplemented", "bernoulli.p", _bernoulli_p, "all"),
        ("BernoulliBackward1", "bernoulli_.tensor", _replace, "none"),
        ("BernoulliBackward2", "bernoulli_.float", _replace, "none"),
        ("RandomBackward0", "random_.from", _replace, "none"),
        ("RandomBackward1", "random_.to", _replace, "none"),
        ("RandomBackward2", "random_", _replace, "none"),
        ("ExponentialBackward0", "exponential_", _replace, "none"),
        ("CauchyBackward0", "cauchy_", _replace, "none"),
        ("LogNormalBackward0", "log_normal_", _replace, "none"),
        ("GeometricBackward0", "geometric_", _replace, "none"),
    )
}


def _gamma(concentration, key_data):
    """Gamma(concentration, 1) samples, differentiable in the concentration by implicit
    reparameterisation (jax.random.gamma's derivative, as PyTorch's _standard_gamma_grad)."""
    key = jax.random.wrap_key_data(key_data)
    return jax.random.gamma(key, concentration, dtype=concentration.dtype)


def _dirichlet(concentration, key_data):
    """Dirichlet samples along the last dim: gamma samples normalised, differentiable in the
    concentration through the gamma's implicit reparameterisation."""
    key = jax.random.wrap_key_data(key_data)
    return jax.random.dirichlet(key, concentration, dtype=concentration.dtype)


_STANDARD_GAMMA = register("_standard_gamma", _gamma, node="StandardGammaBackward0")
_DIRICHLET = register(
    "distributions.Dirichlet.rsample", _dirichlet, node="_DirichletBackward", shown_inputs=(0,)
)


def _concentration(input, fname: str, kernel: str) -> Tensor:
    if not isinstance(input, Tensor):
        raise TypeError(
            f"{fname}(): argument 'input' (position 1) must be Tensor, not {type_name(input)}"
        )
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{scalar_type_name(input.dtype)}'"
        )
    return input


def _standard_gamma(input, generator=None) -> Tensor:
    """Gamma(input, 1) samples, one per element, reparameterised: differentiable in `input`
    (`torch._standard_gamma`)."""
    alpha = _concentration(input, "_standard_gamma", "gamma_cpu")
    key_data = (generator or _random.default_generator).next_key()
    return apply(_STANDARD_GAMMA, alpha, key_data)


# The samplers' compilations take seconds (a rejection loop, and its implicit gradient), so
# the distributions draw from rows padded to a power of two: one compilation per bucket.
_SMALLEST_BUCKET = 64


def _bucketed(op, concentration: Tensor, event_dims: int, generator) -> Tensor:
    """`op` applied to `concentration` flattened to rows of its last `event_dims` dims,
    padded with ones up to a power of two of rows, and cut back to its shape."""
    shape = tuple(concentration.shape)
    event = shape[len(shape) - event_dims :]
    rows = math.prod(shape[: len(shape) - event_dims])
    bucket = max(_SMALLEST_BUCKET, 1 << max(rows - 1, 0).bit_length())
    flat = reshape(concentration, (rows, *event))
    if bucket > rows:
        padding = _finish(jnp.ones((bucket - rows, *event), concentration.dtype.jax), False)
        flat = cat([flat, padding])
    key_data = (generator or _random.default_generator).next_key()
    return reshape(narrow(apply(op, flat, key_data), 0, 0, rows), shape)


def sample_gamma(concentration: Tensor, generator=None) -> Tensor:
    """`_standard_gamma` drawn in buckets of rows (see `_bucketed`): the sample of
    `torch.distributions.Gamma.rsample` before its rate."""
    alpha = _concentration(concentration, "_standard_gamma", "gamma_cpu")
    return _bucketed(_STANDARD_GAMMA, alpha, 0, generator)


def sample_dirichlet(concentration: Tensor, generator=None) -> Tensor:
    """Dirichlet(concentration) samples along the last dim, reparameterised (the sample of
    `torch.distributions.Dirichlet.rsample`), drawn in buckets of rows."""
    alpha = _concentration(concentration, "_sample_dirichlet", "dirichlet")
    return _bucketed(_DIRICHLET, alpha, 1, generator)


@takes_out
def bernoulli(input, p=None, *, generator=None) -> Tensor:
    """0/1 samples with probabilities `input` (or the number `p`), in `input`'s dtype."""
    if not isinstance(input, Tensor):
        raise TypeError(
            f"bernoulli(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise NotImplementedError(
            f"\"bernoulli_tensor_cpu_p_\" not implemented for '{scalar_type_name(input.dtype)}'"
        )
    shape = tuple(input.shape)
    if p is not None:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        op = _RANDOM_OPS["torch::autograd::NotImplemented"]
        return apply(op, input, _unit_double(generator, shape), constant(float(p), jnp.float64))
    value = input._value
    if not isinstance(value, jax.core.Tracer):
        array = np.asarray(value)
        if np.any((array < 0) | (array > 1) | np.isnan(array)):
            raise RuntimeError(
                "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
                "message be improved?  If so, please report an enhancement request to PyTorch.)"
            )
        g = host_generator(generator, input.dtype)
        if g is not None:
            mask = _draws.bernoulli_tensor(g, array)
            return apply(
                _RANDOM_OPS["BernoulliBackward0"], input, _from_host(mask, shape, _dtypes.bool)
            )
    uniform = _uniform(_random.key(generator), shape, input.dtype.jax)
    return apply(_RANDOM_OPS["BernoulliBackward0"], input, uniform)


# ----------------------------------------------------------------------------- in-place fills
def _stored_dtype(self: Tensor) -> _dtypes.dtype:
    return _dtypes.as_dtype(self._stored.dtype)


def _fill_random(self: Tensor, name: str, sample) -> Tensor:
    """Commit `sample` into self through a recorded op (zero gradient to the old value)."""
    check_inplace(self)
    return commit_inplace(self, apply(_RANDOM_OPS[name], self, sample))


def _require_float(self: Tensor, kernel: str) -> None:
    d = self.dtype
    if not (d.is_floating_point or d.is_complex):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(d)}'")


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator=None) -> Tensor:
    """Fill with samples from N(mean, std**2) in place."""
    _require_float(self, "normal_kernel_cpu")
    _check_std_scalar(std)
    sample = _normal_noise(generator, tuple(self.shape), _stored_dtype(self), mean, std)
    return _fill_random(self, "NormalBackward0", sample)


def uniform_(self: Tensor, a: float = 0.0, b: float = 1.0, *, generator=None, **kwargs) -> Tensor:
    """Fill with samples from U[a, b) in place (`from`/`to` are accepted as keywords)."""
    a = kwargs.pop("from", a)
    b = kwargs.pop("to", b)
    if kwargs:
        raise TypeError(f"uniform_() got unexpected keyword arguments {sorted(kwargs)}")
    _require_float(self, "check_uniform_bounds")
    if a > b:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={a} > to={b}"
        )
    sample = _uniform_noise(generator, tuple(self.shape), _stored_dtype(self), a, b)
    return _fill_random(self, "UniformBackward0", sample)


def bernoulli_(self: Tensor, p=0.5, *, generator=None) -> Tensor:
    """Fill with 0/1 samples that are 1 with probability `p` (a number or a tensor)."""
    shape = tuple(self.shape)
    if isinstance(p, Tensor):
        name = "BernoulliBackward1"
        p = p.detach().expand(shape)  # PyTorch's error for a p that does not broadcast
        g = host_generator(generator, p.dtype)
        if g is not None and not isinstance(p._value, jax.core.Tracer):
            probs = np.broadcast_to(np.asarray(p._value), shape)
            sample = _from_host(_draws.bernoulli_tensor(g, probs), shape, _dtypes.bool)
        else:
            uniform = _uniform(_random.key(generator), shape, jnp.float64)
            sample = uniform < jnp.broadcast_to(p._value.astype(jnp.float64), shape)
    else:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        sample = _unit_double(generator, shape) < p
        name = "BernoulliBackward2"
    return _fill_random(self, name, sample)


_RANDOM_FLOAT_RANGE = {
    _dtypes.float16: 2**11,
    _dtypes.bfloat16: 2**8,
    _dtypes.float32: 2**24,
    _dtypes.float64: 2**53,
}


def _random_top(d: _dtypes.dtype) -> int:
    """The largest value `random_()` draws for dtype `d` (2**digits for floats)."""
    if d is _dtypes.bool:
        return 1
    if d in _RANDOM_FLOAT_RANGE:
        return _RANDOM_FLOAT_RANGE[d]
    return int(jnp.iinfo(d.jax).max)


def _random_name(d: _dtypes.dtype) -> str:
    return "bool" if d is _dtypes.bool else np.dtype(d.jax).name


def random_(self: Tensor, *args, generator=None, **kwargs) -> Tensor:
    """Fill with random integers: `random_()` over the dtype's exact-integer range,
    `random_(to)` in [0, to), `random_(from, to)` in [from, to)."""
    low = kwargs.pop("from", None)
    high = kwargs.pop("to", None)
    if kwargs:
        raise TypeError(f"random_() got unexpected keyword arguments {sorted(kwargs)}")
    if len(args) == 1:
        high = args[0]
    elif len(args) == 2:
        low, high = args
    elif len(args) > 2:
        raise TypeError(f"random_() takes at most 2 positional arguments ({len(args)} given)")
    d = self.dtype
    if high is None:
        name = "RandomBackward2"
        top = _random_top(d)
        g = host_generator(generator)
        if low is None and g is not None:
            shape = tuple(self.shape)
            flat = _draws.full_range(g, math.prod(shape), _random_name(d), top)
            return _fill_random(self, name, _from_host(flat, shape, _dtypes.int64))
        low = 0 if low is None else int(low)
        high = top + 1
    else:
        name = "RandomBackward1" if low is None else "RandomBackward0"
        low = 0 if low is None else int(low)
        high = int(high)
    _check_from_to(low, high)
    sample = _integers(generator, tuple(self.shape), low, high, _dtypes.int64)
    return _fill_random(self, name, sample)


def exponential_(self: Tensor, lambd: float = 1.0, *, generator=None) -> Tensor:
    """Fill with samples from the exponential distribution of rate `lambd` in place."""
    if not self.dtype.is_floating_point:
        raise RuntimeError(
            "Exponential distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {scalar_type_name(self.dtype)}"
        )
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    shape, dtype = tuple(self.shape), _stored_dtype(self)
    g = host_generator(generator, dtype)
    if g is None:
        uniform = _uniform(_random.key(generator), shape, dtype.jax)
        sample = -jnp.log1p(-uniform) / jnp.asarray(lambd, dtype.jax)
    else:
        sample = _from_host(_draws.exponential(g, math.prod(shape), float(lambd)), shape, dtype)
    return _fill_random(self, "ExponentialBackward0", sample)
