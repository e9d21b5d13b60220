"""An optimizer step donates the arrays it replaces when nothing else holds them
(`optim/optimizer._donatable`): what donation could break, against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as torch

W = np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(3, 4)
X = np.linspace(0.5, -0.5, 8, dtype=np.float32).reshape(2, 4)


def _model(lib):
    model = lib.nn.Linear(4, 3)
    with lib.no_grad():
        model.weight.copy_(lib.tensor(W))
        model.bias.zero_()
    return model


def _loss(lib, model, **backward):
    loss = (model(lib.tensor(X)) ** 2).sum()
    loss.backward(**backward)
    return loss


def _counting(monkeypatch, opt) -> dict:
    """Count the calls of the optimizer's update programs, donating and plain."""
    update = type(opt)._update
    calls = {"donating": 0, "plain": 0}
    for name in calls:
        program = getattr(update, name)

        def counted(*args, _program=program, _name=name, **kwargs):
            calls[_name] += 1
            return _program(*args, **kwargs)

        monkeypatch.setattr(update, name, counted)
    return calls


@pytest.mark.parametrize("make", [lambda ps: torch.optim.SGD(ps, lr=0.1), torch.optim.Adam])
def test_a_step_donates_the_arrays_nothing_else_holds(monkeypatch, make):
    model = _model(torch)
    opt = make(model.parameters())
    calls = _counting(monkeypatch, opt)
    for _ in range(3):  # Adam's second step onwards replaces its state arrays too
        opt.zero_grad()
        _loss(torch, model)
        opt.step()
    assert calls == {"donating": 3, "plain": 0}
    assert np.isfinite(model.weight.detach().numpy()).all()


@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_three_steps_match_pytorch(real_torch, name):
    results = []
    for lib in (torch, real_torch):
        model = _model(lib)
        opt = getattr(lib.optim, name)(model.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            _loss(lib, model)
            opt.step()
        results.append([p.detach().numpy().copy() for p in model.parameters()])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-7)


def test_a_detached_alias_sees_the_step_as_in_pytorch(real_torch):
    seen = []
    for lib in (torch, real_torch):
        model = _model(lib)
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        alias = model.weight.detach()  # shares the weight's memory, in both libraries
        _loss(lib, model)
        opt.step()
        seen.append(alias.numpy().copy())
    np.testing.assert_allclose(seen[0], seen[1], rtol=1e-6)


def test_an_array_held_elsewhere_is_not_donated(monkeypatch):
    model = _model(torch)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    calls = _counting(monkeypatch, opt)
    _loss(torch, model)
    raw = model.weight._value  # a reference the step cannot account for
    opt.step()
    assert calls == {"donating": 0, "plain": 1}
    assert not raw.is_deleted()
    np.testing.assert_array_equal(np.asarray(raw), W)


def test_a_kept_graph_that_saved_the_weight_backs_up_again_after_a_step(real_torch):
    grads = []
    for lib in (torch, real_torch):
        model = _model(lib)
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        x = lib.tensor(X, requires_grad=True)
        loss = (model(x) ** 2).sum()
        loss.backward(retain_graph=True)
        with lib.no_grad():  # the step writes the weight: PyTorch's version check fires
            opt.step()
        try:
            loss.backward()
            grads.append(x.grad.numpy().copy())
        except RuntimeError as error:
            grads.append(type(error).__name__)
    assert type(grads[0]) is type(grads[1])
    if isinstance(grads[1], np.ndarray):
        np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6)
