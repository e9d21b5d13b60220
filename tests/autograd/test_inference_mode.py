"""Inference mode: no recording, inference tensors, PyTorch's error when one is saved for
backward, inference_mode(False), decorator forms, and thread locality."""

from __future__ import annotations

import re
import threading

import pytest

import autograd_compat as torch


def test_inference_mode_flags(real_torch):
    results = []
    for lib in (torch, real_torch):
        x = lib.ones(2)
        w = lib.ones(2, requires_grad=True)
        with lib.inference_mode():
            made = lib.ones(2)
            computed = x * 2
            from_grad = w * 2
            state = (lib.is_inference_mode_enabled(), lib.is_grad_enabled())
            with lib.inference_mode(False):
                inner = (lib.is_inference_mode_enabled(), lib.is_grad_enabled())
                normal = lib.ones(1).is_inference()
        results.append(
            (
                made.is_inference(),
                computed.is_inference(),
                from_grad.requires_grad,
                from_grad.is_inference(),
                state,
                inner,
                normal,
                x.is_inference(),
                lib.is_inference_mode_enabled(),
            )
        )
    assert results[0] == results[1]
    assert results[0][:2] == (True, True)


def test_saving_an_inference_tensor_is_refused(real_torch):
    def fn(lib):
        with lib.inference_mode():
            a = lib.ones(2)
        w = lib.ones(2, requires_grad=True)
        assert (w + a).requires_grad  # add saves nothing: allowed
        return w * a

    with pytest.raises(RuntimeError) as info:
        fn(real_torch)
    assert "Inference tensors cannot be saved for backward" in str(info.value)
    with pytest.raises(RuntimeError, match=re.escape(str(info.value))):
        fn(torch)
    with torch.inference_mode():
        a = torch.ones(2)
    w = torch.ones(2, requires_grad=True)
    (w * a.clone()).sum().backward()  # PyTorch's workaround: a clone is a normal tensor
    assert w.grad.tolist() == [1.0, 1.0]


def _decorated(lib):
    @lib.inference_mode
    def bare():
        return lib.is_inference_mode_enabled()

    @lib.inference_mode()
    def called():
        return lib.is_inference_mode_enabled()

    @lib.inference_mode(mode=False)
    def off():
        return lib.is_inference_mode_enabled()

    @lib.inference_mode()
    def gen():
        yield lib.is_inference_mode_enabled()
        yield lib.is_inference_mode_enabled()

    return bare(), called(), off(), list(gen()), lib.is_inference_mode_enabled()


def test_decorator_forms_and_generators(real_torch):
    assert _decorated(torch) == _decorated(real_torch) == (True, True, False, [True, True], False)


def test_marking_ends_with_the_block_and_is_thread_local():
    seen = {}

    def other_thread():
        seen["made"] = torch.ones(1).is_inference()
        seen["enabled"] = torch.is_inference_mode_enabled()

    with torch.inference_mode():
        assert torch.ones(1).is_inference()
        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join()
    assert seen == {"made": False, "enabled": False}
    assert not torch.ones(1).is_inference()
    assert torch.autograd.inference_mode is torch.inference_mode


def _inference_tensor(lib):
    with lib.inference_mode():
        return lib.ones(2)


MISUSES = {
    "requires_grad_": lambda lib, a: a.requires_grad_(),
    "requires_grad=": lambda lib, a: setattr(a, "requires_grad", True),
    "add_": lambda lib, a: a.add_(1),
    "add_-no_grad": lambda lib, a: lib.no_grad()(a.add_)(1),
    "zero_": lambda lib, a: a.zero_(),
    "setitem": lambda lib, a: a.__setitem__(0, 3.0),
    "view-add_": lambda lib, a: a.view(2).add_(1),
}


@pytest.mark.parametrize("name", list(MISUSES))
def test_inference_tensors_are_refused_outside_inference_mode(real_torch, name):
    with pytest.raises(RuntimeError) as info:
        MISUSES[name](real_torch, _inference_tensor(real_torch))
    a = _inference_tensor(torch)
    with pytest.raises(RuntimeError, match=re.escape(str(info.value))):
        MISUSES[name](torch, a)
    assert a.tolist() == [1.0, 1.0] and not a.requires_grad


def test_inference_tensors_are_usable_inside_inference_mode(real_torch):
    """Inside inference mode they may change; outside, PyTorch allows it through detach()."""
    results = []
    for lib in (torch, real_torch):
        a = _inference_tensor(lib)
        normal = lib.ones(2)
        with lib.inference_mode():
            a.add_(1)
            a[0] = 5.0
            normal.mul_(3)
            a.requires_grad_()
        a.detach().add_(1)
        results.append((a.tolist(), a.requires_grad, normal.tolist(), normal.is_inference()))
    assert results[0] == results[1] == ([6.0, 3.0], True, [3.0, 3.0], False)
