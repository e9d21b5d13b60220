"""torch.segment_reduce against PyTorch: every reduction, with and without `initial`, by
lengths and by offsets, along an inner axis, unsafe lengths that leave positions out, the
gradients, and the errors."""

from __future__ import annotations

import numpy as np
import pytest

from tests._helpers.torch_compare import check_case, check_error

# empty segments give -inf, inf or NaN without `initial` (no finite differences there)
_LENGTHS = {
    None: [[2, 1, 2], [1, 1, 3], [3, 1, 1]],
    1.5: [[2, 0, 3, 0], [0, 1, 2, 2], [3, 0, 2, 0]],
}


@pytest.mark.parametrize("reduce", ["sum", "mean", "prod", "max", "amin"])
@pytest.mark.parametrize("initial", [None, 1.5])
def test_reductions_match_pytorch(reduce, initial, real_torch):
    def by_lengths(torch, x):
        return torch.segment_reduce(
            x, reduce, lengths=torch.tensor(_LENGTHS[initial]), axis=1, initial=initial
        )

    check_case(by_lengths, [np.random.default_rng(0).standard_normal((3, 5, 2))], real_torch)


def test_offsets_and_unsafe_lengths(real_torch):
    def program(torch, x):
        offsets = torch.tensor([0, 1, 2, 4])
        return (
            torch._segment_reduce(x, "mean", offsets=offsets),
            torch._segment_reduce(x, "sum", lengths=torch.tensor([1, 2]), unsafe=True),
        )

    check_case(program, [np.random.default_rng(1).standard_normal((4, 3))], real_torch)


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.segment_reduce(t.ones(5), "sum", lengths=t.tensor([1, 1])),
        lambda t: t.segment_reduce(t.ones(5), "sum", lengths=t.tensor([1, -1, 5])),
        lambda t: t.segment_reduce(t.ones(5), "sum"),
        lambda t: t.segment_reduce(t.ones(5), "sum", indices=t.tensor([0])),
        lambda t: t.segment_reduce(t.ones(5), "any", lengths=t.tensor([5])),
        lambda t: t.segment_reduce(t.ones(5), "sum", lengths=t.tensor([5.0])),
    ],
)
def test_errors(call, real_torch):
    check_error(call, real_torch)
