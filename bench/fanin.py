"""Wide graphs: one op or one backward with a fan-in of thousands of inputs.

Each row runs in a fresh subprocess (so compilation and peak memory are its own):
- stack: `torch.stack([x * float(i) for i in range(n)]).sum().backward()`;
- cat: `torch.cat(leaves).sum().backward()` for n leaves of shape (3,);
- sum: Python `sum([x * float(i) for i in range(n)]).backward()`.
Columns: seconds for the whole row (forward and backward, compilation included) and the
process's peak RSS in MB, for this library and for PyTorch (CPU, one thread).
Run: `python bench/fanin.py [--n 10000]`.
"""

from __future__ import annotations

import argparse

from subprocess_row import run_row

_ROW = r"""
import json, resource, sys, time
lib, kind, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
if lib == "torch":
    import torch
    torch.set_num_threads(1)
else:
    import autograd_compat as torch
start = time.perf_counter()
x = torch.randn(3, requires_grad=True)
if kind == "stack":
    y = torch.stack([x * float(i) for i in range(n)]).sum()
elif kind == "cat":
    leaves = [torch.randn(3, requires_grad=True) for _ in range(n)]
    y = torch.cat(leaves).sum()
else:
    y = sum([x * float(i) for i in range(n)]).sum()
forward = time.perf_counter() - start
y.backward()
total = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"forward": forward, "total": total, "peak_mb": peak}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    print(f"fan-in n = {args.n}")
    print(f"{'row':8s} {'ours s':>8s} {'ours MB':>8s} {'torch s':>8s} {'torch MB':>9s}")
    for kind in ("stack", "cat", "sum"):
        cells = []
        for lib in ("autograd_compat", "torch"):
            r = run_row(_ROW, [lib, kind, str(args.n)], args.timeout)
            cells += ["failed", ""] if r is None else [f"{r['total']:.2f}", f"{r['peak_mb']:.0f}"]
        print(f"{kind:8s} {cells[0]:>8s} {cells[1]:>8s} {cells[2]:>8s} {cells[3]:>9s}", flush=True)


if __name__ == "__main__":
    main()
