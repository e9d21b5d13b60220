"""Adadelta (PyTorch's single-tensor rule, with weight decay)."""

from __future__ import annotations

import jax.numpy as jnp

from ._rules import cast, decay, jit_update, next_step, squared_average
from .optimizer import Optimizer, check_arguments, new_state

__all__ = ["Adadelta", "adadelta_rule"]


def adadelta_rule(param, grad, state, hyper, switches):
    """One parameter's Adadelta step; `state = (step, square_avg, acc_delta)`.

    hyper = [lr, rho, eps, weight_decay]; switches = (weight decay,).
    Follows torch/optim/adadelta.py `_single_tensor_adadelta`.
    """
    lr, rho, eps, weight_decay = hyper
    (weight_decay_mode,) = switches
    step, square_avg, acc_delta = state
    step, _ = next_step(step)
    param, grad = decay(param, grad, lr, weight_decay, weight_decay_mode)
    square_avg = squared_average(square_avg, grad, rho)
    std = jnp.sqrt(square_avg + cast(eps, square_avg))
    delta = jnp.sqrt(acc_delta + cast(eps, acc_delta)) / std * grad
    acc_delta = squared_average(acc_delta, delta, rho)
    return param + cast(-lr, param) * delta, (step, square_avg, acc_delta)


class Adadelta(Optimizer):
    """Adadelta with PyTorch's defaults (lr=1.0, rho=0.9, eps=1e-6).

    Example::

        >>> w = torch.nn.Parameter(torch.ones(2))
        >>> opt = torch.optim.Adadelta([w])
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        Parameter containing:
        tensor([0.9968, 0.9968], requires_grad=True)
    """

    _state_keys = ("step", "square_avg", "acc_delta")
    _hyper_keys = ("lr", "rho", "eps", "weight_decay")
    _group_keys = "lr rho eps weight_decay maximize capturable foreach differentiable"
    _update = jit_update(adadelta_rule)

    def __init__(
        self,
        params,
        lr=1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach=None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_arguments(lr=lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_arguments(eps=eps, weight_decay=weight_decay)
        super().__init__(params, self._defaults(locals()))

    def _init_state(self, param, group, state) -> None:
        new_state(param, state, square_avg=True, acc_delta=True)
