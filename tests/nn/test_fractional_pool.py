"""Fractional max pooling against PyTorch: after the same seed the random regions are
PyTorch's (values, indices and gradients equal), a NaN wins its window as in ATen's scan,
and the argument errors are PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

from tests._helpers.torch_compare import check_error, run_parity

_X = np.random.default_rng(0).standard_normal((2, 3, 7, 9))


def _seeded(torch):
    F = torch.nn.functional
    x = torch.tensor(_X, requires_grad=True)
    torch.manual_seed(5)
    out, where = F.fractional_max_pool2d(x, (2, 3), (4, 3), return_indices=True)
    pool = torch.nn.FractionalMaxPool3d(2, output_ratio=0.5)
    volume = pool(x[:, :, :6].reshape(2, 3, 6, 3, 3).float())
    (out * torch.arange(12.0, dtype=out.dtype).view(4, 3)).sum().backward()
    return out, where, volume, x.grad


def _nan_window(torch):
    nan = float("nan")
    x = torch.tensor([[[1.0, nan, 3.0, nan], [2.0, 5.0, 5.0, 0.0], [1, 2, 3, 4], [4, 3, 2, 1]]])
    samples = torch.tensor([[[0.3, 0.7]]])
    return torch.nn.functional.fractional_max_pool2d(
        x, 2, output_size=2, return_indices=True, _random_samples=samples
    )


@pytest.mark.parametrize("prog", [_seeded, _nan_window])
def test_matches_pytorch(prog):
    run_parity(prog)


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.nn.functional.fractional_max_pool2d(t.ones(1, 1, 4, 4), 4, output_size=2),
        lambda t: t.nn.functional.fractional_max_pool3d(t.ones(1, 4, 4, 4), 2, output_size=3),
        lambda t: t.nn.functional.fractional_max_pool2d(t.ones(1, 0, 4, 4), 2, output_size=2),
        lambda t: t.nn.functional.fractional_max_pool2d(t.ones(4, 4), 2, output_size=2),
        lambda t: t.nn.functional.fractional_max_pool2d(t.ones(1, 4, 4), 2),
        lambda t: t.nn.functional.fractional_max_pool2d(
            t.ones(1, 2, 4, 4), 2, output_size=2, _random_samples=t.rand(1, 2, 2).double()
        ),
        lambda t: t.nn.functional.fractional_max_pool2d(
            t.ones(1, 2, 4, 4), 2, output_size=2, _random_samples=t.rand(1, 3, 2)
        ),
        lambda t: t.nn.FractionalMaxPool2d(2, output_ratio=1.5),
        lambda t: t.nn.FractionalMaxPool3d(2, output_size=2, output_ratio=0.5),
    ],
)
def test_errors(call, real_torch):
    check_error(call, real_torch)
