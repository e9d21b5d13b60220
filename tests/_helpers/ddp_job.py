"""An ordinary PyTorch DistributedDataParallel script, run by
tests/distributed/test_multiprocess.py.

Launch: `python -m autograd_compat run --nproc 2 tests/_helpers/ddp_job.py --out DIR` (or, with
PyTorch, `torchrun --nproc_per_node=2 tests/_helpers/ddp_job.py --out DIR`). Each rank trains on
its DistributedSampler share with gradient accumulation (`no_sync` for the first micro-batch),
then exercises the collectives, and writes DIR/rank{RANK}.json. One process with
`--batch-size` times the world size visits the same samples per step (the union of the
ranks' batches), so its loss curve is the reference.
"""

import argparse
import json
import os

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--out", required=True)
parser.add_argument("--batch-size", type=int, default=5)
args = parser.parse_args()

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(rank)  # each rank starts differently: DDP broadcasts rank 0's parameters
model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
if rank == 0:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
ddp = DistributedDataParallel(model)
optimizer = torch.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9)

data = torch.Generator().manual_seed(1)
x = torch.randn(40, 4, generator=data)
y = x.sum(1, keepdim=True).sin() + 0.1 * torch.randn(40, 1, generator=data)
dataset = TensorDataset(torch.arange(40), x, y)
sampler = DistributedSampler(dataset, shuffle=True, seed=3)
loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler)


def flat_grad():
    return torch.cat([p.grad.reshape(-1) for p in model.parameters()])


record = {"losses": [], "indices": [], "grads_differ_after_no_sync": []}
for epoch in range(2):
    sampler.set_epoch(epoch)
    for index, xb, yb in loader:
        optimizer.zero_grad()
        split = len(xb) // 2
        with ddp.no_sync():  # accumulate the first micro-batch's gradient locally
            first = nn.functional.mse_loss(ddp(xb[:split]), yb[:split]) * split / len(xb)
            first.backward()
        if world > 1 and not record["grads_differ_after_no_sync"]:
            grads = [torch.zeros_like(flat_grad()) for _ in range(world)]
            dist.all_gather(grads, flat_grad())
            record["grads_differ_after_no_sync"].append(not torch.equal(grads[0], grads[1]))
        second = nn.functional.mse_loss(ddp(xb[split:]), yb[split:]) * (len(xb) - split) / len(xb)
        second.backward()
        optimizer.step()
        loss = (first + second).detach()
        dist.all_reduce(loss, op=dist.ReduceOp.AVG)
        record["losses"].append(loss.item())
        record["indices"].append(index.tolist())
        if rank == 0:
            print(f"epoch {epoch} loss {loss.item():.6f}")
record["params"] = [p.detach().reshape(-1).tolist() for p in model.parameters()]
if world > 1:
    grads = [torch.zeros_like(flat_grad()) for _ in range(world)]
    dist.all_gather(grads, flat_grad())
    record["grads_equal_after_sync"] = all(torch.equal(g, grads[0]) for g in grads)


class HalfUsed(nn.Module):
    def __init__(self):
        super().__init__()
        self.used, self.unused = nn.Linear(4, 1), nn.Linear(4, 1)

    def forward(self, inputs):
        return self.used(inputs)


if world > 1:  # a parameter without a gradient leaves the reduction unfinished
    half_used = DistributedDataParallel(HalfUsed())
    half_used(x[:2]).sum().backward()
    try:
        half_used(x[:2])
        record["unused_parameters"] = "no error"
    except RuntimeError as error:
        record["unused_parameters"] = str(error).split(".")[0]

mine = torch.tensor([rank + 1.0, 2.0 * (rank + 1) - 3.0])
reduced = {}
for name in ("SUM", "AVG", "MIN", "MAX", "PRODUCT"):
    value = mine.clone()
    dist.all_reduce(value, op=getattr(dist.ReduceOp, name))
    reduced[name] = value.tolist()
counts = torch.tensor([rank + 1, 10 * rank])
dist.all_reduce(counts)
reduced["SUM int64"] = counts.tolist()
gathered = [torch.zeros(2) for _ in range(world)]
dist.all_gather(gathered, mine)
concatenated = torch.zeros(2 * world)
dist.all_gather_single(concatenated, mine)
from_last = mine.clone()
dist.broadcast(from_last, src=world - 1)
to_last = mine.clone()
dist.reduce(to_last, dst=world - 1, op=dist.ReduceOp.SUM)
pending = mine.clone()
work = dist.all_reduce(pending, async_op=True)
work.wait()
exchanged = torch.zeros(2)
dist.all_to_all_single(exchanged, torch.tensor([10.0 * rank, 10.0 * rank + 1]))
functional_sum = funcol.all_reduce(mine, "sum", dist.group.WORLD)
scattered = funcol.reduce_scatter_single(torch.cat([mine] * world), "sum", 0, dist.group.WORLD)
dist.barrier()
record["collectives"] = {
    "all_to_all_single": exchanged.tolist(),
    "functional all_reduce": functional_sum.tolist(),
    "reduce_scatter_single": scattered.tolist(),
    "all_reduce": reduced,
    "all_gather": [t.tolist() for t in gathered],
    "all_gather_single": concatenated.tolist(),
    "broadcast": from_last.tolist(),
    "reduce": to_last.tolist(),
    "async all_reduce": pending.tolist(),
}
with open(os.path.join(args.out, f"rank{rank}.json"), "w") as file:
    json.dump(record, file)
dist.destroy_process_group()
