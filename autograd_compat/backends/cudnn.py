"""torch.backends.cudnn: settable switches with PyTorch's defaults; there is no cuDNN here
(XLA chooses GPU kernels itself), so `is_available()` is False and the switches change
nothing."""

from __future__ import annotations

import contextlib

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True
benchmark_limit = 10


def is_available() -> bool:
    return False


def version():
    return None


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, deterministic=False, allow_tf32=True, **kwargs):
    """Set the switches inside a `with` block, restoring them after (as PyTorch's)."""
    module = globals()
    saved = {k: module[k] for k in ("enabled", "benchmark", "deterministic", "allow_tf32")}
    module.update(
        enabled=enabled, benchmark=benchmark, deterministic=deterministic, allow_tf32=allow_tf32
    )
    try:
        yield
    finally:
        module.update(saved)
