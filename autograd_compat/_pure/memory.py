"""Out-of-memory: PyTorch's error class and text, the memory a device has, and the check that
makes an allocation fail at the op that asks for it.

XLA dispatch is asynchronous: an op whose output does not fit returns at once, and the
failure surfaces later, where the value is first read, after it may have been stored into a
parameter, a `.grad` or an optimizer state. So an op whose outputs together exceed
`BLOCK_BYTES` (256 MiB) is waited for right after dispatch (`jax.block_until_ready`: big
outputs take long to compute anyway, so the wait costs little), and an output larger than its
device's memory is refused before dispatch. Either raises `OutOfMemoryError` at the op, with
PyTorch's CPU allocator text. Smaller outputs are not waited for: a failure of many small
allocations still surfaces when the value is read.
"""

from __future__ import annotations

import os
import re
from typing import NoReturn

import jax
from jax.core import Tracer

from . import device as _device

BLOCK_BYTES = 256 * 2**20  # outputs above this are waited for, so their failure is the op's
# the hot path compares element counts (one attribute read): an output of more elements may
# reach BLOCK_BYTES (complex128: 16 bytes each) and gets the exact check in `settle`
BLOCK_ELEMENTS = BLOCK_BYTES // 16


class OutOfMemoryError(RuntimeError):
    """Raised when an allocation fails (PyTorch's `torch.OutOfMemoryError`, a RuntimeError;
    `torch.cuda.OutOfMemoryError` is the same class)."""


OutOfMemoryError.__module__ = "torch"

# PyTorch 2.13 on CPU (c10/core/impl/alloc_cpu.cpp), which raises it as a plain RuntimeError
_ALLOC_CPU = (
    "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: "
    "you tried to allocate {nbytes} bytes. Error code 12 (Cannot allocate memory)"
)
# PyTorch on CUDA: c10/cuda/CUDACachingAllocator.cpp
_ALLOC_CUDA = (
    "CUDA out of memory. Tried to allocate {size}. GPU {index} has a total capacity of "
    "{total} of which {free} is free."
)

_host_total: list = []
_device_total: dict = {}


def host_bytes() -> int:
    """Physical memory of this machine in bytes (sysconf; a large number if unknown)."""
    if not _host_total:
        try:
            total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            total = 2**62
        _host_total.append(total if total > 0 else 2**62)
    return _host_total[0]


def device_bytes(device) -> int:
    """Memory an XLA device may allocate: its allocator's limit where JAX reports one (GPUs),
    else the host's memory (CPU)."""
    total = _device_total.get(device)
    if total is None:
        stats = None
        try:
            stats = device.memory_stats()
        except Exception:  # some backends do not implement it
            stats = None
        total = (stats or {}).get("bytes_limit") or host_bytes()
        _device_total[device] = total
    return total


def _format_size(nbytes: int) -> str:
    """Bytes in PyTorch's CUDA allocator style: '2.00 GiB', '512.00 MiB'."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= scale:
            return f"{nbytes / scale:.2f} {unit}"
    return f"{nbytes} bytes"


def error(nbytes: int, device=None) -> OutOfMemoryError:
    """PyTorch's out-of-memory error for an allocation of `nbytes` on `device` (an XLA
    device; None: the default one)."""
    if device is None:
        device = jax.local_devices()[0]
    if device.platform == "cpu":
        return OutOfMemoryError(_ALLOC_CPU.format(nbytes=nbytes))
    total = device_bytes(device)
    return OutOfMemoryError(
        _ALLOC_CUDA.format(
            size=_format_size(nbytes),
            index=device.id,
            total=_format_size(total),
            free="an unknown amount",
        )
    )


def is_resource_exhausted(exception: BaseException) -> bool:
    """Whether `exception` is XLA's allocation failure (RESOURCE_EXHAUSTED / out of memory)."""
    text = str(exception)
    return "RESOURCE_EXHAUSTED" in text or "Out of memory" in text or "out of memory" in text


_ALLOCATING = re.compile(r"allocating (\d+) bytes")


def check_size(shape, itemsize: int, device=None) -> None:
    """Before allocating `shape` x `itemsize` bytes on `device` (a PyTorch device or None: the
    default) where the size is known up front (factories): refuse what exceeds the device's
    memory, so nothing absurd is even attempted."""
    nbytes = itemsize
    for n in shape:
        nbytes *= n
    if nbytes > BLOCK_BYTES:
        target = jax.local_devices()[0] if device is None else _device.to_jax(device)
        if nbytes > device_bytes(target):
            raise error(nbytes, target)


def settle(value) -> None:
    """Make a big just-dispatched result fail here, at its op, if it cannot be allocated: an
    output of more than BLOCK_BYTES is refused at once when it exceeds its device's memory,
    else waited for, and XLA's resource-exhausted error becomes PyTorch's OutOfMemoryError.
    Call when `value.size > BLOCK_ELEMENTS` (tracers and small outputs pass)."""
    if isinstance(value, Tracer):
        return
    nbytes = value.size * value.dtype.itemsize
    if nbytes <= BLOCK_BYTES:
        return
    device = next(iter(value.devices()))
    if nbytes > device_bytes(device):
        raise error(nbytes, device)
    try:
        value.block_until_ready()
    except jax.errors.JaxRuntimeError as failure:
        raise_exhausted(failure, device, nbytes)


# What a program's call raises when an allocation fails there: a program run on the calling
# thread (CPU, `_pure/cpu_dispatch`) fails in its call, with JaxRuntimeError or, for an input
# buffer, ValueError. The call sites that dispatch catch these and call `raise_exhausted`.
DISPATCH_ERRORS = (jax.errors.JaxRuntimeError, ValueError)


def raise_exhausted(failure: Exception, device=None, nbytes: int = 0) -> NoReturn:
    """Raise XLA's allocation failure `failure` as PyTorch's OutOfMemoryError (any other
    error as it is)."""
    if not is_resource_exhausted(failure):
        raise failure
    match = _ALLOCATING.search(str(failure))
    raise error(int(match.group(1)) if match else nbytes, device) from None


def settle_all(values) -> None:
    """`settle` each array of `values` (None entries skipped) that may be big."""
    for value in values:
        if value is not None and value.size > BLOCK_ELEMENTS:
            settle(value)
