"""A PyTorch training script using the utility modules libraries lean on: activation
checkpointing (both variants) around blocks with dropout, a custom op with its own derivative,
pytree maps over the outputs, the profiler's ranges and ops, and FLOP counting."""

import json
import os

import numpy as np
import torch
import torch.utils._pytree as pytree
from common import emit, set_weights
from torch.utils.checkpoint import checkpoint
from torch.utils.flop_counter import FlopCounterMode


@torch.library.custom_op("eco_utils::softsign", mutates_args=())
def softsign(x: torch.Tensor) -> torch.Tensor:
    values = x.detach().cpu().numpy()
    return torch.from_numpy(values / (1.0 + np.abs(values)))


@softsign.register_fake
def _(x):
    return torch.empty_like(x)


def _setup(ctx, inputs, output):
    ctx.save_for_backward(inputs[0])


def _backward(ctx, grad):
    (x,) = ctx.saved_tensors
    return grad / (1.0 + x.abs()) ** 2


softsign.register_autograd(_backward, setup_context=_setup)


class Block(torch.nn.Module):
    def __init__(self, width: int, reentrant: bool) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(width, width)
        self.reentrant = reentrant

    def inner(self, x):
        return torch.nn.functional.dropout(softsign(self.fc(x)), 0.0, self.training) + x

    def forward(self, x):
        return checkpoint(self.inner, x, use_reentrant=self.reentrant)


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.blocks = torch.nn.Sequential(Block(6, True), Block(6, False))
        self.head = torch.nn.Linear(6, 2)

    def forward(self, x):
        h = self.blocks(x)
        return {"logits": self.head(h), "hidden": (h, None)}


model = Model()
set_weights(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.from_numpy(np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6))
losses = []
for _ in range(2):
    optimizer.zero_grad()
    out = model(x)
    leaves, spec = pytree.tree_flatten(out)
    loss = pytree.tree_map_only(torch.Tensor, lambda t: t.square().mean(), out)
    total = loss["logits"] + loss["hidden"][0]
    total.backward()
    optimizer.step()
    losses.append(total.item())

with FlopCounterMode(display=False) as counter:
    model(x)["logits"].sum().backward()
flops = {k: {str(op): n for op, n in v.items()} for k, v in counter.get_flop_counts().items()}

with torch.profiler.profile() as prof:
    with torch.profiler.record_function("step"):
        model(x)["logits"].sum().backward()
prof.export_chrome_trace("trace.json")
with open("trace.json") as handle:
    trace_names = {e["name"] for e in json.load(handle)["traceEvents"]}
os.remove("trace.json")

emit(
    losses=losses,
    grads={name: p.grad for name, p in sorted(model.named_parameters())},
    spec=repr(spec),
    leaves=len(leaves),
    flops=flops,
    profiled=[key for key in ("step", "aten::addmm") if key in trace_names],
)
