"""Reliability figures, this library beside PyTorch (CPU, one thread), each row in
a fresh process:

- varying scalars: 2,000 calls whose Python scalar changes every call (a `pow` exponent, a
  `leaky_relu` slope, an integer index `x[i, j]`) and 64 batch sizes of one Linear layer:
  seconds and the growth of the resident set (MB) from after a warm-up to the end;
- threads: four threads each running `(w * w).sum().backward()` 300 times into one shared
  leaf: `w.grad[0] / 2` must be 1,200 (every accumulation kept).

The wide-graph rows are `bench/fanin.py`. Run: `python bench/reliability.py`.
"""

from __future__ import annotations

import argparse

from subprocess_row import run_row

_PRELUDE = r"""
import json, os, sys, threading, time
lib, kind = sys.argv[1], sys.argv[2]
if lib == "torch":
    import torch
    torch.set_num_threads(1)
else:
    import autograd_compat as torch

def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
"""

_VARYING = r"""
F = torch.nn.functional
x = torch.randn(64, requires_grad=True)
table = torch.randn(64, 64)
layer = torch.nn.Linear(16, 4)
calls = {
    "pow": lambda i: x.pow(1 + i * 1e-4).sum().backward(),
    "leaky_relu": lambda i: F.leaky_relu(x, 0.01 + i * 1e-4).sum().backward(),
    "index": lambda i: table[i % 64, (i // 64) % 64].item(),
    "batch": lambda i: layer(torch.randn(1 + i % 64, 16)).sum().backward(),
}
call = calls[kind]
for i in range(20):
    call(i)
start, begin = rss_mb(), time.perf_counter()
for i in range(2000):
    call(i)
print(json.dumps({"seconds": time.perf_counter() - begin, "growth_mb": rss_mb() - start}))
"""

_THREADS = r"""
w = torch.ones(8, requires_grad=True)
barrier = threading.Barrier(4)

def work():
    barrier.wait()
    for _ in range(300):
        (w * w).sum().backward()

threads = [threading.Thread(target=work) for _ in range(4)]
begin = time.perf_counter()
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps({"seconds": time.perf_counter() - begin, "value": w.grad[0].item() / 2}))
"""


def _cells(script: str, kind: str, second: str, timeout: float) -> str:
    """The row's cells: seconds and `second` (a format key of the row's JSON), ours then
    PyTorch's."""
    cells = []
    for lib in ("autograd_compat", "torch"):
        r = run_row(_PRELUDE + script, [lib, kind], timeout)
        cells += ["failed", ""] if r is None else [f"{r['seconds']:.2f}", f"{r[second]:.0f}"]
    return " | ".join(cells)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    print("| row | ours s | ours RSS growth MB | torch s | torch RSS growth MB |")
    print("|---|---|---|---|---|")
    for kind in ("pow", "leaky_relu", "index", "batch"):
        cells = _cells(_VARYING, kind, "growth_mb", args.timeout)
        print(f"| 2,000 varying {kind} | {cells} |", flush=True)
    print()
    print("| row | ours s | ours w.grad[0]/2 | torch s | torch w.grad[0]/2 |")
    print("|---|---|---|---|---|")
    cells = _cells(_THREADS, "threads", "value", args.timeout)
    print(f"| 4 threads x 300 backward, one leaf | {cells} |")


if __name__ == "__main__":
    main()
