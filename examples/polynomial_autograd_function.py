"""Fit y = sin(x) with y = a + b P3(c + d x), P3 a Legendre polynomial with a custom backward.

The "Defining new autograd functions" step of PyTorch's "Learning PyTorch with Examples": a
subclass of torch.autograd.Function with its own forward and backward, used inside an
ordinary training loop with autograd. The start point is fixed (instead of torch.full with
random values) so runs on different backends can be compared number for number.

`--compile=model` compiles the prediction `a + b P3(c + d x)` (the "model") and runs it in the
same eager loop; `--compile=step` makes the whole step (forward, loss, backward, the update and
clearing the gradients) one `@torch.compile` function. `--steps=N` sets the number of steps
(default 300).
"""

import argparse
import math

import torch

parser = argparse.ArgumentParser(description="Fit sin(x) with a custom autograd Function.")
parser.add_argument("--compile", choices=["model", "step"], help="what torch.compile compiles")
parser.add_argument("--steps", type=int, default=300)
args = parser.parse_args()


class LegendrePolynomial3(torch.autograd.Function):
    """P3(x) = (5 x^3 - 3 x) / 2, with its derivative written by hand."""

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input**3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        (input,) = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input**2 - 1)


dtype = torch.float
x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
y = torch.sin(x)

a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, dtype=dtype, requires_grad=True)

learning_rate = 5e-6


def model(x):
    P3 = LegendrePolynomial3.apply
    return a + b * P3(c + d * x)


if args.compile == "model":
    model = torch.compile(model)


def train_step(x, y):
    y_pred = model(x)
    loss = (y_pred - y).pow(2).sum()
    loss.backward()
    with torch.no_grad():
        for param in (a, b, c, d):
            param -= learning_rate * param.grad
            param.grad = None
    return loss


if args.compile == "step":
    train_step = torch.compile(train_step)

losses = []
for t in range(args.steps):
    loss = train_step(x, y)
    losses.append(loss.item())
    if t % 100 == 99:
        print(t, loss.item())

print(f"Result: y = {a.item()} + {b.item()} * P3({c.item()} + {d.item()} x)")
print("the custom node:", LegendrePolynomial3.apply(c + d * x).grad_fn.name())
results = {"coefficients": [a.item(), b.item(), c.item(), d.item()], "losses": losses}
