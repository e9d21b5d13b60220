"""One WGAN-GP training step: a critic update with the gradient penalty of Gulrajani et al.

The penalty differentiates the critic's gradient with respect to its input, so the
gradient is taken with create_graph=True and the loss is differentiated a second time.
The weights and data come from fixed formulas so runs on different backends can be compared.

`--compile=model` trains `torch.compile(critic)` in the same eager loop (the penalty's double
backward goes through the compiled calls; PyTorch 2.13's own torch.compile raises "does not
currently support double backward" there); `--compile=step` makes the whole step (zero_grad,
penalty, loss, backward, optimizer.step) one `@torch.compile` function. `--steps=N` sets the
number of steps (default 3).
"""

import argparse

import numpy as np
import torch
from torch import autograd, nn

parser = argparse.ArgumentParser(description="WGAN-GP critic steps.")
parser.add_argument("--compile", choices=["model", "step"], help="what torch.compile compiles")
parser.add_argument("--steps", type=int, default=3)
args = parser.parse_args()

critic = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 16), nn.Tanh(),
                       nn.Linear(16, 1))  # fmt: skip
# Fixed weights and data (numpy) instead of random ones, so runs compare number for number.
critic.load_state_dict(
    {
        name: torch.from_numpy(
            (0.3 * np.sin(np.arange(p.numel()) * (i + 1.7))).reshape(tuple(p.shape)).astype("f4")
        )
        for i, (name, p) in enumerate(critic.named_parameters())
    }
)
optimizer = torch.optim.Adam(critic.parameters(), lr=1e-3, betas=(0.5, 0.9))
real = torch.from_numpy(np.cos(np.arange(32)).reshape(8, 4).astype("f4"))
fake = torch.from_numpy(np.sin(np.arange(32) * 0.3).reshape(8, 4).astype("f4"))
alpha = torch.from_numpy(np.linspace(0.0, 1.0, 8).reshape(8, 1).astype("f4"))
lambda_gp = 10.0


def gradient_penalty(critic, real, fake, alpha):
    interpolates = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    scores = critic(interpolates)
    (gradients,) = autograd.grad(
        outputs=scores,
        inputs=interpolates,
        grad_outputs=torch.ones_like(scores),
        create_graph=True,
        retain_graph=True,
    )
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


net = torch.compile(critic) if args.compile == "model" else critic


def train_step(real, fake, alpha):
    optimizer.zero_grad()
    penalty = gradient_penalty(net, real, fake, alpha)
    loss = net(fake).mean() - net(real).mean() + lambda_gp * penalty
    loss.backward()
    optimizer.step()
    return loss, penalty


if args.compile == "step":
    train_step = torch.compile(train_step)

history = []
for step in range(args.steps):
    loss, penalty = train_step(real, fake, alpha)
    history.append((loss.item(), penalty.item()))
    print(f"step {step}: critic loss {loss.item():.6f}  gradient penalty {penalty.item():.6f}")

results = {
    "history": history,
    "first_weight": critic[0].weight[0].tolist(),
    "params": {name: p.tolist() for name, p in critic.named_parameters()},
    "grads": {name: p.grad.tolist() for name, p in critic.named_parameters()},
    "optimizer": {
        f"{index}.{key}": torch.as_tensor(value).tolist()
        for index, state in optimizer.state_dict()["state"].items()
        for key, value in state.items()
    },
}
