"""Anomaly detection: PyTorch's NaN error, the warned forward traceback (with parents under
create_graph), the enabling warning, context/decorator forms, and no fused executor."""

from __future__ import annotations

import re

import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._tape import fused as _fused
from autograd_compat.autograd import anomaly_mode

ENABLED = "Anomaly Detection has been enabled"


def _nan_backward(lib):
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    y = x.sqrt() * 0  # d sqrt at 0 is inf; inf * 0 is NaN
    y.sum().backward()


def test_nan_in_backward_is_reported_like_pytorch(real_torch):
    with pytest.warns(UserWarning, match=ENABLED), real_torch.autograd.detect_anomaly():
        with pytest.warns(UserWarning, match="Error detected in SqrtBackward0"):
            with pytest.raises(RuntimeError) as info:
                _nan_backward(real_torch)
    expected = str(info.value)
    assert expected == "Function 'SqrtBackward0' returned nan values in its 0th output."
    with pytest.warns(UserWarning, match=ENABLED), torch.autograd.detect_anomaly():
        with pytest.warns(UserWarning) as record:
            with pytest.raises(RuntimeError, match=re.escape(expected)):
                _nan_backward(torch)
    messages = [str(w.message) for w in record]
    traceback = [m for m in messages if m.startswith("Error detected in SqrtBackward0.")]
    assert len(traceback) == 1
    assert "Traceback of forward call that caused the error:" in traceback[0]
    assert "test_anomaly.py" in traceback[0] and "y = x.sqrt() * 0" in traceback[0]
    assert not torch.autograd.is_anomaly_enabled()


def test_without_anomaly_mode_nan_passes_silently():
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    (x.sqrt() * 0).sum().backward()
    assert np.isnan(x.grad.numpy()[0])
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        assert torch.autograd.is_anomaly_enabled()
        assert not anomaly_mode.is_anomaly_check_nan_enabled()
        x.grad = None
        (x.sqrt() * 0).sum().backward()
    assert not torch.autograd.is_anomaly_enabled()
    assert anomaly_mode.is_anomaly_check_nan_enabled()


def test_traceback_metadata_only_in_anomaly_mode():
    x = torch.ones(2, requires_grad=True)
    assert "traceback_" not in (x * 2).grad_fn.metadata
    with pytest.warns(UserWarning, match=ENABLED), torch.autograd.detect_anomaly():
        node = (x * 2).grad_fn
    stack = "".join(node.metadata["traceback_"])
    assert "node = (x * 2).grad_fn" in stack and "autograd_compat" not in stack


def test_decorators_and_parent_traceback():
    x = torch.tensor([0.5, 1.0], requires_grad=True)

    @torch.autograd.set_detect_anomaly(True)
    def second_order():
        y = (x.exp() * x).sum()
        (g,) = torch.autograd.grad(y, x, create_graph=True)
        return g

    with pytest.warns(UserWarning, match=ENABLED):
        decorated = torch.autograd.detect_anomaly()(lambda: torch.autograd.is_anomaly_enabled())
    assert decorated() and not torch.autograd.is_anomaly_enabled()
    g = second_order()
    assert not torch.autograd.is_anomaly_enabled()
    parents, stack, seen = set(), [g.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        parent = node.metadata.get("parent_")
        if parent is not None:
            parents.add(parent.name())
        stack.extend(n for n, _ in node.next_functions)
    assert parents and parents <= {"MulBackward0", "ExpBackward0", "SumBackward0"}


def test_errors_in_a_custom_backward_warn_the_forward_traceback():
    class Broken(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            raise ValueError("broken backward")

    x = torch.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match=ENABLED), torch.autograd.detect_anomaly():
        y = Broken.apply(x)
        with pytest.warns(UserWarning, match="Error detected in BrokenBackward"):
            with pytest.raises(ValueError, match="broken backward"):
                y.sum().backward()


def test_anomaly_mode_uses_the_stepwise_executor(monkeypatch):
    calls = []
    original = _fused.fused_backward
    monkeypatch.setattr(_fused, "fused_backward", lambda s: calls.append(s) or original(s))
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match=ENABLED), torch.autograd.detect_anomaly():
        for _ in range(3):
            (x.sin() * 2).sum().backward()
    assert calls == []


def _toggle_log(lib):
    """The top-level switches: states after each call, and the error for a non-bool mode."""
    log = []
    try:
        for args in [(True,), (True, False), (False,), (False, False)]:
            lib.set_anomaly_enabled(*args)
            log.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
        with pytest.raises(TypeError) as info:
            lib.set_anomaly_enabled(1)
        log.append(str(info.value))
    finally:
        lib.set_anomaly_enabled(False)
    return log


def test_top_level_switches_match_pytorch(real_torch):
    assert _toggle_log(torch) == _toggle_log(real_torch)
    assert torch.is_anomaly_enabled is torch.autograd.is_anomaly_enabled
    torch.set_anomaly_enabled(True, check_nan=True)
    try:
        with pytest.warns(UserWarning, match="Error detected in SqrtBackward0"):
            with pytest.raises(RuntimeError, match="returned nan values in its 0th output"):
                _nan_backward(torch)
    finally:
        torch.set_anomaly_enabled(False)
    assert not torch.is_anomaly_enabled() and torch.is_anomaly_check_nan_enabled()
