"""XLA:CPU runs each program on the calling thread, as PyTorch's CPU ops do.

JAX dispatches CPU programs asynchronously by default: the call returns at once and a worker
thread runs the program. PyTorch code reads its results right away (`.item()`, `.numpy()`,
`while y.norm() < 1000`), so every step pays two thread hand-offs that cost more than a small
program itself: measured here, a compiled 200-op step on a 16-vector takes 41 us with async
dispatch and 19 us run inline, and `bench/run.py`'s compiled column is 1.3-2x faster inline
(eager about even). A failure such as out-of-memory is also raised by the call that caused it,
not by a later read.

Set before JAX starts its CPU backend (the first computation). `AUTOGRAD_COMPAT_CPU_ASYNC=1`
keeps JAX's asynchronous dispatch. Only single-device programs are affected (JAX runs programs
over several CPU devices asynchronously either way).
"""

from __future__ import annotations

import os

import jax

ENV = "AUTOGRAD_COMPAT_CPU_ASYNC"
ON = ("1", "true", "yes", "on")


def run_inline_unless_asked() -> bool:
    """Switch JAX's CPU dispatch to synchronous unless `$AUTOGRAD_COMPAT_CPU_ASYNC` asks to
    keep it asynchronous; True if it switched."""
    if os.environ.get(ENV, "").strip().lower() in ON:
        return False
    jax.config.update("jax_cpu_enable_async_dispatch", False)
    return True


run_inline_unless_asked()
