"""EmbeddingBag, PixelShuffle/PixelUnshuffle, Fold/Unfold, InstanceNorm, AdaptiveMaxPool,
the 1-D/3-D and circular padding modules and Softmax2d,
as modules and as functionals, against PyTorch: values, gradients (with finite differences for
the functional forms), reprs, running statistics, state_dict keys and errors.

Shapes are small and shared between cases, so each (op, shape) compiles once.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests._helpers.torch_compare import (
    arr,
    check_case,
    check_error,
    deterministic,
    no_names,
    run_parity,
)

pytestmark = pytest.mark.torch

IMG = (2, 4, 4, 4)
WEIGHTS = (6, 3)  # an embedding table


def F(lib):
    return lib.nn.functional


# ----------------------------------------------------------------------------- EmbeddingBag
BAG_INDICES = np.array([1, 2, 4, 4, 0, 5, 3, 3])
BAG_OFFSETS = np.array([0, 2, 2, 5])


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 4])
def test_embedding_bag(real_torch, mode, padding_idx):
    def program(lib, w, i, o):
        return F(lib).embedding_bag(i, w, o, mode=mode, padding_idx=padding_idx)

    check_case(program, [arr(WEIGHTS), BAG_INDICES, BAG_OFFSETS], real_torch)


def test_embedding_bag_weights_2d_input_and_last_offset(real_torch):
    def program(lib, w, p, i, o):
        per_sample = F(lib).embedding_bag(
            i, w, o, mode="sum", per_sample_weights=p, include_last_offset=True
        )
        batch = F(lib).embedding_bag(i.reshape(2, 4), w, mode="max")
        return per_sample, batch

    offsets = np.array([0, 2, 2, 5, 8])
    check_case(program, [arr(WEIGHTS), arr((8,)), BAG_INDICES, offsets], real_torch)


def test_embedding_bag_module():
    def program(lib):
        lib.manual_seed(0)
        bag = deterministic(lib, lib.nn.EmbeddingBag(6, 3, mode="max", padding_idx=-2))
        out = bag(lib.tensor(BAG_INDICES), lib.tensor(BAG_OFFSETS))
        out.sum().backward()
        frozen = lib.nn.EmbeddingBag.from_pretrained(lib.ones(6, 3), mode="sum")
        return repr(bag), list(bag.state_dict()), out, bag.weight.grad, frozen.weight, repr(frozen)

    run_parity(program)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, i, w, o: F(lib).embedding_bag(i, w),
        lambda lib, i, w, o: F(lib).embedding_bag(i.reshape(2, 4), w, o),
        lambda lib, i, w, o: F(lib).embedding_bag(i, w, o, mode="min"),
        lambda lib, i, w, o: F(lib).embedding_bag(i, w, o, per_sample_weights=w[0]),
        lambda lib, i, w, o: F(lib).embedding_bag(
            i, w, o, mode="mean", per_sample_weights=lib.ones(8)
        ),
        lambda lib, i, w, o: F(lib).embedding_bag(i.double(), w, o),
        lambda lib, i, w, o: F(lib).embedding_bag(i, w, o + 1),
        lambda lib, i, w, o: F(lib).embedding_bag(i, w, o * 3),
        lambda lib, i, w, o: lib.nn.EmbeddingBag(6, 3, padding_idx=6),
    ],
    ids=[
        "no_offsets",
        "2d_offsets",
        "mode",
        "weights_shape",
        "weights_mode",
        "dtype",
        "first_offset",
        "last_offset",
        "padding_idx",
    ],
)
def test_embedding_bag_errors(real_torch, call):
    check_error(
        lambda lib: call(lib, lib.tensor(BAG_INDICES), lib.zeros(WEIGHTS), lib.tensor(BAG_OFFSETS)),
        real_torch,
    )


def test_embedding_bag_index_out_of_range(real_torch):
    """A RuntimeError in both (PyTorch's text depends on its kernel's internal checks)."""
    check_error(
        lambda lib: F(lib).embedding_bag(
            lib.tensor([1, 2, 9, 0]), lib.zeros(WEIGHTS), lib.tensor([0, 2])
        ),
        real_torch,
        message=False,
    )


# ----------------------------------------------------------------------------- pixel shuffle, fold
def test_pixel_shuffle_and_unshuffle(real_torch):
    def program(lib, x, y):
        return (
            lib.nn.PixelShuffle(2)(x),
            F(lib).pixel_shuffle(x[0], 2),
            lib.nn.PixelUnshuffle(2)(y),
        )

    check_case(program, [arr(IMG), arr((2, 1, 3, 4, 4))], real_torch)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, x: F(lib).pixel_shuffle(x[0, 0], 2),
        lambda lib, x: F(lib).pixel_shuffle(x[:, :3], 2),
        lambda lib, x: F(lib).pixel_shuffle(x, 0),
        lambda lib, x: F(lib).pixel_unshuffle(x[..., :3, :], 2),
        lambda lib, x: F(lib).pixel_unshuffle(x[..., :3], 2),
        lambda lib, x: F(lib).pixel_unshuffle(x, -1),
    ],
)
def test_pixel_shuffle_errors(real_torch, call):
    check_error(lambda lib: call(lib, lib.zeros(IMG)), real_torch)


BLOCKS = [
    {"kernel_size": 2},
    {"kernel_size": (2, 3), "dilation": (1, 2), "padding": 1, "stride": (2, 1)},
    {"kernel_size": 3, "padding": 2, "stride": 2},
]


@pytest.mark.parametrize("kwargs", BLOCKS, ids=["plain", "mixed", "padded"])
def test_unfold_and_fold(real_torch, kwargs):
    def program(lib, x):
        columns = lib.nn.Unfold(**kwargs)(x)
        return columns, lib.nn.Fold((4, 4), **kwargs)(columns), F(lib).unfold(x[0], **kwargs)

    check_case(program, [arr(IMG)], real_torch)


def test_reprs():
    run_parity(
        lambda lib: [
            repr(lib.nn.Fold((4, 5), 2, stride=2)),
            repr(lib.nn.Unfold((2, 3), 2)),
            repr(lib.nn.PixelShuffle(2)),
            repr(lib.nn.PixelUnshuffle(3)),
            repr(lib.nn.AdaptiveMaxPool2d((2, None), return_indices=True)),
            repr(lib.nn.AdaptiveMaxPool1d(3)),
            repr(lib.nn.InstanceNorm3d(3, momentum=0.2)),
        ]
    )


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, x: F(lib).unfold(x, 5),
        lambda lib, x: F(lib).unfold(x, 2, stride=0),
        lambda lib, x: F(lib).unfold(x, 2, padding=-1),
        lambda lib, x: F(lib).unfold(x, 2, dilation=0),
        lambda lib, x: F(lib).unfold(x, 0),
        lambda lib, x: F(lib).unfold(x.unsqueeze(0), 2),
        lambda lib, x: F(lib).unfold(x, (2, 2, 2)),
        lambda lib, x: F(lib).fold(x.reshape(2, 8, 8), (4, 4), 2),
        lambda lib, x: F(lib).fold(x.reshape(2, 16, 4)[:, :7], (4, 4), 2),
        lambda lib, x: F(lib).fold(x, (4, 4), 2),
    ],
    ids=[
        "too_small",
        "stride",
        "padding",
        "dilation",
        "kernel",
        "unfold_dims",
        "kernel_len",
        "blocks",
        "channels",
        "fold_dims",
    ],
)
def test_fold_errors(real_torch, call):
    check_error(lambda lib: call(lib, lib.zeros(IMG)), real_torch)


# ----------------------------------------------------------------------------- InstanceNorm
@pytest.mark.parametrize("affine", [False, True])
@pytest.mark.parametrize("track", [False, True])
def test_instance_norm(affine, track):
    """Training output and gradients, the running statistics after two steps, eval output."""

    def program(lib):
        results = {}
        for name, shape in (("1d", (2, 4, 5)), ("2d", IMG), ("1d_unbatched", (4, 5))):
            cls = getattr(lib.nn, f"InstanceNorm{name[:2]}")
            norm = deterministic(lib, cls(4, affine=affine, track_running_stats=track))
            x = lib.tensor(arr(shape), requires_grad=True)
            out = norm(x)
            norm(2 * x)
            (out * lib.tensor(arr(shape, seed=1))).sum().backward()
            norm.eval()
            results[name] = (
                no_names(out),
                x.grad,
                norm.running_mean,
                norm.running_var,
                no_names(norm(x)),
                [p.grad for p in norm.parameters()],
                list(norm.state_dict()),
            )
        return results

    run_parity(program)


def test_instance_norm_functional(real_torch):
    def program(lib, x, w, b):
        return F(lib).instance_norm(x, weight=w, bias=b, eps=1e-3)

    check_case(program, [arr(IMG), arr((4,), "pos"), arr((4,))], real_torch, names=False)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.nn.InstanceNorm1d(4)(lib.zeros(IMG)),
        lambda lib: lib.nn.InstanceNorm2d(3, affine=True)(lib.zeros(IMG)),
        lambda lib: F(lib).instance_norm(lib.zeros(2, 4, 1)),
        lambda lib: F(lib).instance_norm(lib.zeros(2, 4, 3), use_input_stats=False),
    ],
    ids=["dims", "num_features", "spatial", "running_stats"],
)
def test_instance_norm_errors(real_torch, call):
    check_error(call, real_torch)


def test_instance_norm_warns_on_a_channel_mismatch_without_affine():
    run_parity(lambda lib: lib.nn.InstanceNorm2d(3)(lib.ones(IMG)).shape)


# ----------------------------------------------------------------------------- AdaptiveMaxPool
def test_adaptive_max_pool(real_torch):
    def program(lib, x, y):
        pooled, indices = lib.nn.AdaptiveMaxPool2d((3, None), return_indices=True)(x)
        return (
            pooled,
            indices,
            F(lib).adaptive_max_pool2d(x[0], 3, return_indices=True),
            F(lib).adaptive_max_pool1d(y, 3, return_indices=True),
            lib.nn.AdaptiveMaxPool1d(2)(y[0]),
        )

    check_case(program, [arr((2, 2, 5, 4)), arr((2, 3, 7))], real_torch, names=False)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, x: F(lib).adaptive_max_pool2d(x[0, 0], 2),
        lambda lib, x: F(lib).adaptive_max_pool1d(x[0, 0, 0], 2),
        lambda lib, x: F(lib).adaptive_max_pool1d(x[0], (2, 3)),
        lambda lib, x: F(lib).adaptive_max_pool2d(x, (2, 3, 4)),
        lambda lib, x: F(lib).adaptive_max_pool2d(x[:, :, :0], 2),
        lambda lib, x: F(lib).adaptive_max_pool2d(x.long(), 2),
    ],
    ids=["dims2d", "dims1d", "size1d", "size2d", "empty", "dtype"],
)
def test_adaptive_max_pool_errors(real_torch, call):
    check_error(lambda lib: call(lib, lib.zeros(IMG)), real_torch)


# ------------------------------------------------------------------------ 3-D padding, Softmax2d
VOLUME = (1, 2, 3, 3, 3)


def test_constant_padding_and_softmax2d(real_torch):
    def program(lib, v, x):
        nn = lib.nn
        return (
            nn.ConstantPad3d(1, 2.5)(v),
            nn.ZeroPad1d((2, 1))(x[0]),
            nn.ZeroPad3d((0, 1, 1, 0, 2, 1))(v),
            nn.Softmax2d()(x),
            nn.Softmax2d()(v[0]),
        )

    check_case(program, [arr(VOLUME), arr((2, 3, 4, 4))], real_torch)


def test_circular_reflection_replication_padding(real_torch):
    """Values and gradients; grad_fn names differ (F.pad's reflect and replicate nodes are
    named for 2-D padding, its circular node lacks PyTorch's torch::autograd:: prefix)."""

    def program(lib, v, x):
        nn = lib.nn
        return (
            nn.CircularPad1d((1, 2))(x[0]),
            nn.CircularPad2d(1)(x),
            nn.CircularPad3d((1, 0, 2, 1, 0, 1))(v),
            nn.ReflectionPad3d((1, 2, 0, 1, 2, 0))(v),
            nn.ReplicationPad3d(2)(v[0]),
        )

    check_case(program, [arr(VOLUME), arr((2, 3, 4, 4))], real_torch, names=False)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, v: lib.nn.CircularPad1d(1)(v),
        lambda lib, v: lib.nn.CircularPad3d(1)(v[0, 0]),
        lambda lib, v: lib.nn.Softmax2d()(v),
        lambda lib, v: lib.nn.Softmax2d()(v[0, 0, 0]),
    ],
)
def test_padding_and_softmax2d_errors(real_torch, call):
    check_error(lambda lib: call(lib, lib.zeros(VOLUME)), real_torch)


def test_padding_reprs():
    run_parity(
        lambda lib: [
            repr(lib.nn.CircularPad3d(1)),
            repr(lib.nn.ConstantPad3d((1, 2, 0, 1, 1, 0), 3.0)),
            repr(lib.nn.ZeroPad1d(2)),
            repr(lib.nn.ZeroPad3d(1)),
            repr(lib.nn.ReflectionPad3d(1)),
            repr(lib.nn.ReplicationPad3d(1)),
            repr(lib.nn.Softmax2d()),
        ]
    )
