"""torch.distributed.constants: the default timeouts of process groups (no NCCL here, so its
default is None, as on PyTorch's CPU build)."""

from __future__ import annotations

from datetime import timedelta

__all__ = ["default_pg_nccl_timeout", "default_pg_timeout"]

default_pg_timeout = timedelta(minutes=30)
default_pg_nccl_timeout: timedelta | None = None
