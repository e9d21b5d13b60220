"""Randomized leaky ReLU: a slope drawn uniformly from [lower, upper] for each non-positive
element in training, their mean otherwise. Eagerly on the CPU backend the slopes are
PyTorch's (`rrelu_with_noise`'s CPU kernel: one float64 uniform per element <= 0, in order);
in a trace or on an accelerator they come from a JAX key, an op input drawn from the
generator."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..._pure import dtypes as _dtypes
from ..._pure.device import host_buffer, host_to_device
from ..._pure.op import scalar_input
from ..._state import draws
from ..._tape.args import scalar_type_name
from ..._tape.record import apply
from ..random import host_generator
from ._common import _inplace_result, _is_key, _key_array, _tensor, register

__all__ = ["rrelu", "rrelu_"]


def _rrelu_fn(x, key, lower, upper):
    lower, upper = lower.astype(x.dtype), upper.astype(x.dtype)
    slope = jax.random.uniform(jax.random.wrap_key_data(key), x.shape, x.dtype, lower, upper)
    return jnp.where(x <= 0, x * slope, x)


def _rrelu_op(x, source, lower, upper):
    """`source`: PyTorch's noise from the host (the slope of each element <= 0, 1 for the
    others), multiplied in, or key data for the JAX slopes (a trace, an accelerator)."""
    return _rrelu_fn(x, source, lower, upper) if _is_key(source) else x * source


def _rrelu_eval_fn(x, slope):
    return jnp.where(x > 0, x, x * slope.astype(x.dtype))


# (training, inplace) -> op; the in-place forms record PyTorch's RreluWithNoiseBackward1.
_RRELU = {
    (True, False): register("rrelu", _rrelu_op, node="RreluWithNoiseBackward0", shown_inputs=(0,)),
    (False, False): register(
        "rrelu.eval", _rrelu_eval_fn, node="RreluWithNoiseBackward0", shown_inputs=(0,)
    ),
    (True, True): register("rrelu_", _rrelu_op, node="RreluWithNoiseBackward1", shown_inputs=(0,)),
    (False, True): register(
        "rrelu_.eval", _rrelu_eval_fn, node="RreluWithNoiseBackward1", shown_inputs=(0,)
    ),
}


def _host_noise(input, lower: float, upper: float) -> jax.Array | None:
    """PyTorch's training noise for `input` (None in a trace or on an accelerator): for each
    element <= 0 in order a float64 uniform on [lower, upper) (the bounds first rounded to
    the float type PyTorch computes in: float32 for float16/bfloat16), rounded to that type;
    1 for the others (NaN included)."""
    g = host_generator(None, input.dtype)
    if g is None or isinstance(input._value, jax.core.Tracer):
        return None
    values = np.asarray(input._value)
    compute = np.float64 if values.dtype == np.float64 else np.float32
    low, high = float(compute(lower)), float(compute(upper))
    with np.errstate(invalid="ignore"):  # (ml_dtypes' bfloat16 compare warns on NaN)
        negative = values <= 0
    uniform = draws.uniform(g, int(np.count_nonzero(negative)), np.dtype(np.float64), low, high)
    noise = host_buffer(values.shape, compute)
    noise.fill(1)
    noise[negative] = uniform
    return host_to_device(noise, owned=True)


def rrelu(
    input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
    inplace: bool = False,
):  # fmt: skip
    """x for x > 0, else x times a slope from U(lower, upper) (training) or their mean."""
    _tensor(input, "rrelu")
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    # PyTorch's CPU training kernel has no float16 form (its evaluation, leaky_relu, has)
    if not input.dtype.is_floating_point or (training and input.dtype is _dtypes.float16):
        kernel = "rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu"
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{scalar_type_name(input.dtype)}'"
        )
    if training:
        bounds = scalar_input(float(lower)), scalar_input(float(upper))
        noise = _host_noise(input, lower, upper)
        source = _key_array() if noise is None else noise
        result = apply(_RRELU[True, bool(inplace)], input, source, *bounds)
    else:
        result = apply(_RRELU[False, bool(inplace)], input, scalar_input((lower + upper) / 2))
    return _inplace_result(input, result, inplace)


def rrelu_(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False):
    """In-place rrelu."""
    return rrelu(input, lower, upper, training, inplace=True)
