"""Fit y = sin(x) with a third-order polynomial, computing the gradients by hand.

The "Tensors" step of PyTorch's "Learning PyTorch with Examples" tutorial: no autograd, just
tensor arithmetic. The start point is fixed (instead of torch.randn) so that runs on
different backends can be compared number for number.

`--compile=model` compiles the prediction `a + b x + c x^2 + d x^3` (the "model") and runs it
in the same eager loop; `--compile=step` makes the whole step (forward, loss, the gradients by
hand and the update) one `@torch.compile` function. `--steps=N` sets the number of steps
(default 400).
"""

import argparse
import math

import torch

parser = argparse.ArgumentParser(description="Fit sin(x) with gradients computed by hand.")
parser.add_argument("--compile", choices=["model", "step"], help="what torch.compile compiles")
parser.add_argument("--steps", type=int, default=400)
args = parser.parse_args()

dtype = torch.float
device = torch.device("cpu")

x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
y = torch.sin(x)

a = torch.tensor(0.1, device=device, dtype=dtype)
b = torch.tensor(-0.2, device=device, dtype=dtype)
c = torch.tensor(0.3, device=device, dtype=dtype)
d = torch.tensor(-0.4, device=device, dtype=dtype)

learning_rate = 3e-6


def model(x):
    return a + b * x + c * x**2 + d * x**3


if args.compile == "model":
    model = torch.compile(model)


def train_step(x, y):
    y_pred = model(x)
    loss = (y_pred - y).pow(2).sum()

    # Backprop by hand: the gradients of the loss with respect to a, b, c, d.
    grad_y_pred = 2.0 * (y_pred - y)
    grad_a = grad_y_pred.sum()
    grad_b = (grad_y_pred * x).sum()
    grad_c = (grad_y_pred * x**2).sum()
    grad_d = (grad_y_pred * x**3).sum()

    for param, grad in zip((a, b, c, d), (grad_a, grad_b, grad_c, grad_d)):
        param -= learning_rate * grad
    return loss, torch.stack([grad_a, grad_b, grad_c, grad_d])


if args.compile == "step":
    train_step = torch.compile(train_step)

losses = []
for t in range(args.steps):
    loss, grads = train_step(x, y)
    loss = loss.item()
    losses.append(loss)
    if t % 100 == 99:
        print(t, loss)

print(f"Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3")
results = {
    "coefficients": [a.item(), b.item(), c.item(), d.item()],
    "losses": losses,
    "grads": grads.tolist(),  # the last step's, by hand
}
