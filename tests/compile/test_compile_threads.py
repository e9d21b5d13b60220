"""torch.compile under threads: each call is exact whatever the interleaving.

A trace binds the tensors it touches (a module's parameters, the PRNG key) to its tracers
until it ends. Those traces are the tracing thread's own (`modes.traces` is per thread), a
trace holds other threads' traces and ops off until it has put every value back
(`modes.hold_traces`), and the keys it draws stay in its thread (`Generator.restore_key`).
Each test runs threads with a tiny switch interval and compares with a sequential run.
"""

from __future__ import annotations

import sys
import threading

import numpy as np
import pytest

import autograd_compat as torch


@pytest.fixture(autouse=True)
def _switch_often():
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    limit = torch._dynamo.config.cache_size_limit
    torch._dynamo.config.cache_size_limit = 64
    yield
    sys.setswitchinterval(interval)
    torch._dynamo.config.cache_size_limit = limit


def _run_threads(targets) -> None:
    threads = [threading.Thread(target=target) for target in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _step(model, x, y):
    loss = ((model(x) - y) ** 2).mean()
    grads = torch.autograd.grad(loss, list(model.parameters()))
    with torch.no_grad():
        for p, g in zip(model.parameters(), grads):
            p -= 0.1 * g
    return loss


def _train(step, seed: int, steps: int = 8) -> tuple[list, np.ndarray]:
    """A model of its own (from its own generator) trained by `step`: losses and weights."""
    generator = torch.Generator().manual_seed(seed)
    model = torch.nn.Linear(8, 4)
    with torch.no_grad():
        model.weight.copy_(torch.randn(4, 8, generator=generator))
        model.bias.copy_(torch.randn(4, generator=generator))
    x, y = torch.randn(16, 8, generator=generator), torch.randn(16, 4, generator=generator)
    losses = [step(model, x, y).item() for _ in range(steps)]
    return losses, model.weight.detach().numpy().copy()


def test_compiled_steps_in_threads_beside_eager_and_compiled_calls():
    step = torch.compile(_step)
    expected = {seed: _train(_step, seed) for seed in range(4)}
    side = torch.nn.Linear(8, 8)
    side_compiled = torch.compile(side)
    results: dict = {}
    errors: list = []
    stop = threading.Event()

    def train(seed):
        try:
            results[seed] = _train(step, seed)
        except Exception as error:  # noqa: BLE001 -- reported below
            errors.append(error)

    def side_calls(call):
        x = torch.ones(4, 8)
        try:
            while not stop.is_set():
                with torch.no_grad():
                    call(x).sum().item()
        except Exception as error:  # noqa: BLE001 -- reported below
            errors.append(error)

    sides = [threading.Thread(target=side_calls, args=(f,)) for f in (side, side_compiled)]
    for thread in sides:
        thread.start()
    _run_threads([lambda s=seed: train(s) for seed in range(4)])
    stop.set()
    for thread in sides:
        thread.join()
    assert not errors, errors
    for seed, (losses, weight) in expected.items():
        np.testing.assert_allclose(results[seed][0], losses, rtol=1e-5)
        np.testing.assert_allclose(results[seed][1], weight, rtol=1e-5, atol=1e-6)


def test_one_model_compiled_in_threads_and_called_eagerly():
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 2))
    compiled = torch.compile(model)
    errors: list = []
    wrong: list = []

    def compiled_calls(scale):
        try:
            for n in range(1, 9):  # a new shape, so a new trace, at every call
                x = torch.ones(n, 8) * scale
                with torch.no_grad():
                    if not np.allclose(compiled(x).numpy(), model(x).numpy(), atol=1e-6):
                        wrong.append((scale, n))
        except Exception as error:  # noqa: BLE001 -- reported below
            errors.append(error)

    x = torch.ones(3, 8)
    with torch.no_grad():
        expected = model(x).numpy()

    def eager_calls():
        try:
            for _ in range(200):
                with torch.no_grad():
                    if not np.allclose(model(x).numpy(), expected, atol=1e-6):
                        wrong.append("eager")
        except Exception as error:  # noqa: BLE001 -- reported below
            errors.append(error)

    _run_threads([lambda: compiled_calls(1.0), lambda: compiled_calls(2.0), eager_calls])
    assert not errors, errors
    assert not wrong


def test_a_traced_draw_stays_in_its_thread():
    """A trace that draws random numbers leaves the real key to the other threads: they
    neither read its tracers nor get their own draws rewound (repeated) when it ends."""
    compiled = torch.compile(lambda x: torch.nn.functional.dropout(x, 0.5).sum())
    draws: list = []
    errors: list = []
    stop = threading.Event()

    def trace_often():
        try:
            for n in range(1, 13):
                compiled(torch.ones(n))
        except Exception as error:  # noqa: BLE001 -- reported below
            errors.append(error)
        stop.set()

    def draw():
        try:
            while not stop.is_set():
                draws.append(tuple(torch.rand(4).tolist()))  # (no birthday repeats)
        except Exception as error:  # noqa: BLE001 -- reported below
            errors.append(error)

    _run_threads([trace_often, draw])
    assert not errors, errors
    assert draws and len(set(draws)) == len(draws)


def _read_in_a_thread(tensor, seen: list) -> None:
    """Read `tensor`'s value and its `.grad`'s in another thread, and wait for it."""

    def read():
        try:
            seen.append((tensor.detach().numpy(), tensor.grad.numpy()))
        except Exception as error:  # noqa: BLE001 -- compared below
            seen.append(error)

    reader = threading.Thread(target=read)
    reader.start()
    reader.join()


def test_a_thread_reads_real_state_while_another_traces_a_step():
    """A compiled step gives a parameter a new `.grad` and writes the parameter in place;
    while its trace runs (both hold tracers there), another thread reads them: it reads their
    real values, and the step's results land in them after the call, as an eager step's."""
    model = torch.nn.Linear(4, 2)
    weight = model.weight
    seen: list = []

    def step(x):
        weight.grad = None  # (`zero_grad()`: the backward makes a new .grad)
        model(x).sum().backward()
        with torch.no_grad():
            weight.sub_(0.5 * weight.grad)
        if torch.compiler.is_compiling():
            _read_in_a_thread(weight, seen)

    compiled = torch.compile(step)
    compiled(torch.ones(1, 4))  # eager (the first call): .grad 1, the weight moved by -0.5
    before = weight.detach().numpy().copy()
    compiled(torch.ones(2, 4))  # traced twice, then run: .grad 2, the weight moved by -1
    assert len(seen) == 2 and not any(isinstance(state, Exception) for state in seen), seen
    for value, grad in seen:  # the state before the call
        np.testing.assert_array_equal(value, before)
        np.testing.assert_array_equal(grad, np.ones((2, 4), np.float32))
    np.testing.assert_allclose(weight.grad.numpy(), np.full((2, 4), 2.0), rtol=1e-6)
    np.testing.assert_allclose(weight.detach().numpy(), before - 1.0, rtol=1e-6)
