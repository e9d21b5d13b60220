"""Muon against PyTorch: the weights after each of five steps (Nesterov or not, both
learning-rate adjustments, a tall and a wide matrix), the state dict and repr, and the
errors."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as torch
from tests._helpers.torch_compare import check_error
from tests.optim.test_optimizers import X, Y, compare_state

pytestmark = pytest.mark.torch

_RNG = np.random.default_rng(2)

CONFIGS = [
    (3, dict()),
    (3, dict(lr=0.02, nesterov=False, weight_decay=0.0, adjust_lr_fn="match_rms_adamw")),
    (6, dict(lr=0.05, momentum=0.8, ns_steps=3, ns_coefficients=(3.4, -4.7, 2.0))),
]


def _model(lib, outputs: int):
    model = lib.nn.Linear(X.shape[1], outputs, bias=False)
    with lib.no_grad():
        model.weight.copy_(
            lib.tensor(np.random.default_rng(outputs).standard_normal((outputs, X.shape[1])))
        )
    return model


@pytest.mark.parametrize("outputs,kwargs", CONFIGS, ids=["default", "plain", "tall"])
def test_trajectory_matches_pytorch(outputs, kwargs, real_torch):
    models = [_model(lib, outputs) for lib in (torch, real_torch)]
    optimizers = [
        lib.optim.Muon(m.parameters(), **kwargs) for lib, m in zip((torch, real_torch), models)
    ]
    target = np.tile(Y, (1, 2))[:, :outputs]
    for _ in range(5):
        for lib, model, opt in zip((torch, real_torch), models, optimizers):
            opt.zero_grad()
            ((model(lib.tensor(X)) - lib.tensor(target)) ** 2).mean().backward()
            opt.step()
        ours, theirs = (m.weight.detach().numpy() for m in models)
        np.testing.assert_allclose(np.asarray(ours), theirs, atol=2e-6)
    compare_state(optimizers[0].state_dict(), optimizers[1].state_dict(), atol=2e-6)
    assert repr(optimizers[0]) == repr(optimizers[1])


ERRORS = [
    lambda t, p: t.optim.Muon(p, lr=-1.0),
    lambda t, p: t.optim.Muon(p, momentum=-0.5),
    lambda t, p: t.optim.Muon(p, weight_decay=-1.0),
    lambda t, p: t.optim.Muon(p, adjust_lr_fn="other"),
    lambda t, p: t.optim.Muon(p, lr=t.tensor([0.1, 0.2])),
    lambda t, p: t.optim.Muon([t.zeros(3, requires_grad=True)]),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_constructor_errors_match_pytorch(case, real_torch):
    check_error(lambda t: ERRORS[case](t, [t.zeros(2, 3, requires_grad=True)]), real_torch)


@pytest.mark.parametrize("kwargs", [dict(ns_steps=100), dict(ns_coefficients=(1.0, 2.0))])
def test_step_errors_match_pytorch(kwargs, real_torch):
    def prog(t):
        p = t.zeros(2, 3, requires_grad=True)
        p.grad = t.ones(2, 3)
        t.optim.Muon([p], **kwargs).step()

    check_error(prog, real_torch)
