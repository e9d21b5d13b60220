"""Newton's method with an exact Hessian built by differentiating the gradient again.

Minimizes a regularized logistic-regression loss in two parameters; each Newton step uses
torch.autograd.grad twice: once (create_graph=True) for the gradient, then once per gradient
component for the rows of the Hessian. Deterministic, so PyTorch and autograd_compat print
the same iterates.

`--compile=model` compiles the loss (the "model": the Hessian's double backward goes through
the compiled calls); `--compile=step` makes the whole Newton step (loss, gradient, Hessian,
solve, update) one `@torch.compile` function. `--steps=N` sets the number of steps (default 6).
"""

import argparse

import torch

parser = argparse.ArgumentParser(description="Newton's method with an exact Hessian.")
parser.add_argument("--compile", choices=["model", "step"], help="what torch.compile compiles")
parser.add_argument("--steps", type=int, default=6)
args = parser.parse_args()

features = torch.tensor(
    [[1.0, 2.0], [2.0, -1.0], [-1.5, 0.5], [0.5, -2.0], [-2.0, -1.0], [1.5, 1.0]]
)
labels = torch.tensor([1.0, 0.0, 1.0, 0.0, 0.0, 1.0])


def loss_fn(w):
    logits = features @ w
    log_likelihood = labels * torch.log(torch.sigmoid(logits)) + (1 - labels) * torch.log(
        1 - torch.sigmoid(logits)
    )
    return -log_likelihood.mean() + 0.05 * (w * w).sum()


if args.compile == "model":
    loss_fn = torch.compile(loss_fn)


def hessian(loss, w):
    (grad,) = torch.autograd.grad(loss, w, create_graph=True)
    rows = []
    for i in range(w.numel()):
        (row,) = torch.autograd.grad(grad[i], w, retain_graph=True)
        rows.append(row)
    return grad.detach(), torch.stack(rows)


w = torch.zeros(2, requires_grad=True)


def newton_step():
    loss = loss_fn(w)
    grad, hess = hessian(loss, w)
    with torch.no_grad():
        w.sub_(torch.linalg.solve(hess, grad))
    return loss, grad, hess


if args.compile == "step":
    newton_step = torch.compile(newton_step)

history = []
for step in range(args.steps):
    loss, grad, hess = newton_step()
    history.append(loss.item())
    print(f"step {step}: loss {loss.item():.8f}  |grad| {grad.norm().item():.3e}  w {w.tolist()}")

# Hessian-vector product without forming the Hessian: differentiate (grad . v).
v = torch.tensor([1.0, -1.0])
(grad,) = torch.autograd.grad(loss_fn(w), w, create_graph=True)
(hvp,) = torch.autograd.grad(grad @ v, w)
print("Hessian-vector product at the optimum:", hvp.tolist())
results = {
    "losses": history,
    "w": w.tolist(),
    "grad": grad.tolist(),  # at the final w
    "hessian": hess.tolist(),
    "hvp": hvp.tolist(),
}
