"""torch.nn.utils.parametrizations: weight_norm and spectral_norm as parametrizations.

Both go through `parametrize.register_parametrization`, so the state_dict keys are PyTorch's
(`parametrizations.weight.original0/original1` for weight norm's g and v,
`parametrizations.weight.original` and `parametrizations.weight.0._u/_v` for spectral norm).
"""

from __future__ import annotations

from ..._ops.linalg import dot, mv
from ..._ops.nn.distance import normalize
from ..._ops.reduce import vector_norm
from ..._state import modes as _grad_mode
from ..._state.tensor import Tensor
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module
from . import parametrize

__all__ = ["spectral_norm", "weight_norm"]


def _norm_except_dim(v: Tensor, dim: int) -> Tensor:
    """The 2-norm of `v` over every dim but `dim` (kept as size 1); over all of it (a 0-d
    tensor) for dim=-1, as PyTorch's norm_except_dim."""
    if dim == -1:
        return vector_norm(v)
    others = tuple(d for d in range(v.ndim) if d != dim)
    return vector_norm(v, 2, others, keepdim=True)


class _WeightNorm(Module):
    """w = g * v / ||v||, the norm taken over every dim but `dim`."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_v * (weight_g / _norm_except_dim(weight_v, self.dim))

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Reparametrize `module.<name>` as g * v / ||v|| (magnitude g, direction v).

    g is `parametrizations.<name>.original0` and v `parametrizations.<name>.original1`;
    `dim=None` takes one norm over the whole tensor. Old checkpoints' `<name>_g`/`<name>_v`
    entries load into them.

    Example::

        >>> m = nn.utils.parametrizations.weight_norm(nn.Linear(20, 40))
        >>> m.parametrizations.weight.original0.size()
        torch.Size([40, 1])
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(
        module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, errors
    ) -> None:
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module.register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    """w / sigma(w), sigma the largest singular value of w as a matrix (rows along `dim`),
    estimated by power iteration on the buffers _u and _v (one step per training forward)."""

    _u: Tensor
    _v: Tensor

    def __init__(
        self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but "
                f"got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        with _grad_mode.no_grad():
            for _ in range(n_power_iterations):
                self._u = normalize(mv(weight_mat, self._v), dim=0, eps=self.eps)
                self._v = normalize(mv(weight_mat.H, self._u), dim=0, eps=self.eps)

    def forward(self, weight):
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = dot(u, mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """Reparametrize `module.<name>` as w / sigma(w) (sigma: its largest singular value).

    Args:
        module (Module): the module holding the weight.
        name (str): the weight's name. Default: "weight".
        n_power_iterations (int): power-iteration steps per training forward. Default: 1.
        eps (float): added to norms in the power iteration. Default: 1e-12.
        dim (int, optional): the output dim (1 for transposed convolutions, else 0).

    Example::

        >>> m = nn.utils.parametrizations.spectral_norm(nn.Linear(20, 40))
        >>> m.parametrizations.weight.original.shape
        torch.Size([40, 20])
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps)
    )
    return module
