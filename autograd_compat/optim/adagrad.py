"""Adagrad (PyTorch's single-tensor rule, with lr_decay and initial_accumulator_value)."""

from __future__ import annotations

import jax.numpy as jnp

from ..nn import _arrays
from ._rules import cast, decay, jit_update, next_step
from .optimizer import Optimizer, check_arguments, new_state

__all__ = ["Adagrad", "adagrad_rule"]


def adagrad_rule(param, grad, state, hyper, switches):
    """One parameter's Adagrad step; `state = (step, sum)`.

    hyper = [lr, lr_decay, eps, weight_decay]; switches = (weight decay,).
    Follows torch/optim/adagrad.py `_single_tensor_adagrad` (dense gradients).
    """
    lr, lr_decay, eps, weight_decay = hyper
    (weight_decay_mode,) = switches
    step, state_sum = state
    step, count = next_step(step)
    param, grad = decay(param, grad, lr, weight_decay, weight_decay_mode)
    clr = lr / (1 + (count - 1) * lr_decay)
    state_sum = state_sum + grad * grad
    std = jnp.sqrt(state_sum) + cast(eps, state_sum)
    return param + cast(-clr, param) * grad / std, (step, state_sum)


class Adagrad(Optimizer):
    """Adagrad with PyTorch's defaults (lr=1e-2, eps=1e-10); state is created up front."""

    _state_keys = ("step", "sum")
    _hyper_keys = ("lr", "lr_decay", "eps", "weight_decay")
    _group_keys = (
        "lr lr_decay eps weight_decay initial_accumulator_value"
        " foreach maximize differentiable fused"
    )
    _update = jit_update(adagrad_rule)

    def __init__(
        self,
        params,
        lr=1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach=None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused=None,
    ) -> None:
        check_arguments(
            lr=lr,
            lr_decay=lr_decay,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            eps=eps,
        )
        super().__init__(params, self._defaults(locals()))
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, group, self.state[p])

    def _init_state(self, param, group, state) -> None:
        new_state(param, state)
        state["sum"] = _arrays.zeros_like(param, group["initial_accumulator_value"])
