"""torch.distributed.tensor's `distribute_tensor` and `distribute_module`: tensors and
modules laid out on a DeviceMesh as DTensors."""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Sequence

from ..._pure import sharding as _sharding
from ..._state.tensor import Tensor
from ...nn.modules.module import Module
from ...nn.parameter import Parameter
from ..device_mesh import DeviceMesh
from ..distributed_c10d import broadcast
from . import _layout
from ._api import DTensor, as_dtensor, mesh_given
from .placement_types import Placement, Replicate

__all__ = ["distribute_module", "distribute_tensor"]


def distribute_tensor(
    tensor: Tensor,
    device_mesh: DeviceMesh | None = None,
    placements: Sequence[Placement] | None = None,
    *,
    src_data_rank: int | None = 0,
) -> DTensor:
    """A DTensor leaf holding `tensor`'s values laid out on `device_mesh` by `placements`
    (default: replicated), with its `requires_grad`: on a mesh spanning processes, rank
    `src_data_rank`'s values (None: each process's own, which must agree). `Partial` lays
    the value out as `Replicate` (see `_layout`)."""
    mesh = mesh_given(device_mesh)
    if not tensor.is_leaf:
        raise RuntimeError(
            "`distribute_tensor` should be used to distribute leaf tensors! but found "
            "non-leaf tensor!"
        )
    chosen = placements if placements is not None else [Replicate()] * mesh.ndim
    chosen = _layout.normalized(list(chosen), mesh, tensor.ndim)
    if isinstance(tensor, DTensor):
        if tensor.device_mesh != mesh:
            raise ValueError(
                f"Cannot distribute a DTensor with device mesh {tensor.device_mesh} "
                f"to a different device mesh {mesh}."
            )
        if tensor.placements != chosen:
            raise ValueError(
                f"Cannot distribute a DTensor with placements {tensor.placements} "
                f"to a different placements {list(chosen)}. do you want to call "
                f"`redistribute` instead?"
            )
        return tensor
    sharding = _layout.sharding_of(chosen, mesh, tensor.ndim)
    source = tensor.detach()
    if not sharding.is_fully_addressable and src_data_rank is not None:
        source = source.clone()  # every process lays out rank `src_data_rank`'s values
        broadcast(source, src_data_rank)
    value = _sharding.put(source._value, sharding)
    out = as_dtensor(Tensor._wrap(value), mesh)
    out.requires_grad_(tensor.requires_grad)
    return out


def distribute_module(
    module: Module,
    device_mesh: DeviceMesh | None = None,
    partition_fn: Callable[[str, Module, DeviceMesh], None] | None = None,
    input_fn: Callable | None = None,
    output_fn: Callable | None = None,
) -> Module:
    """Lay `module`'s parameters and buffers out on `device_mesh`: `partition_fn(name,
    submodule, mesh)` distributes those it chooses, the rest are replicated; `input_fn` and
    `output_fn` run as a forward pre-hook and a forward hook."""
    if getattr(module, "_distribute_module_applied", False):
        raise RuntimeError(
            "distribute_module should only be called once on a module, "
            "but it has already been called on this module!"
        )
    mesh = mesh_given(device_mesh)
    for name, submodule in module.named_modules():
        if partition_fn is not None:
            partition_fn(name, submodule, mesh)
        _replicate_rest(submodule, mesh)
    if input_fn is not None:
        module.register_forward_pre_hook(_hook(input_fn, "input_fn", mesh, pre=True))
    if output_fn is not None:
        module.register_forward_hook(_hook(output_fn, "output_fn", mesh, pre=False))
    module._distribute_module_applied = True
    return module


def _replicate_rest(module: Module, mesh: DeviceMesh) -> None:
    """Replicate `module`'s own parameters and buffers that are not DTensors yet."""
    whole = [Replicate()] * mesh.ndim
    for key, param in module._parameters.items():
        if param is not None and not isinstance(param, DTensor):
            laid = distribute_tensor(param.data, mesh, whole)
            module.register_parameter(key, Parameter(laid, requires_grad=param.requires_grad))
    for key, buffer in module._buffers.items():
        if buffer is not None and not isinstance(buffer, DTensor):
            module._buffers[key] = distribute_tensor(buffer, mesh, whole)


def _hook(fn: Callable, what: str, mesh: DeviceMesh, pre: bool) -> Callable:
    """`fn` as a module hook: PyTorch's (module, value, mesh) form, or its deprecated
    (value, mesh) form with a FutureWarning."""
    count = len(inspect.signature(fn).parameters)
    if count == 2:
        warnings.warn(
            f"Deprecating {what} that takes two arguments (inputs, device_mesh), "
            f"please use {what} that takes in (module, inputs, device_mesh) instead!",
            FutureWarning,
            stacklevel=3,
        )
        if pre:
            return lambda module, inputs: fn(inputs, mesh)
        return lambda module, inputs, outputs: fn(outputs, mesh)
    if count != 3:
        raise ValueError(f"{what} should take in 3 arguments, but got {count} arguments!")
    if pre:
        return lambda module, inputs: fn(module, inputs, mesh)
    return lambda module, inputs, outputs: fn(module, outputs, mesh)
