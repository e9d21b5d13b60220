"""torch.nn.parallel.distributed: the module path of DistributedDataParallel."""

from . import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
