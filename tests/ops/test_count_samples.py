"""torch.poisson and torch.binomial: correctly distributed counts (not PyTorch's sampler's
values), PyTorch's dtypes, shapes, gradients and errors."""

import numpy as np
import pytest

import autograd_compat as torch
from tests._helpers.torch_compare import check_error, run_parity

DRAWS = 40_000


def test_poisson_counts_have_the_rates_mean_and_variance():
    rates = torch.tensor([0.0, 0.3, 4.0, 250.0]).repeat(DRAWS, 1)
    counts = torch.poisson(rates).numpy()
    assert np.array_equal(counts, np.round(counts)) and counts.min() >= 0
    assert np.all(counts[:, 0] == 0)
    np.testing.assert_allclose(counts.mean(0)[1:], [0.3, 4.0, 250.0], rtol=0.02)
    np.testing.assert_allclose(counts.var(0)[1:], [0.3, 4.0, 250.0], rtol=0.05)


def test_binomial_counts_have_the_binomial_mean_and_variance():
    count = torch.tensor([0.0, 1.0, 10.0, 200.0], dtype=torch.float64).repeat(DRAWS, 1)
    prob = torch.tensor([0.5, 0.0, 0.3, 0.9], dtype=torch.float64)  # broadcast against count
    counts = torch.binomial(count, prob).numpy()
    assert counts.dtype == np.float64
    assert np.all((counts >= 0) & (counts <= count.numpy()))
    assert np.all(counts[:, :2] == 0)
    np.testing.assert_allclose(counts.mean(0)[2:], [3.0, 180.0], rtol=0.02)
    np.testing.assert_allclose(counts.var(0)[2:], [2.1, 18.0], rtol=0.05)


def test_draws_follow_the_seed_and_the_generator():
    rates = torch.full((64,), 3.0)
    torch.manual_seed(5)
    first = torch.poisson(rates)
    torch.manual_seed(5)
    assert torch.equal(torch.poisson(rates), first)
    generator = torch.Generator().manual_seed(5)
    again = torch.Generator().manual_seed(5)
    assert torch.equal(torch.poisson(rates, generator), torch.poisson(rates, again))
    n, p = torch.full((64,), 8.0), torch.full((64,), 0.5)
    assert torch.equal(
        torch.binomial(n, p, torch.Generator().manual_seed(1)),
        torch.binomial(n, p, torch.Generator().manual_seed(1)),
    )


def test_an_infinite_rate_counts_infinity():
    assert torch.poisson(torch.tensor([float("inf"), 0.0])).tolist() == [float("inf"), 0.0]


def _shapes_dtypes_and_gradients(torch):
    """What does not depend on the sampler's values: dtypes, shapes, grad_fn names and the
    zero gradient of a Poisson draw."""
    rate = torch.tensor([1.0, 2.5], requires_grad=True)
    drawn = torch.poisson(rate)
    drawn.sum().backward()
    count = torch.full((2, 3), 4.0, requires_grad=True)
    return {
        "grad_fn": drawn.grad_fn.name(),
        "requires_grad": drawn.requires_grad,
        "rate_grad": rate.grad,
        "dtypes": [
            str(torch.poisson(torch.ones(2, dtype=d)).dtype)
            for d in (torch.float16, torch.bfloat16, torch.float32, torch.float64)
        ],
        "shapes": [
            tuple(torch.poisson(torch.zeros(0)).shape),
            tuple(torch.poisson(torch.tensor(2.0)).shape),
            tuple(torch.binomial(count, torch.tensor([0.5, 0.1, 0.9])).shape),
        ],
        "binomial_grad_fn": torch.binomial(count, torch.full((2, 3), 0.5)).grad_fn.name(),
    }


def test_dtypes_shapes_and_gradients_are_pytorchs(real_torch):
    run_parity(_shapes_dtypes_and_gradients)


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.poisson(t.tensor([1, 2])),
        lambda t: t.poisson(t.tensor([1.0, -1.0])),
        lambda t: t.poisson(t.tensor([float("nan")])),
        lambda t: t.poisson([1.0]),
        lambda t: t.binomial(t.tensor([5, 10]), t.tensor([0.5, 0.2])),
        lambda t: t.binomial(t.tensor([5.0, 10.0]), t.tensor([1, 0])),
        lambda t: t.binomial(t.tensor([5.0, 10.0]), t.tensor([0.5, 0.2], dtype=t.float64)),
        lambda t: t.binomial(t.tensor([5.0, 10.0]), t.tensor([0.5, 0.2, 0.1])),
        lambda t: (
            t.binomial(t.tensor([5.0], requires_grad=True), t.tensor([0.5], requires_grad=True))
            .sum()
            .backward()
        ),
    ],
    ids=[
        "poisson-integer",
        "poisson-negative",
        "poisson-nan",
        "poisson-list",
        "binomial-integer-count",
        "binomial-integer-prob",
        "binomial-dtypes",
        "binomial-shapes",
        "binomial-backward",
    ],
)
def test_errors_are_pytorchs(call, real_torch):
    check_error(call, real_torch)
