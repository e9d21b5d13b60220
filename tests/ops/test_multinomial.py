"""torch.multinomial against PyTorch: shapes, dtypes, errors (verbatim), the distribution
(chi-square with a fixed seed), reproducibility under manual_seed, one compile per shape."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._ops.sampling import _draw
from tests._helpers.torch_compare import check_error

P = np.array([0.1, 0.2, 0.3, 0.0, 0.4])

# Critical values of the chi-square distribution at p = 0.001 (df = 3): with a fixed seed the
# test is deterministic, and a correct sampler passes it with a wide margin.
CHI2_CRIT_DF3 = 16.27


def _chi_square(counts: np.ndarray, expected: np.ndarray) -> float:
    keep = expected > 0
    assert counts[~keep].sum() == 0  # zero-probability categories are never drawn
    return float((((counts - expected) ** 2)[keep] / expected[keep]).sum())


def test_with_replacement_follows_the_distribution():
    n = 20000
    draws = torch.multinomial(torch.tensor(P * 3), n, replacement=True)  # unnormalized
    assert draws.dtype == torch.int64 and draws.shape == (n,)
    counts = np.bincount(draws.numpy(), minlength=5)
    assert _chi_square(counts, P * n) < CHI2_CRIT_DF3


def test_without_replacement_follows_sequential_draws():
    n = 20000
    rows = torch.tensor(np.tile(P, (n, 1)), dtype=torch.float32)
    draws = torch.multinomial(rows, 2).numpy()
    assert (draws[:, 0] != draws[:, 1]).all()
    first = np.bincount(draws[:, 0], minlength=5)
    assert _chi_square(first, P * n) < CHI2_CRIT_DF3
    # P(second = j) = sum_i p_i p_j / (1 - p_i), i != j
    second = np.array([sum(P[i] * P[j] / (1 - P[i]) for i in range(5) if i != j) for j in range(5)])
    assert _chi_square(np.bincount(draws[:, 1], minlength=5), second * n) < CHI2_CRIT_DF3


def test_shapes_generator_and_seed():
    rows = torch.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, 2.0]])
    assert torch.multinomial(rows, 4, True).tolist() == [[0] * 4, [2] * 4]
    assert rows.multinomial(1).tolist() == [[0], [2]]
    full = torch.multinomial(torch.tensor([1.0, 0.0, 0.0]), 3)  # zero weights come last
    assert full.tolist()[0] == 0 and sorted(full.tolist()) == [0, 1, 2]
    assert torch.multinomial(torch.ones(0, 3), 2).shape == (0, 2)
    p = torch.tensor(P, requires_grad=True)
    assert not torch.multinomial(p, 2).requires_grad
    torch.manual_seed(3)
    a = torch.multinomial(p, 3).tolist(), torch.multinomial(p, 4, True).tolist()
    torch.manual_seed(3)
    assert (torch.multinomial(p, 3).tolist(), torch.multinomial(p, 4, True).tolist()) == a
    g1, g2 = torch.Generator().manual_seed(5), torch.Generator().manual_seed(5)
    assert torch.multinomial(p, 5, True, generator=g1).equal(
        torch.multinomial(p, 5, True, generator=g2)
    )


def test_sampling_loop_compiles_once():
    """A text generator's loop: new probabilities every call, one compiled function."""
    logits = torch.randn(1, 11)
    torch.multinomial(torch.softmax(logits, -1), num_samples=1)
    before = _draw._cache_size()
    for _ in range(5):
        logits = torch.randn(1, 11)
        torch.multinomial(torch.softmax(logits, -1), num_samples=1)
    assert _draw._cache_size() == before


ERRORS = [
    lambda t: t.multinomial(t.tensor([0.5, -0.1]), 1),
    lambda t: t.multinomial(t.tensor([0.5, float("inf")]), 2),
    lambda t: t.multinomial(t.tensor([0.5, float("nan")]), 1),
    lambda t: t.multinomial(t.tensor([0.0, 0.0]), 1),
    lambda t: t.multinomial(t.tensor([[1.0, 1.0], [0.0, 0.0]]), 1),
    lambda t: t.multinomial(t.tensor([0.5, -0.1]), 2, True),
    lambda t: t.multinomial(t.tensor([0.5, float("inf")]), 2, True),
    lambda t: t.multinomial(t.tensor([0.5, float("nan")]), 2, True),
    lambda t: t.multinomial(t.tensor([[1.0, 1.0], [0.0, 0.0]]), 2, True),
    lambda t: t.multinomial(t.ones(3, 0), 2, True),
    lambda t: t.multinomial(t.tensor([0.5, 0.5]), 3),
    lambda t: t.multinomial(t.tensor(0.5), 1),
    lambda t: t.multinomial(t.ones(2, 2, 2), 1),
    lambda t: t.multinomial(t.tensor([1, 2]), 1),
    lambda t: t.multinomial(t.tensor([0.5, 0.5]), 0),
]


@pytest.mark.torch
@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors_match_pytorch(case, real_torch):
    check_error(ERRORS[case], real_torch)


@pytest.mark.torch
def test_subnormal_probabilities_are_drawn_as_pytorch_draws_them(real_torch, monkeypatch):
    """The host draw checks its rows with numpy, which keeps subnormals (an XLA:CPU sum
    flushes them to zero), and never calls a program for the check."""
    monkeypatch.setattr(torch._ops.sampling, "_draw", None)  # (the traced path is not taken)

    def draw(lib):
        lib.manual_seed(3)
        p = lib.tensor([[1e-40, 3e-40, 0.0]])
        return lib.multinomial(p, 2).tolist(), lib.multinomial(p, 4, True).tolist()

    assert draw(torch) == draw(real_torch)
