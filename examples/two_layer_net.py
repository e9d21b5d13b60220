"""A two-layer network trained with torch.nn and torch.optim on a synthetic regression task.

The data come from numpy (seeded), the weights from PyTorch's default initialization.
"""

import numpy as np
import torch
from torch import nn

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

losses = []
for step in range(150):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
    if step % 50 == 0:
        print(f"step {step:3d}  loss {loss.item():.5f}")

print(f"final loss {losses[-1]:.5f} (started at {losses[0]:.5f})")
results = {"losses": losses}
