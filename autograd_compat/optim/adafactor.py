"""Adafactor (PyTorch's single-tensor rule: factored second moments over the last two
dimensions, relative step size, update clipping by `d`)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ..nn import _arrays
from ._rules import cast, jit_update, lerp, next_step
from .optimizer import Optimizer, _scalar, new_state

__all__ = ["Adafactor", "adafactor_rule"]


def _norm(x):
    """The 2-norm of `x` in its dtype, read as a float64 (PyTorch's `.norm(2).item()`)."""
    return jnp.sqrt(jnp.sum(x * x)).astype(jnp.float64)


def _mean_square(grad, axis):
    """PyTorch's `norm(grad, dim=axis, keepdim=True).square_().div_(size)`."""
    return jnp.square(jnp.sqrt(jnp.sum(grad * grad, axis=axis, keepdims=True))) / grad.shape[axis]


def adafactor_rule(param, grad, state, hyper, switches):
    """One parameter's Adafactor step; `state = (step, row_var, col_var, variance)` (row and
    column variances for a matrix or more, one variance otherwise).

    hyper = [lr, beta2_decay, eps1 (0 when None), eps2, d, weight_decay]; switches = (weight
    decay, eps1 is None). Follows torch/optim/_adafactor.py `_single_tensor_adafactor`.
    """
    lr, beta2_decay, eps1, eps2, d, weight_decay = hyper
    weight_decay_mode, machine_eps = switches
    if machine_eps:
        eps1 = jnp.asarray(float(jnp.finfo(param.dtype).eps), jnp.float64)
    step, row_var, col_var, variance = state
    step, count = next_step(step)
    one_minus_beta2 = count**beta2_decay
    rho = jnp.minimum(lr, 1 / count**0.5)
    alpha = jnp.maximum(eps2, _norm(param) / param.size**0.5) * rho
    if weight_decay_mode is not None:
        param = param * cast(1 - lr * weight_decay, param)
    if grad.ndim > 1:
        row_var = lerp(row_var, _mean_square(grad, -1), one_minus_beta2)
        col_var = lerp(col_var, _mean_square(grad, -2), one_minus_beta2)
        row_mean = jnp.maximum(jnp.mean(row_var, axis=-2, keepdims=True), cast(eps1, row_var))
        estimate = row_var * col_var / row_mean
    else:
        variance = lerp(variance, grad * grad, one_minus_beta2)
        estimate = variance
    update = 1 / jnp.sqrt(jnp.maximum(estimate, cast(eps1 * eps1, estimate))) * grad
    denom = jnp.maximum(1.0, _norm(update) / (update.size**0.5 * d))
    return param + cast(-alpha / denom, param) * update, (step, row_var, col_var, variance)


class Adafactor(Optimizer):
    """Adafactor with PyTorch's defaults (lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1)."""

    _state_keys = ("step", "row_var", "col_var", "variance")
    _hyper_keys = ("lr", "beta2_decay", "eps", "d", "weight_decay")
    _group_keys = "lr beta2_decay eps d weight_decay foreach maximize"
    _update = jit_update(adafactor_rule)

    def __init__(
        self,
        params,
        lr=1e-2,
        beta2_decay: float = -0.8,
        eps: tuple = (None, 1e-3),
        d: float = 1.0,
        weight_decay: float = 0.0,
        *,
        foreach=None,
        maximize: bool = False,
    ) -> None:
        checks = (
            (lr, 0.0 <= lr, "Learning rate should be >= 0 but is: "),
            (beta2_decay, 0.0 >= beta2_decay, "beta2_decay should be <= 0 but is: "),
            (eps[0], eps[0] is None or 0.0 <= eps[0], "epsilon1 should be >= 0 but is: "),
            (eps[1], 0.0 <= eps[1], "epsilon2 should be >= 0 but is: "),
            (d, 1.0 <= d, "Clipping threshold d should be >= 1 but is: "),
            (weight_decay, 0.0 <= weight_decay, "weight_decay should be >= 0 but is: "),
        )
        if getattr(lr, "numel", lambda: 1)() != 1:
            raise ValueError("Tensor lr must be 1-element")
        for value, valid, message in checks:
            if not valid:
                raise ValueError(f"{message}{value}")
        super().__init__(params, self._defaults(locals()))

    def _init_state(self, param, group, state) -> None:
        if param.dtype.is_complex:
            raise RuntimeError("Adafactor does not support complex parameters")
        if param.ndim > 1:
            new_state(param, state)
            shape = tuple(param.shape)
            state["row_var"] = _arrays.filled(shape[:-1] + (1,), 0.0, param.dtype)
            state["col_var"] = _arrays.filled(shape[:-2] + (1, shape[-1]), 0.0, param.dtype)
        else:
            new_state(param, state, variance=True)

    def _hyper(self, group: dict) -> np.ndarray:
        eps1, eps2 = group["eps"]
        eps1 = 0.0 if eps1 is None else eps1
        values = (group["lr"], group["beta2_decay"], eps1, eps2, group["d"], group["weight_decay"])
        return np.array([_scalar(v) for v in values], dtype=np.float64)

    def _flags(self, group: dict) -> tuple:
        decoupled = "decoupled" if group["weight_decay"] != 0 else None
        return (decoupled, group["eps"][0] is None)
