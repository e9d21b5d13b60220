"""How many references `sys.getrefcount(x)` counts beyond those that hold `x`: the rule behind
donating a buffer nothing else holds (a compiled step's inputs, an optimizer update's) and
handing out only the deferred values something still reads.

The count `sys.getrefcount` returns includes the references its own call makes (on CPython
3.10-3.13, one: its argument), an interpreter detail. `CALL_REFERENCES` is that number,
measured at import on an object whose holders are known, so a check reads
`sys.getrefcount(x) <= holders + CALL_REFERENCES`, where `holders` are the references the
caller can name (its variables, the containers it passes, the memory that keeps `x`; not the
expression it passes `x` by). The check is written inline, not through a helper function: it
runs once per checked value on per-step paths (every deferred output a fused backward hands
out), where a call costs more than the check. `tests/test_references.py` checks that the
number is the same for a variable and for a container's element on the running interpreter.
"""

from __future__ import annotations

import sys


def _call_references() -> int:
    probe = [object()]  # held by the list alone
    return sys.getrefcount(probe[0]) - 1


CALL_REFERENCES = _call_references()
