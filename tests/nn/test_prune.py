"""torch.nn.utils.prune against real PyTorch: the same masks, reparametrization, gradients
and errors for the deterministic methods; as many pruned entries for the random ones."""

from __future__ import annotations

import copy
import importlib

import numpy as np
import pytest

import autograd_compat
from tests._helpers.torch_compare import check_error

# Distinct magnitudes, so the smallest entries and channels are the same in both libraries.
W = np.array(
    [[0.9, -0.1, 0.5, -0.7], [0.2, 0.8, -0.35, 0.05], [-0.6, 0.45, 0.15, -0.25]], np.float32
)
W2 = np.array([[0.3, -0.55, 0.12], [0.65, -0.02, 0.4]], np.float32)


def _prune(lib):
    return importlib.import_module(f"{lib.__name__}.nn.utils.prune")


def _linear(lib, weight):
    layer = lib.nn.Linear(weight.shape[1], weight.shape[0])
    with lib.no_grad():
        layer.weight.copy_(lib.tensor(weight))
        layer.bias.copy_(lib.arange(weight.shape[0], dtype=lib.float32) - 1)
    return layer


def _deterministic(lib) -> dict:
    """L1 then Ln-structured (a container) on the weight, a custom mask on the bias, one
    forward and backward, then `remove`."""
    prune = _prune(lib)
    layer = _linear(lib, W)
    prune.l1_unstructured(layer, "weight", amount=0.3)
    prune.ln_structured(layer, "weight", amount=1, n=2, dim=0)
    prune.custom_from_mask(layer, "bias", mask=lib.tensor([1.0, 0.0, 1.0]))
    hook = next(iter(layer._forward_pre_hooks.values()))
    out = {
        "params": [name for name, _ in layer.named_parameters()],
        "buffers": [name for name, _ in layer.named_buffers()],
        "container": [type(m).__name__ for m in hook] if len(hook) else None,
        "mask": layer.weight_mask.numpy().copy(),
        "pruned": is_pruned(prune, layer),
    }
    with lib.no_grad():
        layer.weight_orig.add_(1.0)  # the hook recomputes the weight from the original
    loss = layer(lib.ones(2, 4)).square().sum()
    loss.backward()
    out["loss"] = loss.item()
    out["weight"] = layer.weight.detach().numpy().copy()
    out["grad"] = layer.weight_orig.grad.numpy().copy()
    out["bias_grad"] = layer.bias_orig.grad.numpy().copy()
    prune.remove(layer, "weight")
    out["after_remove"] = [name for name, _ in layer.named_parameters()]
    out["removed_weight"] = layer.weight.detach().numpy().copy()
    out["is_parameter"] = isinstance(layer.weight, lib.nn.Parameter)
    prune.remove(layer, "bias")
    out["pruned_after"] = is_pruned(prune, layer)
    return out


def is_pruned(prune, layer) -> bool:
    return prune.is_pruned(layer)


def _global(lib) -> dict:
    """global_unstructured across two layers (importance scores for one) on top of an
    existing mask, and a method's own `prune`."""
    prune = _prune(lib)
    first, second = _linear(lib, W), _linear(lib, W2)
    prune.identity(second, "weight")
    prune.custom_from_mask(first, "weight", mask=lib.tensor(W > -0.5).float())
    scores = {(second, "weight"): lib.tensor(W2[::-1].copy())}
    prune.global_unstructured(
        [(first, "weight"), (second, "weight")],
        pruning_method=prune.L1Unstructured,
        importance_scores=scores,
        amount=0.4,
    )
    return {
        "first": first.weight_mask.numpy().copy(),
        "second": second.weight_mask.numpy().copy(),
        "first_weight": first.weight.detach().numpy().copy(),
        "kinds": [type(m).__name__ for m in next(iter(first._forward_pre_hooks.values()))],
        "method_prune": prune.L1Unstructured(amount=5).prune(lib.tensor(W)).numpy().copy(),
        "scored": prune.l1_unstructured(
            _linear(lib, W), "weight", amount=2, importance_scores=lib.tensor(W * W[::-1])
        ).weight_mask.numpy(),
    }


@pytest.mark.parametrize("program", [_deterministic, _global])
def test_deterministic_pruning_matches_pytorch(program, real_torch):
    ours, theirs = program(autograd_compat), program(real_torch)
    assert ours.keys() == theirs.keys()
    for key, value in theirs.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_allclose(ours[key], value, rtol=1e-6, err_msg=key)
        else:
            assert ours[key] == value, key


def _random(lib) -> dict:
    """Random methods: how many entries and channels they prune, alone and combined."""
    prune = _prune(lib)
    conv = lib.nn.Conv2d(3, 4, 2)
    prune.random_unstructured(conv, "weight", amount=0.25)  # 12 of 48 entries
    first = conv.weight_mask.clone()
    prune.random_structured(conv, "weight", amount=2, dim=0)  # 2 of 4 output channels
    mask = conv.weight_mask
    zero_channels = (mask.sum(dim=(1, 2, 3)) == 0).sum().item()
    live = mask.sum(dim=(1, 2, 3)) != 0
    linear = prune.random_unstructured(lib.nn.Linear(6, 5), "bias", amount=3)
    return {
        "first": int((first == 0).sum()),
        "zero_channels": zero_channels,
        "kept_as_before": bool((mask[live] == first[live]).all()),
        "bias_zeros": int((linear.bias_mask == 0).sum()),
        "bias": bool((linear.bias == linear.bias_orig * linear.bias_mask).all()),
        "kinds": [type(m).__name__ for m in next(iter(conv._forward_pre_hooks.values()))],
    }


def test_random_pruning_prunes_as_many_as_pytorch(real_torch):
    ours, theirs = _random(autograd_compat), _random(real_torch)
    assert ours == theirs
    assert ours["first"] == 12 and ours["zero_channels"] == 2 and ours["kept_as_before"]


@pytest.mark.parametrize(
    "call",
    [
        lambda prune, lib: prune.l1_unstructured(lib.nn.Linear(2, 2), "weight", amount=-1),
        lambda prune, lib: prune.l1_unstructured(lib.nn.Linear(2, 2), "weight", amount=1.5),
        lambda prune, lib: prune.l1_unstructured(lib.nn.Linear(2, 2), "weight", amount="a"),
        lambda prune, lib: prune.l1_unstructured(lib.nn.Linear(2, 2), "weight", amount=5),
        lambda prune, lib: prune.ln_structured(lib.nn.Linear(2, 2), "bias", 1, 2, 0),
        lambda prune, lib: prune.random_structured(lib.nn.Linear(2, 2), "weight", 1, dim=2),
        lambda prune, lib: prune.remove(lib.nn.Linear(2, 2), "weight"),
        lambda prune, lib: prune.l1_unstructured(
            lib.nn.Linear(2, 2), "weight", 1, importance_scores=lib.ones(3)
        ),
        lambda prune, lib: copy.deepcopy(prune.identity(lib.nn.Linear(2, 2), "weight")),
    ],
)
def test_errors_match_pytorch(call, real_torch):
    check_error(lambda lib: call(_prune(lib), lib), real_torch)


def test_failed_pruning_leaves_the_parameter(real_torch):
    """A mask that fails (amount larger than the tensor) rolls the reparametrization back."""
    prune = _prune(autograd_compat)
    layer = autograd_compat.nn.Linear(2, 2)
    with pytest.raises(ValueError):
        prune.l1_unstructured(layer, "weight", amount=9)
    assert [name for name, _ in layer.named_parameters()] == ["bias", "weight"]
    assert not prune.is_pruned(layer)
    with pytest.raises(TypeError, match='Only "unstructured" PRUNING_TYPE'):
        prune.global_unstructured([(layer, "weight")], prune.RandomStructured, amount=1)
