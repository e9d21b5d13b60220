"""torch.backends.mps: Apple's Metal backend is not available here."""

from __future__ import annotations


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False
