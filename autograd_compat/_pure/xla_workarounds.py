"""Work around known XLA:CPU bugs before JAX creates its CPU backend.

jaxlib 0.10.2 and 0.11 send reductions to YNNPACK (the `reduce` YNN fusion type, new next to
`individual_dot`), which returns wrong values for some of them (jax-ml/jax#39103; here
`jax.jacrev` of `tanh(x * x.sum())` for 300 inputs differs from eager by 0.17) and crashes the
process on others (jax-ml/jax#39257: a rank-7 or rank-8 multiply-reduce segfaults in slinky).
This library compiles every op, its vjp and whole fused backwards, so it meets such fusions
more often than plain JAX code; a silently wrong gradient is the one outcome it must never give.

On the affected versions, unless the user already chose a value, YNN fusion is limited to
single matrix multiplies, `--xla_cpu_experimental_ynn_fusion_type=individual_dot`: no reduction
reaches YNNPACK, and its matmul stays (switching YNN fusion off entirely, the earlier
workaround, made a 1024^2 float32 `tanh(X@W1)@W2` step about 1.6x slower). With jaxlib 0.10.2,
whose default set is {individual_dot, reduce}, `=-reduce` compiles the same programs; the
allow-list is kept because a subtraction from the default would let reductions back in through
any type a later default adds (the `eltwise` type alone reproduces both bugs: its fusions take
reductions too). `tests/runtime/test_xla_workarounds.py` runs the reproducers under the chosen
value.

XLA reads XLA_FLAGS when the CPU backend starts (the first JAX computation), so this must run
before any. The flag is parsed by jaxlib >= 0.10.1 and fatal to older ones, hence the gate.
"""

from __future__ import annotations

import os

import jaxlib

YNN_FLAG = "--xla_cpu_experimental_ynn_fusion_type"
YNN_SAFE = "individual_dot"  # YNNPACK for single dots only: no reductions, fast matmul kept
AFFECTED = ((0, 10, 2), (0, 12, 0))  # [first broken, first fixed-or-unknown)


def _version(text: str) -> tuple:
    parts = []
    for part in text.split(".")[:3]:
        digits = "".join(c for c in part if c.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def limit_ynn_fusion_if_affected() -> bool:
    """Append `YNN_FLAG=YNN_SAFE` to XLA_FLAGS on affected jaxlib versions; True if it did."""
    flags = os.environ.get("XLA_FLAGS", "")
    low, high = AFFECTED
    if YNN_FLAG in flags or not low <= _version(jaxlib.__version__) < high:
        return False
    os.environ["XLA_FLAGS"] = f"{flags} {YNN_FLAG}={YNN_SAFE}".strip()
    return True


limit_ynn_fusion_if_affected()
