"""Adadelta and Adafactor against PyTorch: parameters after each of five steps, state_dict
layouts and round trips, reprs, constructor errors, and a compiled step equal to the eager one."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as torch
from tests._helpers.torch_compare import check_error
from tests.optim.test_optimizers import _assert_close, _loss, _pair, check_trajectory

pytestmark = pytest.mark.torch

CONFIGS = [
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1, maximize=True)),
    ("Adadelta", dict(foreach=False, capturable=False, differentiable=False)),
    ("Adafactor", dict()),
    ("Adafactor", dict(lr=0.05, beta2_decay=-0.5, eps=(1e-4, 1e-2), d=1.5, weight_decay=0.1)),
    ("Adafactor", dict(lr=0.05, maximize=True, foreach=False)),
]


@pytest.mark.parametrize(
    "name,kwargs", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)]
)
def test_trajectory_matches_pytorch(name, kwargs, real_torch):
    check_trajectory(name, kwargs, real_torch, steps=5, atol=2e-6)


@pytest.mark.parametrize("name", ["Adadelta", "Adafactor"])
def test_state_dict_round_trip_continues_identically(name, real_torch):
    ours, theirs = _pair(real_torch)
    opt_o = getattr(torch.optim, name)(ours.parameters(), lr=0.1)
    opt_t = getattr(real_torch.optim, name)(theirs.parameters(), lr=0.1)
    for lib, model, opt in ((torch, ours, opt_o), (real_torch, theirs, opt_t)):
        for _ in range(2):
            opt.zero_grad()
            _loss(lib, model).backward()
            opt.step()
    fresh = getattr(torch.optim, name)(ours.parameters(), lr=0.5)
    fresh.load_state_dict(opt_o.state_dict())
    assert fresh.param_groups[0]["lr"] == 0.1
    assert list(fresh.state_dict()["state"][0]) == list(opt_t.state_dict()["state"][0])
    for lib, model, opt in ((torch, ours, fresh), (real_torch, theirs, opt_t)):
        opt.zero_grad()
        _loss(lib, model).backward()
        opt.step()
    _assert_close(ours, theirs)


ERRORS = [
    lambda t, p: t.optim.Adadelta(p, lr=-1.0),
    lambda t, p: t.optim.Adadelta(p, rho=1.5),
    lambda t, p: t.optim.Adadelta(p, eps=-1.0),
    lambda t, p: t.optim.Adadelta(p, weight_decay=-1.0),
    lambda t, p: t.optim.Adafactor(p, lr=-1.0),
    lambda t, p: t.optim.Adafactor(p, beta2_decay=0.5),
    lambda t, p: t.optim.Adafactor(p, eps=(-1.0, 1e-3)),
    lambda t, p: t.optim.Adafactor(p, eps=(None, -1.0)),
    lambda t, p: t.optim.Adafactor(p, d=0.5),
    lambda t, p: t.optim.Adafactor(p, weight_decay=-1.0),
    lambda t, p: t.optim.Adafactor(p, lr=t.tensor([0.1, 0.2])),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_constructor_errors_match_pytorch(case, real_torch):
    check_error(lambda t: ERRORS[case](t, [t.zeros(2, requires_grad=True)]), real_torch)


def test_adafactor_refuses_complex_parameters(real_torch):
    def prog(t):
        p = t.zeros(2, dtype=t.complex64, requires_grad=True)
        opt = t.optim.Adafactor([p])
        p.grad = t.ones(2, dtype=t.complex64)
        opt.step()

    check_error(prog, real_torch)


@pytest.mark.parametrize("name", ["Adadelta", "Adafactor"])
def test_compiled_step_equals_eager(name):
    def run(compiled: bool):
        torch.manual_seed(0)
        model = torch.nn.Linear(4, 3)
        opt = getattr(torch.optim, name)(model.parameters())
        x, y = torch.randn(5, 4), torch.randn(5, 3)

        def step():
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
            return loss

        fn = torch.compile(step) if compiled else step
        losses = [fn().item() for _ in range(3)]
        return losses, [p.detach().numpy().copy() for p in model.parameters()]

    eager, compiled = run(False), run(True)
    np.testing.assert_allclose(compiled[0], eager[0], rtol=1e-5)
    for u, v in zip(eager[1], compiled[1]):
        np.testing.assert_allclose(v, u, rtol=1e-5, atol=1e-6)
