"""Fit a next-value predictor to a synthetic time series with L-BFGS and a strong-Wolfe line
search.

The series is a sum of two sines; the model (a small MLP) reads a window of the last 8
values and predicts the next one. `torch.optim.LBFGS` takes a closure that recomputes the
loss and its gradient; each `step` runs up to `max_iter` L-BFGS iterations. The weights start
from a fixed pattern, so the run is deterministic and PyTorch and autograd_compat print the
same losses.
"""

import math

import torch
from torch import nn

torch.manual_seed(0)
WINDOW = 8

time = torch.arange(120, dtype=torch.float32) * 0.2
series = torch.sin(time) + 0.3 * torch.sin(3.1 * time + 0.5)
inputs = torch.stack([series[i : i + WINDOW] for i in range(len(series) - WINDOW)])
targets = series[WINDOW:].unsqueeze(1)
train_inputs, train_targets = inputs[:80], targets[:80]
test_inputs, test_targets = inputs[80:], targets[80:]

model = nn.Sequential(nn.Linear(WINDOW, 16), nn.Tanh(), nn.Linear(16, 1))
with torch.no_grad():
    for k, parameter in enumerate(model.parameters()):
        pattern = torch.sin(torch.arange(parameter.numel(), dtype=torch.float32) * 1.7 + k)
        parameter.copy_(pattern.reshape(parameter.shape) / math.sqrt(parameter.shape[-1]))

optimizer = torch.optim.LBFGS(
    model.parameters(), lr=1.0, max_iter=5, history_size=10, line_search_fn="strong_wolfe"
)
loss_fn = nn.MSELoss()


def closure():
    optimizer.zero_grad()
    loss = loss_fn(model(train_inputs), train_targets)
    loss.backward()
    return loss


losses = []
for step in range(8):
    loss = optimizer.step(closure)
    losses.append(loss.item())
    print(f"step {step}: train loss {loss.item():.6f}")

with torch.no_grad():
    test_loss = loss_fn(model(test_inputs), test_targets).item()
print(f"test loss {test_loss:.6f}")

results = {"losses": losses, "test_loss": test_loss}
