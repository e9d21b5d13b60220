"""`python -m autograd_compat`: the founding examples, run and explained."""

from __future__ import annotations

import sys


def demo() -> None:
    import autograd_compat as torch
    from autograd_compat.autograd import Variable

    print("Example 1: out = mean(3 * (x + 2)^2) over a 2x2 matrix of ones")
    x = Variable(torch.ones(2, 2), requires_grad=True)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    print("  out =", out)
    out.backward()
    print("  x.grad =", x.grad)
    print("  d(out)/dx = 6 (x + 2) / 4 = 4.5 at x = 1\n")

    print("Example 2: y = x * 2^k, doubled until ||y|| >= 1000, backward with weights")
    x = Variable(torch.tensor([0.25, -0.5, 0.75]), requires_grad=True)
    y = x * 2
    while y.data.norm() < 1000:
        y = y * 2
    print("  y =", y)
    weights = torch.FloatTensor([0.1, 1.0, 0.0001])
    y.backward(weights)
    print("  x.grad =", x.grad)
    print(
        "  The weights w make backward compute d(sum_i w_i * y_i)/dx: the gradient of a "
        "weighted sum of three losses, one per element of y."
    )


if __name__ == "__main__":
    demo()
    sys.exit(0)
