"""RMSprop (PyTorch's single-tensor rule: centered, momentum, weight decay)."""

from __future__ import annotations

import jax.numpy as jnp

from ._rules import cast, decay, jit_update, lerp, next_step, squared_average
from .optimizer import Optimizer, check_arguments, new_state

__all__ = ["RMSprop", "rmsprop_rule"]


def rmsprop_rule(param, grad, state, hyper, switches):
    """One parameter's RMSprop step; `state = (step, square_avg, momentum_buffer, grad_avg)`.

    hyper = [lr, alpha, eps, weight_decay, momentum]; switches = (weight decay, centered,
    has_momentum). Follows torch/optim/rmsprop.py `_single_tensor_rmsprop`.
    """
    lr, alpha, eps, weight_decay, momentum = hyper
    weight_decay_mode, centered, has_momentum = switches
    step, square_avg, buf, grad_avg = state
    step, _ = next_step(step)
    param, grad = decay(param, grad, lr, weight_decay, weight_decay_mode)
    square_avg = squared_average(square_avg, grad, alpha)
    if centered:
        grad_avg = lerp(grad_avg, grad, 1 - alpha)
        avg = jnp.sqrt(square_avg - grad_avg * grad_avg)
    else:
        avg = jnp.sqrt(square_avg)
    avg = avg + cast(eps, avg)
    if has_momentum:
        buf = buf * cast(momentum, buf) + grad / avg
        param = param + cast(-lr, param) * buf
    else:
        param = param + cast(-lr, param) * grad / avg
    return param, (step, square_avg, buf, grad_avg)


class RMSprop(Optimizer):
    """RMSprop with PyTorch's defaults (lr=1e-2, alpha=0.99, eps=1e-8)."""

    _state_keys = ("step", "square_avg", "momentum_buffer", "grad_avg")
    _hyper_keys = ("lr", "alpha", "eps", "weight_decay", "momentum")
    _group_keys = (
        "lr momentum alpha eps centered weight_decay capturable foreach maximize differentiable"
    )
    _update = jit_update(rmsprop_rule)

    def __init__(
        self,
        params,
        lr=1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach=None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_arguments(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        super().__init__(params, self._defaults(locals()))

    def _init_state(self, param, group, state) -> None:
        new_state(
            param,
            state,
            square_avg=True,
            momentum_buffer=group["momentum"] > 0,
            grad_avg=group["centered"],
        )

    def _flags(self, group: dict) -> tuple:
        return (*super()._flags(group), bool(group["centered"]), group["momentum"] > 0)
