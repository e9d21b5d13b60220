"""Lazy modules against real PyTorch: reprs before and after the first forward, the class
each becomes, parameter and buffer shapes, state dicts of uninitialized modules, loading a
checkpoint into a lazy module (then the same outputs as PyTorch's), and errors."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat
from autograd_compat.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from tests._helpers.torch_compare import arr, check_error

CASES = {
    "LazyLinear": (lambda nn: nn.LazyLinear(3), (2, 5)),
    "LazyLinear_no_bias": (lambda nn: nn.LazyLinear(3, bias=False), (4, 2, 5)),
    "LazyConv1d": (lambda nn: nn.LazyConv1d(4, 3, padding=1), (2, 3, 6)),
    "LazyConv2d_groups": (lambda nn: nn.LazyConv2d(4, 3, groups=2), (2, 6, 5, 5)),
    "LazyConv2d_unbatched": (lambda nn: nn.LazyConv2d(2, 2, stride=2), (3, 4, 4)),
    "LazyConv3d": (lambda nn: nn.LazyConv3d(2, 2), (1, 3, 3, 3, 3)),
    "LazyConvTranspose1d": (lambda nn: nn.LazyConvTranspose1d(4, 3, stride=2), (2, 3, 5)),
    "LazyConvTranspose2d": (lambda nn: nn.LazyConvTranspose2d(2, 3, groups=1), (1, 3, 4, 4)),
    "LazyConvTranspose3d": (lambda nn: nn.LazyConvTranspose3d(2, 2), (1, 2, 2, 2, 2)),
    "LazyBatchNorm1d": (lambda nn: nn.LazyBatchNorm1d(), (4, 3)),
    "LazyBatchNorm2d": (lambda nn: nn.LazyBatchNorm2d(affine=False), (2, 3, 4, 4)),
    "LazyBatchNorm3d": (lambda nn: nn.LazyBatchNorm3d(momentum=None), (2, 3, 2, 2, 2)),
    "LazyInstanceNorm1d": (lambda nn: nn.LazyInstanceNorm1d(), (2, 3, 4)),
    "LazyInstanceNorm2d": (
        lambda nn: nn.LazyInstanceNorm2d(track_running_stats=False),
        (2, 3, 4, 4),
    ),
    "LazyInstanceNorm3d": (lambda nn: nn.LazyInstanceNorm3d(affine=False), (1, 2, 2, 2, 3)),
}


def _shapes(module) -> dict:
    tensors = dict(module.named_parameters()) | dict(module.named_buffers())
    return {name: tuple(t.shape) for name, t in tensors.items()}


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_forward_matches_torch(name, real_torch):
    make, shape = CASES[name]
    x = arr(shape, dtype=np.float32)
    ours, theirs = make(autograd_compat.nn), make(real_torch.nn)
    assert repr(ours) == repr(theirs)
    assert ours.has_uninitialized_params() and theirs.has_uninitialized_params()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for lazy in ours.state_dict().values():
        assert is_lazy(lazy) or lazy.dtype == autograd_compat.long
    expected = theirs(real_torch.tensor(x))
    ours(autograd_compat.tensor(x))
    assert type(ours).__name__ == type(theirs).__name__
    assert repr(ours) == repr(theirs)
    assert _shapes(ours) == _shapes(theirs)
    assert not ours._forward_pre_hooks and not ours._load_state_dict_pre_hooks
    if "InstanceNorm" in name:  # loaded, it keeps num_features 0: see ERRORS
        return
    loaded = make(autograd_compat.nn)  # a checkpoint materializes the lazy parameters
    loaded.load_state_dict(
        {k: autograd_compat.tensor(v.numpy()) for k, v in theirs.state_dict().items()}
    )
    assert not loaded.has_uninitialized_params() and type(loaded).__name__ == name.split("_")[0]
    out = loaded.eval()(autograd_compat.tensor(x))
    np.testing.assert_allclose(
        out.detach().numpy(), theirs.eval()(real_torch.tensor(x)).detach().numpy(), 1e-5, 1e-5
    )
    assert expected.shape == out.shape


def test_initialized_values_follow_the_plain_layer():
    autograd_compat.manual_seed(0)
    lazy = autograd_compat.nn.LazyLinear(4)
    lazy(autograd_compat.zeros(1, 8))
    bound = 1 / np.sqrt(8)
    assert np.abs(lazy.weight.detach().numpy()).max() <= bound
    assert lazy.weight.requires_grad and lazy.weight.grad is None
    optimizer = autograd_compat.optim.SGD(lazy.parameters(), lr=0.1)
    lazy(autograd_compat.ones(1, 8)).sum().backward()
    before = lazy.bias.detach().numpy().copy()
    optimizer.step()
    np.testing.assert_allclose(lazy.bias.detach().numpy(), before - 0.1, rtol=1e-6)


def test_uninitialized_tensors(real_torch):
    p, b = UninitializedParameter(), UninitializedBuffer()
    assert repr(p) == "<UninitializedParameter>" and repr(b) == "<UninitializedBuffer>"
    assert p.requires_grad and not b.requires_grad and is_lazy(p) and is_lazy(b)
    assert isinstance(p, autograd_compat.nn.Parameter)
    p.materialize((2, 3), dtype=autograd_compat.float64)
    assert type(p) is autograd_compat.nn.Parameter and p.shape == (2, 3) and not is_lazy(p)
    assert p.dtype == autograd_compat.float64


ERRORS = [
    lambda t: t.nn.LazyConv2d(4, 3)(t.zeros(2, 3)),
    lambda t: t.nn.LazyConv2d(4, 3, groups=2)(t.zeros(1, 3, 5, 5)),
    lambda t: t.nn.parameter.UninitializedParameter().shape,
    lambda t: _loaded_instance_norm(t)(t.zeros(2, 3, 4)),
]


def _loaded_instance_norm(t):
    """A LazyInstanceNorm1d given a checkpoint: as in PyTorch, num_features stays 0."""
    trained = t.nn.LazyInstanceNorm1d()
    trained(t.ones(2, 3, 4))
    loaded = t.nn.LazyInstanceNorm1d()
    loaded.load_state_dict(trained.state_dict())
    return loaded


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, real_torch):
    check_error(ERRORS[index], real_torch)
