"""torch.nn.parallel on JAX's SPMD sharding, and DistributedDataParallel across processes.

`DataParallel(module)` and `DistributedDataParallel(module)` (after `init_process_group`) put
the module's parameters and buffers on every local device (a replicated `NamedSharding` over a
one-axis `Mesh`) and split each tensor input along `dim` over the devices. Each op then runs
as one XLA program over all of them; the gradient of a parameter is the sum over the whole
batch (XLA inserts the all-reduce), so `.grad`, `optimizer.step()` and the optimizer state are
those of one device on the whole batch, and stay replicated on the mesh. The tensors seen by
user code are the global ones (the whole batch), as DataParallel's outputs are.

With one device both wrappers run the module as it is. A batch that does not split evenly
over the devices raises a ValueError naming the sizes; an input that requires grad is not
split (XLA moves it whole), so its gradient is exact.

With several processes (`init_process_group` of world size N > 1), `DistributedDataParallel`
is PyTorch's: rank 0's parameters and buffers are broadcast at construction (buffers again at
each forward), each rank runs the module on its own batch on its default device, and the
gradients are averaged over the ranks after each backward (`_gradient_sync`).
"""

from __future__ import annotations

import contextlib

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from ..._pure import sharding as _sharding
from ..._state.tensor import Tensor
from ...distributed.distributed_c10d import (
    NO_PROCESS_GROUP,
    broadcast_bucket,
    get_world_size,
    is_initialized,
)
from ..modules.module import Module
from ._gradient_sync import GradientSync

__all__ = ["DataParallel", "DistributedDataParallel"]

_AXIS = "batch"


class _Replicated(Module):
    """The module replicated over a mesh of local devices, its inputs split along `dim`."""

    def __init__(self, module: Module, device_ids, dim: int) -> None:
        super().__init__()
        self.module = module
        self.dim = dim
        devices = jax.local_devices()
        if device_ids is not None:
            devices = [devices[_index(d)] for d in device_ids]
        self.device_ids = list(range(len(devices))) if device_ids is None else list(device_ids)
        self._mesh = Mesh(np.asarray(devices, dtype=object), (_AXIS,)) if len(devices) > 1 else None
        if self._mesh is not None:
            lay_out(module, self._mesh)

    def forward(self, *inputs, **kwargs):
        if self._mesh is not None:
            inputs, kwargs = split_inputs(
                (inputs, kwargs), self._mesh, self.dim, type(self).__name__
            )
        return self.module(*inputs, **kwargs)


def lay_out(module: Module, mesh: Mesh, shard: bool = False, ignored=()) -> None:
    """Put `module`'s parameters (but the `ignored`) on `mesh`, split along dim 0 over its
    last axis where that divides evenly (and `shard`: FSDP), else whole on every device (DDP);
    buffers whole. A one-device mesh leaves everything where it is."""
    if mesh.size == 1:
        return
    axis = mesh.axis_names[-1]
    parts = mesh.shape[axis]
    skip = set(map(id, ignored))
    for p in module.parameters():
        if id(p) in skip:
            continue
        split = shard and p.ndim > 0 and p.shape[0] % parts == 0
        layout = NamedSharding(mesh, PartitionSpec(axis) if split else PartitionSpec())
        p.data = Tensor._wrap(_sharding.put(p._value, layout))
    for b in module.buffers():
        b.data = Tensor._wrap(_sharding.put(b._value, _sharding.replicated(mesh)))


def split_inputs(inputs, mesh: Mesh, dim: int, owner: str):
    """The tensors of the pytree `inputs` that do not require grad split along `dim` over all
    axes of `mesh`; a ValueError naming `owner` for a size that does not split evenly."""

    def split(x):
        if not isinstance(x, Tensor) or x.requires_grad or x.ndim <= dim:
            return x
        size, devices = x.shape[dim], mesh.size
        if size % devices:
            raise ValueError(
                f"{owner}: input of shape {list(x.shape)} has size {size} in "
                f"dimension {dim}, which does not split evenly over {devices} devices; "
                f"use a batch size divisible by {devices}"
            )
        return Tensor._wrap(_sharding.put(x._value, _sharding.along(mesh, dim, x.ndim)))

    return jax.tree_util.tree_map(split, inputs, is_leaf=lambda x: isinstance(x, Tensor))


def _index(device_id) -> int:
    """A device id as PyTorch takes them (an int, "cuda:1", a torch.device) as an index."""
    index = getattr(device_id, "index", device_id)
    if isinstance(device_id, str):
        index = int(device_id.rsplit(":", 1)[1]) if ":" in device_id else 0
    return int(index or 0)


class DataParallel(_Replicated):
    """Replicate `module` on the local devices (`device_ids`: all by default) and split each
    tensor input along `dim` over them."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0) -> None:
        super().__init__(module, device_ids, dim)
        self.output_device = output_device


class DistributedDataParallel(_Replicated):
    """Data parallelism over the processes of the default process group and, with one
    process, over its local devices (DataParallel's layout); see the module docstring.
    PyTorch's ValueError before `init_process_group`."""

    def __init__(
        self,
        module: Module,
        device_ids=None,
        output_device=None,
        dim: int = 0,
        broadcast_buffers: bool | None = None,
        find_unused_parameters: bool = False,
        **options,
    ) -> None:
        if not is_initialized():
            raise ValueError(NO_PROCESS_GROUP)
        several = get_world_size() > 1
        if several and find_unused_parameters:
            raise NotImplementedError(
                "DistributedDataParallel(find_unused_parameters=True) across processes is not "
                "supported by autograd_compat: every parameter must contribute to the loss"
            )
        # Across processes each rank computes on its own default device.
        super().__init__(module, [0] if several else None, dim)
        self.broadcast_buffers = broadcast_buffers is not False
        self.find_unused_parameters = find_unused_parameters
        self.options = options
        self._sync = GradientSync(module.parameters()) if several else None
        if several:
            broadcast_bucket([*module.parameters(), *module.buffers()], 0)

    def forward(self, *inputs, **kwargs):
        if self._sync is not None:
            self._sync.check_finished()
            if self.broadcast_buffers:
                broadcast_bucket(list(self.module.buffers()), 0)
        return super().forward(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        """Backwards inside accumulate gradients locally, unaveraged; the next backward
        outside averages the total. With one process the gradients are always those of the
        whole batch (one SPMD program), so there is nothing to skip."""
        if self._sync is None:
            yield
            return
        self._sync.enabled = False
        try:
            yield
        finally:
            self._sync.enabled = True
