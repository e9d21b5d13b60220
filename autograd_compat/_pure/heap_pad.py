"""Keep the host memory XLA:CPU frees for its next programs: glibc's heap settings on Linux.

XLA:CPU allocates every program's outputs and temporaries with malloc and frees them when the
program or its arrays are done. With glibc's defaults a block above 128 KiB (at most 32 MiB,
the limit of its adaptive threshold) is a fresh mmap, unmapped when freed, and the top of the
heap goes back to the system once 128 KiB of it is free. An eager step allocates its
activations op by op and frees most of them at its end, and a compiled step's program takes
one block of temporaries per call, so every step takes the same memory back from the system,
one page fault per 4 KiB:
- the transformers GPT-2 step of `bench/transformers_gpt2.py` (activations of 128-512 KiB)
  spent a third of its forward there (6.4 ms against 4.2 with these settings; PyTorch 3.3);
- nanoGPT's compiled step (`bench/models.py`), one program with some 100 MiB of temporaries,
  took 49-56 ms of CPU time against 35-40 with them.

So at import, on glibc, no block is mmapped (`M_MMAP_MAX` 0: they all come from the heap,
which reuses what was freed) and the heap's top goes back to the system only past
`TRIM_THRESHOLD` free, down to `TOP_PAD`. The process's resident memory then stays near its
peak, as under PyTorch's caching allocators and JAX's GPU preallocation. The settings are the
whole process's, so its other allocations get them too. Nothing changes where the user set
glibc's malloc parameters already (`MALLOC_*_` or `GLIBC_TUNABLES`), off glibc, or with
`AUTOGRAD_COMPAT_HEAP_PAD=0`.

A big compile is the exception: XLA:CPU takes some 70-180 MiB of heap to compile a whole step's
program and frees it when done, and that memory would stay resident for good (nanoGPT's eager
process sat at 535 MiB, of which 180 were free heap, where PyTorch's takes 365). So after such
a compile `release` hands the free heap back to the system (`malloc_trim`, every arena, the
top pad kept); the steps after it take back what they use, once.
"""

from __future__ import annotations

import ctypes
import os
import sys

ENV = "AUTOGRAD_COMPAT_HEAP_PAD"
OFF = ("0", "off", "false", "no")
TRIM_THRESHOLD = 256 * 2**20  # free bytes at the heap's top before it shrinks
TOP_PAD = 32 * 2**20  # free bytes kept at the top when it shrinks
_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_MAX = -1, -2, -4  # mallopt's parameters (malloc.h)
_USER_SETTINGS = (
    "MALLOC_TOP_PAD_",
    "MALLOC_MMAP_THRESHOLD_",
    "MALLOC_TRIM_THRESHOLD_",
    "MALLOC_MMAP_MAX_",
)


def _glibc():
    """The C library when it is glibc (it has `mallopt`), else None."""
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(None)
    if not hasattr(libc, "gnu_get_libc_version") or not hasattr(libc, "mallopt"):
        return None
    return libc


def release() -> bool:
    """Give the heap's free memory back to the system (glibc's `malloc_trim`, keeping
    `TOP_PAD`); True if some was given back. Nothing off glibc."""
    libc = _glibc()
    return libc is not None and bool(libc.malloc_trim(TOP_PAD))


def pad_heap_unless_asked() -> bool:
    """Apply the settings above unless the user set malloc's parameters or
    `$AUTOGRAD_COMPAT_HEAP_PAD` says not to; True if glibc took them all."""
    if os.environ.get(ENV, "1").strip().lower() in OFF:
        return False
    if any(name in os.environ for name in _USER_SETTINGS):
        return False
    if "glibc.malloc" in os.environ.get("GLIBC_TUNABLES", ""):
        return False
    libc = _glibc()
    if libc is None:
        return False
    settings = ((_M_MMAP_MAX, 0), (_M_TRIM_THRESHOLD, TRIM_THRESHOLD), (_M_TOP_PAD, TOP_PAD))
    return all([libc.mallopt(parameter, value) for parameter, value in settings])
