"""XLA:CPU's fusion emitters against its legacy loop emitters (`xla_cpu_use_fusion_emitters`),
per program, on one (8, 64, 256) float32 array and one CPU: the measurements behind
`_pure/program_options.py`'s choice. Prints microseconds a call (CPU time, medians of rounds
taken in turn) and whether both give the same bits.

Run: `python bench/probes/xla_cpu_emitters.py`.
"""

from __future__ import annotations

import os
import statistics
import time

os.sched_setaffinity(0, {0})  # before JAX starts its thread pools

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

LEGACY = {"xla_cpu_use_fusion_emitters": False}
PROGRAMS = {
    "x * y": lambda a, b: a * b,
    "x + y": lambda a, b: a + b,
    "x * 0.5 + y": lambda a, b: a * 0.5 + b,
    "tanh": lambda a, b: jnp.tanh(a),
    "exp": lambda a, b: jnp.exp(a),
    "sigmoid": lambda a, b: jax.nn.sigmoid(a),
    "softmax": lambda a, b: jax.nn.softmax(a, -1),
    "tanh vjp": lambda a, b: jax.vjp(jnp.tanh, a)[1](b)[0],
}


def per_call_us(fn, args, calls: int = 50) -> float:
    start = time.process_time()
    for _ in range(calls):
        fn(*args).block_until_ready()
    return (time.process_time() - start) / calls * 1e6


def main() -> None:
    rng = np.random.default_rng(0)
    args = [jnp.asarray(rng.standard_normal((8, 64, 256)).astype(np.float32)) for _ in range(2)]
    print("| program | default emitters (us) | legacy emitters (us) | same bits |")
    print("|---|---:|---:|---|")
    for name, fn in PROGRAMS.items():
        default, legacy = jax.jit(fn), jax.jit(fn, compiler_options=LEGACY)
        same = np.array_equal(np.asarray(default(*args)), np.asarray(legacy(*args)))
        samples: dict = {"default": [], "legacy": []}
        for _ in range(21):
            samples["default"].append(per_call_us(default, args))
            samples["legacy"].append(per_call_us(legacy, args))
        d, le = (statistics.median(samples[k]) for k in ("default", "legacy"))
        print(f"| {name} | {d:.0f} | {le:.0f} | {same} |", flush=True)


if __name__ == "__main__":
    main()
