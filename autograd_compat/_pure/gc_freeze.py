"""Keep Python's full garbage collections off the objects that importing the library made.

An eager step records its graph as Python objects (tensors, nodes, saved tuples), which
CPython's cyclic collector tracks; PyTorch's graph is C++ and costs its collector nothing.
Every so often the collector runs a full (generation 2) collection, which visits every tracked
object in the process: after `import autograd_compat` that is ~100,000 objects of JAX's, NumPy's
and ours, all of them alive for the life of the process. Measured on the 200-op chain step
with deferral on: two full collections in 300 steps cost 140 ms (a 70 ms pause each), 7% of
the run; with those objects frozen, 12 ms.

While the package imports, collections are off (`pause`, run when this module is imported,
first of all): a full one during the import visits the same objects, and three of them plus
the younger ones took ~0.1 s of a 1.2 s import. `freeze_unless_asked` turns them back on.

`gc.freeze()` at the end of the import moves the objects that exist then to the collector's
permanent generation, which no collection visits; what the program makes later is collected
as before. Objects made before the import are frozen too: cyclic garbage among them is never
freed (a process that imports this late, after building cycles it drops, keeps them).
`AUTOGRAD_COMPAT_GC_FREEZE=0` leaves the collector as it is.
"""

from __future__ import annotations

import gc
import os

ENV = "AUTOGRAD_COMPAT_GC_FREEZE"
OFF = ("0", "off", "false", "no")


def asked_off() -> bool:
    """Whether `$AUTOGRAD_COMPAT_GC_FREEZE` says to leave the collector as it is."""
    return os.environ.get(ENV, "1").strip().lower() in OFF


def pause() -> bool:
    """Collections off until `freeze_unless_asked` (unless asked off or off already); True
    if this turned them off."""
    if asked_off() or not gc.isenabled():
        return False
    gc.disable()
    return True


def freeze_unless_asked() -> bool:
    """Freeze every object tracked now unless `$AUTOGRAD_COMPAT_GC_FREEZE` says not to, and
    turn collections back on if `pause` turned them off; True if it froze."""
    if PAUSED:
        gc.enable()
    if asked_off():
        return False
    gc.freeze()
    return True


PAUSED = pause()
