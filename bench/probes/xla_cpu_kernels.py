"""Where a step's time goes when ours is inside XLA programs: single kernels, XLA:CPU beside
PyTorch, at one thread each, in one process (columns in turn, CPU time per call, so a loaded
machine slows both alike).

- the MNIST CNN's convolutions and the small ResNet's (forward, input gradient, weight
  gradient), as `jax.lax.conv_general_dilated` and its `jax.vjp`, against `F.conv2d` and
  `torch.autograd.grad`;
- an elementwise add of two float32 vectors (131,072 and 1,048,576 elements).

XLA:CPU's flags are read when its backend starts: pass them in XLA_FLAGS to compare settings,
e.g. `--xla_cpu_use_fusion_emitters=false` (faster adds, a slower GPT-2 step) or
`--xla_cpu_experimental_ynn_fusion_type=individual_dot,individual_convolution`.
Both run under the library's glibc heap settings (`_pure/heap_pad.py`, applied at import as the
library applies them), so a fresh output buffer costs neither page faults; set
`AUTOGRAD_COMPAT_HEAP_PAD=0` to see glibc's defaults.
Run: `python bench/probes/xla_cpu_kernels.py [repeats]`.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

FLAGS = "--xla_cpu_multi_thread_eigen=false --xla_cpu_experimental_ynn_fusion_type=individual_dot"
os.environ["XLA_FLAGS"] = f"{FLAGS} {os.environ.get('XLA_FLAGS', '')}".strip()
if hasattr(os, "sched_setaffinity"):  # one CPU: XLA sizes its pools by it
    os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:1])

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

import autograd_compat  # noqa: E402,F401  (its import applies the heap settings)

jax.config.update("jax_cpu_enable_async_dispatch", False)
torch.set_num_threads(1)
F = torch.nn.functional
# name -> (N, C, H, W, out channels, padding): 3x3 kernels, stride 1
CONVS = {
    "mnist conv1": (64, 1, 28, 28, 32, 0),
    "mnist conv2": (64, 32, 26, 26, 64, 0),
    "resnet conv": (32, 32, 32, 32, 32, 1),
}


def cpu_ms(fn, repeats: int) -> float:
    """Median CPU time of one call, in ms (after one warm-up call)."""
    fn()
    times = []
    for _ in range(repeats):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times) * 1e3


def _conv_ms(shape: tuple, repeats: int) -> tuple[list, list]:
    """(ours, PyTorch's) ms for the forward, the input gradient and the weight gradient."""
    n, c, h, w, out, pad = shape
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    k = (rng.standard_normal((out, c, 3, 3)) * 0.1).astype(np.float32)
    dims = ("NCHW", "OIHW", "NCHW")

    def conv(x, k):
        return jax.lax.conv_general_dilated(x, k, (1, 1), [(pad, pad)] * 2, dimension_numbers=dims)

    g = np.ones(jax.eval_shape(conv, x, k).shape, np.float32)
    xj, kj, gj = (jnp.asarray(a) for a in (x, k, g))
    programs = [
        jax.jit(lambda x, k, g: conv(x, k)),
        jax.jit(lambda x, k, g: jax.vjp(lambda x: conv(x, k), x)[1](g)[0]),
        jax.jit(lambda x, k, g: jax.vjp(lambda k: conv(x, k), k)[1](g)[0]),
    ]
    ours = [cpu_ms(lambda p=p: p(xj, kj, gj).block_until_ready(), repeats) for p in programs]
    tx, tk, tg = (torch.tensor(a, requires_grad=a is not g) for a in (x, k, g))

    def torch_forward():
        with torch.no_grad():
            F.conv2d(tx, tk, padding=pad)

    def torch_grad(wrt: tuple) -> float:
        """The backward alone: forward and backward, less the forward."""
        ms = cpu_ms(lambda: torch.autograd.grad(F.conv2d(tx, tk, padding=pad), wrt, tg), repeats)
        return ms - forward_ms

    forward_ms = cpu_ms(torch_forward, repeats)
    return ours, [forward_ms, torch_grad((tx,)), torch_grad((tk,))]


def conv_rows(repeats: int) -> list[str]:
    rows = []
    for name, shape in CONVS.items():
        ours, theirs = _conv_ms(shape, repeats)
        for phase, a, b in zip(("forward", "input grad", "weight grad"), ours, theirs):
            rows.append(f"| {name} {phase} | {a:.2f} | {b:.2f} | {a / b:.2f} |")
    return rows


def _add_ms(size: int, repeats: int) -> tuple[float, float]:
    add = jax.jit(lambda a, b: a + b)
    a = np.random.default_rng(1).standard_normal(size).astype(np.float32)
    aj, bj = jnp.asarray(a), jnp.asarray(a + 1)
    ta, tb = torch.tensor(a), torch.tensor(a + 1)
    return (
        cpu_ms(lambda: add(aj, bj).block_until_ready(), repeats),
        cpu_ms(lambda: ta + tb, repeats),
    )


def add_rows(repeats: int) -> list[str]:
    rows = []
    for size in (131_072, 1_048_576):
        ours, theirs = _add_ms(size, repeats * 20)
        ratio = ours / theirs
        rows.append(f"| add of {size:,} float32 | {ours:.3f} | {theirs:.3f} | {ratio:.2f} |")
    return rows


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    print(f"XLA_FLAGS={os.environ['XLA_FLAGS']}")
    print("| kernel | XLA:CPU ms | PyTorch ms | ratio |")
    print("|---|---:|---:|---:|")
    for row in conv_rows(repeats) + add_rows(repeats):
        print(row)


if __name__ == "__main__":
    main()
