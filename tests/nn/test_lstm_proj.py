"""nn.LSTM(proj_size=...) against real PyTorch: parameter names and shapes, outputs, final
states and float64 gradients (every parameter's too) with the same weights, for layers,
directions, batch_first, unbatched and packed input, and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat
from tests._helpers.torch_compare import arr, check_error

CONFIGS = {
    "one_layer": dict(num_layers=1),
    "two_layers_bidirectional": dict(num_layers=2, bidirectional=True),
    "batch_first_no_bias": dict(batch_first=True, bias=False),
}


def _pair(real_torch, **kwargs):
    theirs = real_torch.nn.LSTM(4, 6, proj_size=3, dtype=real_torch.float64, **kwargs)
    ours = autograd_compat.nn.LSTM(4, 6, proj_size=3, dtype=autograd_compat.float64, **kwargs)
    ours.load_state_dict(
        {k: autograd_compat.tensor(v.numpy()) for k, v in theirs.state_dict().items()}
    )
    assert repr(ours) == repr(theirs)
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in theirs.named_parameters()
    ]
    return ours, theirs


def _run(lib, module, x, hx):
    inp = lib.tensor(x, requires_grad=True)
    state = None if hx is None else tuple(lib.tensor(h) for h in hx)
    out, (h, c) = module(inp, state)
    (out.sum() + (h * h).sum() + c.sum()).backward()
    grads = [inp.grad] + [p.grad for p in module.parameters()]
    return [out, h, c], grads


def _close(ours, theirs):
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize(
    ("name", "with_state"),
    [("one_layer", False), ("two_layers_bidirectional", True), ("batch_first_no_bias", True)],
)
def test_lstm_proj_matches_torch(name, with_state, real_torch):
    kwargs = CONFIGS[name]
    ours, theirs = _pair(real_torch, **kwargs)
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    hx = (arr((layers, 2, 3), seed=3), arr((layers, 2, 6), seed=4)) if with_state else None
    x = arr((2, 5, 4) if kwargs.get("batch_first") else (5, 2, 4))
    out_o, grads_o = _run(autograd_compat, ours, x, hx)
    out_t, grads_t = _run(real_torch, theirs, x, hx)
    _close(out_o, out_t)
    _close(grads_o, grads_t)


def test_unbatched_and_packed(real_torch):
    ours, theirs = _pair(real_torch)
    x = arr((5, 4))
    _close(ours(autograd_compat.tensor(x))[1], theirs(real_torch.tensor(x))[1])
    padded = arr((5, 2, 4))

    def packed(lib, module):
        seq = lib.nn.utils.rnn.pack_padded_sequence(lib.tensor(padded), [5, 3])
        out, (h, c) = module(seq)
        return [lib.nn.utils.rnn.pad_packed_sequence(out)[0], h, c]

    _close(packed(autograd_compat, ours), packed(real_torch, theirs))


ERRORS = [
    lambda t: t.nn.LSTM(4, 6, proj_size=-1),
    lambda t: t.nn.LSTM(4, 6, proj_size=6),
    lambda t: t.nn.GRU(4, 6, proj_size=2),
    lambda t: t.nn.LSTM(4, 6, proj_size=3)(t.zeros(5, 2, 4), (t.zeros(1, 2, 6), t.zeros(1, 2, 6))),
    lambda t: t.nn.LSTM(4, 6, proj_size=3)(t.zeros(5, 2, 4), (t.zeros(1, 2, 3), t.zeros(1, 2, 3))),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, real_torch):
    check_error(ERRORS[index], real_torch)
