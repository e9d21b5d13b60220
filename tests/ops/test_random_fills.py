"""cauchy_, log_normal_ and geometric_ against real PyTorch after the same seed: the same
values bit for bit (every float dtype, geometric's integer ones, the scalar normal's cached
sample shared with normal_, whose float64 scaling is one multiply-add), the generator left
in the same state, and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._ops import random as random_ops
from tests._helpers.torch_compare import check_error
from tests.ops.test_random_pytorch import _assert_same


def test_fills_are_pytorchs(real_torch):
    _assert_same(
        real_torch,
        lambda t: [
            t.empty(5).cauchy_(),
            t.empty(40, dtype=t.float64).cauchy_(-1.0, 0.25),
            t.empty(3, 4, dtype=t.float16).cauchy_(),
            t.empty(7).log_normal_(),
            t.empty(1).normal_(),  # takes the normal the log-normal fill cached
            t.empty(33, dtype=t.float64).log_normal_(0.5, 0.1),
            t.empty(6, dtype=t.bfloat16).log_normal_(0.0, 1.0).float(),
            t.empty(20).geometric_(0.2),
            t.empty(9, dtype=t.int64).geometric_(0.7),
            t.empty(9, dtype=t.uint8).geometric_(0.5),
            t.empty(5, dtype=t.float64).geometric_(1e-3),
            t.empty(7, dtype=t.float64).normal_(0.3, 0.1),  # scaled in one multiply-add
            t.empty(40, dtype=t.float64).normal_(0.3, 0.1),
        ],
    )


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.empty(2, dtype=t.int64).cauchy_(),
        lambda t: t.empty(2, dtype=t.complex64).cauchy_(),
        lambda t: t.empty(2).cauchy_(0.0, 0.0),
        lambda t: t.empty(2, dtype=t.int32).log_normal_(),
        lambda t: t.empty(2).log_normal_(1.0, -1.0),
        lambda t: t.empty(2, dtype=t.bool).geometric_(0.5),
        lambda t: t.empty(2).geometric_(1.5),
        lambda t: t.ones(2, requires_grad=True).geometric_(0.5),
    ],
)
def test_errors(call, real_torch):
    check_error(call, real_torch)


def test_fills_from_a_jax_key(monkeypatch):
    """Where the draw is not PyTorch's (here forced), the fills transform JAX draws: seeded
    reproducibly, and in the distributions' supports."""
    monkeypatch.setattr(random_ops, "PYTORCH_STREAM", False)

    def draw():
        torch.manual_seed(0)
        return (
            torch.empty(200).cauchy_(1.0, 0.5).numpy(),
            torch.empty(200, dtype=torch.float64).log_normal_(0.0, 0.5).numpy(),
            torch.empty(200, dtype=torch.int64).geometric_(0.3).numpy(),
        )

    first, second = draw(), draw()
    for a, b in zip(first, second):
        assert (a == b).all()
    cauchy, log_normal, geometric = first
    assert abs(float(np.median(cauchy)) - 1.0) < 0.3
    assert (log_normal > 0).all() and (geometric >= 1).all() and geometric.dtype == np.int64
