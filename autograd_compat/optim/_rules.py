"""The pure maths the optimizers' update rules share, and how a rule becomes a jitted step.

A rule updates one parameter: `rule(param, grad, state, hyper, switches) -> (param, state)`, with
`state` the tuple of its `_state_keys` arrays (None where a buffer is not kept), `hyper` the
float64 array of its `_hyper_keys` values and `switches` the static tuple of `Optimizer._flags`.
The helpers follow PyTorch's single-tensor CPU paths in the order of their operations and in
where a Python-float hyperparameter is cast to the tensor's dtype, so the numbers follow PyTorch's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp

from .._pure import executables

__all__ = [
    "bias_correction",
    "cast",
    "decay",
    "jit_update",
    "lerp",
    "moments",
    "next_step",
    "squared_average",
]


class JitUpdate:
    """A rule's jitted step over a group, and its twin that donates the parameters and states
    it replaces, so XLA writes the new values over the old (no second copy of the model, and
    no new buffers to allocate: an SGD step of a 784-256-10 MLP ran ~1.7x faster in JAX
    alone). `Optimizer._step_group` donates only arrays nothing else holds."""

    __slots__ = ("plain", "donating")

    def __init__(self, update: Callable[..., Any]) -> None:
        self.plain = executables.jit(update, static_argnames=("flags",))
        self.donating = executables.jit(update, static_argnames=("flags",), donate_argnums=(0, 2))


def jit_update(rule: Callable[..., tuple[Any, tuple]]) -> JitUpdate:
    """`Optimizer._update` for a one-parameter `rule`: a jitted step over tuples of parameters,
    gradients and states, with the gradient negated first where the group maximizes (as each of
    PyTorch's update rules does before anything reads it). The rule is a jitted function of its
    own inside the step, so JAX traces it once per parameter shape and dtype rather than once
    per parameter (nanoGPT's first AdamW step with a warm compilation cache: 0.19 s of CPU
    against 0.28); XLA inlines the calls, so the program computes what it did."""

    one = executables.jit(rule, static_argnums=4)

    def update(params, grads, states, hyper, *, flags):
        maximize, switches = flags
        new_params, new_states = [], []
        for param, grad, state in zip(params, grads, states):
            param, state = one(param, -grad if maximize else grad, state, hyper, switches)
            new_params.append(param)
            new_states.append(state)
        return tuple(new_params), tuple(new_states)

    return JitUpdate(update)


def cast(value, like):
    """A float64 hyperparameter (a jit input) cast to the dtype of `like`, as PyTorch's
    scalar arguments are cast to the tensor's dtype."""
    return value.astype(like.dtype)


def lerp(start, end, weight):
    """PyTorch's CPU lerp: s + w (e - s) for |w| < 0.5, else e - (e - s)(1 - w)."""
    weight = weight.astype(start.dtype)
    diff = end - start
    return jnp.where(jnp.abs(weight) < 0.5, start + weight * diff, end - diff * (1 - weight))


def next_step(step):
    """The step count after this step (the float32 state) and it as float64, as PyTorch reads
    it into a Python float for the step-dependent quantities."""
    step = step + jnp.ones((), step.dtype)
    return step, step.astype(jnp.float64)


def bias_correction(beta, count):
    """1 - beta ** step, in float64 as PyTorch's Python floats."""
    return 1 - beta**count


def decay(param, grad, lr, weight_decay, mode):
    """Weight decay as `Optimizer._flags` says: None (none), "l2" (weight_decay * param added
    to the gradient) or "decoupled" (AdamW's param * (1 - lr * weight_decay))."""
    if mode == "decoupled":
        return param * cast(1 - lr * weight_decay, param), grad
    if mode == "l2":
        return param, grad + cast(weight_decay, param) * param
    return param, grad


def squared_average(average, grad, beta):
    """The running average of the squared gradient: average * beta + (1 - beta) * grad²."""
    return average * cast(beta, average) + cast(1 - beta, grad) * grad * grad


def moments(exp_avg, exp_avg_sq, grad, beta1, beta2):
    """Adam's first and second moments after this gradient (exp_avg by PyTorch's lerp)."""
    return lerp(exp_avg, grad, 1 - beta1), squared_average(exp_avg_sq, grad, beta2)
