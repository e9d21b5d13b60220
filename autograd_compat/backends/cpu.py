"""torch.backends.cpu: the CPU capability string."""

from __future__ import annotations


def get_cpu_capability() -> str:
    return "DEFAULT"
