"""The parity suite needs real PyTorch: say so loudly when it is missing, and check that the
harness itself notices differences (a comparison that can't fail proves nothing)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import autograd_compat
from tests._helpers import torch_compare
from tests._helpers.torch_compare import TORCH_MISSING, Err, catch, compare, run, snap


def test_torch_oracle_is_installed():
    """Fails under CI (the CI environment variable is set) when torch cannot be imported;
    elsewhere the skip reason says what is missing and how to get it."""
    if torch_compare.real_torch is None:
        if os.environ.get("CI"):
            pytest.fail(TORCH_MISSING)
        pytest.skip(TORCH_MISSING)
    assert torch_compare.real_torch.__version__.startswith("2.13"), (
        f"the parity oracle is torch {torch_compare.real_torch.__version__}; the expected "
        "texts and behaviours are those of torch==2.13.0"
    )


def test_require_torch_fails_under_ci_without_torch(monkeypatch):
    monkeypatch.setattr(torch_compare, "real_torch", None)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="not installed"):
        torch_compare.require_torch()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="not installed"):
        torch_compare.require_torch()


def _record(**changes):
    t = autograd_compat.tensor([1.0, 2.0], requires_grad=True)
    (t * 2).sum().backward()
    r = snap(t)
    for k, v in changes.items():
        setattr(r, k, v)
    return r


@pytest.mark.parametrize(
    "change",
    [
        {"value": np.array([1.0, 2.001])},
        {"dtype": "torch.float64"},
        {"shape": (2, 1)},
        {"requires_grad": False},
        {"is_leaf": False},
        {"has_grad_fn": True},
        {"grad": None},
    ],
    ids=lambda c: next(iter(c)),
)
def test_compare_notices_each_field(change):
    assert compare(_record(), _record()) == []
    assert compare(_record(), _record(**change)) != []


def test_compare_notices_errors_and_structure():
    def boom(kind):
        return catch(lambda: (_ for _ in ()).throw(kind("text")))

    assert compare(boom(RuntimeError), boom(RuntimeError)) == []
    assert compare(boom(RuntimeError), boom(TypeError)) != []
    assert compare(Err(RuntimeError("a")), Err(RuntimeError("b"))) != []
    assert compare(Err(RuntimeError("a"), False), Err(RuntimeError("b"), False)) == []
    assert compare(Err(RuntimeError("a x"), "x"), Err(RuntimeError("b x"), "x")) == []
    assert compare(Err(RuntimeError("a x"), "x"), Err(RuntimeError("b"), "x")) != []
    assert compare(Err(KeyError("a")), Err(type("KeyError", (ValueError,), {})("a"))) != []
    assert compare([1, 2], [1, 2, 3]) != []
    assert compare({"a": 1.0}, {"a": 1.1}) != []
    assert compare("tensor([1.])", "tensor([1.0])") != []


def test_run_records_warnings():
    def prog(torch):
        h = torch.tensor([1.0], requires_grad=True) * 2
        return h.grad

    result, warnings_seen = run(prog, autograd_compat)
    assert result is None
    assert [w[0] for w in warnings_seen] == ["UserWarning"]
