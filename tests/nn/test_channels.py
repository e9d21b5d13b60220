"""channel_shuffle, local_response_norm and the deprecated upsample functions against real
PyTorch: values, grad_fn names, float64 gradients, reprs, warnings and errors."""

from __future__ import annotations

import pytest

import autograd_compat
from tests._helpers.torch_compare import arr, check_case, check_error

X3 = arr((2, 6, 3))
X4 = arr((2, 6, 3, 2))
IMAGE = arr((1, 2, 3, 4))

CASES = {
    "channel_shuffle": (lambda t, x: t.nn.functional.channel_shuffle(x, 2), X4),
    "channel_shuffle_3d": (lambda t, x: t.channel_shuffle(x, 3), X3),
    "channel_shuffle_module": (lambda t, x: t.nn.ChannelShuffle(6)(x), X4),
    "lrn_3d": (lambda t, x: t.nn.functional.local_response_norm(x, 3, 0.5, 0.6, 1.5), X3),
    "lrn_4d": (lambda t, x: t.nn.LocalResponseNorm(2, alpha=0.3)(x), X4),
    "lrn_5d": (lambda t, x: t.nn.functional.local_response_norm(x.unsqueeze(-1), 4), X4),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name, real_torch):
    fn, x = CASES[name]
    check_case(fn, [x], real_torch)


@pytest.mark.filterwarnings("ignore:`nn.functional.upsample")
@pytest.mark.parametrize(
    "fn",
    [
        lambda t, x: t.nn.functional.upsample_bilinear(x, size=(5, 7)),
        lambda t, x: t.nn.functional.upsample_nearest(x, size=5),
        lambda t, x: t.nn.functional.upsample(x, scale_factor=2, mode="bilinear"),
    ],
)
def test_upsample_matches_torch(fn, real_torch):
    check_case(fn, [IMAGE], real_torch)


@pytest.mark.filterwarnings("ignore:`nn.functional.upsample")
def test_upsample_bilinear_scale_factor_float32(real_torch):
    check_case(
        lambda t, x: t.nn.functional.upsample_bilinear(x, scale_factor=2),
        [IMAGE.astype("float32")],
        real_torch,
    )


@pytest.mark.parametrize("name", ["upsample", "upsample_nearest", "upsample_bilinear"])
def test_upsample_warns(name, real_torch):
    for lib in (autograd_compat, real_torch):
        with pytest.warns(UserWarning, match=f"`nn.functional.{name}` is deprecated"):
            getattr(lib.nn.functional, name)(lib.zeros(1, 1, 2, 2), scale_factor=2)


def test_reprs(real_torch):
    def reprs(nn):
        modules = (nn.ChannelShuffle(2), nn.LocalResponseNorm(2), nn.CrossMapLRN2d(3))
        return [repr(m) for m in modules]

    assert reprs(autograd_compat.nn) == reprs(real_torch.nn)


def test_cross_map_lrn2d_forward_names_itself():
    with pytest.raises(NotImplementedError, match="nn.CrossMapLRN2d"):
        autograd_compat.nn.CrossMapLRN2d(3)(autograd_compat.zeros(1, 4, 2, 2))


ERRORS = [
    lambda t: t.nn.functional.channel_shuffle(t.zeros(2, 6, 3), 4),
    lambda t: t.nn.functional.channel_shuffle(t.zeros(2, 6, 3), 0),
    lambda t: t.nn.functional.channel_shuffle(t.zeros(3), 2),
    lambda t: t.nn.functional.local_response_norm(t.zeros(2, 3), 2),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, real_torch):
    check_error(ERRORS[index], real_torch)
