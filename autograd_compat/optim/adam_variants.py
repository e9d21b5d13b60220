"""NAdam, RAdam and Adamax: PyTorch's single-tensor rules (non-capturable CPU path).

Each is one pure update over tuples of arrays, jitted once per parameter structure with the
hyperparameters as a float64 array input (see optimizer.py). Quantities PyTorch computes as
Python floats from the step count (bias corrections, NAdam's mu, RAdam's rectification) are
computed in float64 here and cast to the parameter dtype where PyTorch's kernels cast them;
NAdam's mu_product is a float32 state tensor, as PyTorch's. optax is not used: its nadamw,
radam and adamax differ from PyTorch's (eps placement, bias corrections, the momentum-decay
schedule, the rectification threshold), and the state layout must be PyTorch's.
"""

from __future__ import annotations

import jax.numpy as jnp

from .._pure import dtypes as _dtypes
from .._state.tensor import Tensor
from ..nn import _arrays
from .adam import _lerp
from .optimizer import Optimizer, _check_non_negative, _scalar, cast, jit_update, new_state

__all__ = ["NAdam", "RAdam", "Adamax", "adamax_update", "nadam_update", "radam_update"]


def _check_adam_like(lr, eps, betas, weight_decay) -> None:
    _check_non_negative(lr=lr, eps=eps)
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    _check_non_negative(weight_decay=weight_decay)


def _check_lr(lr):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    return _scalar(lr)


def _weight_decay(param, grad, lr, weight_decay, has_weight_decay, decoupled):
    if has_weight_decay:
        if decoupled:
            param = param * cast(1 - lr * weight_decay, param)
        else:
            grad = grad + cast(weight_decay, param) * param
    return param, grad


# ----------------------------------------------------------------------------- NAdam
def nadam_update(params, grads, states, hyper, *, flags):
    """Pure NAdam step; `states[i] = (step, mu_product, exp_avg, exp_avg_sq)`.

    hyper = [lr, beta1, beta2, eps, weight_decay, momentum_decay]; flags = (has_weight_decay,
    decoupled_weight_decay, maximize). Follows torch/optim/nadam.py `_single_tensor_nadam`.
    """
    lr, beta1, beta2, eps, weight_decay, momentum_decay = (hyper[i] for i in range(6))
    has_weight_decay, decoupled, maximize = flags
    new_params, new_states = [], []
    for param, grad, (step, mu_product, exp_avg, exp_avg_sq) in zip(params, grads, states):
        grad = -grad if maximize else grad
        step = step + jnp.ones((), step.dtype)
        count = step.astype(jnp.float64)
        bias_correction2 = 1 - beta2**count
        param, grad = _weight_decay(param, grad, lr, weight_decay, has_weight_decay, decoupled)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (count * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((count + 1) * momentum_decay)))
        mu_product = mu_product * cast(mu, mu_product)
        exp_avg = _lerp(exp_avg, grad, 1 - beta1)
        exp_avg_sq = exp_avg_sq * cast(beta2, exp_avg_sq) + cast(1 - beta2, grad) * grad * grad
        denom = jnp.sqrt(exp_avg_sq / cast(bias_correction2, exp_avg_sq)) + cast(eps, exp_avg_sq)
        product = mu_product.astype(jnp.float64)
        product_next = product * mu_next
        param = param + cast(-lr * (1.0 - mu) / (1.0 - product), param) * grad / denom
        param = param + cast(-lr * mu_next / (1.0 - product_next), param) * exp_avg / denom
        new_params.append(param)
        new_states.append((step, mu_product, exp_avg, exp_avg_sq))
    return tuple(new_params), tuple(new_states)


class NAdam(Optimizer):
    """NAdam (Adam with Nesterov momentum), PyTorch's rule and defaults (lr=2e-3,
    momentum_decay=4e-3); `decoupled_weight_decay=True` gives NAdamW."""

    _state_keys = ("step", "mu_product", "exp_avg", "exp_avg_sq")
    _hyper_keys = ("lr", "betas", "eps", "weight_decay", "momentum_decay")
    _update = jit_update(nadam_update)

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
        lr = _check_lr(lr)
        _check_adam_like(lr, eps, betas, weight_decay)
        _check_non_negative(momentum_decay=momentum_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _init_state(self, param, group, state) -> None:
        state["step"] = _arrays.filled((), 0.0, _dtypes.float32)
        state["mu_product"] = _arrays.filled((), 1.0, _dtypes.float32)
        state["exp_avg"] = _arrays.zeros_like(param)
        state["exp_avg_sq"] = _arrays.zeros_like(param)

    def _flags(self, group: dict) -> tuple:
        return (
            group["weight_decay"] != 0,
            bool(group["decoupled_weight_decay"]),
            bool(group["maximize"]),
        )


# ----------------------------------------------------------------------------- RAdam
def radam_update(params, grads, states, hyper, *, flags):
    """Pure RAdam step; `states[i] = (step, exp_avg, exp_avg_sq)`.

    hyper = [lr, beta1, beta2, eps, weight_decay]; flags = (has_weight_decay,
    decoupled_weight_decay, maximize). Follows torch/optim/radam.py `_single_tensor_radam`:
    the rectified step while the variance is tractable (rho_t > 5), else plain momentum.
    """
    lr, beta1, beta2, eps, weight_decay = (hyper[i] for i in range(5))
    has_weight_decay, decoupled, maximize = flags
    new_params, new_states = [], []
    for param, grad, (step, exp_avg, exp_avg_sq) in zip(params, grads, states):
        grad = -grad if maximize else grad
        step = step + jnp.ones((), step.dtype)
        param, grad = _weight_decay(param, grad, lr, weight_decay, has_weight_decay, decoupled)
        exp_avg = _lerp(exp_avg, grad, 1 - beta1)
        exp_avg_sq = exp_avg_sq * cast(beta2, exp_avg_sq) + cast(1 - beta2, grad) * grad * grad
        count = step.astype(jnp.float64)
        bias_correction1 = 1 - beta1**count
        bias_correction2 = 1 - beta2**count
        corrected = exp_avg / cast(bias_correction1, exp_avg)
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
        param = param - update
        new_params.append(param)
        new_states.append((step, exp_avg, exp_avg_sq))
    return tuple(new_params), tuple(new_states)


class RAdam(Optimizer):
    """RAdam (rectified Adam), PyTorch's rule and defaults (lr=1e-3);
    `decoupled_weight_decay=True` applies weight decay as AdamW does."""

    _state_keys = ("step", "exp_avg", "exp_avg_sq")
    _hyper_keys = ("lr", "betas", "eps", "weight_decay")
    _update = jit_update(radam_update)

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
        lr = _check_lr(lr)
        _check_adam_like(lr, eps, betas, weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _init_state(self, param, group, state) -> None:
        new_state(param, state, exp_avg=True, exp_avg_sq=True)

    def _flags(self, group: dict) -> tuple:
        return (
            group["weight_decay"] != 0,
            bool(group["decoupled_weight_decay"]),
            bool(group["maximize"]),
        )


# ----------------------------------------------------------------------------- Adamax
def adamax_update(params, grads, states, hyper, *, flags):
    """Pure Adamax step; `states[i] = (step, exp_avg, exp_inf)`.

    hyper = [lr, beta1, beta2, eps, weight_decay]; flags = (has_weight_decay, maximize).
    Follows torch/optim/adamax.py `_single_tensor_adamax`.
    """
    lr, beta1, beta2, eps, weight_decay = (hyper[i] for i in range(5))
    has_weight_decay, maximize = flags
    new_params, new_states = [], []
    for param, grad, (step, exp_avg, exp_inf) in zip(params, grads, states):
        grad = -grad if maximize else grad
        step = step + jnp.ones((), step.dtype)
        if has_weight_decay:
            grad = grad + cast(weight_decay, param) * param
        exp_avg = _lerp(exp_avg, grad, 1 - beta1)
        exp_inf = jnp.maximum(exp_inf * cast(beta2, exp_inf), jnp.abs(grad) + cast(eps, grad))
        clr = lr / (1 - beta1 ** step.astype(jnp.float64))
        param = param + cast(-clr, param) * exp_avg / exp_inf
        new_params.append(param)
        new_states.append((step, exp_avg, exp_inf))
    return tuple(new_params), tuple(new_states)


class Adamax(Optimizer):
    """Adamax (Adam with the infinity norm), PyTorch's rule and defaults (lr=2e-3)."""

    _state_keys = ("step", "exp_avg", "exp_inf")
    _hyper_keys = ("lr", "betas", "eps", "weight_decay")
    _update = jit_update(adamax_update)

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
        lr = _check_lr(lr)
        _check_adam_like(lr, eps, betas, weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _init_state(self, param, group, state) -> None:
        new_state(param, state, exp_avg=True, exp_inf=True)

    def _flags(self, group: dict) -> tuple:
        return (group["weight_decay"] != 0, bool(group["maximize"]))
