"""torch.distributed._composable.fsdp: FSDP2 under its earlier path (`torch.distributed.fsdp`)."""

from ...fsdp import (
    CPUOffloadPolicy,
    FSDPModule,
    MixedPrecisionPolicy,
    OffloadPolicy,
    fully_shard,
)

__all__ = [
    "CPUOffloadPolicy",
    "FSDPModule",
    "MixedPrecisionPolicy",
    "OffloadPolicy",
    "fully_shard",
]
