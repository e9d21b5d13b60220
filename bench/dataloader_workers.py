"""DataLoader throughput with worker processes: items/s with num_workers=0 and 2.

Each item costs 2 ms of Python (a busy loop, so it holds the GIL: only processes overlap it)
and is a float32 numpy vector; batches of 32. With 2 workers the loader keeps its workers
between epochs (`persistent_workers=True`): the steady rate is the second epoch on, the first
epoch also pays the workers' start (a fresh interpreter each, importing this library).

Also printed: CPU seconds spent per item (this process and, on Linux, its workers): the
ratio of wall rates shows the speed-up this machine gave; the CPU cost shows what it gives on
idle cores. On a loaded Linux host with autogroup scheduling (one CPU share per session) the
workers share their parent's share, so the wall ratio stays near 1 there.

The control line is what this machine gives two processes: the work two plain busy loops do
together, over the work of one alone (2.0 on two idle cores); the workers' ratio cannot pass
it.

Run: `python bench/dataloader_workers.py [--items 320] [--epochs 3]`.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from typing import NamedTuple

import numpy as np

from autograd_compat.utils.data import DataLoader, Dataset

ITEM_SECONDS = 0.002
BATCH = 32


class BusyDataset(Dataset):
    """`n` items of 16 float32 each; each costs ITEM_SECONDS of Python."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int):
        end = time.perf_counter() + ITEM_SECONDS
        while time.perf_counter() < end:
            pass
        return np.full(16, i, dtype=np.float32)


class Epoch(NamedTuple):
    seconds: float  # wall time of one pass
    cpu_seconds: float  # CPU time of this process and its workers during the pass


def cpu_seconds(loader: DataLoader) -> float:
    """CPU seconds used so far by this process and the loader's live workers (Linux)."""
    total = time.process_time()
    iterator = loader._iterator
    for worker in iterator._workers if iterator is not None else ():
        with open(f"/proc/{worker.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def epoch(loader: DataLoader) -> Epoch:
    """Time one pass, checking every item came back once."""
    cpu, start = cpu_seconds(loader), time.perf_counter()
    seen = sum(int(batch.shape[0]) for batch in loader)
    seconds = time.perf_counter() - start
    assert seen == len(loader.dataset), seen
    return Epoch(seconds, cpu_seconds(loader) - cpu)


def best(loader: DataLoader, epochs: int) -> Epoch:
    return min((epoch(loader) for _ in range(epochs)), key=lambda e: e.seconds)


_BUSY = (
    "import time\n"
    "end, n = time.perf_counter() + {seconds}, 0\n"
    "while time.perf_counter() < end:\n"
    "    n += 1\n"
    "print(n)\n"
)


def busy_work(processes: int, seconds: float = 1.5) -> int:
    """Loop iterations `processes` plain Python processes make together in `seconds`."""
    code = _BUSY.format(seconds=seconds)
    running = [
        subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        for _ in range(processes)
    ]
    return sum(int(process.communicate()[0]) for process in running)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=320)
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    dataset = BusyDataset(args.items)
    serial = DataLoader(dataset, batch_size=BATCH)
    epoch(serial)  # warm: collation compiled, caches filled
    serial_epoch = best(serial, args.epochs)
    workers = DataLoader(dataset, batch_size=BATCH, num_workers=2, persistent_workers=True)
    first = time.perf_counter()
    iter(workers)  # start the workers
    epoch(workers)
    first = time.perf_counter() - first
    workers_epoch = best(workers, args.epochs)
    print(f"cpus: {os.cpu_count()}, load average: {os.getloadavg()[0]:.2f}")
    print(f"items: {args.items}, batch {BATCH}, {ITEM_SECONDS * 1e3:.0f} ms of Python per item")
    for name, result in (("num_workers=0", serial_epoch), ("num_workers=2", workers_epoch)):
        rate, cpu_ms = args.items / result.seconds, 1e3 * result.cpu_seconds / args.items
        print(f"{name}: {rate:8.1f} items/s, {cpu_ms:.2f} CPU ms per item")
    print(f"first epoch with 2 workers, their start included: {first:.2f} s")
    print(f"ratio: {serial_epoch.seconds / workers_epoch.seconds:.2f}x")
    print(f"control, 2 busy processes over 1: {busy_work(2) / busy_work(1):.2f}x")


if __name__ == "__main__":
    main()
