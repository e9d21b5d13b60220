"""NAdam, RAdam and Adamax: PyTorch's single-tensor rules (non-capturable CPU path).

Each is one pure rule for a parameter, jitted once per parameter structure with the
hyperparameters as a float64 array input (see optimizer.py and _rules.py). Quantities PyTorch
computes as Python floats from the step count (bias corrections, NAdam's mu, RAdam's
rectification) are computed in float64 here and cast to the parameter dtype where PyTorch's
kernels cast them; NAdam's mu_product is a float32 state tensor, as PyTorch's. optax is not
used: its nadamw, radam and adamax differ from PyTorch's (eps placement, bias corrections, the
momentum-decay schedule, the rectification threshold), and the state layout must be PyTorch's.
"""

from __future__ import annotations

import jax.numpy as jnp

from ._rules import bias_correction, cast, decay, jit_update, lerp, moments, next_step
from .optimizer import Optimizer, _scalar, check_arguments, new_state

__all__ = ["NAdam", "RAdam", "Adamax", "adamax_rule", "nadam_rule", "radam_rule"]


# ----------------------------------------------------------------------------- NAdam
def nadam_rule(param, grad, state, hyper, switches):
    """One parameter's NAdam step; `state = (step, mu_product, exp_avg, exp_avg_sq)`.

    hyper = [lr, beta1, beta2, eps, weight_decay, momentum_decay]; switches = (weight decay,).
    Follows torch/optim/nadam.py `_single_tensor_nadam`.
    """
    lr, beta1, beta2, eps, weight_decay, momentum_decay = hyper
    (weight_decay_mode,) = switches
    step, mu_product, exp_avg, exp_avg_sq = state
    step, count = next_step(step)
    param, grad = decay(param, grad, lr, weight_decay, weight_decay_mode)
    mu = beta1 * (1.0 - 0.5 * (0.96 ** (count * momentum_decay)))
    mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((count + 1) * momentum_decay)))
    mu_product = mu_product * cast(mu, mu_product)
    exp_avg, exp_avg_sq = moments(exp_avg, exp_avg_sq, grad, beta1, beta2)
    bias_correction2 = cast(bias_correction(beta2, count), exp_avg_sq)
    denom = jnp.sqrt(exp_avg_sq / bias_correction2) + cast(eps, exp_avg_sq)
    product = mu_product.astype(jnp.float64)
    product_next = product * mu_next
    param = param + cast(-lr * (1.0 - mu) / (1.0 - product), param) * grad / denom
    param = param + cast(-lr * mu_next / (1.0 - product_next), param) * exp_avg / denom
    return param, (step, mu_product, exp_avg, exp_avg_sq)


class NAdam(Optimizer):
    """NAdam (Adam with Nesterov momentum), PyTorch's rule and defaults (lr=2e-3,
    momentum_decay=4e-3); `decoupled_weight_decay=True` gives NAdamW."""

    _state_keys = ("step", "mu_product", "exp_avg", "exp_avg_sq")
    _hyper_keys = ("lr", "betas", "eps", "weight_decay", "momentum_decay")
    _group_keys = (
        "lr betas eps weight_decay momentum_decay decoupled_weight_decay maximize foreach"
        " capturable differentiable"
    )
    _update = jit_update(nadam_rule)

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach=None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_arguments(
            lr=lr, eps=eps, betas=betas, weight_decay=weight_decay, momentum_decay=momentum_decay
        )
        super().__init__(params, self._defaults(locals(), lr=_scalar(lr)))

    def _init_state(self, param, group, state) -> None:
        new_state(param, state, {"mu_product": 1.0}, exp_avg=True, exp_avg_sq=True)


# ----------------------------------------------------------------------------- RAdam
def radam_rule(param, grad, state, hyper, switches):
    """One parameter's RAdam step; `state = (step, exp_avg, exp_avg_sq)`.

    hyper = [lr, beta1, beta2, eps, weight_decay]; switches = (weight decay,). Follows
    torch/optim/radam.py `_single_tensor_radam`: the rectified step while the variance is
    tractable (rho_t > 5), else plain momentum.
    """
    lr, beta1, beta2, eps, weight_decay = hyper
    (weight_decay_mode,) = switches
    step, exp_avg, exp_avg_sq = state
    step, count = next_step(step)
    param, grad = decay(param, grad, lr, weight_decay, weight_decay_mode)
    exp_avg, exp_avg_sq = moments(exp_avg, exp_avg_sq, grad, beta1, beta2)
    bias_correction2 = bias_correction(beta2, count)
    corrected = exp_avg / cast(bias_correction(beta1, count), exp_avg)
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * count * (beta2**count) / bias_correction2
    tractable = rho_t > 5.0
    safe_rho = jnp.where(tractable, rho_t, 6.0)
    rect = jnp.sqrt(
        (safe_rho - 4) * (safe_rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * safe_rho)
    )
    adaptive = cast(bias_correction2**0.5, exp_avg_sq) / (
        jnp.sqrt(exp_avg_sq) + cast(eps, exp_avg_sq)
    )
    scaled = corrected * cast(lr, corrected)
    update = jnp.where(tractable, scaled * adaptive * cast(rect, scaled), scaled)
    return param - update, (step, exp_avg, exp_avg_sq)


class RAdam(Optimizer):
    """RAdam (rectified Adam), PyTorch's rule and defaults (lr=1e-3);
    `decoupled_weight_decay=True` applies weight decay as AdamW does."""

    _state_keys = ("step", "exp_avg", "exp_avg_sq")
    _hyper_keys = ("lr", "betas", "eps", "weight_decay")
    _group_keys = (
        "lr betas eps weight_decay maximize foreach capturable decoupled_weight_decay"
        " differentiable"
    )
    _update = jit_update(radam_rule)

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach=None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_arguments(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        super().__init__(params, self._defaults(locals(), lr=_scalar(lr)))

    def _init_state(self, param, group, state) -> None:
        new_state(param, state, exp_avg=True, exp_avg_sq=True)


# ----------------------------------------------------------------------------- Adamax
def adamax_rule(param, grad, state, hyper, switches):
    """One parameter's Adamax step; `state = (step, exp_avg, exp_inf)`.

    hyper = [lr, beta1, beta2, eps, weight_decay]; switches = (weight decay,).
    Follows torch/optim/adamax.py `_single_tensor_adamax`.
    """
    lr, beta1, beta2, eps, weight_decay = hyper
    (weight_decay_mode,) = switches
    step, exp_avg, exp_inf = state
    step, count = next_step(step)
    param, grad = decay(param, grad, lr, weight_decay, weight_decay_mode)
    exp_avg = lerp(exp_avg, grad, 1 - beta1)
    exp_inf = jnp.maximum(exp_inf * cast(beta2, exp_inf), jnp.abs(grad) + cast(eps, grad))
    clr = lr / bias_correction(beta1, count)
    return param + cast(-clr, param) * exp_avg / exp_inf, (step, exp_avg, exp_inf)


class Adamax(Optimizer):
    """Adamax (Adam with the infinity norm), PyTorch's rule and defaults (lr=2e-3)."""

    _state_keys = ("step", "exp_avg", "exp_inf")
    _hyper_keys = ("lr", "betas", "eps", "weight_decay")
    _group_keys = "lr betas eps weight_decay foreach maximize differentiable capturable"
    _update = jit_update(adamax_rule)

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach=None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        check_arguments(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        super().__init__(params, self._defaults(locals(), lr=_scalar(lr)))

    def _init_state(self, param, group, state) -> None:
        new_state(param, state, exp_avg=True, exp_inf=True)
