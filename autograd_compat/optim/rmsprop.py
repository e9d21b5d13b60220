"""RMSprop (PyTorch's single-tensor rule: centered, momentum, weight decay)."""

from __future__ import annotations

import jax.numpy as jnp

from .adam import _lerp
from .optimizer import Optimizer, _check_non_negative, cast, jit_update, new_state

__all__ = ["RMSprop", "rmsprop_update"]


def rmsprop_update(params, grads, states, hyper, *, flags):
    """Pure RMSprop step; `states[i] = (step, square_avg, momentum_buffer, grad_avg)`.

    hyper = [lr, alpha, eps, weight_decay, momentum]; flags = (has_weight_decay, centered,
    has_momentum, maximize). Follows torch/optim/rmsprop.py `_single_tensor_rmsprop`.
    """
    lr, alpha, eps, weight_decay, momentum = (hyper[i] for i in range(5))
    has_weight_decay, centered, has_momentum, maximize = flags
    new_params, new_states = [], []
    for param, grad, (step, square_avg, buf, grad_avg) in zip(params, grads, states):
        grad = -grad if maximize else grad
        step = step + jnp.ones((), step.dtype)
        if has_weight_decay:
            grad = grad + cast(weight_decay, param) * param
        square_avg = square_avg * cast(alpha, square_avg) + cast(1 - alpha, grad) * grad * grad
        if centered:
            grad_avg = _lerp(grad_avg, grad, 1 - alpha)
            avg = jnp.sqrt(square_avg - grad_avg * grad_avg)
        else:
            avg = jnp.sqrt(square_avg)
        avg = avg + cast(eps, avg)
        if has_momentum:
            buf = buf * cast(momentum, buf) + grad / avg
            param = param + cast(-lr, param) * buf
        else:
            param = param + cast(-lr, param) * grad / avg
        new_params.append(param)
        new_states.append((step, square_avg, buf, grad_avg))
    return tuple(new_params), tuple(new_states)


class RMSprop(Optimizer):
    """RMSprop with PyTorch's defaults (lr=1e-2, alpha=0.99, eps=1e-8)."""

    _state_keys = ("step", "square_avg", "momentum_buffer", "grad_avg")
    _hyper_keys = ("lr", "alpha", "eps", "weight_decay", "momentum")
    _update = jit_update(rmsprop_update)

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
        _check_non_negative(
            lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha
        )
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _init_state(self, param, group, state) -> None:
        new_state(
            param,
            state,
            square_avg=True,
            momentum_buffer=group["momentum"] > 0,
            grad_avg=group["centered"],
        )

    def _flags(self, group: dict) -> tuple:
        return (
            group["weight_decay"] != 0,
            bool(group["centered"]),
            group["momentum"] > 0,
            bool(group["maximize"]),
        )
