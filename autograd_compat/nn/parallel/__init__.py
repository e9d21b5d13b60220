"""torch.nn.parallel: DataParallel runs the wrapped module in this process, as PyTorch's does
without CUDA devices (`.module` is the wrapped module, state_dict keys gain "module.");
DistributedDataParallel needs a process group, which this library does not have: it raises
PyTorch's error for an uninitialized default group."""

from __future__ import annotations

from ...distributed import NO_PROCESS_GROUP
from ..modules.module import Module

__all__ = ["DataParallel", "DistributedDataParallel"]


class DataParallel(Module):
    """Wrap `module`; calls run it directly (one device: nothing is scattered or gathered)."""

    def __init__(self, module, device_ids=None, output_device=None, dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.device_ids: list = []
        self.output_device = output_device
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


class DistributedDataParallel(Module):
    """Needs torch.distributed's default process group: raises PyTorch's ValueError."""

    def __init__(self, module, *args, **kwargs) -> None:
        raise ValueError(NO_PROCESS_GROUP)
