"""torch.compile in ordinary PyTorch scripts: `examples/mnist_compiled.py` (eager, a compiled
model and a compiled whole step must agree over 20 steps, and eager must agree with real
PyTorch), the other examples that take gradient steps, each run eagerly and with
`--compile=model` (use 1: the model, or the function playing its part, compiled inside the
eager loop) and `--compile=step` (use 2: the whole step one `@torch.compile` function), and an
unchanged script using torch.compile run by `python -m autograd_compat run`.

Real PyTorch runs the scripts eagerly only (`--eager-only`, `disable=True`, no `--compile`):
its inductor backend compiles C++ on the CPU, which takes minutes on the test machines; our
compiled runs are compared with our eager run and with PyTorch's eager run instead.

`examples/autograd_intro.py` has no compiled variant: it takes no gradient step to compile.
Its three snippets are one backward of a four-op expression, a loop on a tensor's value
(`while y.data.norm() < 1000`: data-dependent control flow, a graph break by nature) and a
walk over the `grad_fn` graph by node names, which a compiled call replaces by its one
`CompiledFunctionBackward` node.
"""

from __future__ import annotations

import contextlib
import io
import os
import pathlib
import re
import runpy
import subprocess
import sys
import time
import warnings
from unittest import mock

import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat import _alias
from autograd_compat._compile import entry as _compile_entry
from autograd_compat._ops import random as _random_ops
from tests._helpers.paths import ROOT
from tests.examples.test_examples import EXAMPLES, _assert_nested_close, _real_torch, run_real

MNIST = str(EXAMPLES / "mnist_compiled.py")


@pytest.fixture(scope="module")
def mnist_ours():
    """The example's results and torch.compile's counters, run once through the alias."""
    counters = torch._dynamo.utils.counters
    for table in counters.values():
        table.clear()
    with contextlib.redirect_stdout(io.StringIO()) as out:
        results = _alias.run([MNIST])["results"]
    return results, {k: dict(v) for k, v in counters.items()}, out.getvalue()


def test_mnist_compiled_ways_equal_eager(mnist_ours):
    results, counters, printed = mnist_ours
    assert "compile_errors" not in results, results.get("compile_errors")
    assert list(results) == ["eager", "compiled_model", "compiled_step"]
    # Both uses really compiled (once each), with no graph break and no recompile: an eager
    # fallback would match trivially.
    assert counters["stats"] == {"unique_graphs": 2}, counters
    assert counters["graph_break"] == {}, counters
    eager = results["eager"]
    assert len(eager["losses"]) == 20
    assert eager["losses"][-1] < 0.8 * eager["losses"][0]
    assert len(eager["optimizer"]) == 3 * len(eager["params"])  # step, exp_avg, exp_avg_sq
    for way in ["compiled_model", "compiled_step"]:
        _assert_nested_close(results[way], eager, rtol=1e-5, atol=1e-6)
    assert "compiled_step: first step" in printed


def test_mnist_compiled_eager_matches_pytorch(mnist_ours, request, monkeypatch):
    real_torch = _real_torch(request)
    if real_torch is None:
        pytest.skip("PyTorch is not installed")
    monkeypatch.setattr(sys, "argv", [MNIST, "--eager-only"])
    with contextlib.redirect_stdout(io.StringIO()):
        theirs = runpy.run_path(MNIST, run_name="__main__")["results"]
    assert list(theirs) == ["eager"]
    _assert_nested_close(mnist_ours[0]["eager"], theirs["eager"], rtol=2e-4, atol=2e-5)


# The other examples that take gradient steps, run three ways with these arguments; the
# tolerances are float32's: compiled programs fuse and reorder the same float32 sums.
# mnist_conv runs as it is: 3 epochs of 8 batches (24 steps, a StepLR step each epoch).
WAYS = ["model", "step"]
COMPILED = {
    "two_layer_net": ["--steps=20"],
    "mnist_conv": [],
    "char_lstm": ["--steps=20"],
    "wgan_gp": ["--steps=20"],
    "newton_hessian": ["--steps=20"],
    "polynomial_manual_grad": ["--steps=20"],
    "polynomial_autograd_function": ["--steps=20"],
}
STEPS = {"mnist_conv": 24}
# Losses and gradients here are sums of 2000 float32 terms that nearly cancel.
TOLERANCE = {"polynomial_manual_grad": (5e-5, 1e-6)}
# Deterministic examples: the eager 20-step run also equals PyTorch's (the others draw random
# values, which these runs take from JAX keys; tests/examples compares them with PyTorch's).
EXACT = {"wgan_gp", "newton_hessian", "polynomial_manual_grad", "polynomial_autograd_function"}


def _run_ways(name: str) -> dict:
    """The example run eagerly and both compiled ways, in this process: per way its results,
    torch.compile's counters, the number of calls a compiled program served, and warnings."""
    counters = torch._dynamo.utils.counters
    runs = {}
    for way in [None, *WAYS]:
        for table in counters.values():
            table.clear()
        served = []
        run = _compile_entry.Entry.run

        def counted(entry, tensors, numbers, run=run, served=served):
            served.append(entry)
            return run(entry, tensors, numbers)

        argv = [str(EXAMPLES / f"{name}.py"), *COMPILED[name]]
        argv += [f"--compile={way}"] if way else []
        start = time.perf_counter()
        with (
            mock.patch.object(_compile_entry.Entry, "run", counted),
            # eager dropout takes JAX keys, as a compiled step does (PyTorch's own stream runs
            # only eagerly): the ways draw the same masks
            mock.patch.object(_random_ops, "PYTORCH_STREAM", False),
            warnings.catch_warnings(record=True) as caught,
            contextlib.redirect_stdout(io.StringIO()),
        ):
            warnings.simplefilter("always")
            results = _alias.run(argv)["results"]
        runs[way or "eager"] = {
            "results": results,
            "counters": {k: dict(v) for k, v in counters.items()},
            "served": len(served),
            "warnings": [str(w.message) for w in caught],
            "seconds": time.perf_counter() - start,
        }
    return runs


@pytest.mark.parametrize("name", COMPILED)
def test_compiled_example_equals_eager(name, request):
    runs = _run_ways(name)
    eager = runs["eager"]["results"]
    steps = STEPS.get(name, 20)
    losses = eager["history"] if name == "wgan_gp" else eager["losses"]
    assert len(losses) == (3 if name == "mnist_conv" else steps)
    rtol, atol = TOLERANCE.get(name, (1e-5, 1e-6))
    for way in WAYS:
        run = runs[way]
        # It really compiled: a program was built, nothing broke the graph or fell back to
        # eager, and every training call after the first (eager) one ran a program.
        assert run["counters"]["stats"].get("unique_graphs", 0) >= 1, (way, run["counters"])
        assert "cache_size_limit" not in run["counters"]["stats"], (way, run["counters"])
        assert run["counters"]["graph_break"] == {}, (way, run["counters"])
        assert run["warnings"] == [], (way, run["warnings"])
        assert run["served"] >= steps - 1, (way, run["served"])
        _assert_nested_close(run["results"], eager, rtol=rtol, atol=atol)
    if name in EXACT:
        real_torch = _real_torch(request)
        if real_torch is not None:
            theirs = run_real(name, real_torch, *COMPILED[name])
            _assert_nested_close(eager, theirs, rtol=2e-4, atol=2e-5)


# An unchanged PyTorch training script: a compiled model inside a compiled step (SGD with
# momentum, weight decay and a MultiStepLR schedule); `--eager` switches compilation off.
SCRIPT = """\
import sys

import numpy as np
import torch
from torch import nn

model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        n = p.numel()
        p.copy_(torch.from_numpy(np.cos(np.arange(n) * (i + 0.5)).reshape(tuple(p.shape)) / 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-3)
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[4, 8], gamma=0.3)
loss_fn = nn.CrossEntropyLoss()
eager = "--eager" in sys.argv[1:]


@torch.compile(disable=eager)
def train_step(x, y):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    scheduler.step()
    return loss


x = torch.from_numpy(np.sin(np.arange(60.0)).reshape(10, 6).astype(np.float32))
y = torch.arange(10) % 3
for step in range(12):
    loss = train_step(x, y)
    print(f"step {step} loss {loss.item():.7f} lr {scheduler.get_last_lr()[0]:.6f}")
print("weights", " ".join(f"{v:.7f}" for v in model[0].weight[0].tolist()))
print("grads", " ".join(f"{v:.7f}" for v in model[2].weight.grad[1].tolist()))
if not eager:
    print("graphs", torch._dynamo.utils.counters["stats"]["unique_graphs"])
"""

_NUMBER = re.compile(r"-?\d+\.\d+(?:e-?\d+)?")


def _numbers(printed: str) -> list[float]:
    lines = [line for line in printed.splitlines() if not line.startswith("graphs")]
    return [float(v) for line in lines for v in _NUMBER.findall(line)]


def _run_alias(script: pathlib.Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    done = subprocess.run(
        [sys.executable, "-m", "autograd_compat", "run", str(script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=script.parent,
    )
    assert done.returncode == 0, done.stderr
    return done


def test_unchanged_script_with_torch_compile_prints_eager_numbers(tmp_path, request, monkeypatch):
    script = tmp_path / "train_compiled.py"
    script.write_text(SCRIPT)
    compiled = _run_alias(script)
    eager = _run_alias(script, "--eager")
    assert "torch.compile" not in compiled.stderr  # no graph break, no cache-limit warning
    assert compiled.stdout.count("step ") == 12
    assert "graphs 1" in compiled.stdout.splitlines()  # the whole step, one program
    ours, eager_numbers = _numbers(compiled.stdout), _numbers(eager.stdout)
    assert len(ours) == len(eager_numbers) == 12 * 2 + 6 + 16
    np.testing.assert_allclose(ours, eager_numbers, rtol=1e-5, atol=1e-6)
    real_torch = _real_torch(request)
    if real_torch is None:
        return
    monkeypatch.setattr(sys, "argv", [str(script), "--eager"])
    with contextlib.redirect_stdout(io.StringIO()) as out:
        runpy.run_path(str(script), run_name="__main__")
    np.testing.assert_allclose(ours, _numbers(out.getvalue()), rtol=2e-4, atol=2e-5)


def test_compiled_backward_into_an_existing_grad_updates_it():
    w = torch.ones(2, requires_grad=True)
    w.grad = torch.zeros(2)

    @torch.compile
    def step(x):
        w.grad.zero_()  # as optimizer.zero_grad(set_to_none=False) does
        (w * x).sum().backward()

    grad = w.grad
    grads, versions = [], []
    for i in range(3):
        step(torch.full((2,), float(i + 1)))
        grads.append(w.grad.tolist())
        versions.append(w.grad._version)
    assert grads == [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]
    assert w.grad is grad  # accumulated in place, as in eager
    assert versions == [2, 4, 6]  # zero_ and the accumulation: one version each
