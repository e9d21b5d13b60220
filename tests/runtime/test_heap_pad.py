"""The import keeps freed host memory in glibc's heap for reuse (`_pure/heap_pad`).

glibc reads these settings per process, so each case runs in a fresh process. What it shows:
a 100 MiB block (a compiled program's temporaries) comes from the heap, and its memory stays in
the process once freed, where glibc's defaults map it and give it back."""

from __future__ import annotations

import ctypes
import sys
import textwrap

import pytest

from tests._helpers.fresh_process import run_json

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not hasattr(ctypes.CDLL(None), "mallinfo2"),
    reason="the settings are glibc's (mallinfo2 reads them back)",
)

# glibc's mallinfo2 before, during and after a 100 MiB block's life.
SCRIPT = textwrap.dedent(
    """
    import ctypes, json
    import numpy as np
    import autograd_compat

    class Info(ctypes.Structure):
        _fields_ = [(name, ctypes.c_size_t) for name in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
            "uordblks", "fordblks", "keepcost")]

    libc = ctypes.CDLL(None)
    libc.mallinfo2.restype = Info
    before = libc.mallinfo2()
    block = np.ones(100 * 2**20, np.uint8)
    during = libc.mallinfo2()
    del block
    after = libc.mallinfo2()
    print(json.dumps({
        "mapped": during.hblkhd - before.hblkhd,
        "kept_free": after.keepcost,
    }))
    """
)
BLOCK = 100 * 2**20


def test_a_big_block_comes_from_the_heap_and_stays_for_reuse():
    result = run_json(SCRIPT, "AUTOGRAD_COMPAT_HEAP_PAD", None)
    assert result["mapped"] == 0
    assert result["kept_free"] >= BLOCK


@pytest.mark.parametrize(
    ("variable", "value"),
    [("AUTOGRAD_COMPAT_HEAP_PAD", "0"), ("MALLOC_MMAP_THRESHOLD_", str(2**20))],
    ids=["asked-off", "user-settings"],
)
def test_glibcs_settings_stay_when_asked_or_set_by_the_user(variable, value):
    result = run_json(SCRIPT, variable, value)
    assert result["mapped"] >= BLOCK
    assert result["kept_free"] < BLOCK


# The free heap a big compile leaves goes back to the system; a small one's stays for reuse.
AFTER_COMPILE = textwrap.dedent(
    """
    import json
    import numpy as np
    import autograd_compat
    from autograd_compat._pure import executables

    def resident():
        with open("/proc/self/status") as status:
            line = next(line for line in status if line.startswith("VmRSS:"))
        return int(line.split()[1]) * 1024

    block = np.ones(200 * 2**20, np.uint8)  # (from the heap, kept there once freed)
    del block
    kept = resident()
    executables._on_compile(executables.COMPILE_EVENT, executables.SWEEP_AFTER_S / 2)
    after_small = resident()
    executables._on_compile(executables.COMPILE_EVENT, executables.SWEEP_AFTER_S)
    print(json.dumps({"small": kept - after_small, "big": kept - resident()}))
    """
)


def test_a_big_compiles_free_memory_goes_back_to_the_system():
    given_back = run_json(AFTER_COMPILE, "AUTOGRAD_COMPAT_HEAP_PAD", None)
    assert given_back["small"] < 10 * 2**20
    assert given_back["big"] > 150 * 2**20
