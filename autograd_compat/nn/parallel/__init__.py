"""torch.nn.parallel on JAX's SPMD sharding, in one process.

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
"""

from __future__ import annotations

import contextlib

import jax
import numpy as np
from jax.sharding import Mesh

from ..._pure import sharding as _sharding
from ..._state.tensor import Tensor
from ...distributed import NO_PROCESS_GROUP, is_initialized
from ..modules.module import Module

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
            everywhere = _sharding.replicated(self._mesh)
            for tensor in (*module.parameters(), *module.buffers()):
                tensor.data = Tensor._wrap(_sharding.put(tensor._value, everywhere))

    def forward(self, *inputs, **kwargs):
        if self._mesh is not None:
            inputs, kwargs = split_inputs(
                (inputs, kwargs), self._mesh, self.dim, type(self).__name__
            )
        return self.module(*inputs, **kwargs)


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
    """DataParallel's layout for a process of the default process group (world size 1 here:
    all local devices, see the module docstring); PyTorch's ValueError before
    `init_process_group`."""

    def __init__(
        self, module: Module, device_ids=None, output_device=None, dim: int = 0, **options
    ) -> None:
        if not is_initialized():
            raise ValueError(NO_PROCESS_GROUP)
        super().__init__(module, None, dim)
        self.options = options

    @contextlib.contextmanager
    def no_sync(self):
        """Gradients here are always those of the whole batch (one SPMD program), so
        accumulating without synchronisation gives the synchronised result: nothing to do."""
        yield
