"""An unchanged DDP script started by `torch.multiprocessing.spawn`: two processes, each on its
half of the batch, one SGD step; rank 0 reports the weights, which the all-reduce made equal."""

import json
import os
import socket
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from common import emit
from torch.nn.parallel import DistributedDataParallel as DDP


def main(rank, world_size, port, out):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    model = torch.nn.Linear(4, 2)
    with torch.no_grad():
        model.weight.copy_(torch.arange(8.0).reshape(2, 4) / 10)
        model.bias.zero_()
    ddp = DDP(model)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1)
    x = torch.arange(16.0).reshape(4, 4)[rank * 2 : (rank + 1) * 2] / 10
    ddp(x).pow(2).sum().backward()
    optimizer.step()
    with open(os.path.join(out, f"rank{rank}.json"), "w") as f:
        json.dump(model.weight.detach().numpy().tolist(), f)
    dist.barrier()  # both ranks are done before the group goes
    dist.destroy_process_group()


if __name__ == "__main__":
    with socket.socket() as probe:  # a free port for the rendezvous
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = sys.argv[1]
    mp.spawn(main, args=(2, port, out), nprocs=2)
    weights = [json.load(open(os.path.join(out, f"rank{r}.json"))) for r in range(2)]
    emit(weight=weights[0], ranks_agree=weights[0] == weights[1])
