"""F.interpolate against real PyTorch: every mode (nearest, nearest-exact, linear, bilinear,
trilinear, bicubic, area, and antialiased bilinear, bicubic and lanczos) on 3-D, 4-D and 5-D
input where PyTorch has it, by size and by scale factor (recomputed or not), align_corners
both ways: outputs, input gradients and node names to float32 tolerance, and PyTorch's errors.
"""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as ac
from tests._helpers.torch_compare import check_error

_rng = np.random.default_rng(0)
X = {
    3: _rng.standard_normal((2, 2, 9)).astype(np.float32),
    4: _rng.standard_normal((1, 2, 7, 6)).astype(np.float32),
    5: _rng.standard_normal((1, 1, 4, 5, 3)).astype(np.float32),
}
SIZES = [{"size": 3}, {"size": 11}]
FACTORS = [
    {"scale_factor": 0.6},
    {"scale_factor": 1.7, "recompute_scale_factor": True},
    {"scale_factor": 2.3, "recompute_scale_factor": False},
]


def _cases():
    """(mode, input dims, antialias, align_corners, size or scale arguments)."""
    cases = []
    for mode, dims in [("nearest", 4), ("nearest-exact", 3), ("nearest-exact", 4)]:
        cases += [(mode, dims, False, None, kw) for kw in SIZES + FACTORS]
    cases += [("nearest-exact", 5, False, None, kw) for kw in (SIZES[0], FACTORS[1])]
    cases += [("area", dims, False, None, FACTORS[0]) for dims in (3, 4, 5)]
    cases += [("area", 4, False, None, SIZES[1])]
    for mode, dims, antialias in [("bicubic", 4, False), ("bilinear", 4, True)]:
        for align_corners in (False, True):
            cases += [(mode, dims, antialias, align_corners, kw) for kw in SIZES + FACTORS]
    for align_corners in (False, True):
        cases += [("bicubic", 4, True, align_corners, kw) for kw in (SIZES[0], FACTORS[0])]
        cases += [("bicubic", 4, True, align_corners, {"size": (3, 10)})]
    cases += [("lanczos", 4, True, None, kw) for kw in ({"size": (3, 10)}, FACTORS[0])]
    cases += [("linear", 3, False, True, FACTORS[2]), ("trilinear", 5, False, False, SIZES[0])]
    return cases


CASES = _cases()
# adaptive_avg_pool1d is PyTorch's 2-D kernel between an unsqueeze and a squeeze
NODES_DIFFER = {("area", 3)}


@pytest.mark.parametrize(
    "case", CASES, ids=[f"{c[0]}-{c[1]}d-aa{c[2]}-ac{c[3]}-{c[4]}" for c in CASES]
)
def test_outputs_and_gradients_equal_pytorchs(case, real_torch):
    mode, dims, antialias, align_corners, kwargs = case
    x = X[dims]
    results = []
    for lib in (ac, real_torch):
        t = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.interpolate(
            t, mode=mode, align_corners=align_corners, antialias=antialias, **kwargs
        )
        cotangent = np.cos(np.arange(y.numel(), dtype=np.float32)).reshape(tuple(y.shape))
        y.backward(lib.tensor(cotangent))
        results.append((y.detach().numpy(), t.grad.numpy(), y.grad_fn.name()))
    (ours, our_grad, our_node), (theirs, their_grad, their_node) = results
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(our_grad, their_grad, rtol=1e-5, atol=1e-5)
    if (mode, dims) not in NODES_DIFFER:
        assert our_node == their_node


def test_float64_weights_are_computed_in_float64(real_torch):
    """As PyTorch's kernels: a float64 input's weights are float64, not float32's."""
    x = _rng.standard_normal((1, 1, 7, 6))
    for mode, antialias in [("bilinear", False), ("bicubic", False), ("bicubic", True)]:
        ours = ac.nn.functional.interpolate(
            ac.tensor(x), scale_factor=0.37, mode=mode, antialias=antialias
        )
        theirs = real_torch.nn.functional.interpolate(
            real_torch.tensor(x), scale_factor=0.37, mode=mode, antialias=antialias
        )
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-12)


ERRORS = [
    lambda t: t.nn.functional.interpolate(t.zeros(1, 1, 5), size=3, mode="bicubic"),
    lambda t: t.nn.functional.interpolate(t.zeros(1, 1, 5, 5, 5), size=3, mode="bicubic"),
    lambda t: t.nn.functional.interpolate(
        t.zeros(1, 1, 5), size=3, mode="bilinear", antialias=True
    ),
    lambda t: t.nn.functional.interpolate(t.zeros(1, 1, 5, 5), size=3, antialias=True),
    lambda t: t.nn.functional.interpolate(t.zeros(1, 1, 5, 5), size=3, mode="lanczos"),
    lambda t: t.nn.functional.interpolate(
        t.zeros(1, 1, 5, 5), size=3, mode="lanczos", antialias=True, align_corners=True
    ),
    lambda t: t.nn.functional.interpolate(t.zeros(2, 3), size=3),
    lambda t: t.nn.functional.interpolate(t.zeros(1, 1, 5, 5), size=3, mode="foo"),
    lambda t: t.nn.functional.interpolate(t.zeros(1, 1, 5, 5), size=(3,), mode="bicubic"),
    lambda t: t.nn.functional.interpolate(t.zeros(1, 1, 5, 5), scale_factor=(2.0, 2.0, 2.0)),
    lambda t: t.nn.functional.interpolate(t.zeros(1, 1, 5, 5), size=3, scale_factor=2.0),
    lambda t: t.nn.functional.interpolate(t.zeros(1, 1, 5, 5), size=3, recompute_scale_factor=True),
    lambda t: t.nn.functional.interpolate(t.zeros(1, 1, 5, 5), size=(3, 2.0)),
    lambda t: t.nn.functional.interpolate(t.zeros(1, 1, 5, 5), mode="area"),
    lambda t: t.nn.functional.interpolate(
        t.zeros(1, 1, 5, 5), size=3, mode="nearest-exact", align_corners=False
    ),
    lambda t: t.nn.functional.interpolate(t.zeros(1, 1, 5), size=3, mode="bilinear"),
    lambda t: t.nn.functional.interpolate(t.zeros(1, 1, 5, 5, 5), size=3, mode="linear"),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors(call, real_torch):
    check_error(call, real_torch)
