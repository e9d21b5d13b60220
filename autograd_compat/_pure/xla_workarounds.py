"""Work around known XLA:CPU miscompilations before JAX creates its CPU backend.

jaxlib 0.10.2 and 0.11 send reductions inside fusions to YNNPACK, which returns wrong values
for some of them (jax-ml/jax#39103; here `jax.jacrev` of `tanh(x * x.sum())` for 300 inputs
differs from eager by 0.17) and crashes on others (jax-ml/jax#39257). This library compiles
every op, its vjp and whole fused backwards, so it meets such fusions more often than plain
JAX code; a silently wrong gradient is the one outcome it must never give. On the affected
versions, unless the user already chose a value, YNN fusion is switched off through XLA_FLAGS,
which XLA reads when the CPU backend starts (the first JAX computation), so this must run
before any. The flag is parsed by jaxlib >= 0.10.1 and fatal to older ones, hence the gate.
"""

from __future__ import annotations

import os

import jaxlib

YNN_FLAG = "--xla_cpu_experimental_ynn_fusion_type"
AFFECTED = ((0, 10, 2), (0, 12, 0))  # [first broken, first fixed-or-unknown)


def _version(text: str) -> tuple:
    parts = []
    for part in text.split(".")[:3]:
        digits = "".join(c for c in part if c.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def disable_ynn_fusion_if_affected() -> bool:
    """Append `YNN_FLAG=` (off) to XLA_FLAGS on affected jaxlib versions; True if it did."""
    flags = os.environ.get("XLA_FLAGS", "")
    low, high = AFFECTED
    if YNN_FLAG in flags or not low <= _version(jaxlib.__version__) < high:
        return False
    os.environ["XLA_FLAGS"] = f"{flags} {YNN_FLAG}=".strip()
    return True


disable_ynn_fusion_if_affected()
