"""A two-layer network trained with torch.nn and torch.optim on a synthetic regression task.

The data come from numpy (seeded), the weights from PyTorch's default initialization.

`--compile=model` trains `torch.compile(model)` in the same eager loop; `--compile=step` makes
the whole step (zero_grad, forward, backward, optimizer.step) one `@torch.compile` function.
`--steps=N` sets the number of steps (default 150).
"""

import argparse

import numpy as np
import torch
from torch import nn

parser = argparse.ArgumentParser(description="Train a two-layer network.")
parser.add_argument("--compile", choices=["model", "step"], help="what torch.compile compiles")
parser.add_argument("--steps", type=int, default=150)
args = parser.parse_args()

torch.manual_seed(0)
rng = np.random.default_rng(0)

n, d_in, hidden, d_out = 64, 10, 32, 2
true_w = rng.normal(size=(d_in, d_out))
x_np = rng.normal(size=(n, d_in))
y_np = np.tanh(x_np @ true_w) + 0.05 * rng.normal(size=(n, d_out))
x = torch.from_numpy(x_np.astype(np.float32))
y = torch.from_numpy(y_np.astype(np.float32))

model = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, d_out))
loss_fn = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
print(model)
net = torch.compile(model) if args.compile == "model" else model


def train_step(x, y):
    optimizer.zero_grad()
    loss = loss_fn(net(x), y)
    loss.backward()
    optimizer.step()
    return loss


if args.compile == "step":
    train_step = torch.compile(train_step)

losses = []
for step in range(args.steps):
    loss = train_step(x, y)
    losses.append(loss.item())
    if step % 50 == 0:
        print(f"step {step:3d}  loss {loss.item():.5f}")

print(f"final loss {losses[-1]:.5f} (started at {losses[0]:.5f})")
results = {
    "losses": losses,
    "params": {name: p.tolist() for name, p in model.named_parameters()},
    "grads": {name: p.grad.tolist() for name, p in model.named_parameters()},
    "optimizer": {
        f"{index}.{key}": torch.as_tensor(value).tolist()
        for index, state in optimizer.state_dict()["state"].items()
        for key, value in state.items()
    },
}
