"""Autoregressive generation whose sequence grows a token at a time (the bigram lecture
script's `generate`: an embedding of the whole sequence, its last row, softmax, multinomial,
`torch.cat`), and the scalar loops notebooks write (`N[i, j] += 1`, `x[i] = v`,
`s += x[i].item()`), each written once as PyTorch code and run in fresh processes: PyTorch,
then ours with an empty compilation cache, then ours with that cache warm.

Every token's sequence has a length never seen before, so each of its ops compiles a program
for its new shape. Prints wall seconds for the generation and CPU microseconds per loop
iteration (each process pinned to one CPU); the generated tokens, the counts and the sum must
be PyTorch's (same seed), or the row says MISMATCH.
Run: `python bench/probes/growing_shapes.py [tokens]`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import json, os, random, sys, time
os.sched_setaffinity(0, {0})  # one CPU, before JAX starts its threads
if sys.argv[1] == "ours":
    import autograd_compat
    autograd_compat.alias_torch()
import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(1337)
table = nn.Embedding(65, 65)
idx = torch.zeros((1, 1), dtype=torch.long)
start = time.perf_counter()
with torch.no_grad():
    for _ in range(int(sys.argv[2])):
        logits = table(idx)[:, -1, :]
        probs = F.softmax(logits, dim=-1)
        idx = torch.cat((idx, torch.multinomial(probs, num_samples=1)), dim=1)
tokens = idx[0].tolist()
generate_s = time.perf_counter() - start

random.seed(0)
pairs = [(random.randrange(27), random.randrange(27)) for _ in range(5000)]
counts = torch.zeros((27, 27), dtype=torch.int32)
x = torch.zeros(1000)
loops = {}
start = time.process_time()
for i, j in pairs:
    counts[i, j] += 1
loops["N[i, j] += 1"] = (time.process_time() - start) / len(pairs)
start = time.process_time()
for k in range(5000):
    x[k % 1000] = k * 0.5
loops["x[i] = v"] = (time.process_time() - start) / 5000
total = 0.0
start = time.process_time()
for k in range(5000):
    total += x[k % 1000].item()
loops["s += x[i].item()"] = (time.process_time() - start) / 5000
results = [counts.tolist(), total]
print(json.dumps({"generate_s": generate_s, "tokens": tokens, "loops": loops, "results": results}))
"""


def run(column: str, tokens: int, cache: str) -> dict:
    env = dict(os.environ, AUTOGRAD_COMPAT_CACHE_DIR=cache)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, column, str(tokens)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    tokens = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    with tempfile.TemporaryDirectory() as cache:
        results = {
            "torch": run("torch", tokens, cache),
            "ours, empty cache": run("ours", tokens, cache),
            "ours, warm cache": run("ours", tokens, cache),
        }
    reference = results["torch"]
    print(f"| column | generate {tokens} tokens, s | " + " | ".join(reference["loops"]) + " |")
    print("|---|---:|" + "---:|" * len(reference["loops"]))
    for name, result in results.items():
        same = "" if result["tokens"] == reference["tokens"] else " MISMATCH"
        loops = " | ".join(f"{us * 1e6:.1f} us" for us in result["loops"].values())
        if result["results"] != reference["results"]:
            loops += " MISMATCH"
        print(f"| {name} | {result['generate_s']:.2f}{same} | {loops} |")


if __name__ == "__main__":
    main()
