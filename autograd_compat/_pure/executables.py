"""A bound on the compiled programs the library keeps alive, so ever new shapes stay flat.

A `jax.jit` object keeps one XLA executable per input signature (shapes, dtypes) it has seen,
without limit, and a program costs about 150 KB of memory on CPU; JAX's tracing and lowering
caches keep its jaxpr and MLIR module besides (0.4 to 1.2 MB a program on CPU, in LRUs of
2,048 entries and one without a bound), which only a new trace of that signature reads. The
library's caches of jitted functions are LRUs (`op.COMPILED_PER_OP`, the fused backwards),
but one jitted function can hold any number of shapes: 64 batch sizes through a Linear layer
keep some 380 programs.

So the library makes every `jax.jit` through `jit` here, which registers it (weakly: a
function dropped from its cache frees its programs). A listener on JAX's compile event (it
also fires for a program read from the persistent cache) counts new programs; every
`CHECK_EVERY` of them, and after one that took `SWEEP_AFTER_S` to compile, `sweep` empties
`jax.jit`'s traces and lowerings (`jax_internals.clear_lowerings`: a kept program runs
without them; in a ResNet's eager step, some 50 programs, they held 100 MB of a 600 MB
process; a compiled step's whole-step program has the largest), sums the programs of the registered
functions and, past `MAX_EXECUTABLES`, empties whole functions' caches (JAX cannot drop one
shape) down to `LOW_WATER` of the bound: largest first (a function that keeps meeting new
shapes holds the most, and the shapes it uses now are few), then the least recently
compiled; and it empties JAX's other tracing caches (never its compiled programs: those kept
still run without a retrace). A shape used again after its program went compiles again. A
call whose program is kept costs nothing more: the check runs only when something compiles.
`AUTOGRAD_COMPAT_MAX_EXECUTABLES` sets the bound (0: none). torch.compile's programs are ops
(`Op.compiled`) and count too; those of JAX's own jitted functions called eagerly are outside.
"""

from __future__ import annotations

import os
import threading
import weakref

import jax

from . import heap_pad
from .jax_internals import clear_lowerings, clear_staging_caches

ENV = "AUTOGRAD_COMPAT_MAX_EXECUTABLES"


def _bound_from_env() -> int:
    """`$AUTOGRAD_COMPAT_MAX_EXECUTABLES` (a count, 0 for no bound), 1,024 when unset."""
    value = os.environ.get(ENV, "").strip() or "1024"
    if not value.isdigit():
        raise ValueError(f"{ENV} must be a count of programs (0: no bound), got {value!r}")
    return int(value)


MAX_EXECUTABLES = _bound_from_env()
LOW_WATER = 0.75  # a sweep past the bound keeps at most this fraction of it
CHECK_EVERY = 8  # new programs (anywhere in the process) between two sweeps
SWEEP_AFTER_S = 0.5  # a program that took this long to compile is swept after at once
# The event JAX records around each executable it compiles or loads (jax._src.dispatch's
# BACKEND_COMPILE_EVENT), with its duration.
COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"

# jitted function -> [its program count at the last sweep, the sweep that saw it grow]
_functions: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_lock = threading.Lock()
_compiles = 0
_sweeps = 0


def jit(fn, **options):
    """`jax.jit(fn, **options)`, its programs counted against `MAX_EXECUTABLES`."""
    jitted = jax.jit(fn, **options)
    with _lock:
        _functions[jitted] = [0, _sweeps]
    return jitted


def kept() -> int:
    """The number of programs the registered functions keep now."""
    with _lock:
        return sum(fn._cache_size() for fn in list(_functions))


def sweep() -> int:
    """Empty `jax.jit`'s traces and lowerings; empty the caches of registered functions,
    largest first and then the least recently compiled, until they keep at most
    `LOW_WATER * MAX_EXECUTABLES` programs, if they keep more than `MAX_EXECUTABLES` (then
    JAX's other tracing caches go too); the number they keep afterwards."""
    global _sweeps
    with _lock:
        _sweeps += 1
        sized = []
        total = 0
        for fn, record in list(_functions.items()):
            size = fn._cache_size()
            if size != record[0]:
                record[0], record[1] = size, _sweeps
            if size:
                sized.append((fn, record))
                total += size
        clear_lowerings()
        if 0 < MAX_EXECUTABLES < total:
            sized.sort(key=lambda entry: (-entry[1][0], entry[1][1]))
            target = int(LOW_WATER * MAX_EXECUTABLES)
            for fn, record in sized:
                if total <= target:
                    break
                fn.clear_cache()
                total -= record[0]
                record[0] = 0
            if clear_staging_caches is not None:
                clear_staging_caches()
        return total


def _on_compile(event: str, duration_secs: float, **_: str | int) -> None:
    """JAX's duration listener: a sweep every `CHECK_EVERY` programs compiled or loaded, and
    after one that took `SWEEP_AFTER_S` (a whole step's, whose trace and lowering are big),
    whose compile's freed memory then goes back to the system (`heap_pad.release`)."""
    global _compiles
    if event != COMPILE_EVENT:
        return
    _compiles += 1
    big = duration_secs >= SWEEP_AFTER_S
    if _compiles >= CHECK_EVERY or big:
        _compiles = 0
        sweep()
    if big:
        heap_pad.release()


jax.monitoring.register_event_duration_secs_listener(_on_compile)
