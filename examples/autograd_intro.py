"""Autograd introduction: the founding examples of the PyTorch 0.x tutorial, unchanged.

Run with real PyTorch (`python autograd_intro.py`) or on JAX through autograd_compat
(`python -m autograd_compat run autograd_intro.py`); both print the same numbers.
"""

import torch
from torch.autograd import Variable

# Example 1: out = mean(3 * (x + 2)^2) over a 2x2 matrix of ones.
x = Variable(torch.ones(2, 2), requires_grad=True)
y = x + 2
z = y * y * 3
out = z.mean()
print("out =", out)
out.backward()
print("x.grad =", x.grad)  # d(out)/dx = 6 (x + 2) / 4 = 4.5

# Example 2: double y until its norm reaches 1000, then backward with a weight per element.
x2 = Variable(torch.tensor([0.25, -0.5, 0.75]), requires_grad=True)
y2 = x2 * 2
while y2.data.norm() < 1000:
    y2 = y2 * 2
print("y =", y2)
weights = torch.FloatTensor([0.1, 1.0, 0.0001])
y2.backward(weights)  # the gradient of sum_i w_i * y_i
print("x.grad =", x2.grad)

# Example 3: the graph records every op; grad_fn walks back to the leaves.
print("out.grad_fn =", out.grad_fn.name())
print("next functions:", [f.name() for f, _ in out.grad_fn.next_functions])

results = {
    "out": out.item(),
    "x_grad": x.grad.tolist(),
    "y": y2.tolist(),
    "x2_grad": x2.grad.tolist(),
}
