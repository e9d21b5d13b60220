"""Adam and AdamW (PyTorch's single-tensor rules; Adam's weight_decay is L2 on the gradient)."""

from __future__ import annotations

import jax.numpy as jnp

from .optimizer import Optimizer, _check_non_negative, _scalar, cast, jit_update, new_state

__all__ = ["Adam", "AdamW", "adam_update"]


def _lerp(start, end, weight):
    """PyTorch's CPU lerp: s + w (e - s) for |w| < 0.5, else e - (e - s)(1 - w)."""
    weight = weight.astype(start.dtype)
    diff = end - start
    return jnp.where(jnp.abs(weight) < 0.5, start + weight * diff, end - diff * (1 - weight))


def adam_update(params, grads, states, hyper, *, flags):
    """Pure Adam/AdamW step; `states[i] = (step, exp_avg, exp_avg_sq, max_exp_avg_sq or None)`.

    hyper = [lr, beta1, beta2, eps, weight_decay]; flags = (has_weight_decay, amsgrad,
    maximize, decoupled_weight_decay). Follows torch/optim/adam.py `_single_tensor_adam`
    (non-capturable): the bias corrections are computed in float64 from the step, as Python
    floats are there, then cast to the parameter dtype.
    """
    lr, beta1, beta2, eps, weight_decay = (hyper[i] for i in range(5))
    has_weight_decay, amsgrad, maximize, decoupled = flags
    new_params, new_states = [], []
    for param, grad, (step, exp_avg, exp_avg_sq, max_exp_avg_sq) in zip(params, grads, states):
        grad = -grad if maximize else grad
        step = step + jnp.ones((), step.dtype)
        if has_weight_decay:
            if decoupled:
                param = param * cast(1 - lr * weight_decay, param)
            else:
                grad = grad + cast(weight_decay, param) * param
        exp_avg = _lerp(exp_avg, grad, 1 - beta1)
        exp_avg_sq = exp_avg_sq * cast(beta2, exp_avg_sq) + cast(1 - beta2, grad) * grad * grad
        count = step.astype(jnp.float64)
        bias_correction1 = 1 - beta1**count
        bias_correction2 = 1 - beta2**count
        step_size = lr / bias_correction1
        bias_correction2_sqrt = jnp.sqrt(bias_correction2)
        if amsgrad:
            max_exp_avg_sq = jnp.maximum(max_exp_avg_sq, exp_avg_sq)
            second = max_exp_avg_sq
        else:
            second = exp_avg_sq
        denom = jnp.sqrt(second) / cast(bias_correction2_sqrt, second) + cast(eps, second)
        param = param + cast(-step_size, param) * exp_avg / denom
        new_params.append(param)
        new_states.append((step, exp_avg, exp_avg_sq, max_exp_avg_sq))
    return tuple(new_params), tuple(new_states)


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
    _update = jit_update(adam_update)

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
        lr = _scalar(lr)
        _check_non_negative(lr=lr, eps=eps)
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        _check_non_negative(weight_decay=weight_decay)
        betas = tuple(_scalar(b) for b in betas)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    def _init_state(self, param, group, state) -> None:
        new_state(param, state, exp_avg=True, exp_avg_sq=True, max_exp_avg_sq=group["amsgrad"])

    def _flags(self, group: dict) -> tuple:
        return (
            group["weight_decay"] != 0,
            bool(group["amsgrad"]),
            bool(group["maximize"]),
            bool(group.get("decoupled_weight_decay", False)),
        )


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
