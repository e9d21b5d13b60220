"""torch.accelerator: the device-generic accelerator API, answered from torch.cuda.

The accelerator is JAX's GPU where jaxlib has one (PyTorch calls it "cuda"); on a CPU-only
host there is none, and the functions that need one raise PyTorch's RuntimeError.
"""

from __future__ import annotations

from . import cuda as _cuda
from ._alias import missing_attribute as _missing_attribute
from ._pure.device import device as _device_type

__all__ = [
    "current_accelerator",
    "current_device_idx",
    "current_device_index",
    "device_count",
    "device_index",
    "empty_cache",
    "get_memory_info",
    "is_available",
    "max_memory_allocated",
    "max_memory_reserved",
    "memory_allocated",
    "memory_reserved",
    "memory_stats",
    "set_device_idx",
    "set_device_index",
    "synchronize",
]


def _require() -> None:
    if not _cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")


def is_available() -> bool:
    """Whether an accelerator (JAX's GPU) is present."""
    return _cuda.is_available()


def current_accelerator(check_available: bool = False) -> _device_type | None:
    """`torch.device("cuda")` where JAX has a GPU, else None."""
    return _device_type("cuda") if _cuda.is_available() else None


def device_count() -> int:
    """The number of accelerator devices (0 on a CPU-only host)."""
    return _cuda.device_count()


def current_device_index() -> int:
    """The index of the current accelerator device: always 0, JAX's default device."""
    _require()
    return _cuda.current_device()


def set_device_index(device, /) -> None:
    """Select the current accelerator device; only JAX's default device (index 0) exists."""
    _require()
    index = device if isinstance(device, int) or device is None else _device_type(device).index
    if index not in (None, 0):
        raise RuntimeError(
            f"torch.accelerator.set_device_index({device!r}): autograd_compat runs on JAX's "
            "default device (index 0); place tensors with .to(device) instead"
        )


current_device_idx = current_device_index
set_device_idx = set_device_index


def synchronize(device=None, /) -> None:
    """Wait until the work queued on the accelerator has finished."""
    _require()
    _cuda.synchronize(device)


def empty_cache() -> None:
    """Release cached accelerator memory (JAX frees a buffer with its last array)."""
    _require()
    _cuda.empty_cache()


def _needs_accelerator(name: str, query):
    """torch.accelerator's form of a torch.cuda query: the same answer, when there is one."""

    def ask(device_index=None, /):
        _require()
        return query(device_index)

    ask.__name__ = ask.__qualname__ = name
    ask.__doc__ = query.__doc__
    return ask


memory_stats = _needs_accelerator("memory_stats", _cuda.memory_stats)
memory_allocated = _needs_accelerator("memory_allocated", _cuda.memory_allocated)
max_memory_allocated = _needs_accelerator("max_memory_allocated", _cuda.max_memory_allocated)
memory_reserved = _needs_accelerator("memory_reserved", _cuda.memory_reserved)
max_memory_reserved = _needs_accelerator("max_memory_reserved", _cuda.max_memory_reserved)
get_memory_info = _needs_accelerator("get_memory_info", _cuda.mem_get_info)


class device_index:
    """Within the context, `device` (an index, or None for no change) is the current one."""

    def __init__(self, device: int | None, /) -> None:
        self.idx = device

    def __enter__(self) -> None:
        if self.idx is not None:
            set_device_index(self.idx)

    def __exit__(self, *exc_info: object) -> None:
        return None


def __getattr__(name: str):
    """`torch.accelerator.X` that this module lacks: an AttributeError saying so."""

    return _missing_attribute(__name__, name)
