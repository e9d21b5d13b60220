"""The examples: ordinary PyTorch scripts, run through the alias runner and, when PyTorch is
installed, run again with the real PyTorch and compared."""

from __future__ import annotations

import contextlib
import io
import runpy
import sys

import numpy as np
import pytest

from autograd_compat import _alias
from tests._helpers.paths import ROOT

EXAMPLES = ROOT / "examples"

# Deterministic examples print and return the same numbers on both backends.
EXACT = [
    "autograd_intro",
    "polynomial_manual_grad",
    "newton_hessian",
    "wgan_gp",
    "lbfgs_timeseries",
    "per_example_grads",
    "char_lstm",  # seeded: PyTorch's initial weights and draws, so PyTorch's printed losses
]
# Examples with PyTorch's random initialisations: both must learn, by the same measure.
TRAINING = {
    "two_layer_net": lambda r: r["losses"][-1] < 0.05 * r["losses"][0],
    "mnist_conv": lambda r: r["accuracy"] >= 0.8 and r["losses"][-1] < 0.5 * r["losses"][0],
    "transformer_lm": lambda r: r["losses"][-1] < 0.4 * r["losses"][0] and len(r["sample"]) == 76,
}
# Examples with their own tests: mnist_compiled in tests/compile/test_compile_examples.py.
OWN_TESTS = {"mnist_compiled"}
if (EXAMPLES / "polynomial_autograd_function.py").exists():
    EXACT.append("polynomial_autograd_function")


def run_ours(name: str) -> dict:
    with contextlib.redirect_stdout(io.StringIO()):
        return _alias.run([str(EXAMPLES / f"{name}.py")])["results"]


def run_real(name: str, real_torch, *args: str) -> dict:
    """The example run by PyTorch itself, with `sys.argv` as `python example.py args...`."""
    script = str(EXAMPLES / f"{name}.py")
    old_argv = sys.argv[:]
    sys.argv[:] = [script, *args]
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            return runpy.run_path(script, run_name="__main__")["results"]
    finally:
        sys.argv[:] = old_argv


def _assert_nested_close(a, b, rtol, atol):
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            _assert_nested_close(a[key], b[key], rtol, atol)
    elif isinstance(a, str):
        assert a == b
    else:
        np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol, atol)


def _real_torch(request):
    """PyTorch if installed (the example then runs on it too), else None."""
    try:
        return request.getfixturevalue("real_torch")
    except pytest.skip.Exception:
        return None


@pytest.mark.parametrize("name", EXACT)
def test_exact_examples_match_pytorch(name, request):
    ours = run_ours(name)
    real_torch = _real_torch(request)
    if real_torch is not None:
        _assert_nested_close(ours, run_real(name, real_torch), rtol=2e-4, atol=2e-5)


@pytest.mark.parametrize("name", sorted(TRAINING))
def test_training_examples_learn_on_both(name, request):
    ours = run_ours(name)
    assert TRAINING[name](ours), ours
    real_torch = _real_torch(request)
    if real_torch is None:
        return
    theirs = run_real(name, real_torch)
    assert TRAINING[name](theirs), theirs
    assert len(ours["losses"]) == len(theirs["losses"])


def test_every_example_is_tested():
    tested = set(EXACT) | set(TRAINING) | OWN_TESTS
    assert {p.stem for p in EXAMPLES.glob("*.py")} == tested
