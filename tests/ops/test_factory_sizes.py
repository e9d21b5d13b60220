"""Factories take their size positionally (`zeros(2, 3)`, `zeros((2, 3))`) or by PyTorch's
keyword (`zeros(size=(2, 3))`, as timm's BEiT and many notebooks write it), with PyTorch's
errors for both, neither, or a keyword size that is not a sequence."""

from __future__ import annotations

import numpy as np
import pytest

from tests._helpers.torch_compare import check_error, run_parity

SIZED = [
    ("zeros", lambda t, **k: t.zeros(**k)),
    ("ones", lambda t, **k: t.ones(**k)),
    ("empty", lambda t, **k: t.empty(**k).zero_()),
    ("rand", lambda t, **k: t.rand(**k).clamp(0, 1).mul(0)),
    ("randn", lambda t, **k: t.randn(**k).mul(0)),
    ("new_zeros", lambda t, **k: t.ones(1, dtype=t.float64).new_zeros(**k)),
    ("new_ones", lambda t, **k: t.ones(1, dtype=t.int32).new_ones(**k)),
    ("new_empty", lambda t, **k: t.ones(1).new_empty(**k).zero_()),
]


@pytest.mark.parametrize("make", [m for _, m in SIZED], ids=[n for n, _ in SIZED])
def test_size_keyword_gives_the_positional_result(make):
    def prog(torch):
        return [
            make(torch, size=(2, 3)),
            make(torch, size=[4]),
            make(torch, size=torch.Size([1, 2])),
            make(torch, size=()),
            make(torch, size=(2,), dtype=torch.float64),
            make(torch, size=(2,), requires_grad=True),
        ]

    prog.__name__ = "size_keyword"
    run_parity(prog)


def test_full_and_randint_by_keyword(real_torch):
    def prog(torch):
        return [
            torch.full(size=(2, 3), fill_value=1.5),
            torch.full(size=(2,), fill_value=3, dtype=torch.int32),
            torch.ones(1).new_full(size=(3,), fill_value=2.0),
            torch.randint(0, 5, size=(3, 4)).shape,
            torch.randint(5, size=(3,)).dtype,
            torch.randint(low=2, high=3, size=(2,)),
            torch.randint(high=1, size=(2,)),
            torch.randint(2, size=(2,), high=3),
            torch.randint(0, 9, size=(2,), dtype=torch.int32).dtype,
            torch.rand(size=(3, 4), generator=torch.Generator()).shape,
        ]

    run_parity(prog)


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.zeros(2, size=(2, 3)),
        lambda t: t.ones((2,), size=(2, 3)),
        lambda t: t.ones(1).new_zeros(2, size=(2,)),
        lambda t: t.full((2,), 1.0, size=(2,)),
        lambda t: t.zeros(),
        lambda t: t.ones(1).new_empty(),
        lambda t: t.zeros(size=2),
        lambda t: t.ones(size=2.0),
        lambda t: t.empty(size="a"),
        lambda t: t.zeros(size=(2.0,)),
        lambda t: t.zeros(size=[True]),
        lambda t: t.zeros(size=(2, None)),
        lambda t: t.ones(1).new_ones(size=2),
        lambda t: t.ones(size=(-1,)),
        lambda t: t.rand(3, size=(3, 4)),
        lambda t: t.randn(2, 3, size=(3,)),
        lambda t: t.rand(),
        lambda t: t.randn(size=2),
        lambda t: t.randint(5, size=3),
        lambda t: t.randint(5, 3),
        lambda t: t.randint(5, (3,), size=(3,)),
        lambda t: t.randint(2, 3, 4, size=(3,)),
        lambda t: t.randint(),
        lambda t: t.randint(5),
        lambda t: t.randint(size=(3,)),
        lambda t: t.randint(1, 5, size=(2,), high=3),
        lambda t: t.randint(5, size=(2,), low=1),
    ],
)
def test_size_errors(call, real_torch):
    check_error(call, real_torch)


@pytest.mark.parametrize("value", [np.float32(1.0), 1.0, [1.0]], ids=["numpy", "float", "list"])
def test_from_numpy_of_no_array_names_the_type_as_pytorch(value, real_torch):
    check_error(lambda t: t.from_numpy(value), real_torch)
