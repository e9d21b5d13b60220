"""torch.nn.utils.spectral_norm (the hook form): weight = weight_orig / sigma, sigma the
largest singular value of weight_orig as a matrix, estimated by power iteration on the
buffers `<name>_u` and `<name>_v` (updated in place at each training forward) from a
forward pre-hook. The state dict holds `<name>_orig`, `<name>_u` and `<name>_v`, as PyTorch's."""

from __future__ import annotations

from ..._ops.linalg import dot, mv
from ..._state import modes as _grad_mode
from ..._state.tensor import Tensor
from ..functional import normalize
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module
from ..parameter import Parameter, UninitializedParameter

__all__ = ["SpectralNorm", "remove_spectral_norm", "spectral_norm"]


class SpectralNorm:
    """The forward pre-hook that sets `module.<name>` to `<name>_orig / sigma`."""

    _version = 1

    def __init__(
        self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        """The weight as a matrix whose rows run along `dim`."""
        if self.dim != 0:
            order = [self.dim, *(d for d in range(weight.dim()) if d != self.dim)]
            weight = weight.permute(*order)
        return weight.reshape(weight.size(0), -1)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with _grad_mode.no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(normalize(mv(weight_mat.t(), u), dim=0, eps=self.eps))
                    u.copy_(normalize(mv(weight_mat, v), dim=0, eps=self.eps))
                u, v = u.clone(), v.clone()
        return weight / dot(u, mv(weight_mat, v))

    def remove(self, module: Module) -> None:
        with _grad_mode.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module, module.training))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int, eps: float):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two spectral_norm hooks on the same parameter {name}"
                )
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if isinstance(weight, UninitializedParameter):
            raise ValueError(
                "The module passed to `SpectralNorm` can't have uninitialized parameters. Make "
                "sure to run the dummy forward before applying spectral normalization"
            )
        with _grad_mode.no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """Normalize `module.<name>` by its spectral norm before every forward (see the module
    docstring); `dim` is 1 for transposed convolutions and 0 otherwise by default."""
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Undo `spectral_norm`: `module.<name>` becomes a parameter holding the normalized
    weight."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
