"""nn.utils.spectral_norm (the hook form) and remove_spectral_norm against real PyTorch:
the state dict layout, then, from PyTorch's own u and v, the same power iterations, weights,
outputs and float64 gradients in training and evaluation, and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat
from tests._helpers.torch_compare import arr, check_error

MODULES = {
    "linear": (lambda nn, t: nn.Linear(5, 4, dtype=t.float64), (3, 5), {}),
    "conv_dim": (lambda nn, t: nn.Conv2d(2, 3, 2, dtype=t.float64), (1, 2, 4, 4), {"n": 3}),
    "conv_transpose": (lambda nn, t: nn.ConvTranspose1d(3, 2, 2, dtype=t.float64), (1, 3, 4), {}),
}


def _apply(lib, name):
    make, _, options = MODULES[name]
    module = make(lib.nn, lib)
    return lib.nn.utils.spectral_norm(module, n_power_iterations=options.get("n", 1))


@pytest.mark.parametrize("name", sorted(MODULES))
def test_spectral_norm_matches_torch(name, real_torch):
    ours, theirs = _apply(autograd_compat, name), _apply(real_torch, name)
    state = theirs.state_dict()
    assert list(ours.state_dict()) == list(state)
    ours.load_state_dict({k: autograd_compat.tensor(v.numpy()) for k, v in state.items()})
    x = arr(MODULES[name][1])
    for training in (True, True, False):
        ours.train(training)
        theirs.train(training)
        out_o = ours(autograd_compat.tensor(x))
        out_t = theirs(real_torch.tensor(x))
        np.testing.assert_allclose(out_o.detach().numpy(), out_t.detach().numpy(), rtol=1e-10)
        out_o.sum().backward()
        out_t.sum().backward()
        np.testing.assert_allclose(
            ours.weight_orig.grad.numpy(), theirs.weight_orig.grad.numpy(), rtol=1e-9
        )
        np.testing.assert_allclose(ours.weight_u.numpy(), theirs.weight_u.numpy(), rtol=1e-10)
    autograd_compat.nn.utils.remove_spectral_norm(ours)
    real_torch.nn.utils.remove_spectral_norm(theirs)
    assert sorted(ours.state_dict()) == sorted(theirs.state_dict())
    np.testing.assert_allclose(ours.weight.detach().numpy(), theirs.weight.detach().numpy())


ERRORS = [
    lambda t: t.nn.utils.spectral_norm(t.nn.utils.spectral_norm(t.nn.Linear(2, 2))),
    lambda t: t.nn.utils.spectral_norm(t.nn.Linear(2, 2), n_power_iterations=0),
    lambda t: t.nn.utils.remove_spectral_norm(t.nn.Linear(2, 2)),
    lambda t: t.nn.utils.spectral_norm(t.nn.LazyLinear(2)),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, real_torch):
    check_error(ERRORS[index], real_torch)
