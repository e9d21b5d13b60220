"""torch.autograd.forward_ad: forward-mode AD with dual tensors, on top of jax.jvp.

Inside `dual_level()`, `make_dual(x, t)` gives a tensor carrying the tangent `t`; every op
applied to it computes its output tangent with `jax.jvp` of the op's pure function (jitted,
cached per op and static arguments, like the forward), so every op of the library supports
forward mode without a hand-written rule. `unpack_dual` returns `(primal, tangent)`.
Tangents live for one level: leaving `dual_level` drops them all, as in PyTorch.
"""

from __future__ import annotations

from typing import NamedTuple

from .._pure import errors as _errors
from .._pure.op import register
from .._state.modes import modes
from .._state.tensor import Tensor
from .._tape.record import apply, set_tangent

__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]

# make_dual's result is a view of the primal (named as PyTorch's); unpack_dual's primal an alias
_VIEW = register("autograd.forward_ad.view", lambda x: x, node="ViewBackward0", saves="none")
_ALIAS = register("autograd.forward_ad.alias", lambda x: x, node="AliasBackward0", saves="none")


def enter_dual_level() -> int:
    """Open a forward-AD level and return its index (0). Nested levels are not supported."""
    if modes.fw_level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    modes.fw_level = 0
    modes.refresh_special()
    return 0


def exit_dual_level(*, level: int | None = None) -> None:
    """Close the current forward-AD level: every tangent made at it is dropped."""
    if level is None:
        level = modes.fw_level
    if modes.fw_level is None or level != modes.fw_level:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. "
            "This is not supported."
        )
    for tensor in list(modes.duals):
        tensor._fw_grad = None
    modes.duals.clear()
    modes.fw_level = None
    modes.refresh_special()


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A tensor with the value of `tensor` and the forward gradient `tangent`.

    The result is a new tensor (an alias: differentiable through to `tensor` in reverse mode
    when that requires grad); `tangent` must have the same size.

    Example::

        >>> with torch.autograd.forward_ad.dual_level():
        ...     x = make_dual(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.0]))
        ...     unpack_dual(x.sin() * 2).tangent
        tensor([2., 0.])
    """
    if level is None:
        level = modes.fw_level
    if level is None:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first."
        )
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(
            f"Expected primal to be floating point or complex, but got: {tensor.dtype}"
        )
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(
            f"Expected tangent to be floating point or complex, but got: {tangent.dtype}"
        )
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(
            _errors.FORWARD_GRAD_SIZE.format(tensor=list(tensor.shape), tangent=list(tangent.shape))
        )
    saved = modes.fw_level
    modes.fw_level = None  # the alias itself must not pick up the primal's tangent
    try:
        dual = apply(_VIEW, tensor)
    finally:
        modes.fw_level = saved
    set_tangent(dual, tangent)
    return dual


class UnpackedDualTensor(NamedTuple):
    """Namedtuple returned by `unpack_dual`: the primal and tangent of a dual tensor."""

    primal: Tensor
    tangent: Tensor | None


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """Split a dual tensor into `(primal, tangent)`; the tangent is None for a plain tensor.

    The primal is an alias of `tensor` without its tangent (still differentiable in reverse
    mode).
    """
    if level is None:
        level = modes.fw_level
    if level is None or not isinstance(tensor, Tensor):
        return UnpackedDualTensor(tensor, None)
    tangent = tensor._fw_grad
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    saved = modes.fw_level
    modes.fw_level = None
    try:
        primal = apply(_ALIAS, tensor)
    finally:
        modes.fw_level = saved
    return UnpackedDualTensor(primal, tangent)


class dual_level:
    """Context manager for forward AD: dual tensors and their tangents live inside it.

    Example::

        >>> x, v = torch.tensor([1.0, 2.0]), torch.ones(2)
        >>> with torch.autograd.forward_ad.dual_level():
        ...     inp = make_dual(x, v)
        ...     out = inp**2
        ...     y, jvp = unpack_dual(out)
        >>> jvp
        tensor([2., 4.])
    """

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc_info: object) -> None:
        exit_dual_level()
