"""nn.utils against PyTorch: sequence packing (pad/pack/unpack, and the recurrent layers on
packed sequences), the parametrizations (weight and spectral norm, `parametrize`) and the
weight_norm hook: values, gradients, state_dict keys and errors.

Shapes are small and shared between cases, so each (op, shape) compiles once.
"""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat
from tests._helpers.torch_compare import (
    arr,
    check_case,
    check_error,
    deterministic,
    no_names,
    run_parity,
)

pytestmark = pytest.mark.torch

SEQS = [(4, 3), (2, 3), (3, 3)]  # three sequences of 3 features, lengths 4, 2, 3
LENGTHS = [4, 2, 3]
PADDED = (4, 3, 3)  # (T, B, H) of those


def rnn_utils(lib):
    return lib.nn.utils.rnn


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
