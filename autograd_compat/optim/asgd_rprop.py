"""ASGD, Rprop (PyTorch's single-tensor rules) and SparseAdam (refused: no sparse gradients).

ASGD keeps PyTorch's float32 state scalars `eta` and `mu` and reads them as PyTorch's
non-capturable path does (`eta.item()` is the float32 value); Rprop's step sizes start at
`lr` on the first step. Both are pure jitted updates with runtime hyperparameters, as the
other optimizers (see optimizer.py).
"""

from __future__ import annotations

import jax.numpy as jnp

from .._pure import dtypes as _dtypes
from ..nn import _arrays
from .adam_variants import _check_adam_like, _check_lr
from .optimizer import Optimizer, _check_non_negative, _scalar, cast, jit_update

__all__ = ["ASGD", "Rprop", "SparseAdam", "asgd_update", "rprop_update"]


# ----------------------------------------------------------------------------- ASGD
def asgd_update(params, grads, states, hyper, *, flags):
    """Pure ASGD step; `states[i] = (step, eta, mu, ax)`.

    hyper = [lr, lambd, alpha, t0, weight_decay]; flags = (has_weight_decay, maximize).
    Follows torch/optim/asgd.py `_single_tensor_asgd` (non-capturable).
    """
    lr, lambd, alpha, t0, weight_decay = (hyper[i] for i in range(5))
    has_weight_decay, maximize = flags
    new_params, new_states = [], []
    for param, grad, (step, eta, mu, ax) in zip(params, grads, states):
        grad = -grad if maximize else grad
        step = step + jnp.ones((), step.dtype)
        if has_weight_decay:
            grad = grad + cast(weight_decay, param) * param
        eta_value = eta.astype(jnp.float64)
        param = param * cast(1 - lambd * eta_value, param)
        param = param + cast(-eta_value, param) * grad
        ax = jnp.where(mu != 1, ax + (param - ax) * mu.astype(ax.dtype), param)
        count = step.astype(jnp.float64)
        eta = (lr / ((1 + lambd * lr * count) ** alpha)).astype(eta.dtype)
        mu = (1 / jnp.maximum(1.0, count - t0)).astype(mu.dtype)
        new_params.append(param)
        new_states.append((step, eta, mu, ax))
    return tuple(new_params), tuple(new_states)


class ASGD(Optimizer):
    """Averaged SGD, PyTorch's rule and defaults (lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6);
    the running average of the parameters is `state[p]["ax"]`."""

    _state_keys = ("step", "eta", "mu", "ax")
    _hyper_keys = ("lr", "lambd", "alpha", "t0", "weight_decay")
    _update = jit_update(asgd_update)

    def __init__(
        self,
        params,
        lr=1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach=None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        lr = _check_lr(lr)
        _check_non_negative(lr=lr, weight_decay=weight_decay)
        defaults = {
            "lr": lr,
            "lambd": lambd,
            "alpha": alpha,
            "t0": t0,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _init_state(self, param, group, state) -> None:
        state["step"] = _arrays.filled((), 0.0, _dtypes.float32)
        state["eta"] = _arrays.filled((), _scalar(group["lr"]), _dtypes.float32)
        state["mu"] = _arrays.filled((), 1.0, _dtypes.float32)
        state["ax"] = _arrays.zeros_like(param)

    def _flags(self, group: dict) -> tuple:
        return (group["weight_decay"] != 0, bool(group["maximize"]))


# ----------------------------------------------------------------------------- Rprop
def rprop_update(params, grads, states, hyper, *, flags):
    """Pure Rprop step; `states[i] = (step, prev, step_size)`.

    hyper = [lr, etaminus, etaplus, step_size_min, step_size_max]; flags = (maximize,).
    Follows torch/optim/rprop.py `_single_tensor_rprop`.
    """
    etaminus, etaplus, step_size_min, step_size_max = (hyper[i] for i in range(1, 5))
    (maximize,) = flags
    new_params, new_states = [], []
    for param, grad, (step, prev, step_size) in zip(params, grads, states):
        grad = -grad if maximize else grad
        step = step + jnp.ones((), step.dtype)
        sign = jnp.sign(grad * prev)
        minus, plus = cast(etaminus, sign), cast(etaplus, sign)
        sign = jnp.where(sign > 0, plus, jnp.where(sign < 0, minus, jnp.ones_like(sign)))
        step_size = jnp.clip(
            step_size * sign, cast(step_size_min, step_size), cast(step_size_max, step_size)
        )
        grad = jnp.where(sign == minus, jnp.zeros_like(grad), grad)
        param = param + -jnp.sign(grad) * step_size
        new_params.append(param)
        new_states.append((step, grad, step_size))
    return tuple(new_params), tuple(new_states)


class Rprop(Optimizer):
    """Rprop (resilient backpropagation), PyTorch's rule and defaults (lr=1e-2,
    etas=(0.5, 1.2), step_sizes=(1e-6, 50)): per-element step sizes, starting at lr."""

    _state_keys = ("step", "prev", "step_size")
    _hyper_keys = ("lr", "etas", "step_sizes")
    _update = jit_update(rprop_update)

    def __init__(
        self,
        params,
        lr=1e-2,
        etas=(0.5, 1.2),
        step_sizes=(1e-6, 50),
        *,
        capturable: bool = False,
        foreach=None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        lr = _check_lr(lr)
        _check_non_negative(lr=lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {
            "lr": lr,
            "etas": etas,
            "step_sizes": step_sizes,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _init_state(self, param, group, state) -> None:
        state["step"] = _arrays.filled((), 0.0, _dtypes.float32)
        state["prev"] = _arrays.zeros_like(param)
        state["step_size"] = _arrays.zeros_like(param, _scalar(group["lr"]))

    def _flags(self, group: dict) -> tuple:
        return (bool(group["maximize"]),)


# ----------------------------------------------------------------------------- SparseAdam
class SparseAdam(Optimizer):
    """SparseAdam needs sparse gradients (`nn.Embedding(sparse=True)`), which this library
    does not have: every gradient is dense, so `step()` raises PyTorch's error for dense
    gradients. Use `torch.optim.Adam` (the same rule on dense gradients) instead."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps: float = 1e-8, maximize=False):
        lr = _check_lr(lr)
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_adam_like(lr, eps, betas, 0.0)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize}
        super().__init__(params, defaults)

    def _step_group(self, group: dict) -> None:
        if any(p._grad is not None for p in group["params"]):
            raise RuntimeError(
                "SparseAdam does not support dense gradients, please consider Adam instead "
                "(autograd_compat has no sparse tensors: every gradient is dense)"
            )
