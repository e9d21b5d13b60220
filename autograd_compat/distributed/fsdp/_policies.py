"""FSDP2's policies: mixed precision (`MixedPrecisionPolicy`) and offloading
(`OffloadPolicy`, none; `CPUOffloadPolicy`), as PyTorch's frozen dataclasses."""

from __future__ import annotations

import dataclasses

from ..._pure import dtypes as _dtypes

__all__ = ["CPUOffloadPolicy", "MixedPrecisionPolicy", "OffloadPolicy"]


@dataclasses.dataclass(frozen=True)
class MixedPrecisionPolicy:
    """The dtypes of parameters in forward/backward, of gradient reduction and of outputs
    (None: unchanged), and whether forward inputs are cast to `param_dtype`."""

    param_dtype: _dtypes.dtype | None = None
    reduce_dtype: _dtypes.dtype | None = None
    output_dtype: _dtypes.dtype | None = None
    cast_forward_inputs: bool = True


@dataclasses.dataclass
class OffloadPolicy:
    """No offloading (the default)."""


@dataclasses.dataclass
class CPUOffloadPolicy(OffloadPolicy):
    """Keep sharded parameters, gradients and optimizer state on the CPU (in pinned memory
    when `pin_memory`)."""

    pin_memory: bool = True


def changes_anything(policy) -> bool:
    """Whether an FSDP precision or offload setting asks for something (None, the default
    MixedPrecisionPolicy and the base OffloadPolicy ask for nothing)."""
    if policy is None or type(policy) is OffloadPolicy:
        return False
    if isinstance(policy, MixedPrecisionPolicy):
        return any((policy.param_dtype, policy.reduce_dtype, policy.output_dtype))
    return True
