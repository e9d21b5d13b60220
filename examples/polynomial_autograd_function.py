"""Fit y = sin(x) with y = a + b P3(c + d x), P3 a Legendre polynomial with a custom backward.

The "Defining new autograd functions" step of PyTorch's "Learning PyTorch with Examples": a
subclass of torch.autograd.Function with its own forward and backward, used inside an
ordinary training loop with autograd. The start point is fixed (instead of torch.full with
random values) so runs on different backends can be compared number for number.
"""

import math

import torch


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
losses = []
for t in range(300):
    P3 = LegendrePolynomial3.apply
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    losses.append(loss.item())
    if t % 100 == 99:
        print(t, loss.item())
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None

print(f"Result: y = {a.item()} + {b.item()} * P3({c.item()} + {d.item()} x)")
print("the custom node:", LegendrePolynomial3.apply(c + d * x).grad_fn.name())
results = {"coefficients": [a.item(), b.item(), c.item(), d.item()], "losses": losses}
