"""Fit y = sin(x) with a third-order polynomial, computing the gradients by hand.

The "Tensors" step of PyTorch's "Learning PyTorch with Examples" tutorial: no autograd, just
tensor arithmetic. The start point is fixed (instead of torch.randn) so that runs on
different backends can be compared number for number.
"""

import math

import torch

dtype = torch.float
device = torch.device("cpu")

x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
y = torch.sin(x)

a = torch.tensor(0.1, device=device, dtype=dtype)
b = torch.tensor(-0.2, device=device, dtype=dtype)
c = torch.tensor(0.3, device=device, dtype=dtype)
d = torch.tensor(-0.4, device=device, dtype=dtype)

learning_rate = 3e-6
losses = []
for t in range(400):
    y_pred = a + b * x + c * x**2 + d * x**3
    loss = (y_pred - y).pow(2).sum().item()
    losses.append(loss)
    if t % 100 == 99:
        print(t, loss)

    # Backprop by hand: the gradients of the loss with respect to a, b, c, d.
    grad_y_pred = 2.0 * (y_pred - y)
    grad_a = grad_y_pred.sum()
    grad_b = (grad_y_pred * x).sum()
    grad_c = (grad_y_pred * x**2).sum()
    grad_d = (grad_y_pred * x**3).sum()

    a -= learning_rate * grad_a
    b -= learning_rate * grad_b
    c -= learning_rate * grad_c
    d -= learning_rate * grad_d

print(f"Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3")
results = {"coefficients": [a.item(), b.item(), c.item(), d.item()], "losses": losses}
