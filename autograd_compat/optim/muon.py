"""Muon: momentum, then the update orthogonalized by a quintic Newton-Schulz iteration in
bfloat16, decoupled weight decay and a learning rate scaled to the matrix's shape (PyTorch's
torch/optim/_muon.py `_single_tensor_muon`). For matrices (2-D parameters) only."""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from .._state.tensor import Tensor
from ..nn import _arrays
from ._rules import cast, jit_update, lerp
from .optimizer import Optimizer, _scalar

__all__ = ["Muon", "muon_rule"]

_BF16, _F32 = jnp.bfloat16, jnp.float32


def _addmm(c, a, b, beta, alpha):
    """PyTorch's bfloat16 CPU addmm: `alpha * (a @ b)` in float32 (accumulated in float32),
    then `beta * c` added by one fused multiply-add (exact in float64: a float32 times a
    bfloat16 has 32 bits), rounded to float32 and then to bfloat16."""
    product = alpha * jnp.matmul(a.astype(_F32), b.astype(_F32), precision="highest")
    fused = beta.astype(jnp.float64) * c.astype(jnp.float64) + product.astype(jnp.float64)
    return fused.astype(_F32).astype(_BF16)


def _orthogonalized(update, coefficients, eps, steps: int):
    """The Newton-Schulz iteration of `update` in bfloat16 (PyTorch's
    `_zeropower_via_newtonschulz`), on its transpose when it has more rows than columns."""
    a, b, c = (x.astype(_F32) for x in coefficients)
    tall = update.shape[0] > update.shape[1]
    x = update.astype(_BF16)
    x = x.T if tall else x
    norm = jnp.sqrt(jnp.sum(jnp.square(x.astype(_F32)))).astype(_BF16)
    norm = jnp.maximum(norm.astype(_F32), eps.astype(_F32)).astype(_BF16)
    x = (x.astype(_F32) / norm.astype(_F32)).astype(_BF16)
    for _ in range(steps):
        gram = jnp.matmul(x.astype(_F32), x.T.astype(_F32), precision="highest").astype(_BF16)
        x = _addmm(x, _addmm(gram, gram, gram, b, c), x, a, jnp.ones((), _F32))
    return x.T if tall else x


def _lr_ratio(shape: tuple, adjust_lr_fn: str | None) -> float:
    """The learning rate's scale for a matrix of `shape` (PyTorch's `_adjust_lr`)."""
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return math.sqrt(max(1, rows / cols))
    if adjust_lr_fn == "match_rms_adamw":
        return 0.2 * math.sqrt(max(rows, cols))
    return 1.0


def muon_rule(param, grad, state, hyper, switches):
    """One matrix's Muon step; `state = (momentum_buffer,)`.

    hyper = [lr, weight_decay, momentum, a, b, c, eps]; switches = (nesterov, ns_steps,
    adjust_lr_fn). Follows torch/optim/_muon.py `_single_tensor_muon`.
    """
    lr, weight_decay, momentum, a, b, c, eps = hyper
    nesterov, steps, adjust_lr_fn = switches
    (buf,) = state
    buf = lerp(buf, grad, 1 - momentum)
    update = lerp(grad, buf, momentum) if nesterov else buf
    update = _orthogonalized(update, (a, b, c), eps, steps)
    adjusted_lr = lr * _lr_ratio(param.shape, adjust_lr_fn)
    param = param * cast(1 - lr * weight_decay, param)
    return param + cast(-adjusted_lr, param) * update.astype(param.dtype), (buf,)


class Muon(Optimizer):
    """Muon (MomentUm Orthogonalized by Newton-Schulz) for 2-D parameters, PyTorch's rule:

    B = B + (1 - momentum) (g - B); U = NS(g + momentum (B - g) if nesterov else B), NS
    `ns_steps` quintic Newton-Schulz steps in bfloat16; p = p (1 - lr weight_decay);
    p = p - lr * sqrt(max(1, rows / cols)) U (or 0.2 sqrt(max(rows, cols)) with
    adjust_lr_fn="match_rms_adamw").

    Example::

        >>> layer = nn.Linear(3, 4, bias=False)
        >>> optimizer = torch.optim.Muon(layer.parameters(), lr=0.02)
        >>> layer(torch.randn(2, 3)).sum().backward()
        >>> optimizer.step()
    """

    _state_keys = ("momentum_buffer",)
    _hyper_keys = ("lr", "weight_decay", "momentum", "ns_coefficients", "eps")
    _group_keys = "lr weight_decay momentum nesterov ns_coefficients eps ns_steps adjust_lr_fn"
    _update = jit_update(muon_rule)

    def __init__(
        self,
        params,
        lr: float = 1e-3,
        weight_decay: float = 0.1,
        momentum: float = 0.95,
        nesterov: bool = True,
        ns_coefficients: tuple = (3.4445, -4.7750, 2.0315),
        eps: float = 1e-7,
        ns_steps: int = 5,
        adjust_lr_fn: str | None = None,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ("original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        super().__init__(params, self._defaults(locals()))
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(
                        "Muon only supports 2D parameters whereas we found a parameter with "
                        f"size: {p.size()}"
                    )

    def _init_state(self, param, group, state) -> None:
        if param.dtype.is_complex:
            raise RuntimeError("Muon does not support complex parameters")
        state["momentum_buffer"] = _arrays.zeros_like(param)

    def _hyper(self, group: dict) -> np.ndarray:
        if len(group["ns_coefficients"]) != 3:
            raise ValueError("Coefficients must be a tuple of exactly 3 values")
        values = [group[key] for key in ("lr", "weight_decay", "momentum", "eps")]
        values[3:3] = group["ns_coefficients"]
        return np.array([_scalar(v) for v in values], dtype=np.float64)

    def _flags(self, group: dict) -> tuple:
        if group["ns_steps"] >= 100:
            raise ValueError("Number of steps must be less than 100 for computational efficiency")
        return (bool(group["nesterov"]), int(group["ns_steps"]), group["adjust_lr_fn"])
