"""A backward whose forward is deferred runs stepwise until both compile as one program
(`_tape/fused`): its fused function is not compiled alone for the steps before that program
supersedes it, unless its structure meets more than `COMBINED_KEYS` different forwards."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._defer import lazy
from autograd_compat._tape import fused

pytestmark = pytest.mark.usefixtures("deferral_on")

rng = np.random.default_rng(11)
DATA = rng.standard_normal((4, 8)).astype(np.float32)
WEIGHT = rng.standard_normal((8, 3)).astype(np.float32)


@pytest.fixture(autouse=True)
def _no_backward_met():
    fused.programs.clear()
    fused.seen.clear()
    lazy._programs.clear()


SIDE_OPS = (torch.sin, torch.cos, torch.exp, torch.tanh)


def _step(side_op=None):
    """A small training step's forward and backward; with `side_op`, the forward also
    computes a value with it that the backward does not need (its run differs, not its
    backward)."""
    w = torch.tensor(WEIGHT, requires_grad=True)
    if side_op is not None:
        side_op(torch.tensor(DATA))
    loss = (torch.tanh(torch.tensor(DATA) @ w) * 1.5).sum()
    loss.backward()
    return loss.item(), w.grad.numpy()


def _fused_functions() -> list:
    return list(fused.programs.values())


def test_the_fused_backward_waits_for_its_forward_and_never_compiles_alone(monkeypatch):
    monkeypatch.setattr(lazy, "COMPILE_AFTER", 5)  # (meetings enough for any run but its own)
    steps = [_step() for _ in range(fused.FUSE_AFTER + lazy.COMPILE_AFTER + 1)]
    (function,) = _fused_functions()
    runs = [key for key, v in lazy._programs.items() if type(v) is not lazy.Uncompiled]
    assert len(runs) == 1 and runs[0][0] is function  # one program: forward and backward,
    assert function._cache_size() == 0  # the backward never compiled alone
    monkeypatch.setattr(lazy, "ENABLED", False)
    loss, grad = _step()
    for step_loss, step_grad in steps:
        assert step_loss == loss
        np.testing.assert_allclose(step_grad, grad, rtol=1e-6)


def test_a_backward_that_meets_more_forwards_than_it_waits_for_compiles_alone():
    side_ops = SIDE_OPS[: fused.COMBINED_KEYS + 1]
    for side_op in side_ops:  # (an op's first shapes run at its call: learnt, they are deferred)
        side_op(torch.tensor(DATA))
    for side_op in side_ops[:-1]:
        for _ in range(fused.FUSE_AFTER):
            _step(side_op)
    (function,) = _fused_functions()
    assert function._cache_size() == 0  # (its forwards so far may still compile with it)
    _step(side_ops[-1])
    assert function._cache_size() == 1


def test_a_run_flushed_while_runs_may_not_compile_neither_compiles_nor_counts():
    x = torch.tensor(DATA)
    expected = ((x * 2 + 1) * 3).sum().item()  # (learns the ops' shapes)
    compiles = lazy.runs_compile(False)
    try:
        values = [((x * 2 + 1) * 3).sum().item() for _ in range(lazy.COMPILE_AFTER + 1)]
    finally:
        lazy.runs_compile(compiles)
    assert values == [expected] * len(values)
    assert not lazy._programs
    ((x * 2 + 1) * 3).sum().item()
    assert [record.met for record in lazy._programs.values()] == [1]
