"""The vision ops: F.grid_sample, F.affine_grid, F.conv_transpose3d / nn.ConvTranspose3d and
nn.SyncBatchNorm in one process, against real PyTorch (forward, grad_fn names, float64
gradients), jax.vjp of the traced program and central differences."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import autograd_compat
from tests._helpers.torch_compare import arr, check_case, check_error

# Points spread past [-1, 1], so every padding mode reads outside the image.
_IMAGE_2D = arr((2, 3, 4, 5), seed=1)
_GRID_2D = arr((2, 3, 4, 2), "unit", seed=2) * 1.5
_IMAGE_3D = arr((1, 2, 3, 4, 5), seed=3)
_GRID_3D = arr((1, 2, 3, 2, 3), "unit", seed=4) * 1.5

_CASES_2D = list(
    itertools.product(("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection"))
)
_CASES_3D = list(itertools.product(("bilinear", "nearest"), ("zeros", "border", "reflection")))


def _grid_sample(mode, padding, align_corners):
    def fn(torch, x, grid):
        return torch.nn.functional.grid_sample(
            x, grid, mode=mode, padding_mode=padding, align_corners=align_corners
        )

    return fn


@pytest.mark.parametrize("mode, padding", _CASES_2D)
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_2d(mode, padding, align_corners, real_torch):
    check_case(
        _grid_sample(mode, padding, align_corners),
        [_IMAGE_2D, _GRID_2D],
        real_torch,
        jax_vjp=mode == "bicubic" and padding == "reflection" and align_corners,
    )


@pytest.mark.parametrize("mode, padding", _CASES_3D)
def test_grid_sample_3d(mode, padding, real_torch):
    check_case(
        _grid_sample(mode, padding, padding == "border"),
        [_IMAGE_3D, _GRID_3D],
        real_torch,
        jax_vjp=mode == "bilinear" and padding == "zeros",
    )


def test_grid_sample_float32_and_default_align_corners_warning(real_torch):
    def fn(torch, x, grid):
        with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
            return torch.nn.functional.grid_sample(x, grid)

    check_case(fn, [_IMAGE_2D.astype(np.float32), _GRID_2D.astype(np.float32)], real_torch)


@pytest.mark.parametrize(
    "call",
    [
        lambda F, x, g: F.grid_sample(x, g, mode="area", align_corners=False),
        lambda F, x, g: F.grid_sample(x, g, padding_mode="wrap", align_corners=False),
        lambda F, x, g: F.grid_sample(x, g.double(), align_corners=False),
        lambda F, x, g: F.grid_sample(x, g[..., :1], align_corners=False),
        lambda F, x, g: F.grid_sample(x[:1], g, align_corners=False),
        lambda F, x, g: F.grid_sample(x[0], g[0], align_corners=False),
        lambda F, x, g: F.grid_sample(
            x[:, :, None],
            g[:, None].expand(2, 1, 3, 4, 2)[..., :1].expand(2, 1, 3, 4, 3),
            mode="bicubic",
            align_corners=False,
        ),
    ],
)
def test_grid_sample_errors(call, real_torch):
    def fn(torch):
        x = torch.zeros(2, 3, 4, 5)
        return call(torch.nn.functional, x, torch.zeros(2, 3, 4, 2))

    check_error(fn, real_torch)


@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 3, 2, 4)])
@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid(size, align_corners, real_torch):
    nd = len(size) - 2
    theta = arr((2, nd, nd + 1), seed=5)

    def fn(torch, theta):
        return torch.nn.functional.affine_grid(theta, size, align_corners=align_corners)

    check_case(fn, [theta], real_torch, jax_vjp=align_corners)


def test_affine_grid_into_grid_sample(real_torch):
    """The usual spatial-transformer pair: gradients reach theta through the grid."""
    theta = np.array([[[0.9, 0.2, 0.1], [-0.1, 1.1, 0.0]], [[1.2, 0.0, -0.2], [0.3, 0.8, 0.1]]])

    def fn(torch, x, theta):
        F = torch.nn.functional
        grid = F.affine_grid(theta, list(x.shape), align_corners=False)
        return F.grid_sample(x, grid, align_corners=False)

    check_case(fn, [_IMAGE_2D, theta], real_torch)


@pytest.mark.parametrize(
    "call",
    [
        lambda F, t: F.affine_grid(t, [2, 3, 4], align_corners=False),
        lambda F, t: F.affine_grid(t[..., :2], [2, 3, 4, 5], align_corners=False),
        lambda F, t: F.affine_grid(t.long(), [2, 3, 4, 5], align_corners=False),
        lambda F, t: F.affine_grid(t, [2, 3, 0, 5], align_corners=False),
        lambda F, t: F.affine_grid(t, [1, 3, 4, 5], align_corners=False),
    ],
)
def test_affine_grid_errors(call, real_torch):
    check_error(lambda torch: call(torch.nn.functional, torch.zeros(2, 2, 3)), real_torch)


def test_conv_transpose3d_functional(real_torch):
    x, w, b = arr((2, 4, 3, 2, 3), seed=6), arr((4, 3, 2, 3, 2), seed=7), arr((6,), seed=8)

    def fn(torch, x, w, b):
        return torch.nn.functional.conv_transpose3d(
            x, w, b, stride=(2, 1, 2), padding=(0, 1, 1), output_padding=(1, 0, 1), groups=2
        )

    check_case(fn, [x, w, b], real_torch, jax_vjp=True)


def test_conv_transpose3d_module(real_torch):
    x = arr((1, 2, 2, 3, 2), seed=9)

    def fn(torch, x):
        torch.manual_seed(0)
        layer = torch.nn.ConvTranspose3d(2, 3, 2, stride=2, bias=False).double()
        with torch.no_grad():
            layer.weight.copy_(torch.tensor(arr((2, 3, 2, 2, 2), seed=10)))
        return layer(x, output_size=[5, 7, 5])

    check_case(fn, [x], real_torch)
    layers = [m.nn.ConvTranspose3d(2, 3, 2, stride=2) for m in (autograd_compat, real_torch)]
    assert repr(layers[0]) == repr(layers[1])


def test_sync_batchnorm_in_one_process_is_batchnorm(real_torch):
    x = arr((4, 3, 2, 2), seed=11)

    def fn(torch, x):
        model = torch.nn.Sequential(torch.nn.Conv2d(3, 3, 1, bias=False), torch.nn.BatchNorm2d(3))
        model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model).double()
        with torch.no_grad():
            model[0].weight.copy_(torch.tensor(arr((3, 3, 1, 1), seed=12)))
        assert type(model[1]).__name__ == "SyncBatchNorm"
        return model(x), model[1].running_var

    check_case(fn, [x], real_torch)


def test_sync_batchnorm_across_processes_raises(monkeypatch):
    from autograd_compat.nn.modules import normalization

    monkeypatch.setattr(normalization._c10d, "is_initialized", lambda: True)
    monkeypatch.setattr(normalization._c10d, "get_world_size", lambda group=None: 2)
    layer = autograd_compat.nn.SyncBatchNorm(3)
    with pytest.raises(NotImplementedError, match="torch.nn.SyncBatchNorm: synchronizing"):
        layer(autograd_compat.zeros(2, 3))
    assert layer.eval()(autograd_compat.zeros(2, 3)).shape == (2, 3)


@pytest.mark.parametrize("shape", [(4, 4), (6, 3)])
def test_lstsq_gels_driver(shape, real_torch):
    """torchvision's perspective transform solves with driver "gels" (full-rank A)."""
    a, b = arr(shape, seed=13), arr((shape[0], 2), seed=14)

    def fn(torch, a, b):
        result = torch.linalg.lstsq(a, b, driver="gels")
        vector = torch.linalg.lstsq(a, b[:, 0], driver="gels")
        return result.solution, result.residuals, result.rank, vector.residuals

    check_case(fn, [a, b], real_torch)


def test_lstsq_driver_names(real_torch):
    a = np.eye(3)
    check_error(
        lambda torch: torch.linalg.lstsq(torch.tensor(a), torch.tensor(a), driver="qr"), real_torch
    )
