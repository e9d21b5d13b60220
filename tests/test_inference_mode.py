"""Inference mode: no recording, inference tensors, PyTorch's error when one is saved for
backward, inference_mode(False), decorator forms, and thread locality."""

from __future__ import annotations

import re
import threading

import pytest

import autograd_compat as torch
from autograd_compat._tensor import Tensor


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


def test_marking_is_uninstalled_and_thread_local():
    original = Tensor.__dict__["_wrap"]
    seen = {}

    def other_thread():
        seen["made"] = torch.ones(1).is_inference()
        seen["enabled"] = torch.is_inference_mode_enabled()

    with torch.inference_mode():
        assert Tensor.__dict__["_wrap"] is not original
        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join()
    assert seen == {"made": False, "enabled": False}
    assert Tensor.__dict__["_wrap"] is original
    assert torch.autograd.inference_mode is torch.inference_mode
