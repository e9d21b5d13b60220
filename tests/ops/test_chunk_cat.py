"""torch._chunk_cat against real PyTorch where the OpInfo database does not look: out=, and
its argument errors in PyTorch's order (from the database's error inputs)."""

from __future__ import annotations

import pytest

import autograd_compat
from tests._helpers.torch_compare import assert_same, check_error


def _pair(t, a, b):
    return [t.ones(a), t.ones(b)]


def _into_out(t):
    out = t.empty(0)
    t._chunk_cat([t.arange(3.0), t.arange(4.0)], 0, 2, out=out)
    return out


ERRORS = [
    lambda t: t._chunk_cat(_pair(t, (2, 3), (4,)), -1, 3),
    lambda t: t._chunk_cat(_pair(t, (2, 3), (4,)), 1, 3),
    lambda t: t._chunk_cat(_pair(t, (2, 3, 4), (4, 3)), 1, 3),
    lambda t: t._chunk_cat(_pair(t, (2,), (3,)), 0, -1),
    lambda t: t._chunk_cat(_pair(t, (2,), (3,)), 0, 0),
    lambda t: t._chunk_cat([], 0, 1),
    lambda t: t._chunk_cat(_pair(t, (0,), (3,)), 0, 1),
    lambda t: t._chunk_cat([t.ones(2), t.ones(2).double()], 0, 1),
    lambda t: t._chunk_cat(_pair(t, (2, 3), (2, 2)), 3, 2),
]


def test_out_matches_torch(real_torch):
    assert_same(_into_out(autograd_compat), _into_out(real_torch))


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, real_torch):
    check_error(ERRORS[index], real_torch)


def test_gradient_flows_through_the_composition():
    # Pinned difference (docs/differences.md): PyTorch's eager kernel has no derivative.
    x = autograd_compat.arange(3.0, requires_grad=True)
    autograd_compat._chunk_cat([x], 0, 2).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]
