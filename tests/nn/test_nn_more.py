"""Sequence packing (and packed RNNs), EmbeddingBag, PixelShuffle, Fold/Unfold, InstanceNorm,
AdaptiveMaxPool and the parametrizations (weight and spectral norm) against PyTorch: values,
gradients (with finite differences for the functional forms), state_dict keys and errors.

Shapes are small and shared between cases, so each (op, shape) compiles once.
"""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat
from tests._helpers.torch_compare import arr, check_case, check_error, no_names, run_parity

pytestmark = pytest.mark.torch

SEQS = [(4, 3), (2, 3), (3, 3)]  # three sequences of 3 features, lengths 4, 2, 3
LENGTHS = [4, 2, 3]
PADDED = (4, 3, 3)  # (T, B, H) of those
IMG = (2, 4, 4, 4)
WEIGHTS = (6, 3)  # an embedding table


def F(lib):
    return lib.nn.functional


def rnn_utils(lib):
    return lib.nn.utils.rnn


def deterministic(lib, module):
    """`module` in float64 with the same parameters in both libraries."""
    module = module.double()
    with lib.no_grad():
        for i, (_, p) in enumerate(sorted(module.named_parameters())):
            p.copy_(lib.tensor(0.5 * arr(tuple(p.shape), seed=i)))
    return module


# ----------------------------------------------------------------------------- rnn utils
@pytest.mark.parametrize(
    "kwargs",
    [{}, {"batch_first": True, "padding_value": -1.0}, {"padding_side": "left"}],
    ids=["default", "batch_first", "left"],
)
def test_pad_sequence(real_torch, kwargs):
    arrays = [arr(s, seed=i) for i, s in enumerate(SEQS)]
    check_case(
        lambda lib, *xs: rnn_utils(lib).pad_sequence(list(xs), **kwargs),
        arrays,
        real_torch,
        names=False,
    )


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [False, True])
def test_pack_and_pad_round_trip(real_torch, batch_first, enforce_sorted):
    lengths = sorted(LENGTHS, reverse=True) if enforce_sorted else LENGTHS
    shape = (3, 4, 3) if batch_first else PADDED

    def program(lib, x):
        packed = rnn_utils(lib).pack_padded_sequence(
            x, lib.tensor(lengths), batch_first=batch_first, enforce_sorted=enforce_sorted
        )
        padded, out_lengths = rnn_utils(lib).pad_packed_sequence(
            packed, batch_first=batch_first, padding_value=0.5, total_length=5
        )
        indices = [] if enforce_sorted else [packed.sorted_indices, packed.unsorted_indices]
        return (packed.data, packed.batch_sizes, *indices, padded, out_lengths)

    check_case(program, [arr(shape)], real_torch, names=False)


def test_pack_sequence_and_unpack(real_torch):
    def program(lib, *xs):
        packed = rnn_utils(lib).pack_sequence(list(xs), enforce_sorted=False)
        return packed.data, rnn_utils(lib).unpack_sequence(packed)

    check_case(program, [arr(s, seed=i) for i, s in enumerate(SEQS)], real_torch, names=False)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, x: rnn_utils(lib).pack_padded_sequence(x, LENGTHS),
        lambda lib, x: rnn_utils(lib).pack_padded_sequence(x, [4, 0, 3], enforce_sorted=False),
        lambda lib, x: rnn_utils(lib).pad_sequence([x[0]], padding_side="middle"),
        lambda lib, x: rnn_utils(lib).pad_sequence([]),
        lambda lib, x: rnn_utils(lib).pad_packed_sequence(
            rnn_utils(lib).pack_padded_sequence(x, [4, 3, 2]), total_length=3
        ),
    ],
    ids=["unsorted", "zero_length", "padding_side", "empty", "total_length"],
)
def test_packing_errors(real_torch, call):
    check_error(lambda lib: call(lib, lib.zeros(PADDED)), real_torch)


@pytest.mark.parametrize("mode", ["RNN", "LSTM", "GRU"])
def test_recurrent_layers_take_packed_sequences(mode):
    """Bidirectional, two layers, unsorted lengths and a given initial state: the packed
    output, the final states (each sequence's own last step) and every gradient."""

    def program(lib):
        rnn = deterministic(lib, getattr(lib.nn, mode)(3, 4, num_layers=2, bidirectional=True))
        x = lib.tensor(arr(PADDED), requires_grad=True)
        h0 = lib.tensor(0.3 * arr((4, 3, 4)), requires_grad=True)
        hx = (h0, 2 * h0) if mode == "LSTM" else h0
        packed = rnn_utils(lib).pack_padded_sequence(x, LENGTHS, enforce_sorted=False)
        out, hidden = rnn(packed, hx)
        states = list(hidden) if mode == "LSTM" else [hidden]
        padded, lengths = rnn_utils(lib).pad_packed_sequence(out, batch_first=True)
        loss = (out.data**2).sum() + sum((s * s).sum() for s in states)
        loss.backward()
        grads = {name: p.grad for name, p in rnn.named_parameters()}
        return {
            "out": no_names(out.data),
            "padded": no_names(padded),
            "lengths": lengths,
            "indices": (out.sorted_indices, out.unsorted_indices, out.batch_sizes),
            "states": no_names(states),
            "x": x.grad,
            "h0": h0.grad,
            "params": grads,
        }

    run_parity(program)


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


# ----------------------------------------------------------------------------- parametrizations
def test_weight_norm_parametrization():
    def program(lib):
        P = lib.nn.utils.parametrize
        linear = deterministic(lib, lib.nn.Linear(3, 4))
        linear = lib.nn.utils.parametrizations.weight_norm(linear)
        out = linear(lib.tensor(arr((2, 3))))
        out.sum().backward()
        weights = linear.parametrizations.weight
        grads = (weights.original0.grad, weights.original1.grad)
        whole = lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(3, 4).double(), dim=None)
        with lib.no_grad():
            linear.weight = lib.ones(4, 3, dtype=lib.float64)  # set through right_inverse
        g_after_set = weights.original0.detach().clone()
        P.remove_parametrizations(linear, "weight")
        return {
            "repr": repr(linear),
            "keys": list(whole.state_dict()),
            "g_shape": whole.parametrizations.weight.original0.shape,
            "out": no_names(out),
            "grads": grads,
            "g_after_set": g_after_set,
            "removed": (type(linear).__name__, list(linear.state_dict()), linear.weight),
        }

    run_parity(program)


def test_weight_norm_loads_old_checkpoints():
    def program(lib):
        linear = lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(3, 4).double())
        state = {
            "weight_g": lib.ones(4, 1, dtype=lib.float64),
            "weight_v": lib.tensor(arr((4, 3))),
            "bias": lib.zeros(4, dtype=lib.float64),
        }
        linear.load_state_dict(state)
        return no_names(linear.weight)

    run_parity(program)


def test_spectral_norm():
    """Same power-iteration vectors in (ours copied into PyTorch's), then one training step
    (an update of _u, _v) and an eval forward."""

    def program(lib, state):
        conv = deterministic(lib, lib.nn.Conv1d(2, 3, 2))
        conv = lib.nn.utils.parametrizations.spectral_norm(conv)
        conv.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
        x = lib.tensor(arr((2, 2, 4)))
        out = conv(x)
        (out**2).sum().backward()
        conv.eval()
        spectral = conv.parametrizations.weight[0]
        return {
            "keys": list(conv.state_dict()),
            "out": no_names(out),
            "grad": conv.parametrizations.weight.original.grad,
            "u": spectral._u,
            "eval": no_names(conv(x)),
            "transposed_u": lib.nn.utils.parametrizations.spectral_norm(
                lib.nn.ConvTranspose1d(2, 3, 2)
            )
            .parametrizations.weight[0]
            ._u.shape,
        }

    ours = autograd_compat.nn.utils.parametrizations.spectral_norm(
        deterministic(autograd_compat, autograd_compat.nn.Conv1d(2, 3, 2))
    )
    state = {k: np.array(v) for k, v in ours.state_dict().items()}
    run_parity(lambda lib: program(lib, state))


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, m: lib.nn.utils.parametrizations.spectral_norm(m, name="scale"),
        lambda lib, m: lib.nn.utils.parametrizations.spectral_norm(m, dim=2),
        lambda lib, m: lib.nn.utils.parametrizations.spectral_norm(m, n_power_iterations=0),
        lambda lib, m: lib.nn.utils.parametrize.register_parametrization(
            m, "scale", lib.nn.Identity()
        ),
        lambda lib, m: lib.nn.utils.parametrize.register_parametrization(
            m, "weight", lib.nn.Flatten(0)
        ),
        lambda lib, m: lib.nn.utils.parametrize.remove_parametrizations(m, "weight"),
        lambda lib, m: lib.nn.utils.parametrize.remove_parametrizations(
            lib.nn.utils.parametrizations.weight_norm(m), "weight", leave_parametrized=False
        ),
    ],
    ids=["name", "dim", "iterations", "register", "shape", "remove", "leave"],
)
def test_parametrization_errors(real_torch, call):
    check_error(lambda lib: call(lib, lib.nn.Linear(2, 3)), real_torch)


def test_old_weight_norm_hook():
    def program(lib):
        linear = deterministic(lib, lib.nn.Linear(3, 4))
        linear = lib.nn.utils.weight_norm(linear, dim=None)
        out = linear(lib.tensor(arr((2, 3))))
        out.sum().backward()
        grads = (linear.weight_g.grad, linear.weight_v.grad)
        keys = list(linear.state_dict())
        again = catch_message(lambda: lib.nn.utils.weight_norm(linear))
        lib.nn.utils.remove_weight_norm(linear)
        return keys, no_names(out), grads, again, list(linear.state_dict()), linear.weight

    run_parity(program)


def catch_message(fn) -> str:
    try:
        fn()
    except RuntimeError as exc:
        return str(exc)
    return "no error"
