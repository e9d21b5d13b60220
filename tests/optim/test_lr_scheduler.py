"""The lr schedulers against PyTorch: the lr (and momentum) lists step by step, the state_dict
round trip, ReduceLROnPlateau on a metric, warnings and errors."""

from __future__ import annotations

import math

import pytest

import autograd_compat as torch
import autograd_compat.nn as nn
from tests._helpers.torch_compare import check_error

pytestmark = pytest.mark.torch


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


# Warm restarts, cyclic, polynomial and composed schedulers: each also resumes from its state.
def _sequential(lib, o):
    s = lib.optim.lr_scheduler
    warmup = s.LinearLR(o, start_factor=0.1, total_iters=3)
    return s.SequentialLR(o, [warmup, s.ExponentialLR(o, gamma=0.9)], milestones=[3])


def _chained(lib, o):
    s = lib.optim.lr_scheduler
    return s.ChainedScheduler([s.ConstantLR(o, factor=0.5, total_iters=2), s.ExponentialLR(o, 0.9)])


RESUMED = {
    "WarmRestarts": lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, 3),
    "WarmRestartsMult": lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        o, T_0=2, T_mult=2, eta_min=0.01
    ),
    "Cyclic": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=3),
    "Cyclic2": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        o, [0.01], 0.1, step_size_up=2, step_size_down=3, mode="triangular2"
    ),
    "CyclicExp": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        o, 0.01, 0.1, step_size_up=2, mode="exp_range", gamma=0.9, base_momentum=0.7
    ),
    "CyclicNoMomentum": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        o, 0.01, 0.1, step_size_up=2, cycle_momentum=False
    ),
    "Polynomial": lambda lib, o: lib.optim.lr_scheduler.PolynomialLR(o, total_iters=6, power=2.0),
    "Sequential": _sequential,
    "Chained": _chained,
}


@pytest.mark.parametrize("name", sorted(RESUMED))
def test_schedulers_match_pytorch_and_resume_from_their_state(name, real_torch):
    lrs_o, mom_o, sched_o = _scheduler_lrs(torch, RESUMED[name])
    lrs_t, mom_t, sched_t = _scheduler_lrs(real_torch, RESUMED[name])
    assert lrs_o == lrs_t
    assert mom_o == mom_t
    assert sched_o.get_last_lr() == sched_t.get_last_lr()
    # the state dict round trip (with the optimizer's, which holds the current lr, as in
    # PyTorch): a fresh optimizer and scheduler loading them continue identically
    state = sched_o.state_dict()
    assert sorted(state) == sorted(sched_t.state_dict())
    _, _, fresh = _scheduler_lrs(torch, RESUMED[name], steps=0)
    fresh.optimizer.load_state_dict(sched_o.optimizer.state_dict())
    fresh.load_state_dict(state)
    for _ in range(3):
        for s in (sched_o, fresh):
            s.optimizer.step()
            s.step()
        assert fresh.get_last_lr() == sched_o.get_last_lr()


def test_cyclic_lr_cycles_adam_beta1(real_torch):
    def run(lib):
        opt = lib.optim.Adam([lib.nn.Parameter(lib.zeros(1))], lr=0.1)
        sched = lib.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, step_size_up=2)
        betas = []
        for _ in range(5):
            opt.step()
            sched.step()
            betas.append(opt.param_groups[0]["betas"])
        return betas

    assert run(torch) == run(real_torch)


def test_warm_restarts_fractional_epochs(real_torch):
    def run(lib):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], lr=0.1)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)
        out = []
        for epoch in (0.5, 1.0, 2.5, 7.0):
            opt.step()
            sched.step(epoch)
            out.append(sched.get_last_lr())
        return out

    assert run(torch) == run(real_torch)  # its own step(epoch): no deprecation warning


ERRORS = [
    lambda t, o: t.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, 0),
    lambda t, o: t.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, 2, T_mult=0),
    lambda t, o: t.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, mode="bad"),
    lambda t, o: t.optim.lr_scheduler.CyclicLR(
        t.optim.Adagrad([t.nn.Parameter(t.zeros(1))]), 0.01, 0.1
    ),
    lambda t, o: t.optim.lr_scheduler.SequentialLR(o, [], milestones=[]),
    lambda t, o: t.optim.lr_scheduler.SequentialLR(
        o, [t.optim.lr_scheduler.StepLR(o, 2)], milestones=[1]
    ),
    lambda t, o: t.optim.lr_scheduler.ChainedScheduler([t.optim.lr_scheduler.ReduceLROnPlateau(o)]),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors_match_pytorch(case, real_torch):
    def prog(t):
        opt = t.optim.SGD([t.nn.Parameter(t.zeros(1))], lr=0.1, momentum=0.9)
        ERRORS[case](t, opt)

    check_error(prog, real_torch)
