"""`torch.use_deterministic_algorithms(True)`: the same code on the same values gives the same
bits on every call. Without it a first call and later ones run different programs (ops one by
one, then deferred runs and fused backwards), which may round differently in the last bit."""

from __future__ import annotations

import numpy as np

import autograd_compat as torch
from autograd_compat._defer import lazy
from autograd_compat._tape import fused


def _train(steps: int = 6):
    """Losses and final parameters of a small model trained from one seed (LayerNorm, tanh
    GELU, softmax cross entropy, a gradient penalty through a double backward, Adam)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(12, 32),
        torch.nn.LayerNorm(32),
        torch.nn.GELU(approximate="tanh"),
        torch.nn.Linear(32, 5),
    )
    optimizer = torch.optim.Adam(model.parameters(), 1e-2)
    x, y = torch.randn(16, 12), torch.randint(0, 5, (16,))
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        inputs = x.clone().requires_grad_(True)
        loss = torch.nn.functional.cross_entropy(model(inputs), y)
        (slope,) = torch.autograd.grad(loss, inputs, create_graph=True)
        (loss + slope.pow(2).sum()).backward()
        optimizer.step()
        losses.append(loss.item())
    return losses, [p.detach().numpy().copy() for p in model.parameters()]


def test_training_twice_from_one_seed_gives_the_same_bits():
    fused_before = len(fused.programs)
    try:
        torch.use_deterministic_algorithms(True)
        assert torch.are_deterministic_algorithms_enabled()
        first, second = _train(), _train()
        assert len(fused.programs) == fused_before  # every backward ran node by node
    finally:
        torch.use_deterministic_algorithms(False)
    assert first[0] == second[0]
    for a, b in zip(first[1], second[1]):
        np.testing.assert_array_equal(a, b)


def test_switching_the_mode_off_defers_ops_again():
    before = lazy.ENABLED
    try:
        torch.use_deterministic_algorithms(True, warn_only=True)
        assert not lazy.ENABLED
        torch.use_deterministic_algorithms(True)  # (on twice: off must still restore)
        assert not lazy.ENABLED
    finally:
        torch.use_deterministic_algorithms(False)
    assert lazy.ENABLED is before
    assert not torch.are_deterministic_algorithms_enabled()
