"""Many devices: a compiled training step under DDP and FSDP on 1, 2, 4 and 8
simulated CPU devices, with the collectives in the XLA program.

Each row runs in a fresh subprocess, since JAX fixes its device count when it starts
(`XLA_FLAGS=--xla_force_host_platform_device_count=N`). The whole step (zero_grad, forward,
loss, backward, optimizer.step) is one `torch.compile`d program; XLA dumps that program's
optimized HLO (`--xla_dump_to`, only modules of the compiled step), and the collectives in it
are counted: all-reduce, all-gather, reduce-scatter (and all-to-all, collective-permute).
Workloads: the MLP (64x784-256-10, cross-entropy, SGD) and a small convolutional net (64x1x28x28,
two 3x3 convolutions with max pooling, a linear classifier, SGD).
Columns: milliseconds per step (median over timed steps, after warm-up), the collectives, and
how many tensors the all-reduces reduce (XLA's combiner merges them into a few ops; the number
of parameters beside it).
The simulated devices share this machine's cores, so more devices do not make a step faster
here: the table shows the partitioning (what is communicated), not a speed-up.
Run: `python bench/devices.py [--steps 20]`.
"""

from __future__ import annotations

import argparse

from subprocess_row import run_row

_ROW = r"""
import glob, json, os, re, statistics, sys, tempfile, time
workload, wrap, devices, steps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
dump = tempfile.mkdtemp()
os.environ["XLA_FLAGS"] = (
    f"--xla_force_host_platform_device_count={devices} --xla_dump_to={dump} "
    "--xla_dump_hlo_as_text --xla_dump_hlo_module_re=.*run_traced.*")
os.environ.update(AUTOGRAD_COMPAT_CACHE_DIR="off", RANK="0", WORLD_SIZE="1")
import autograd_compat as torch
import autograd_compat.distributed as dist
from autograd_compat.distributed.fsdp import fully_shard
nn, F = torch.nn, torch.nn.functional

torch.manual_seed(0)
if workload == "mlp":
    net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    shape = (64, 784)
else:
    net = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 7 * 7, 10))
    shape = (64, 1, 28, 28)
dist.init_process_group("gloo")
model = nn.parallel.DistributedDataParallel(net) if wrap == "DDP" else fully_shard(net)
opt = torch.optim.SGD(model.parameters(), lr=0.01)

@torch.compile
def step(x, y):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss

x, y = torch.randn(*shape), torch.randint(0, 10, (64,))
for _ in range(3):
    step(x, y).item()
times = []
for _ in range(steps):
    start = time.perf_counter()
    step(x, y).item()
    times.append(time.perf_counter() - start)
program = sorted(glob.glob(os.path.join(dump, "*after_optimizations.txt")))[-1]
text = open(program).read()
kinds = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute")
counts = {k: len(re.findall(rf"\s{k}(?:-start)?\(", text)) for k in kinds}
# an all-reduce of a tuple reduces several tensors at once (XLA's all-reduce combiner)
tuples = re.findall(r"= \(([^)]*)\) all-reduce(?:-start)?\(", text)
tensors = counts["all-reduce"] - len(tuples) + sum(t.count("[") for t in tuples)
print(json.dumps({"ms": 1000 * statistics.median(times), "collectives": counts,
                  "reduced": tensors, "params": len(list(net.parameters()))}))
"""

_SHORT = {"all-reduce": "AR", "all-gather": "AG", "reduce-scatter": "RS"}


def _collectives(counts: dict) -> str:
    """`2 AR, 1 AG` style, collectives that occur only; `none` for a program without any."""
    cells = [f"{n} {_SHORT.get(kind, kind)}" for kind, n in counts.items() if n]
    return ", ".join(cells) or "none"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    print(
        "| workload | wrapper | devices | ms / step | collectives in the step's program "
        "| tensors all-reduced (parameters) |"
    )
    print("|---|---|---:|---:|---|---|")
    for workload in ("mlp", "conv"):
        for wrap in ("DDP", "FSDP"):
            for devices in (1, 2, 4, 8):
                r = run_row(_ROW, [workload, wrap, str(devices), str(args.steps)], args.timeout)
                cells = ["failed", "", ""]
                if r is not None:
                    reduced = f"{r['reduced']} ({r['params']})"
                    cells = [f"{r['ms']:.2f}", _collectives(r["collectives"]), reduced]
                row = " | ".join([workload, wrap, str(devices), *cells])
                print(f"| {row} |", flush=True)


if __name__ == "__main__":
    main()
