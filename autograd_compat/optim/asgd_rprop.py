"""ASGD, Rprop (PyTorch's single-tensor rules) and SparseAdam (refused: no sparse gradients).

ASGD keeps PyTorch's float32 state scalars `eta` and `mu` and reads them as PyTorch's
non-capturable path does (`eta.item()` is the float32 value); Rprop's step sizes start at
`lr` on the first step. Both are pure jitted updates with runtime hyperparameters, as the
other optimizers (see optimizer.py).
"""

from __future__ import annotations

import jax.numpy as jnp

from ..nn import _arrays
from ._rules import cast, decay, jit_update, next_step
from .optimizer import Optimizer, _scalar, check_arguments, new_state

__all__ = ["ASGD", "Rprop", "SparseAdam", "asgd_rule", "rprop_rule"]


# ----------------------------------------------------------------------------- ASGD
def asgd_rule(param, grad, state, hyper, switches):
    """One parameter's ASGD step; `state = (step, eta, mu, ax)`.

    hyper = [lr, lambd, alpha, t0, weight_decay]; switches = (weight decay,).
    Follows torch/optim/asgd.py `_single_tensor_asgd` (non-capturable).
    """
    lr, lambd, alpha, t0, weight_decay = hyper
    (weight_decay_mode,) = switches
    step, eta, mu, ax = state
    step, count = next_step(step)
    param, grad = decay(param, grad, lr, weight_decay, weight_decay_mode)
    eta_value = eta.astype(jnp.float64)
    param = param * cast(1 - lambd * eta_value, param)
    param = param + cast(-eta_value, param) * grad
    ax = jnp.where(mu != 1, ax + (param - ax) * mu.astype(ax.dtype), param)
    eta = (lr / ((1 + lambd * lr * count) ** alpha)).astype(eta.dtype)
    mu = (1 / jnp.maximum(1.0, count - t0)).astype(mu.dtype)
    return param, (step, eta, mu, ax)


class ASGD(Optimizer):
    """Averaged SGD, PyTorch's rule and defaults (lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6);
    the running average of the parameters is `state[p]["ax"]`."""

    _state_keys = ("step", "eta", "mu", "ax")
    _hyper_keys = ("lr", "lambd", "alpha", "t0", "weight_decay")
    _group_keys = "lr lambd alpha t0 weight_decay foreach maximize differentiable capturable"
    _update = jit_update(asgd_rule)

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
        check_arguments(lr=lr, weight_decay=weight_decay)
        super().__init__(params, self._defaults(locals(), lr=_scalar(lr)))

    def _init_state(self, param, group, state) -> None:
        new_state(param, state, {"eta": _scalar(group["lr"]), "mu": 1.0}, ax=True)


# ----------------------------------------------------------------------------- Rprop
def rprop_rule(param, grad, state, hyper, switches):
    """One parameter's Rprop step; `state = (step, prev, step_size)`.

    hyper = [lr, etaminus, etaplus, step_size_min, step_size_max]; no switches.
    Follows torch/optim/rprop.py `_single_tensor_rprop`.
    """
    _, etaminus, etaplus, step_size_min, step_size_max = hyper
    step, prev, step_size = state
    step, _ = next_step(step)
    sign = jnp.sign(grad * prev)
    minus, plus = cast(etaminus, sign), cast(etaplus, sign)
    sign = jnp.where(sign > 0, plus, jnp.where(sign < 0, minus, jnp.ones_like(sign)))
    step_size = jnp.clip(
        step_size * sign, cast(step_size_min, step_size), cast(step_size_max, step_size)
    )
    grad = jnp.where(sign == minus, jnp.zeros_like(grad), grad)
    return param + -jnp.sign(grad) * step_size, (step, grad, step_size)


class Rprop(Optimizer):
    """Rprop (resilient backpropagation), PyTorch's rule and defaults (lr=1e-2,
    etas=(0.5, 1.2), step_sizes=(1e-6, 50)): per-element step sizes, starting at lr."""

    _state_keys = ("step", "prev", "step_size")
    _hyper_keys = ("lr", "etas", "step_sizes")
    _group_keys = "lr etas step_sizes foreach maximize differentiable capturable"
    _update = jit_update(rprop_rule)

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
        check_arguments(lr=lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, self._defaults(locals(), lr=_scalar(lr)))

    def _init_state(self, param, group, state) -> None:
        new_state(param, state, prev=True)
        state["step_size"] = _arrays.zeros_like(param, _scalar(group["lr"]))


# ----------------------------------------------------------------------------- SparseAdam
class SparseAdam(Optimizer):
    """SparseAdam needs sparse gradients (`nn.Embedding(sparse=True)`), which this library
    does not have: every gradient is dense, so `step()` raises PyTorch's error for dense
    gradients. Use `torch.optim.Adam` (the same rule on dense gradients) instead."""

    _group_keys = "lr betas eps maximize"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps: float = 1e-8, maximize=False):
        check_arguments(lr=lr, eps=eps, betas=betas, positive=True)
        super().__init__(params, self._defaults(locals(), lr=_scalar(lr)))

    def _step_group(self, group: dict) -> None:
        if any(p._grad is not None for p in group["params"]):
            raise RuntimeError(
                "SparseAdam does not support dense gradients, please consider Adam instead "
                "(autograd_compat has no sparse tensors: every gradient is dense)"
            )
