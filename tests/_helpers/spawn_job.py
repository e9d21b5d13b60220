"""Two processes from torch.multiprocessing.spawn: each writes what it saw; rank 1 then raises."""

import json
import os
import sys
import time

import torch
import torch.multiprocessing as mp


def work(rank: int, out: str) -> None:
    total = float((torch.arange(3.0) * (rank + 1)).sum())
    record = {"rank": rank, "torch": torch.__name__, "total": total, "pid": os.getpid()}
    with open(os.path.join(out, f"rank{rank}.json"), "w") as file:
        json.dump(record, file)
    if rank == 1:
        while not os.path.exists(os.path.join(out, "rank0.json")):
            time.sleep(0.05)
        raise ValueError(f"rank {rank} fails on purpose")


if __name__ == "__main__":
    out = sys.argv[1]
    try:
        mp.spawn(work, args=(out,), nprocs=2)
    except mp.ProcessRaisedException as error:
        summary = {"index": error.error_index, "message": str(error), "parent": os.getpid()}
        with open(os.path.join(out, "error.json"), "w") as file:
            json.dump(summary, file)
