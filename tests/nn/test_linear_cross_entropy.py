"""linear_cross_entropy and LinearCrossEntropyLoss against PyTorch: K-dimensional losses,
probability targets, the options (checked, and the warning where PyTorch's chunked path
refuses them) and the errors."""

from __future__ import annotations

import numpy as np
import pytest

from tests._helpers.torch_compare import check_error, no_names, run_parity

_RNG = np.random.default_rng(0)
_X, _W = _RNG.standard_normal((4, 3)), _RNG.standard_normal((5, 2, 3))
_LOGITS = _RNG.standard_normal((4, 5))


def _k_dimensional(torch):
    F = torch.nn.functional
    x = torch.tensor(_X, requires_grad=True)
    w = torch.tensor(_W, requires_grad=True)
    target = torch.tensor([[0, 4], [1, 1], [3, -100], [2, 0]])
    loss = F.linear_cross_entropy(x, w, target, linear_bias=torch.ones(5, 2), reduction="sum")
    loss.backward()
    return loss, x.grad, w.grad


def _options_and_probabilities(torch):
    F = torch.nn.functional
    x = torch.tensor(_X)
    w = torch.tensor(_W[:, 0])
    options = torch.nn.LinearCrossEntropyOptions(batch_chunk_size=2)
    chunked = F.linear_cross_entropy(x, w, torch.tensor([0, 1, 2, 3]), options=options)
    probabilities = torch.softmax(torch.tensor(_LOGITS), 1)
    warned = F.linear_cross_entropy(x, w, probabilities, label_smoothing=0.1, options=options)
    return chunked, warned, repr(options)


def _module(torch):
    torch.manual_seed(0)
    module = torch.nn.LinearCrossEntropyLoss(3, 5, out_features=(2,), bias=True).double()
    with torch.no_grad():
        module.linear.weight.copy_(torch.tensor(_W.reshape(10, 3)))
        module.linear.bias.fill_(0.5)
    loss = module(torch.tensor(_X), torch.tensor([[0, 4], [1, 1], [3, 2], [2, 0]]))
    loss.backward()
    # cross_entropy's node of 3-d logits is NllLossBackward0 here (NllLoss2DBackward0 there)
    return repr(module), no_names(loss), module.linear.weight.grad


@pytest.mark.parametrize("prog", [_k_dimensional, _options_and_probabilities, _module])
def test_matches_pytorch(prog):
    run_parity(prog)


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.nn.functional.linear_cross_entropy(t.ones(1, 2, 3), t.ones(4, 3), t.zeros(1)),
        lambda t: t.nn.functional.linear_cross_entropy(t.ones(2, 3), t.ones(3), t.zeros(2)),
        lambda t: t.nn.functional.linear_cross_entropy(t.ones(2, 3), t.ones(4, 2), t.zeros(2)),
        lambda t: t.nn.functional.linear_cross_entropy(
            t.ones(2, 3), t.ones(4, 3), t.zeros(2).long(), linear_bias=t.ones(3)
        ),
        lambda t: t.nn.functional.linear_cross_entropy(t.ones(3), t.ones(4, 2, 3), t.zeros(2)),
        lambda t: t.nn.functional.linear_cross_entropy(
            t.ones(2, 3), t.ones(4, 3), t.ones(2, 4) / 4, ignore_index=1
        ),
        lambda t: t.nn.LinearCrossEntropyOptions(chunking_method="aspect"),
        lambda t: t.nn.LinearCrossEntropyOptions(acc_dtype=t.int64),
        lambda t: t.nn.LinearCrossEntropyLoss(3, 4, label_smoothing=2.0),
        lambda t: t.nn.LinearCrossEntropyLoss(3, 4, weight=t.ones(3)),
    ],
)
def test_errors(call, real_torch):
    check_error(call, real_torch)
