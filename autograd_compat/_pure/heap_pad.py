"""Keep the host memory XLA:CPU frees for its next programs: glibc's heap settings on Linux.

XLA:CPU allocates every program's outputs with malloc and frees them when their arrays die.
With glibc's defaults a block above 128 KiB is a fresh mmap until bigger ones have been freed,
and the top of the heap goes back to the system once 128 KiB of it is free. An eager step
allocates its activations op by op and frees most of them at its end, so the next step takes
the same memory back from the system, one page fault per 4 KiB: on the transformers GPT-2 of
`bench/transformers_gpt2.py` (activations of 128-512 KiB) the forward spent a third of its time
there (6.4 ms against 4.2 with the settings below; PyTorch 3.3).

So at import, on glibc, blocks up to `MMAP_THRESHOLD` come from the heap and `TOP_PAD` of free
memory stays at its top when it shrinks: a step reuses the memory the last one freed, and the
process keeps up to `TOP_PAD` more resident than it uses. PyTorch's own CPU allocator is plain
malloc too; this changes glibc's settings for the whole process, so a process that imports the
library gets them for its other allocations as well. Nothing changes where the user set glibc's
malloc parameters already (`MALLOC_*_` or `GLIBC_TUNABLES`), off glibc, or with
`AUTOGRAD_COMPAT_HEAP_PAD=0`.
"""

from __future__ import annotations

import ctypes
import os
import sys

ENV = "AUTOGRAD_COMPAT_HEAP_PAD"
OFF = ("0", "off", "false", "no")
TOP_PAD = 32 * 2**20  # free bytes kept at the heap's top when it shrinks
MMAP_THRESHOLD = 32 * 2**20  # blocks below this come from the heap (glibc's maximum)
_M_TOP_PAD, _M_MMAP_THRESHOLD = -2, -3  # mallopt's parameter numbers (malloc.h)
_USER_SETTINGS = ("MALLOC_TOP_PAD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")


def _glibc():
    """The C library when it is glibc (it has `mallopt`), else None."""
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(None)
    if not hasattr(libc, "gnu_get_libc_version") or not hasattr(libc, "mallopt"):
        return None
    return libc


def pad_heap_unless_asked() -> bool:
    """Apply `TOP_PAD` and `MMAP_THRESHOLD` unless the user set malloc's parameters or
    `$AUTOGRAD_COMPAT_HEAP_PAD` says not to; True if glibc took both."""
    if os.environ.get(ENV, "1").strip().lower() in OFF:
        return False
    if any(name in os.environ for name in _USER_SETTINGS):
        return False
    if "glibc.malloc" in os.environ.get("GLIBC_TUNABLES", ""):
        return False
    libc = _glibc()
    if libc is None:
        return False
    threshold = libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
    return bool(threshold and libc.mallopt(_M_TOP_PAD, TOP_PAD))
