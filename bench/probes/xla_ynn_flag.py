"""Time a 1024^2 float32 `tanh(X@W1)@W2` forward and backward under each YNN fusion setting.

XLA reads XLA_FLAGS when its CPU backend starts, so every setting runs in a fresh process; the
settings take turns, round after round, so a load spike on a shared machine hits all of them.
Run: `python bench/probes/xla_ynn_flag.py [rounds]`. Prints the median step time in ms of each:
`jax.jit(jax.value_and_grad(...))` of the pure-JAX step, and this library's eager step, and
the fastest step seen (what an unloaded machine gives; medians move with other load).
"""

from __future__ import annotations

import json
import os
import pathlib
import statistics
import subprocess
import sys

FLAG = "--xla_cpu_experimental_ynn_fusion_type"
SETTINGS = {
    "jaxlib default (unsafe on 0.10.2)": f"{FLAG}=individual_dot,reduce",
    "YNN fusion off": f"{FLAG}=",
    "-reduce": f"{FLAG}=-reduce",
    "individual_dot (the library's setting)": f"{FLAG}=individual_dot",
}

CHILD = """
import json, statistics, sys, time
import autograd_compat as torch
import jax, jax.numpy as jnp

n, reps = 1024, int(sys.argv[1])
key = jax.random.split(jax.random.PRNGKey(0), 3)
X = jax.random.normal(key[0], (n, n), jnp.float32)
W1 = jax.random.normal(key[1], (n, n), jnp.float32) / 32
W2 = jax.random.normal(key[2], (n, n), jnp.float32) / 32
step = jax.jit(jax.value_and_grad(lambda a, b: jnp.sum(jnp.tanh(X @ a) @ b), argnums=(0, 1)))

def timed(fn):
    fn()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return [statistics.median(times) * 1e3, min(times) * 1e3]

def jitted():
    jax.block_until_ready(step(W1, W2))

x = torch.from_numpy(jax.device_get(X))
w1 = torch.from_numpy(jax.device_get(W1)).requires_grad_()
w2 = torch.from_numpy(jax.device_get(W2)).requires_grad_()

def eager():
    w1.grad = w2.grad = None
    loss = (torch.tanh(x @ w1) @ w2).sum()
    loss.backward()
    loss.item(), w1.grad.numpy(), w2.grad.numpy()

print(json.dumps({"jit": timed(jitted), "eager": timed(eager)}))
"""


def main(rounds: int = 3, reps: int = 10) -> None:
    root = pathlib.Path(__file__).resolve().parents[2]
    env = dict(os.environ, JAX_PLATFORMS="cpu", AUTOGRAD_COMPAT_CACHE_DIR="off")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    results: dict[str, dict[str, list[list[float]]]] = {name: {} for name in SETTINGS}
    for _ in range(rounds):
        for name, flags in SETTINGS.items():
            out = subprocess.run(
                [sys.executable, "-c", CHILD, str(reps)],
                env=dict(env, XLA_FLAGS=flags),
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            for kind, ms in json.loads(out.splitlines()[-1]).items():
                results[name].setdefault(kind, []).append(ms)
    print(f"tanh(X@W1)@W2 fwd+bwd, 1024^2 float32, ms over {rounds} x {reps} steps")
    print(f"| {FLAG + '=':<40} | jit median | jit min | eager median | eager min |")
    print(f"|{'-' * 42}|-----------:|--------:|-------------:|----------:|")
    for name, kinds in results.items():
        cells = []
        for kind in ("jit", "eager"):
            cells.append(statistics.median(m for m, _ in kinds[kind]))
            cells.append(min(low for _, low in kinds[kind]))
        jm, jl, em, el = cells
        print(f"| {name:<40} | {jm:10.1f} | {jl:7.1f} | {em:12.1f} | {el:9.1f} |")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:2]))
