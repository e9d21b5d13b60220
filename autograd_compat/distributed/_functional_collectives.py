"""torch.distributed._functional_collectives: collectives that return a new tensor instead of
writing in place, on the default group (a DeviceMesh or rank list covering every rank names it
too). Each result is complete when returned (PyTorch's AsyncCollectiveTensor waits lazily), so
`wait_tensor` returns its argument. The results do not record gradients, as PyTorch's do not, except
`all_to_all_single_autograd`'s (its backward exchanges the gradient's chunks back)."""

from __future__ import annotations

import warnings

import jax.numpy as jnp

from .._state.modes import no_grad
from .._state.tensor import Tensor
from ..autograd.function import Function
from . import distributed_c10d as _c10d
from .device_mesh import DeviceMesh

__all__ = [
    "all_gather_single",
    "all_gather_tensor",
    "all_reduce",
    "all_reduce_coalesced",
    "all_to_all_single",
    "all_to_all_single_autograd",
    "broadcast",
    "reduce_scatter_single",
    "reduce_scatter_tensor",
    "wait_tensor",
]


def _check_group(group) -> None:
    """Refuse groups other than the whole world (subgroups are not provided)."""
    world = _c10d.get_world_size()
    if group is None or isinstance(group, _c10d.ProcessGroup):
        return
    if isinstance(group, DeviceMesh) and group.size() == world:
        return
    if isinstance(group, list) and group in (list(range(world)), [list(range(world))]):
        return
    raise NotImplementedError(
        f"torch.distributed._functional_collectives: group {group!r} is not supported by "
        "autograd_compat; collectives run over the default group (all ranks)"
    )


def _op(name: str) -> str:
    """The c10d reduction of a functional collective's `reduceOp` name ("sum", "avg", ...)."""
    member = getattr(_c10d.ReduceOp, str(name).upper(), None)
    if not isinstance(member, _c10d.ReduceOp.RedOpType):
        raise ValueError(f"Unrecognized reduce_op {name!r}")
    return _c10d._reduction(member)


def _reduced(name: str, tensor: Tensor, op: str):
    collectives = _c10d._collectives()
    if collectives is None:
        return tensor._value
    return collectives.reduce(_c10d._values(name, [tensor]), op)[0]


def _new(value) -> Tensor:
    with no_grad():
        return Tensor._wrap(value)


def all_reduce(self: Tensor, reduceOp: str, group, tag: str = "") -> Tensor:  # noqa: N803
    """`self` reduced over the ranks by `reduceOp`, as a new tensor."""
    _check_group(group)
    return _new(_reduced("all_reduce", self, _op(reduceOp)))


def all_reduce_coalesced(self: list, reduceOp: str, group, tag: str = "") -> list:  # noqa: N803
    """Each tensor of `self` reduced over the ranks (one program)."""
    _check_group(group)
    op = _op(reduceOp)
    collectives = _c10d._collectives()
    if collectives is None:
        return [_new(t._value) for t in self]
    return [_new(v) for v in collectives.reduce(_c10d._values("all_reduce", self), op)]


def all_gather_single(self: Tensor, gather_dim: int, group, tag: str = "") -> Tensor:
    """Every rank's `self`, concatenated along `gather_dim` in rank order."""
    _check_group(group)
    rows = _c10d._gathered("all_gather", self)
    return _new(jnp.concatenate(list(rows), axis=gather_dim))


def all_gather_tensor(self: Tensor, gather_dim: int, group, tag: str = "") -> Tensor:
    """`all_gather_single` under the name PyTorch 2.13 deprecates (with its warning)."""
    warnings.warn(
        "`torch.distributed._functional_collectives.all_gather_tensor` is deprecated. Please "
        "use `torch.distributed._functional_collectives.all_gather_single` instead.",
        FutureWarning,
        stacklevel=2,
    )
    return all_gather_single(self, gather_dim, group, tag)


def reduce_scatter_single(
    self: Tensor,
    reduceOp: str,  # noqa: N803
    scatter_dim: int,
    group,
    tag: str = "",
) -> Tensor:
    """`self` reduced over the ranks, then split along `scatter_dim` into one equal chunk per
    rank: this rank's chunk."""
    _check_group(group)
    world, rank = _c10d.get_world_size(), _c10d.get_rank()
    if self.shape[scatter_dim] % world:
        raise ValueError(
            f"input dimension {scatter_dim} ({self.shape[scatter_dim]}) must be a multiple "
            f"of group_size {world}"
        )
    total = _reduced("reduce_scatter", self, _op(reduceOp))
    return _new(jnp.split(total, world, axis=scatter_dim)[rank])


def reduce_scatter_tensor(
    self: Tensor,
    reduceOp: str,  # noqa: N803
    scatter_dim: int,
    group,
    tag: str = "",
) -> Tensor:
    """`reduce_scatter_single` under the name PyTorch 2.13 deprecates (with its warning)."""
    warnings.warn(
        "`torch.distributed._functional_collectives.reduce_scatter_tensor` is deprecated. "
        "Please use `torch.distributed._functional_collectives.reduce_scatter_single` instead.",
        FutureWarning,
        stacklevel=2,
    )
    return reduce_scatter_single(self, reduceOp, scatter_dim, group, tag)


def broadcast(self: Tensor, src: int, group, tag: str = "") -> Tensor:
    """Rank `src`'s `self`, as a new tensor on every rank."""
    _check_group(group)
    result = _new(self._value)
    _c10d.broadcast(result, src)
    return result


def all_to_all_single(
    self: Tensor, output_split_sizes, input_split_sizes, group, tag: str = ""
) -> Tensor:
    """`torch.distributed.all_to_all_single` into a new tensor (equal chunks)."""
    _check_group(group)
    result = _new(jnp.empty_like(self._value))
    _c10d.all_to_all_single(result, self, output_split_sizes, input_split_sizes)
    return result


class _AllToAll(Function):
    """all_to_all_single with equal chunks, whose backward is the same exchange of the
    gradient (chunk j of rank i goes back from rank j to rank i)."""

    @staticmethod
    def forward(ctx, input, output_split_sizes, input_split_sizes):
        ctx.splits = (input_split_sizes, output_split_sizes)
        return all_to_all_single(input, output_split_sizes, input_split_sizes, None)

    @staticmethod
    def backward(ctx, grad):
        return all_to_all_single(grad.contiguous(), *ctx.splits, None), None, None


def all_to_all_single_autograd(
    self: Tensor, output_split_sizes, input_split_sizes, group, tag: str = ""
) -> Tensor:
    """`all_to_all_single` that records its gradient (the reverse exchange)."""
    _check_group(group)
    return _AllToAll.apply(self, output_split_sizes, input_split_sizes)


def wait_tensor(tensor: Tensor) -> Tensor:
    """The tensor itself: functional collectives here are complete when they return."""
    return tensor
