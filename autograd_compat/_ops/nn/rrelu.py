"""Randomized leaky ReLU: a slope drawn uniformly from [lower, upper] for each non-positive
element in training, their mean otherwise; the key is an op input drawn from the library's
generator, so the slopes differ from PyTorch's draws."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ..._pure.op import scalar_input
from ..._tape.args import scalar_type_name
from ..._tape.record import apply
from ._common import _inplace_result, _key_array, _tensor, register

__all__ = ["rrelu", "rrelu_"]


def _rrelu_fn(x, key, lower, upper):
    lower, upper = lower.astype(x.dtype), upper.astype(x.dtype)
    slope = jax.random.uniform(jax.random.wrap_key_data(key), x.shape, x.dtype, lower, upper)
    return jnp.where(x <= 0, x * slope, x)


def _rrelu_eval_fn(x, slope):
    return jnp.where(x > 0, x, x * slope.astype(x.dtype))


# (training, inplace) -> op; the in-place forms record PyTorch's RreluWithNoiseBackward1.
_RRELU = {
    (True, False): register("rrelu", _rrelu_fn, node="RreluWithNoiseBackward0", shown_inputs=(0,)),
    (False, False): register(
        "rrelu.eval", _rrelu_eval_fn, node="RreluWithNoiseBackward0", shown_inputs=(0,)
    ),
    (True, True): register("rrelu_", _rrelu_fn, node="RreluWithNoiseBackward1", shown_inputs=(0,)),
    (False, True): register(
        "rrelu_.eval", _rrelu_eval_fn, node="RreluWithNoiseBackward1", shown_inputs=(0,)
    ),
}


def rrelu(
    input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
    inplace: bool = False,
):  # fmt: skip
    """x for x > 0, else x times a slope from U(lower, upper) (training) or their mean."""
    _tensor(input, "rrelu")
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not input.dtype.is_floating_point:
        kernel = "rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu"
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{scalar_type_name(input.dtype)}'"
        )
    if training:
        bounds = scalar_input(float(lower)), scalar_input(float(upper))
        result = apply(_RRELU[True, bool(inplace)], input, _key_array(), *bounds)
    else:
        result = apply(_RRELU[False, bool(inplace)], input, scalar_input((lower + upper) / 2))
    return _inplace_result(input, result, inplace)


def rrelu_(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False):
    """In-place rrelu."""
    return rrelu(input, lower, upper, training, inplace=True)
