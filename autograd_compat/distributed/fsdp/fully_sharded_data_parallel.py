"""torch.distributed.fsdp.fully_sharded_data_parallel: where PyTorch defines the FSDP wrapper
and its options (accelerate imports them from here for its isinstance checks)."""

from . import FullyShardedDataParallel, ShardingStrategy

__all__ = ["FullyShardedDataParallel", "ShardingStrategy"]
