"""Adam and AdamW (PyTorch's single-tensor rules; Adam's weight_decay is L2 on the gradient)."""

from __future__ import annotations

import jax.numpy as jnp

from ._rules import bias_correction, cast, decay, jit_update, moments, next_step
from .optimizer import Optimizer, _scalar, check_arguments, new_state

__all__ = ["Adam", "AdamW", "adam_rule"]


def adam_rule(param, grad, state, hyper, switches):
    """One parameter's Adam/AdamW step; `state = (step, exp_avg, exp_avg_sq, max_exp_avg_sq
    or None)`.

    hyper = [lr, beta1, beta2, eps, weight_decay]; switches = (weight decay, amsgrad). Follows
    torch/optim/adam.py `_single_tensor_adam` (non-capturable): the bias corrections are
    computed in float64 from the step, as Python floats are there, then cast to the parameter
    dtype.
    """
    lr, beta1, beta2, eps, weight_decay = hyper
    weight_decay_mode, amsgrad = switches
    step, exp_avg, exp_avg_sq, max_exp_avg_sq = state
    step, count = next_step(step)
    param, grad = decay(param, grad, lr, weight_decay, weight_decay_mode)
    exp_avg, exp_avg_sq = moments(exp_avg, exp_avg_sq, grad, beta1, beta2)
    step_size = lr / bias_correction(beta1, count)
    bias_correction2_sqrt = jnp.sqrt(bias_correction(beta2, count))
    if amsgrad:
        max_exp_avg_sq = jnp.maximum(max_exp_avg_sq, exp_avg_sq)
        second = max_exp_avg_sq
    else:
        second = exp_avg_sq
    denom = jnp.sqrt(second) / cast(bias_correction2_sqrt, second) + cast(eps, second)
    param = param + cast(-step_size, param) * exp_avg / denom
    return param, (step, exp_avg, exp_avg_sq, max_exp_avg_sq)


class Adam(Optimizer):
    """Adam (Kingma & Ba), PyTorch's update rule and defaults (lr=1e-3, betas=(0.9, 0.999)).

    `weight_decay` adds weight_decay * p to the gradient (L2), unless
    `decoupled_weight_decay=True` (then it is AdamW).

    Example::

        >>> model = nn.Linear(2, 1)
        >>> optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        >>> model(torch.ones(1, 2)).sum().backward()
        >>> before = model.bias.detach().clone()
        >>> optimizer.step()  # Adam's first step moves each parameter by about lr
        >>> before - model.bias.detach()
        tensor([0.0010])
    """

    _state_keys = ("step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq")
    _hyper_keys = ("lr", "betas", "eps", "weight_decay")
    _group_keys = (
        "lr betas eps weight_decay amsgrad maximize foreach capturable differentiable fused"
        " decoupled_weight_decay"
    )
    _update = jit_update(adam_rule)

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach=None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused=None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        check_arguments(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        betas = tuple(_scalar(b) for b in betas)
        super().__init__(params, self._defaults(locals(), lr=_scalar(lr)))

    def _init_state(self, param, group, state) -> None:
        new_state(param, state, exp_avg=True, exp_avg_sq=True, max_exp_avg_sq=group["amsgrad"])

    def _flags(self, group: dict) -> tuple:
        return (*super()._flags(group), bool(group["amsgrad"]))


class AdamW(Adam):
    """Adam with decoupled weight decay: p = p * (1 - lr * weight_decay) before the Adam step.

    Defaults as PyTorch: lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2.
    """

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach=None,
        capturable: bool = False,
        differentiable: bool = False,
        fused=None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )
