"""Per-example gradients of a small MLP with torch.func.

Training with differential privacy (clipping each example's gradient) or studying gradient
noise needs the gradient of the loss of every example, not just of the batch mean. Looping
over the batch with one backward() per example is slow; torch.func composes the same thing
as one batched computation: `grad` of the loss of a single example, written against a
parameter dict through `functional_call`, mapped over the batch by `vmap`.

This script computes per-example gradients both ways, checks that they agree, and prints
their norms and the clipped mean gradient (DP-SGD style). Deterministic (parameters and data
are built from fixed formulas), so PyTorch and autograd_compat print the same numbers.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap

num_examples, num_features, num_hidden, num_classes = 8, 4, 16, 3
clip_norm = 1.0

# ----------------------------------------------------------------------------- data and model
inputs = torch.sin(torch.arange(num_examples * num_features, dtype=torch.float32) * 0.7)
inputs = inputs.reshape(num_examples, num_features)
targets = torch.arange(num_examples) % num_classes

model = nn.Sequential(
    nn.Linear(num_features, num_hidden),
    nn.Tanh(),
    nn.Linear(num_hidden, num_classes),
)
with torch.no_grad():
    for index, parameter in enumerate(model.parameters()):
        values = torch.cos(torch.arange(parameter.numel(), dtype=torch.float32) * (index + 1.3))
        parameter.copy_(values.reshape(parameter.shape) * 0.5)


# ----------------------------------------------------------------------------- with torch.func
def example_loss(params, example, target):
    """The loss of one example: the model called with `params` on a batch of one."""
    logits = functional_call(model, params, (example.unsqueeze(0),))
    return F.cross_entropy(logits, target.unsqueeze(0))


params = {name: p.detach() for name, p in model.named_parameters()}
per_example_grads = vmap(grad(example_loss), in_dims=(None, 0, 0))(params, inputs, targets)

# ----------------------------------------------------------------------------- the slow way
looped_grads = {name: [] for name in params}
for i in range(num_examples):
    model.zero_grad()
    loss = F.cross_entropy(model(inputs[i : i + 1]), targets[i : i + 1])
    loss.backward()
    for name, p in model.named_parameters():
        looped_grads[name].append(p.grad.clone())
looped_grads = {name: torch.stack(grads) for name, grads in looped_grads.items()}

max_difference = max(
    (per_example_grads[name] - looped_grads[name]).abs().max().item() for name in params
)
for name in params:
    print(f"{name:10s} per-example gradients {tuple(per_example_grads[name].shape)}")
print(f"largest difference from the backward() loop: {max_difference:.2e}")
assert max_difference < 1e-5

# ----------------------------------------------------------------------------- clipping
flat = torch.cat([g.reshape(num_examples, -1) for g in per_example_grads.values()], dim=1)
norms = flat.norm(dim=1)
scale = (clip_norm / (norms + 1e-6)).clamp(max=1.0)
clipped_mean = {
    name: (g * scale.reshape(-1, *([1] * (g.dim() - 1)))).mean(dim=0)
    for name, g in per_example_grads.items()
}
print("per-example gradient norms:", [round(n, 4) for n in norms.tolist()])
print(
    "clipped mean gradient norms:", {k: round(v.norm().item(), 4) for k, v in clipped_mean.items()}
)

# The mean of the per-example gradients is the gradient of the mean loss.
model.zero_grad()
F.cross_entropy(model(inputs), targets).backward()
batch_difference = max(
    (per_example_grads[name].mean(dim=0) - p.grad).abs().max().item()
    for name, p in model.named_parameters()
)
print(f"mean of per-example gradients vs batch gradient: {batch_difference:.2e}")
assert batch_difference < 1e-5

results = {
    "norms": norms.tolist(),
    "clipped_mean": {name: g.reshape(-1).tolist() for name, g in clipped_mean.items()},
    "first_example": {name: g[0].reshape(-1).tolist() for name, g in per_example_grads.items()},
}
