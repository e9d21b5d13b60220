"""One WGAN-GP training step: a critic update with the gradient penalty of Gulrajani et al.

The penalty differentiates the critic's gradient with respect to its input, so the
gradient is taken with create_graph=True and the loss is differentiated a second time.
The weights and data come from fixed formulas so runs on different backends can be compared.
"""

import numpy as np
import torch
from torch import autograd, nn

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


history = []
for step in range(3):
    optimizer.zero_grad()
    penalty = gradient_penalty(critic, real, fake, alpha)
    loss = critic(fake).mean() - critic(real).mean() + lambda_gp * penalty
    loss.backward()
    optimizer.step()
    history.append((loss.item(), penalty.item()))
    print(f"step {step}: critic loss {loss.item():.6f}  gradient penalty {penalty.item():.6f}")

results = {"history": history, "first_weight": critic[0].weight[0].tolist()}
