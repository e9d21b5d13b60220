"""torch.distributed.tensor's DTensor: a Tensor whose value is the global `jax.Array`, laid out
on a DeviceMesh by a `NamedSharding` (one process drives all its devices).

Its placements are read from that sharding (`_layout.placements_of`), so a DTensor keeps no
state beyond a Tensor's. Ops on DTensors run SPMD (XLA partitions each one) and give DTensors
laid out as XLA laid out their arrays; the `.grad` of a DTensor leaf is a DTensor laid out as
the leaf.

A rank is a process. `to_local()` is this process's piece: the shard at the mesh coordinate
of the first of its devices the mesh holds (`DeviceMesh.get_coordinate`). `from_local` reads
its tensor as every rank's piece, as a PyTorch program that runs the same code on every rank
passes the same tensor on each: `Shard(d)` repeats it along `d` once per device of that mesh
dimension, `Partial("sum")` scales it by their count (the sum of equal pieces), and
`Replicate()`, `Partial("avg")`, `Partial("max")` and `Partial("min")` keep it. Its gradient
is this process's: that of the piece at its coordinate (PyTorch's rank 0 gets its own shard's),
so `to_local` and `from_local` undo each other, gradients included.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, cast

import jax
import jax.numpy as jnp
from jax.core import Tracer
from jax.sharding import Mesh, NamedSharding

from ..._ops.subclass import _rehome
from ..._pure import sharding as _sharding
from ..._pure.op import register
from ..._state import modes
from ..._state import torch_function as _tf
from ..._state.tensor import PLAIN_TYPES, Tensor
from ..._tape.record import apply
from ...nn.parameter import Parameter
from ..device_mesh import DeviceMesh, mesh_of
from . import _layout
from ._utils import compute_local_shape_and_global_offset
from .placement_types import Partial, Placement, Replicate, Shard

__all__ = ["DTensor"]


def _laid_out(x, *, sharding: NamedSharding):
    return jax.lax.with_sharding_constraint(x, sharding)


class _Tiling(NamedTuple):
    """One `Shard` mesh dimension of `from_local`: `copies` of the piece along `dim`, of which
    the one at `live` (this process's coordinate) carries the gradient."""

    dim: int
    copies: int
    live: int


def _from_local(x, *, tilings: tuple[_Tiling, ...], scale: int, sharding: NamedSharding):
    """The global value of equal pieces `x`, whose gradient is that of this process's piece
    (as PyTorch's rank gets its own): the other copies, and the other terms of a sum of
    `scale` pieces, are constants."""
    for tiling in tilings:
        still = jax.lax.stop_gradient(x)
        copies = [x if i == tiling.live else still for i in range(tiling.copies)]
        x = jnp.concatenate(copies, axis=tiling.dim)
    if scale != 1:
        x = x + (scale - 1) * jax.lax.stop_gradient(x)
    return jax.lax.with_sharding_constraint(x, sharding)


def _piece(x, *, start: tuple, limit: tuple, sharding: NamedSharding):
    return jax.lax.with_sharding_constraint(jax.lax.slice(x, start, limit), sharding)


REDISTRIBUTE = register(
    "distributed.tensor.redistribute", _laid_out, node="RedistributeBackward", saves="none"
)
FROM_LOCAL = register(
    "distributed.tensor.from_local", _from_local, node="_FromTorchTensorBackward", saves="none"
)
TO_LOCAL = register(
    "distributed.tensor.to_local", _piece, node="_ToTorchTensorBackward", saves="none"
)
_SAME_PIECE_REDUCTIONS = ("avg", "max", "min")  # Partial reductions of equal pieces: the piece


class DTensor(Tensor):
    """A tensor laid out on a DeviceMesh (see the module): `.device_mesh`, `.placements`,
    `.to_local()`, `.full_tensor()`, `.redistribute(...)`. Made by `distribute_tensor`,
    `DTensor.from_local` and ops on DTensors.

    Example::

        >>> from autograd_compat.distributed.tensor import distribute_tensor, Replicate
        >>> mesh = torch.distributed.init_device_mesh("cpu", (1,))
        >>> dt = distribute_tensor(torch.ones(2), mesh, [Replicate()])
        >>> (dt * 2).placements
        (Replicate(),)
    """

    __torch_function__ = _tf._disabled_torch_function_impl  # the real one is set below

    def __new__(cls, *args, **kwargs):
        raise TypeError(
            "torch.distributed.tensor.DTensor(local_tensor, spec): DTensorSpec is PyTorch's "
            "internal record; make a DTensor with DTensor.from_local or distribute_tensor"
        )

    @property
    def device_mesh(self) -> DeviceMesh:
        """The DeviceMesh the value is laid out on."""
        return mesh_of(self._value.sharding.mesh)

    @property
    def placements(self) -> tuple[Placement, ...]:
        """How the value lies over each mesh dimension (read from its sharding)."""
        return _layout.placements_of(self._value.sharding)

    def to_local(self, *, grad_placements: Sequence[Placement] | None = None) -> Tensor:
        """This process's piece of the value (see the module), as a plain Tensor;
        differentiable in one process."""
        mesh = self.device_mesh
        if not self._value.sharding.is_fully_addressable:
            return _own_piece(self, mesh)
        shape, offset = compute_local_shape_and_global_offset(self.shape, mesh, self.placements)
        limit = tuple(o + n for o, n in zip(offset, shape))
        return _plain_piece(self, offset, limit)

    def full_tensor(self, *, grad_placements: Sequence[Placement] | None = None) -> Tensor:
        """The global value as a plain Tensor (replicated on the mesh); differentiable."""
        return _plain_piece(self, (0,) * self.ndim, tuple(self.shape))

    def redistribute(
        self,
        device_mesh: DeviceMesh | None = None,
        placements: Sequence[Placement] | None = None,
        *,
        async_op: bool = False,
        forward_dtype=None,
        backward_dtype=None,
    ) -> DTensor:
        """The value laid out by `placements` (XLA moves the data); differentiable. A
        `backward_dtype` is accepted; the gradient's collective runs at the input's dtype."""
        mesh = device_mesh or self.device_mesh
        if placements is None:
            raise RuntimeError("placements is needed for redistribute!")
        if mesh != self.device_mesh:
            raise NotImplementedError("Cross device mesh comm not supported yet!")
        current = self.placements
        for i, placement in enumerate(placements):
            if isinstance(placement, Partial) and current[i] != placement:
                raise RuntimeError(
                    f"Can not redistribute from {current[i]} to {placement}, "
                    "redistributing to Partial is for internal use only!"
                )
        source = self if forward_dtype is None else self.to(forward_dtype)
        sharding = _layout.sharding_of(
            _layout.normalized(placements, mesh, self.ndim), mesh, self.ndim
        )
        return as_dtensor(apply(REDISTRIBUTE, source, sharding=sharding), mesh)

    @staticmethod
    def from_local(
        local_tensor: Tensor,
        device_mesh: DeviceMesh | None = None,
        placements: Sequence[Placement] | None = None,
        *,
        run_check: bool = False,
        shape=None,
        stride=None,
        grad_placements: Sequence[Placement] | None = None,
    ) -> DTensor:
        """A DTensor whose pieces are `local_tensor` (see the module for what each placement
        makes of it); differentiable. `run_check` has nothing to check with one process."""
        if isinstance(local_tensor, DTensor):
            raise RuntimeError(
                f"the local_tensor argument only accepts torch.Tensor but got "
                f"{type(local_tensor)} value."
            )
        mesh = mesh_given(device_mesh)
        ndim = local_tensor.ndim
        chosen = placements if placements is not None else [Replicate()] * mesh.ndim
        chosen = _layout.normalized(list(chosen), mesh, ndim)
        coordinate = mesh.get_coordinate() or [0] * mesh.ndim
        repeats, tilings, scale = [1] * ndim, [], 1
        for mesh_dim, placement in enumerate(chosen):
            if isinstance(placement, Shard):
                count = mesh.size(mesh_dim)
                repeats[placement.dim] *= count
                tilings.append(_Tiling(placement.dim, count, coordinate[mesh_dim]))
            elif isinstance(placement, Partial) and placement.reduce_op == "sum":
                scale *= mesh.size(mesh_dim)
            elif isinstance(placement, Partial) and placement.reduce_op not in (
                _SAME_PIECE_REDUCTIONS
            ):
                raise NotImplementedError(
                    f"DTensor.from_local: Partial({placement.reduce_op!r}) is not supported "
                    f"(supported: 'sum', {', '.join(map(repr, _SAME_PIECE_REDUCTIONS))})"
                )
        global_shape = tuple(n * r for n, r in zip(local_tensor.shape, repeats))
        if shape is not None and tuple(shape) != global_shape:
            raise ValueError(
                f"DTensor.from_local: shape {list(shape)} differs from {list(global_shape)}, "
                f"the shape of equal pieces of shape {list(local_tensor.shape)} laid out by "
                f"{list(chosen)}; pieces of other shapes on other ranks need several processes"
            )
        sharding = _layout.sharding_of(chosen, mesh, ndim)
        if not sharding.is_fully_addressable:
            return _from_pieces(local_tensor, global_shape, sharding, mesh, scale)
        value = apply(FROM_LOCAL, local_tensor, tilings=tuple(tilings), scale=scale,
                      sharding=sharding)  # fmt: skip
        return as_dtensor(value, mesh)

    @property
    def grad(self) -> Tensor | None:
        """The accumulated gradient, a DTensor laid out as this tensor."""
        grad = Tensor.grad.fget(self)
        if grad is not None and type(grad) in PLAIN_TYPES:
            grad = self._grad = as_dtensor(grad, self)
        return grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        Tensor.grad.fset(self, value)

    @grad.deleter
    def grad(self) -> None:
        Tensor.grad.fdel(self)

    def __repr__(self) -> str:
        local = cast(DTensor, self.detach()).to_local()
        return (
            f"DTensor(local_tensor={local}, device_mesh={self.device_mesh}, "
            f"placements={self.placements})"
        )


class _DTensorParameter(DTensor, Parameter):
    """`nn.Parameter(dtensor)`: a DTensor that is a Parameter, as PyTorch's."""


def _torch_function(cls, func, types, args=(), kwargs=None):
    """Run `func` with subclass dispatch off and give its new Tensors as DTensors on the mesh
    of the first DTensor argument (a Tensor argument returned, as by an in-place op, stays)."""
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with _tf.DisableTorchFunctionSubclass():
        ret = func(*args, **(kwargs or {}))
    like = _first_dtensor(args, kwargs)
    return ret if like is None else _converted(ret, args, like)


# Set after the class statements: a Tensor subclass that overrides switches dispatch on for the
# process when it is defined, and importing this module (transformers and accelerate do) must
# not; the first DTensor made does (`as_dtensor`).
DTensor.__torch_function__ = classmethod(_torch_function)
DTensor._parameter_class = _DTensorParameter  # `nn.Parameter(dtensor)`'s class
DTensor._like_class = DTensor  # an optimizer's state buffers of a DTensor parameter


def make_parameter_dtensor(param: Parameter, mesh: Mesh) -> None:
    """Make `param`, a Parameter, a DTensor in place (FSDP2's parameters are DTensors), laid
    out replicated on `mesh` unless it lies on a mesh already; the references to it (an
    optimizer's) stay valid."""
    if type(param) is not Parameter:
        return
    if not isinstance(param._value.sharding, NamedSharding):
        param.data = Tensor._wrap(_sharding.put(param._value, _sharding.replicated(mesh)))
    _tf.override_possible()
    param.__class__ = _DTensorParameter


def _first_dtensor(args: tuple, kwargs: dict | None) -> DTensor | None:
    for group in (args, kwargs.values()) if kwargs else (args,):
        for arg in group:
            if isinstance(arg, DTensor):
                return arg
            if type(arg) in (list, tuple):
                for item in arg:
                    if isinstance(item, DTensor):
                        return item
    return None


def _converted(ret, args: tuple, like: DTensor):
    if type(ret) in PLAIN_TYPES:
        for arg in args:
            if arg is ret:
                return ret
        return as_dtensor(ret, like)
    if isinstance(ret, (tuple, list)):
        return type(ret)(_converted(item, args, like) for item in ret)
    return ret


def as_dtensor(t: Tensor, where: DTensor | DeviceMesh) -> DTensor:
    """`t` (a plain Tensor nothing else uses) as a DTensor. A value an op left off the mesh
    (`zeros_like`'s, a factory's) is laid out as `where`, a DTensor of its shape, else
    replicated on `where`'s mesh. Switches `__torch_function__` dispatch on (once)."""
    _tf.override_possible()
    out = cast(DTensor, _rehome(t, DTensor))
    value = out._value
    if not isinstance(value, Tracer) and not isinstance(value.sharding, NamedSharding):
        if isinstance(where, DeviceMesh):
            layout = _sharding.replicated(where.jax_mesh)
        elif where.shape == out.shape:
            layout = where._value.sharding
        else:
            layout = _sharding.replicated(where._value.sharding.mesh)
        out._value = _sharding.put(value, layout)
    return out


def _across_processes(what: str, t: Tensor) -> None:
    """Refuse a gradient that would have to cross processes (no op records it)."""
    if t.requires_grad and modes.is_grad_enabled():
        raise NotImplementedError(
            f"DTensor.{what} on a mesh spanning processes does not record a gradient; call it "
            f"on a tensor that does not require grad, or under torch.no_grad()"
        )


def _from_pieces(local: Tensor, shape: tuple, sharding: NamedSharding, mesh, scale: int):
    """`from_local` on a mesh spanning processes: each of this process's devices holds
    `local`, the other processes' devices their own pieces."""
    _across_processes("from_local", local)
    if scale != 1:
        raise NotImplementedError(
            "DTensor.from_local: Partial('sum') on a mesh spanning processes is not supported"
        )
    value = local.detach()._value
    pieces = [jax.device_put(value, d) for d in sharding.addressable_devices]
    whole = jax.make_array_from_single_device_arrays(shape, sharding, pieces)
    return as_dtensor(Tensor._wrap(whole), mesh)


def _own_piece(dt: DTensor, mesh: DeviceMesh) -> Tensor:
    """`to_local` on a mesh spanning processes: the shard on this process's device at its
    coordinate."""
    _across_processes("to_local", dt)
    device = mesh.jax_mesh.devices[tuple(mesh.get_coordinate() or ())]
    return Tensor._wrap(next(s.data for s in dt._value.addressable_shards if s.device == device))


def _plain_piece(dt: DTensor, start: tuple, limit: tuple) -> Tensor:
    sharding = _sharding.replicated(dt._value.sharding.mesh)
    return apply(TO_LOCAL, dt, start=tuple(start), limit=tuple(limit), sharding=sharding)


def mesh_given(device_mesh: DeviceMesh | None) -> DeviceMesh:
    """`device_mesh`, or PyTorch's error for none (there is no `with mesh:` context here)."""
    if device_mesh is None:
        raise RuntimeError("No device mesh is currently active!")
    return device_mesh
