"""Interrupts (KeyboardInterrupt from a signal handler) during backward: `.grad` is updated all
or nothing, a retry accumulates exactly once, and grad mode is restored; a program whose first
trace an interrupt cut short, which JAX then refuses, is made anew."""

from __future__ import annotations

import functools
import gc
import signal
import sys
import time

import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._compile.entry import Entry
from autograd_compat._defer import lazy
from autograd_compat._pure.interrupts import call_through_interrupt
from autograd_compat._pure.op import registered_ops
from autograd_compat._state import modes as _modes
from autograd_compat._state.tensor import HostArrayTensor, HostView, LazyTensor
from autograd_compat._tape import host_items

pytestmark = pytest.mark.skipif(
    not hasattr(signal, "setitimer"), reason="needs signal.setitimer (POSIX)"
)

LEAVES = 300


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _graph(leaves, scales):
    """A wide graph: one mul node per leaf (each saves its inputs, so a backward frees them),
    chained by adds; the caller's tensor hook on one leaf forces the stepwise executor."""
    return sum((w * s for w, s in zip(leaves, scales)), torch.zeros(1)).sum()


def _backward_under_timer(loss, delay: float) -> bool:
    """Run `loss.backward()` with a one-shot timer that raises KeyboardInterrupt after
    `delay` seconds; True if the interrupt was raised (anywhere, even after the backward)."""
    try:
        try:
            signal.setitimer(signal.ITIMER_REAL, delay)
            loss.backward()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except KeyboardInterrupt:
        return True
    return False


def _grads(leaves) -> np.ndarray:
    return np.array([np.nan if w.grad is None else w.grad.item() for w in leaves])


@pytest.mark.parametrize("start", ["none", "existing"])
def test_interrupted_backward_is_all_or_nothing(start):
    leaves = [torch.tensor([float(i)], requires_grad=True) for i in range(LEAVES)]
    scales = [torch.tensor([float(i % 7 + 1)]) for i in range(LEAVES)]
    leaves[0].register_hook(lambda g: g)  # hooks force the stepwise executor
    expected = np.array([float(i % 7 + 1) for i in range(LEAVES)])
    previous = signal.signal(signal.SIGALRM, _interrupt)
    # an interrupt inside a gc callback (jax has one) is printed and dropped by Python, which
    # pytest turns into an error: collect between trials, not during them
    gc.collect()
    gc.disable()
    try:
        # time one backward, then spread interrupts over it (and a little past its end)
        durations = []
        for _ in range(2):  # the first one compiles
            loss = _graph(leaves, scales)
            start_time = time.perf_counter()
            loss.backward()
            durations.append(time.perf_counter() - start_time)
        duration = durations[-1]
        trials = 40
        outcomes = {"none": 0, "all": 0, "clean": 0}
        for trial in range(trials):
            for w in leaves:
                w.grad = None if start == "none" else torch.zeros(1)
            before = _grads(leaves)
            loss = _graph(leaves, scales)
            delay = max(duration * 1.2 * (trial + 0.5) / trials, 1e-5)
            interrupted = _backward_under_timer(loss, delay)
            after = _grads(leaves)
            assert torch.is_grad_enabled(), f"grad mode left off (trial {trial})"
            changed = ~np.isclose(after, before, equal_nan=True)
            assert changed.all() or not changed.any(), (
                f"trial {trial}: {int(changed.sum())} of {LEAVES} leaves accumulated"
            )
            if not interrupted:
                outcomes["clean"] += 1
                np.testing.assert_allclose(np.nan_to_num(before) + expected, after)
            elif changed.all():  # the backward had committed: the graph is freed
                outcomes["all"] += 1
                np.testing.assert_allclose(np.nan_to_num(before) + expected, after)
                with pytest.raises(RuntimeError, match="backward through the graph a second"):
                    loss.backward()
            else:  # nothing stored: the graph is intact, a retry accumulates exactly once
                outcomes["none"] += 1
                loss.backward()
                np.testing.assert_allclose(np.nan_to_num(before) + expected, _grads(leaves))
        assert sum(outcomes.values()) == trials
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        gc.enable()


def test_grad_mode_restored_when_the_backward_raises():
    x = torch.ones(3, requires_grad=True)

    def boom(g):
        raise KeyboardInterrupt

    x.register_hook(boom)
    with pytest.raises(KeyboardInterrupt):
        (x * 2).sum().backward()
    assert torch.is_grad_enabled() and x.grad is None
    loss = (x * 2).sum()
    with torch.no_grad():
        with pytest.raises(KeyboardInterrupt):
            loss.backward()
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()


def test_a_hook_error_midway_stores_nothing():
    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2, requires_grad=True)
    a.grad = torch.zeros(2)

    def fail(g):
        raise ValueError("no")

    b.register_hook(fail)
    loss = (b * 2).sum() * 0 + (a * 3).sum()  # a's accumulation is ready before b's hook
    with pytest.raises(ValueError):
        loss.backward()
    assert a.grad.tolist() == [0.0, 0.0] and b.grad is None
    assert _modes.is_grad_enabled()


def _interrupt_at_call_return(n: int, *functions):
    """A profile function that raises KeyboardInterrupt when the `n`-th C call made by one of
    `functions` returns: where a signal handler's exception surfaces (CPython runs pending
    handlers when a call returns), at every such point in turn as `n` grows."""
    codes = {f.__code__ for f in functions}
    seen = [0]

    def profile(frame, event, arg):
        if event == "c_return" and frame.f_code in codes:
            seen[0] += 1
            if seen[0] == n:
                raise KeyboardInterrupt

    return profile


def _interrupted(run, n: int, *functions) -> bool:
    """Whether `run()` was interrupted at the `n`-th C call return of `functions`."""
    sys.setprofile(_interrupt_at_call_return(n, *functions))
    try:
        run()
    except KeyboardInterrupt:
        return True
    finally:
        sys.setprofile(None)
    return False


DATA = np.linspace(-1.0, 1.0, 6, dtype=np.float32)


@pytest.mark.usefixtures("deferral_on")
def test_an_interrupt_anywhere_in_a_deferred_op_leaves_its_run_usable():
    """Ctrl-C while an op joins this thread's deferred run: the run stays unlocked (the next op
    waited on its lock for good: the suite's CI hung here) and its ops in step with their
    outputs (the values read afterwards are right)."""
    x = torch.tensor(DATA)
    for _ in range(2):  # (each op runs once at these shapes before it is deferred)
        (x * 2 + 1).sin()
    point = 1
    while True:
        a = x * 2
        assert type(a) is LazyTensor
        segment = lazy._local.segment
        out = []
        join = functools.partial(lambda a, out: out.append((a + 1).sin()), a, out)
        interrupted = _interrupted(join, point, lazy.Segment.append)
        assert not segment.lock.locked(), f"the run's lock held after an interrupt at {point}"
        np.testing.assert_allclose((a + 1).sin().numpy(), np.sin(DATA * 2 + 1), rtol=1e-6)
        np.testing.assert_allclose(a.numpy(), DATA * 2, rtol=1e-6)
        if not interrupted:
            np.testing.assert_allclose(out[0].numpy(), np.sin(DATA * 2 + 1), rtol=1e-6)
            break
        point += 1
    assert point > 4  # interrupted at that many points of the two ops' appends


@pytest.mark.usefixtures("deferral_on")
def test_an_interrupt_anywhere_in_a_flush_leaves_the_values_to_compute():
    """Ctrl-C while a deferred run is computed (op by op, and as its compiled program): the
    read raises, the run is unlocked, and a later read computes the right values."""
    x = torch.tensor(DATA)
    for _ in range(2):
        (x * 2 + 1).sin()
    for compiled in (False, True):
        point = 1
        while True:
            a = x * 2
            b = (a + 1).sin()
            segment = lazy._local.segment
            steps = lazy.Segment.flush, lazy.Segment._run, lazy._run_plan, lazy._hand_out
            interrupted = _interrupted(b.numpy, point, *steps)
            assert not segment.lock.locked(), f"the run's lock held after an interrupt at {point}"
            np.testing.assert_allclose(b.numpy(), np.sin(DATA * 2 + 1), rtol=1e-6)
            np.testing.assert_allclose(a.numpy(), DATA * 2, rtol=1e-6)
            if not interrupted:
                break
            point += 1
        assert point > 2
        if not compiled:  # meet the run until it is compiled
            for _ in range(lazy.COMPILE_AFTER):
                (x * 2 + 1).sin().numpy()


def _donating_step():
    """A compiled SGD-momentum step whose parameters and buffers the program replaces
    (donated: XLA writes the new values over the old buffers)."""
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x, y = torch.randn(16, 4), torch.randn(16, 2)

    @torch.compile
    def step():
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        return loss

    for _ in range(3):  # eager, traced, then the donating program
        step()
    tensors = lambda: [*model.parameters(), *(s["momentum_buffer"] for s in opt.state.values())]  # noqa: E731
    return step, tensors


def test_an_interrupt_anywhere_in_a_donating_compiled_step_keeps_every_tensor_whole():
    """Ctrl-C at every point of a compiled call whose program consumed the old buffers: each
    tensor is readable afterwards, the call's writes happened all or not at all, and the next
    call trains on (the parameters were left on deleted buffers: 'Array has been deleted')."""
    step, tensors = _donating_step()
    points = (
        Entry.run,
        Entry._run_locked,
        Entry._program_results,
        Entry._run_program,
        call_through_interrupt,
    )
    point = 1
    while True:
        before = [t.detach().numpy().copy() for t in tensors()]
        interrupted = _interrupted(step, point, *points)
        after = [t.detach().numpy() for t in tensors()]  # raises on a deleted buffer
        changed = [not np.array_equal(a, b) for a, b in zip(after, before)]
        assert all(changed) or not any(changed), f"a partial write at point {point}"
        assert np.isfinite(step().item())
        if not interrupted:
            break
        point += 1
    assert point > 3


def test_an_interrupt_anywhere_in_host_item_writes_keeps_the_tensor_and_its_views_whole():
    """Ctrl-C while item writes move a tensor to the host and back (`_tape/host_items`):
    every write happened or did not, and the tensor, an op reading it and its view agree."""
    steps = (
        host_items.set_item,
        host_items.get_item,
        host_items.add_number,
        host_items._to_host,
        host_items.HostBuffer._root_value,
        HostArrayTensor._to_device,
        HostView._to_device,
    )
    point = 1
    while True:
        n = torch.zeros((2, 3), dtype=torch.int32)
        n[0, 0] += 1
        row = n[1]

        def writes(n=n, row=row):
            n[1, 2] += 1
            row[0] = 5
            assert (n * 1).sum().item() > 0  # the device array again
            n[0, 1] = 3  # the host again, the view following it

        interrupted = _interrupted(writes, point, *steps)
        values = n.tolist()
        assert values == (n + 0).tolist() and row.tolist() == values[1]
        assert values[0][0] == 1 and values[1][2] in (0, 1) and values[0][1] in (0, 3)
        n[1, 1] = 7
        assert row.tolist()[1] == 7 and (n + 0).tolist()[1][1] == 7 and row[1].item() == 7
        if not interrupted:
            break
        point += 1
    assert point > 5


def _refused(*args):
    """What jaxlib 0.10.2 raises at every call of a function whose first trace an interrupt
    cut short."""
    raise RecursionError("Recursively calling <weakref at 0x1; to 'functools.partial' at 0x2>")


def test_an_op_whose_program_jax_refuses_after_an_interrupt_runs_anew(monkeypatch):
    monkeypatch.setattr(lazy, "ENABLED", False)  # every op at its call, through its program
    x = torch.linspace(-1.0, 1.0, 20000)
    expected = torch.exp(x).numpy()
    op = registered_ops()["exp"]
    try:
        op._compiled[()] = _refused  # exp has no static arguments: its one key
        np.testing.assert_array_equal(torch.exp(x).numpy(), expected)
        assert op._compiled[()] is not _refused
        op._compiled[()] = _deep
        with pytest.raises(RecursionError, match="maximum recursion"):  # others propagate
            torch.exp(x)
    finally:
        op.forget(())


def _deep(*args):
    raise RecursionError("maximum recursion depth exceeded")


@pytest.mark.usefixtures("deferral_on")
def test_a_deferred_run_whose_program_jax_refuses_runs_op_by_op(monkeypatch):
    x = torch.ones(4)
    refused = []

    def program(key, function, options, cost=0.0):
        refused.append(key)
        return _refused

    def run():
        return ((x * 2 + 1) * 3).sum().item()

    expected = run()
    monkeypatch.setattr(lazy, "_program", program)
    assert run() == expected
    assert refused  # the run met its refused program, and went op by op
