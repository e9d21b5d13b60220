"""as_strided views against PyTorch: writes through them reach the memory, views of part of
a tensor read beyond it, gradients flow to the elements the input holds, and the errors."""

from __future__ import annotations

import pytest

from tests._helpers.torch_compare import check_error, run_parity


def _writes_through(torch):
    base = torch.arange(8.0)
    part = base[1:]
    strided = part.as_strided((2, 2), (1, 3), 0)  # reads base[0], outside `part`
    before = strided.clone()
    strided.mul_(10)
    return base, part, before, strided, strided.stride(), strided.storage_offset()


def _gradients(torch):
    base = torch.arange(12.0, requires_grad=True)
    part = base[2:10]
    out = part.as_strided((2, 3), (3, 1), 1)  # partly outside `part`
    (out * torch.arange(6.0).view(2, 3)).sum().backward()
    return out, base.grad


def _in_place(torch):
    x = torch.arange(6.0, requires_grad=True)
    y = x * 2
    same = y.as_strided_((2, 2), (1, 2), 1) is y
    y.sum().backward()
    return same, y, y.shape, y.stride(), x.grad


def _copy_and_scatter(torch):
    x = torch.arange(9.0).view(3, 3)
    copy = torch.as_strided_copy(x, (2, 2), (3, 1), 4)
    copy.zero_()
    scattered = torch.as_strided_scatter(x, torch.ones(2, 2), (2, 2), (1, 3))
    return x, copy, scattered


@pytest.mark.parametrize("prog", [_writes_through, _gradients, _in_place, _copy_and_scatter])
def test_matches_pytorch(prog):
    run_parity(prog)


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.arange(10.0).as_strided((2, 2), (1, 2), 10),
        lambda t: t.arange(10.0).as_strided((2, 2), (-1, 2)),
        lambda t: t.arange(10.0).as_strided((2, 2), (1,)),
        lambda t: t.arange(10.0).as_strided((2,), (1,), -1),
        lambda t: t.as_strided_scatter(t.zeros(4), t.ones(3), (2,), (2,)),
    ],
)
def test_errors(call, real_torch):
    check_error(call, real_torch)
