"""A PyTorch DTensor script over a mesh of every rank, run by tests/distributed/test_dtensor.py.

Launch: `python -m autograd_compat run --nproc 2 tests/_helpers/dtensor_job.py --out DIR` (or,
with PyTorch, `torchrun --nproc_per_node=2 ...`). Each rank distributes the same tensor, runs
an op and its backward, makes a DTensor of its own piece with `from_local`, and writes
DIR/rank{RANK}.json.
"""

import argparse
import json
import os

import torch
import torch.distributed as dist
from torch.distributed.tensor import DTensor, Shard, distribute_tensor

parser = argparse.ArgumentParser()
parser.add_argument("--out", required=True)
args = parser.parse_args()

dist.init_process_group("gloo")
rank = dist.get_rank()
mesh = dist.init_device_mesh("cpu", (dist.get_world_size(),), mesh_dim_names=("tp",))
out = {"rank": mesh.get_rank(), "coordinate": mesh.get_coordinate()}

dt = distribute_tensor(torch.arange(8.0).reshape(4, 2).requires_grad_(), mesh, [Shard(0)])
total = (dt * dt).sum()
total.backward()
out["placements"] = [repr(p) for p in (*dt.placements, *total.placements, *dt.grad.placements)]
out["total"] = total.full_tensor().item()
out["repr"] = repr(dt).startswith("DTensor(local_tensor=tensor([[")
with torch.no_grad():
    out["local"] = dt.to_local().tolist()
    out["grad"] = dt.grad.to_local().tolist()
    made = DTensor.from_local(torch.full((1, 2), float(rank)), mesh, [Shard(0)])
    out["from_local"] = [list(made.shape), made.full_tensor().tolist(), made.to_local().tolist()]
    mine = torch.full((2, 2), float(rank))  # distribute_tensor lays out rank 0's values
    out["source"] = distribute_tensor(mine, mesh, [Shard(0)]).full_tensor().tolist()
dist.destroy_process_group()
with open(os.path.join(args.out, f"rank{rank}.json"), "w") as f:
    json.dump(out, f)
