"""torch._higher_order_ops.associative_scan: an inclusive scan with an associative combine
function, by PyTorch's own algorithm (neighbours combined pairwise, recursively), so it rounds
as PyTorch's eager CPU run does and is differentiable through the ops the combine function
calls.

"generic" mode maps the combine function over the scan dimension with `vmap`; "pointwise"
mode (a combine function of elementwise ops, which PyTorch compiles for CUDA and XPU tensors
only) calls it on the whole slices.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._ops.shape import cat, flatten, flip, movedim, stack
from .._pure.shapes import normalize_dim
from .._state.tensor import Tensor
from ..func import vmap
from ..nn.functional import pad
from ..utils import _pytree as pytree

__all__ = ["associative_scan"]


def associative_scan(
    combine_fn: Callable[[Any, Any], Any],
    xs: Any,
    dim: int,
    reverse: bool = False,
    combine_mode: str = "pointwise",
) -> Any:
    """The inclusive scan of the pytree of tensors `xs` along `dim`: element i is
    ``combine_fn(result[i - 1], xs[i])``.

    Example:
        >>> x = torch.tensor([1.0, 2.0, 3.0, 4.0])
        >>> scan = torch._higher_order_ops.associative_scan
        >>> scan(lambda a, b: a + b, x, dim=0, combine_mode="generic")
        tensor([ 1.,  3.,  6., 10.])
    """
    leaves, spec = pytree.tree_flatten(xs)
    dim = normalize_dim(dim, leaves[0].ndim) if leaves and isinstance(leaves[0], Tensor) else dim
    _validate(combine_fn, leaves, dim, reverse, combine_mode)
    leaves = [movedim(leaf, dim, 0) for leaf in leaves]
    if reverse:
        leaves = [flip(leaf, [0]) for leaf in leaves]
    if combine_mode == "generic":
        per_step = pytree.tree_unflatten([0] * len(leaves), spec)
        combine_fn = vmap(combine_fn, in_dims=(per_step, per_step), out_dims=0)
    count = len(leaves)

    def operator(*args: Tensor) -> list[Tensor]:
        left = pytree.tree_unflatten(args[:count], spec)
        right = pytree.tree_unflatten(args[count:], spec)
        return pytree.tree_leaves(combine_fn(left, right))

    out = _scan(operator, leaves)
    if reverse:
        out = [flip(leaf, [0]) for leaf in out]
    return pytree.tree_unflatten([movedim(leaf, 0, dim) for leaf in out], spec)


def _validate(combine_fn, leaves: list, dim, reverse, combine_mode: str) -> None:
    """PyTorch's checks of the arguments, with its errors."""
    if not callable(combine_fn):
        raise ValueError(f"Combine_fn must be a callable, but got {combine_fn}")
    if not isinstance(dim, int):
        raise ValueError("Dim must be an int, but got " + str(type(dim)))
    if not isinstance(reverse, bool):
        raise RuntimeError("Reverse must be a bool, but got " + str(type(reverse)))
    if combine_mode not in ["pointwise", "generic"]:
        raise ValueError(
            f"Combine_mode must either 'pointwise' or 'generic', but got {combine_mode}"
        )
    if combine_mode == "pointwise" and not all(
        leaf.device.type in ("cuda", "xpu") for leaf in leaves
    ):
        raise ValueError(
            "For combine_mode='pointwise', all input tensors need to be on CUDA or XPU"
        )
    if len(leaves) == 0:
        raise ValueError("Expected at least 1 xs leaf")
    if any(not isinstance(leaf, Tensor) for leaf in leaves):
        raise ValueError("xs leaves must be a Tensor")
    if any(leaf.is_sparse for leaf in leaves):
        raise ValueError("xs leaves must dense Tensors, consider using `to_dense()`")
    if any(leaf.ndim <= dim or leaf.shape[dim] == 0 for leaf in leaves):
        raise ValueError(
            "All xs leaves must at least have 'dim' number of dimensions and scan dimension > 0"
        )


def _scan(operator: Callable[..., list[Tensor]], elems: list[Tensor]) -> list[Tensor]:
    """The scan along dimension 0: neighbours combined, the halved sequence scanned, and the
    even positions filled in from it."""
    size = elems[0].shape[0]
    if size < 2:
        return elems
    odd = _scan(operator, operator(*[e[0:-1:2] for e in elems], *[e[1::2] for e in elems]))
    previous = [o[0:-1] for o in odd] if size % 2 == 0 else odd
    even = operator(*previous, *[e[2::2] for e in elems])
    even = [cat([e[0:1], r]) if r.numel() > 0 else e[0:1] for e, r in zip(elems, even, strict=True)]
    return [_interleave(a, b) for a, b in zip(even, odd, strict=True)]


def _interleave(a: Tensor, b: Tensor) -> Tensor:
    """a[0], b[0], a[1], b[1], ... along dimension 0 (`a` as long as `b` or one longer)."""
    shorter = a.shape[0] == b.shape[0] + 1
    if shorter:
        b = pad(b, [0, 0] * (b.ndim - 1) + [0, 1])
    interleaved = flatten(stack([a, b], dim=1), start_dim=0, end_dim=1)
    return interleaved[: a.shape[0] + b.shape[0] - 1] if shorter else interleaved
