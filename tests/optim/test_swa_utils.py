"""torch.optim.swa_utils against real PyTorch: averaged parameters and buffers after a few
training steps for each averaging function, SWALR's learning rates, update_bn's statistics,
and the argument errors."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import autograd_compat
from tests._helpers.torch_compare import check_error

RNG = np.random.default_rng(0)
W1 = RNG.standard_normal((4, 3)).astype(np.float32)
W2 = RNG.standard_normal((2, 4)).astype(np.float32)
X = RNG.standard_normal((6, 3)).astype(np.float32)


def _swa(lib):
    return importlib.import_module(f"{lib.__name__}.optim.swa_utils")


def _model(lib):
    model = lib.nn.Sequential(
        lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(), lib.nn.Linear(4, 2)
    )
    with lib.no_grad():
        model[0].weight.copy_(lib.tensor(W1))
        model[0].bias.fill_(0.1)
        model[3].weight.copy_(lib.tensor(W2))
        model[3].bias.fill_(-0.2)
    return model


def _averages(lib, kind: str) -> dict:
    """Train four SGD steps, averaging after each, and return the averaged state."""
    swa = _swa(lib)
    model = _model(lib)
    options = {
        "swa": {},
        "ema_multi": {"multi_avg_fn": swa.get_ema_multi_avg_fn(0.9)},
        "swa_multi": {"multi_avg_fn": swa.get_swa_multi_avg_fn()},
        "ema_fn": {"avg_fn": swa.get_ema_avg_fn(0.8)},
        "swa_fn_buffers": {"avg_fn": swa.get_swa_avg_fn(), "use_buffers": True},
        "ema_multi_buffers": {"multi_avg_fn": swa.get_ema_multi_avg_fn(), "use_buffers": True},
    }[kind]
    averaged = swa.AveragedModel(model, **options)
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = lib.tensor(X)
    for _ in range(4):
        optimizer.zero_grad()
        model(x).square().mean().backward()
        optimizer.step()
        averaged.update_parameters(model)
    state = {key: value.numpy().copy() for key, value in averaged.state_dict().items()}
    averaged.eval()
    state["output"] = averaged(x).detach().numpy()
    return state


@pytest.mark.parametrize(
    "kind", ["swa", "ema_multi", "swa_multi", "ema_fn", "swa_fn_buffers", "ema_multi_buffers"]
)
def test_averaged_model_matches_pytorch(kind, real_torch):
    ours, theirs = _averages(autograd_compat, kind), _averages(real_torch, kind)
    assert ours.keys() == theirs.keys()
    assert int(ours["n_averaged"]) == 4
    for key, value in theirs.items():
        np.testing.assert_allclose(ours[key], value, rtol=2e-5, atol=1e-6, err_msg=key)


def _lrs(lib, anneal_epochs: int, strategy: str) -> list:
    """SWALR's learning rates over seven steps, two groups, and after a state-dict round trip."""
    swa = _swa(lib)
    a, b = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(2))
    optimizer = lib.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.4}], lr=1.0)
    scheduler = swa.SWALR(
        optimizer, swa_lr=[0.05, 0.1], anneal_epochs=anneal_epochs, anneal_strategy=strategy
    )
    seen = [scheduler.get_last_lr()]
    for _ in range(7):
        optimizer.step()
        scheduler.step()
        seen.append(scheduler.get_last_lr())
    state = scheduler.state_dict()
    again = swa.SWALR(optimizer, swa_lr=0.5)
    again.load_state_dict(state)
    seen.append([again.anneal_epochs, again._anneal_strategy, again.anneal_func(0.5)])
    return seen


@pytest.mark.parametrize("anneal_epochs, strategy", [(3, "cos"), (4, "linear"), (0, "cos")])
def test_swalr_matches_pytorch(anneal_epochs, strategy, real_torch):
    ours = _lrs(autograd_compat, anneal_epochs, strategy)
    theirs = _lrs(real_torch, anneal_epochs, strategy)
    assert ours[-1] == theirs[-1]
    np.testing.assert_allclose(np.array(ours[:-1]), np.array(theirs[:-1]), rtol=1e-12)
    assert ours[-2] == pytest.approx([0.05, 0.1])  # annealed to swa_lr


def _bn_stats(lib) -> dict:
    swa = _swa(lib)
    model = _model(lib)
    model[1].momentum = 0.3
    averaged = swa.AveragedModel(model)
    loader = [(lib.tensor(X[i : i + 2]), i) for i in range(0, 6, 2)]
    averaged.eval()
    swa.update_bn(loader, averaged)
    bn = averaged.module[1]
    return {
        "mean": bn.running_mean.numpy().copy(),
        "var": bn.running_var.numpy().copy(),
        "tracked": int(bn.num_batches_tracked),
        "momentum": bn.momentum,
        "training": averaged.training,
    }


def test_update_bn_matches_pytorch(real_torch):
    ours, theirs = _bn_stats(autograd_compat), _bn_stats(real_torch)
    np.testing.assert_allclose(ours.pop("mean"), theirs.pop("mean"), rtol=1e-5)
    np.testing.assert_allclose(ours.pop("var"), theirs.pop("var"), rtol=1e-5)
    assert ours == theirs == {"tracked": 3, "momentum": 0.3, "training": False}


@pytest.mark.parametrize(
    "call",
    [
        lambda swa, lib: swa.get_ema_multi_avg_fn(1.5),
        lambda swa, lib: swa.get_ema_avg_fn(-0.1),
        lambda swa, lib: swa.AveragedModel(
            lib.nn.Linear(1, 1), avg_fn=swa.get_swa_avg_fn(), multi_avg_fn=swa.get_swa_avg_fn()
        ),
        lambda swa, lib: swa.SWALR(_optimizer(lib), 0.1, anneal_strategy="exp"),
        lambda swa, lib: swa.SWALR(_optimizer(lib), 0.1, anneal_epochs=-1),
        lambda swa, lib: swa.SWALR(_optimizer(lib), [0.1, 0.2]),
    ],
)
def test_errors_match_pytorch(call, real_torch):
    check_error(lambda lib: call(_swa(lib), lib), real_torch)


def _optimizer(lib):
    return lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=1.0)


def test_swa_utils_is_an_attribute_of_optim():
    assert autograd_compat.optim.swa_utils.SWALR.__name__ == "SWALR"


def test_default_average_on_a_multi_tensor_device_is_pytorchs_lerp(monkeypatch, real_torch):
    """Where PyTorch has multi-tensor kernels (CUDA) its default average is the lerp of
    get_swa_multi_avg_fn: here CPU plays that device."""
    monkeypatch.setattr(_swa(autograd_compat), "_FOREACH_DEVICES", ("cpu",))
    ours, theirs = _averages(autograd_compat, "swa"), _averages(real_torch, "swa_multi")
    for key, value in theirs.items():
        np.testing.assert_allclose(ours[key], value, rtol=2e-5, atol=1e-6, err_msg=key)
