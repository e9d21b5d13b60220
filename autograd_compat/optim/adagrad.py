"""Adagrad (PyTorch's single-tensor rule, with lr_decay and initial_accumulator_value)."""

from __future__ import annotations

import jax.numpy as jnp

from ..nn import _arrays
from .optimizer import Optimizer, _check_non_negative, cast, jit_update, new_state

__all__ = ["Adagrad", "adagrad_update"]


def adagrad_update(params, grads, states, hyper, *, flags):
    """Pure Adagrad step; `states[i] = (step, sum)`.

    hyper = [lr, lr_decay, eps, weight_decay]; flags = (has_weight_decay, maximize).
    Follows torch/optim/adagrad.py `_single_tensor_adagrad` (dense gradients).
    """
    lr, lr_decay, eps, weight_decay = (hyper[i] for i in range(4))
    has_weight_decay, maximize = flags
    new_params, new_states = [], []
    for param, grad, (step, state_sum) in zip(params, grads, states):
        step = step + jnp.ones((), step.dtype)
        grad = -grad if maximize else grad
        if has_weight_decay:
            grad = grad + cast(weight_decay, param) * param
        clr = lr / (1 + (step.astype(jnp.float64) - 1) * lr_decay)
        state_sum = state_sum + grad * grad
        std = jnp.sqrt(state_sum) + cast(eps, state_sum)
        param = param + cast(-clr, param) * grad / std
        new_params.append(param)
        new_states.append((step, state_sum))
    return tuple(new_params), tuple(new_states)


class Adagrad(Optimizer):
    """Adagrad with PyTorch's defaults (lr=1e-2, eps=1e-10); state is created up front."""

    _state_keys = ("step", "sum")
    _hyper_keys = ("lr", "lr_decay", "eps", "weight_decay")
    _update = jit_update(adagrad_update)

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
        _check_non_negative(
            lr=lr,
            lr_decay=lr_decay,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            eps=eps,
        )
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, group, self.state[p])

    def _init_state(self, param, group, state) -> None:
        new_state(param, state)
        state["sum"] = _arrays.zeros_like(param, group["initial_accumulator_value"])

    def _flags(self, group: dict) -> tuple:
        return (group["weight_decay"] != 0, bool(group["maximize"]))
