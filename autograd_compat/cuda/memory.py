"""torch.cuda memory statistics, read from the JAX GPU's allocator.

Without a GPU they answer as PyTorch built without CUDA does: no memory in use (0, an empty
`memory_stats()`), and `mem_get_info()`/`get_device_capability()` raise its AssertionError.
"""

from __future__ import annotations

from collections import OrderedDict

from .gpus import gpu, gpus

__all__ = [
    "get_device_capability",
    "max_memory_allocated",
    "max_memory_reserved",
    "mem_get_info",
    "memory_allocated",
    "memory_reserved",
    "memory_stats",
]

# PyTorch's statistic names for the fields of JAX's `Device.memory_stats()`
_NAMES = {
    "allocated_bytes.all.current": "bytes_in_use",
    "allocated_bytes.all.peak": "peak_bytes_in_use",
    "reserved_bytes.all.current": "bytes_reserved",
    "reserved_bytes.all.peak": "peak_bytes_reserved",
}


def memory_stats(device=None) -> dict:
    """The GPU allocator's statistics under PyTorch's names (empty without a GPU)."""
    if not gpus():
        return OrderedDict()
    stats = gpu(device).memory_stats() or {}
    return OrderedDict((name, stats[key]) for name, key in _NAMES.items() if key in stats)


def memory_allocated(device=None) -> int:
    """Bytes of GPU memory held by arrays now (0 without a GPU)."""
    return memory_stats(device).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device=None) -> int:
    """The most bytes of GPU memory held by arrays at once (0 without a GPU)."""
    return memory_stats(device).get("allocated_bytes.all.peak", 0)


def memory_reserved(device=None) -> int:
    """Bytes of GPU memory the allocator holds (0 without a GPU)."""
    return memory_stats(device).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device=None) -> int:
    """The most bytes of GPU memory the allocator held at once (0 without a GPU)."""
    return memory_stats(device).get("reserved_bytes.all.peak", 0)


def mem_get_info(device=None) -> tuple[int, int]:
    """(free, total) bytes of the GPU, as the allocator sees them."""
    stats = gpu(device).memory_stats() or {}
    total = stats.get("bytes_limit", 0)
    return total - stats.get("bytes_in_use", 0), total


def get_device_capability(device=None) -> tuple[int, int]:
    """The GPU's (major, minor) compute capability, e.g. (9, 0) for an H100."""
    found = gpu(device)
    major, _, minor = str(getattr(found, "compute_capability", "0.0")).partition(".")
    return int(major), int(minor or 0)
