"""Optimizers and lr schedulers against PyTorch: same start, same gradients, same trajectory."""

from __future__ import annotations

import math

import numpy as np
import pytest

import autograd_compat as torch
import autograd_compat.nn as nn

pytestmark = pytest.mark.torch

rng = np.random.default_rng(0)
W = rng.normal(size=(3, 4)).astype(np.float32)
B = rng.normal(size=3).astype(np.float32)
X = rng.normal(size=(5, 4)).astype(np.float32)
Y = rng.normal(size=(5, 3)).astype(np.float32)


def _pair(real_torch):
    ours, theirs = nn.Linear(4, 3), real_torch.nn.Linear(4, 3)
    with torch.no_grad():
        ours.weight.copy_(torch.tensor(W))
        ours.bias.copy_(torch.tensor(B))
    with real_torch.no_grad():
        theirs.weight.copy_(real_torch.tensor(W))
        theirs.bias.copy_(real_torch.tensor(B))
    return ours, theirs


def _loss(lib, model):
    return ((model(lib.tensor(X)) - lib.tensor(Y)) ** 2).mean()


def _assert_close(ours, theirs, atol=2e-6):
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
        np.testing.assert_allclose(
            np.asarray(p.detach()), q.detach().numpy(), atol=atol, err_msg=name
        )


CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1, amsgrad=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.5, amsgrad=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.1)),
]


def compare_state(state_o, state_t, atol=2e-6):
    """Two optimizer state dicts: the same param_groups, keys and order, and values (tensors
    of the same dtype within `atol`, numbers within rel 1e-5, lists element by element)."""
    assert state_o["param_groups"] == state_t["param_groups"]
    assert list(state_o["state"]) == list(state_t["state"])
    for index, entries in state_t["state"].items():
        assert list(state_o["state"][index]) == list(entries)
        for key, value in entries.items():
            mine = state_o["state"][index][key]
            if isinstance(value, list):
                assert len(mine) == len(value), key
                pairs = [(a, b) for a, b in zip(mine, value) if b is not None]
            else:
                pairs = [(mine, value)]
            for a, b in pairs:
                if isinstance(b, (int, float)):
                    assert a == pytest.approx(b, rel=1e-5), key
                    continue
                assert a.dtype.name == str(b.dtype).removeprefix("torch."), key
                np.testing.assert_allclose(np.asarray(a), b.numpy(), atol=atol, err_msg=key)


def check_trajectory(name, kwargs, real_torch, steps: int, atol: float) -> None:
    """`steps` steps of optimizer `name` on the same model in both libraries: parameters after
    each step, the final state dict and the repr agree within `atol`."""
    ours, theirs = _pair(real_torch)
    opt_o = getattr(torch.optim, name)(ours.parameters(), **kwargs)
    opt_t = getattr(real_torch.optim, name)(theirs.parameters(), **kwargs)
    for _ in range(steps):
        for lib, model, opt in ((torch, ours, opt_o), (real_torch, theirs, opt_t)):
            opt.zero_grad()
            _loss(lib, model).backward()
            opt.step()
        _assert_close(ours, theirs, atol=atol)
    compare_state(opt_o.state_dict(), opt_t.state_dict(), atol=atol)
    assert repr(opt_o) == repr(opt_t)


@pytest.mark.parametrize(
    "name,kwargs", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)]
)
def test_trajectory_matches_pytorch(name, kwargs, real_torch):
    check_trajectory(name, kwargs, real_torch, steps=5, atol=2e-6)


def test_state_dict_round_trip_continues_identically(real_torch):
    ours, theirs = _pair(real_torch)
    opt_o = torch.optim.Adam(ours.parameters(), lr=0.01)
    opt_t = real_torch.optim.Adam(theirs.parameters(), lr=0.01)
    for lib, model, opt in ((torch, ours, opt_o), (real_torch, theirs, opt_t)):
        for _ in range(2):
            opt.zero_grad()
            _loss(lib, model).backward()
            opt.step()
    saved = opt_o.state_dict()
    fresh = torch.optim.Adam(ours.parameters(), lr=0.5)
    fresh.load_state_dict(saved)
    assert fresh.param_groups[0]["lr"] == 0.01
    for lib, model, opt in ((torch, ours, fresh), (real_torch, theirs, opt_t)):
        opt.zero_grad()
        _loss(lib, model).backward()
        opt.step()
    _assert_close(ours, theirs)
    other = torch.optim.Adam([nn.Parameter(torch.zeros(1))])
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        other.load_state_dict(saved)
    two_groups = torch.optim.Adam([{"params": [ours.weight]}, {"params": [ours.bias]}])
    with pytest.raises(ValueError, match="different number of parameter groups"):
        two_groups.load_state_dict(saved)


def test_param_groups_zero_grad_and_closure(real_torch):
    ours, theirs = _pair(real_torch)
    groups_o = [{"params": [ours.weight]}, {"params": [ours.bias], "lr": 0.5, "momentum": 0.5}]
    groups_t = [{"params": [theirs.weight]}, {"params": [theirs.bias], "lr": 0.5, "momentum": 0.5}]
    opt_o = torch.optim.SGD(groups_o, lr=0.1, momentum=0.9)
    opt_t = real_torch.optim.SGD(groups_t, lr=0.1, momentum=0.9)
    for lib, model, opt in ((torch, ours, opt_o), (real_torch, theirs, opt_t)):
        for _ in range(3):

            def closure(lib=lib, model=model, opt=opt):
                opt.zero_grad()
                loss = _loss(lib, model)
                loss.backward()
                return loss

            loss = opt.step(closure)
        assert loss.item() > 0
    _assert_close(ours, theirs)
    opt_o.zero_grad(set_to_none=False)
    assert ours.weight.grad is not None and not ours.weight.grad.any()
    opt_o.zero_grad()
    assert ours.weight.grad is None
    _loss(torch, ours).backward()  # a step at the old rate: its program is kept now (the
    opt_o.step()  # bound on programs, `_pure/executables`, may have emptied the cache since)
    opt_o.zero_grad()
    update = type(opt_o)._update  # its programs: donating the parameters or not
    compiled = update.plain._cache_size() + update.donating._cache_size()
    assert compiled > 0
    opt_o.param_groups[0]["lr"] = 0.0  # a new learning rate is an input, not a recompile
    before = np.asarray(ours.weight.detach()).copy()
    _loss(torch, ours).backward()
    opt_o.step()
    np.testing.assert_array_equal(np.asarray(ours.weight.detach()), before)
    assert update.plain._cache_size() + update.donating._cache_size() == compiled
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter"):
        opt_o.add_param_group({"params": [ours.weight]})
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        torch.optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        torch.optim.Adam(ours.parameters(), lr=-1)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        torch.optim.SGD([ours.weight * 2], lr=0.1)


def _scheduler_lrs(lib, make, steps=12, metrics=None):
    param = lib.nn.Parameter(lib.zeros(1))
    opt = lib.optim.SGD([param], lr=0.1, momentum=0.9)
    scheduler = make(lib, opt)
    lrs, momenta = [], []
    for i in range(steps):
        opt.step()  # no gradient: nothing to update, but the scheduler sees the step
        if metrics is None:
            scheduler.step()
        else:
            scheduler.step(metrics[i])
        lrs.append(opt.param_groups[0]["lr"])
        momenta.append(opt.param_groups[0]["momentum"])
    return lrs, momenta, scheduler


SCHEDULERS = {
    "StepLR": lambda lib, o: lib.optim.lr_scheduler.StepLR(o, step_size=3, gamma=0.5),
    "MultiStepLR": lambda lib, o: lib.optim.lr_scheduler.MultiStepLR(o, [2, 5, 5], gamma=0.3),
    "ExponentialLR": lambda lib, o: lib.optim.lr_scheduler.ExponentialLR(o, gamma=0.9),
    "CosineAnnealingLR": lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingLR(o, 5, 0.01),
    "LambdaLR": lambda lib, o: lib.optim.lr_scheduler.LambdaLR(o, lambda e: 1 / (1 + e)),
    "LinearLR": lambda lib, o: lib.optim.lr_scheduler.LinearLR(o, 0.2, 1.0, 4),
    "MultiplicativeLR": lambda lib, o: lib.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.95),
    "OneCycleLR": lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, 1.0, total_steps=12),
    "OneCycleLR3": lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(
        o, 1.0, epochs=3, steps_per_epoch=4, three_phase=True, anneal_strategy="linear"
    ),
}


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_schedulers_match_pytorch(name, real_torch):
    lrs_o, mom_o, sched_o = _scheduler_lrs(torch, SCHEDULERS[name])
    lrs_t, mom_t, sched_t = _scheduler_lrs(real_torch, SCHEDULERS[name])
    assert lrs_o == lrs_t  # the same recursive formulas: equal to the last bit
    assert mom_o == mom_t
    assert sched_o.get_last_lr() == sched_t.get_last_lr()
    assert sched_o.last_epoch == sched_t.last_epoch


def test_reduce_lr_on_plateau_matches_pytorch(real_torch):
    metrics = [1.0, 0.9, 0.9, 0.9, 0.95, 0.91, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8]

    def make(lib, o):
        return lib.optim.lr_scheduler.ReduceLROnPlateau(o, patience=1, factor=0.5, cooldown=1)

    lrs_o, _, sched = _scheduler_lrs(torch, make, metrics=metrics)
    lrs_t, _, _ = _scheduler_lrs(real_torch, make, metrics=metrics)
    assert lrs_o == lrs_t
    state = sched.state_dict()
    assert state["best"] == 0.8 and "optimizer" not in state


def test_scheduler_warns_when_stepped_before_optimizer():
    param = nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([param], lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(opt, 2)
    with pytest.warns(UserWarning, match="Detected call of `lr_scheduler.step\\(\\)` before"):
        scheduler.step()
    assert math.isclose(scheduler.get_last_lr()[0], 0.1)
    state = scheduler.state_dict()
    again = torch.optim.lr_scheduler.StepLR(opt, 5)
    again.load_state_dict(state)
    assert again.step_size == 2


def test_optim_docstring_states_policy():
    doc = torch.optim.__doc__
    assert "optax is not used" in doc and "weight_decay" in doc
