"""Deferred ops (`_defer/lazy.py`): what batching eager ops into one XLA call could break.

Each test checks values against the same code with deferral off (ops run at their call), and
gradients against jax.grad and real PyTorch where the test is about numbers.
"""

from __future__ import annotations

import inspect
import io
import os
import re
import subprocess
import sys
import threading
import weakref
from collections import OrderedDict

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._defer import lazy
from autograd_compat._state.tensor import LazyTensor
from autograd_compat._tape import fused

DATA = np.array([0.3, -1.2, 0.8, 2.0], np.float32)  # one shape for the whole file


pytestmark = pytest.mark.usefixtures("deferral_on")


@pytest.fixture
def eager_only(monkeypatch):
    """Run the body with deferral off: every op at its call."""
    monkeypatch.setattr(lazy, "ENABLED", False)


def _chain(lib, data, rounds: int = 5):
    x = lib.tensor(data, requires_grad=True)
    y = x
    for _ in range(rounds):
        y = (y * 1.01 + 0.1).sin().tanh()
    out = y.sum()
    out.backward()
    return out.item(), x.grad.numpy()


def _chain_jax(x, rounds: int = 5):
    y = x
    for _ in range(rounds):
        y = jnp.tanh(jnp.sin(y * 1.01 + 0.1))
    return y.sum()


def test_a_hot_chain_is_deferred_and_matches_jax_grad_and_pytorch(real_torch):
    results = [_chain(torch, DATA) for _ in range(fused.FUSE_AFTER + 2)]  # cold, then fused
    value, grad = jax.value_and_grad(_chain_jax)(DATA)
    for out, g in results:
        chex.assert_trees_all_close((out, g), (float(value), np.asarray(grad)), rtol=1e-6)
    np.testing.assert_allclose(results[-1][1], _chain(real_torch, DATA)[1], rtol=1e-5)


def test_deferred_values_match_the_ops_run_one_by_one(monkeypatch):
    deferred = [_chain(torch, DATA) for _ in range(3)]
    monkeypatch.setattr(lazy, "ENABLED", False)
    eager = _chain(torch, DATA)
    for out, grad in deferred:
        np.testing.assert_allclose(out, eager[0], rtol=1e-6)
        np.testing.assert_allclose(grad, eager[1], rtol=1e-6)


def _chain_numpy(x, rounds: int = 5):
    for _ in range(rounds):
        x = np.tanh(np.sin(x * 1.01 + 0.1))
    return x.sum()


def test_the_chain_matches_float64_finite_differences():
    data = DATA.astype(np.float64)
    for _ in range(3):
        _, grad = _chain(torch, data)
    eps = 1e-6
    numeric = [
        (_chain_numpy(data + eps * e) - _chain_numpy(data - eps * e)) / (2 * eps)
        for e in np.eye(len(data))
    ]
    assert grad.dtype == np.float64
    np.testing.assert_allclose(grad, numeric, rtol=1e-7)


def test_an_op_is_deferred_only_once_it_ran_at_its_shapes():
    x = torch.tensor(DATA) * 3.0  # an eager run of mul at these shapes (or deferred if known)
    for _ in range(2):
        y = x.cos()
    assert type(y) is LazyTensor
    assert type(y._stored) is lazy.Pending


def test_metadata_reads_compute_nothing():
    x = torch.tensor(DATA)
    for _ in range(2):
        y = x.exp() + 1
    assert type(y) is LazyTensor
    assert y.shape == (4,) and y.dtype is torch.float32 and y.dim() == 1 and y.numel() == 4
    assert y.size(0) == 4 and y.ndim == 1 and len(y) == 4
    assert y.device == torch.device("cpu") and y.to(y.device) is y  # (one device here)
    assert type(y._stored) is lazy.Pending  # still not computed
    np.testing.assert_allclose(y.numpy(), np.exp(DATA) + 1, rtol=1e-6)
    assert type(y) is torch.Tensor  # read: a plain tensor from now on


def test_a_shape_error_is_raised_at_the_op_that_causes_it():
    a = torch.tensor(DATA)
    for _ in range(2):
        b = a * 2
    with pytest.raises(RuntimeError, match="must match the size"):
        b + torch.ones(3)


def test_an_intermediate_the_caller_keeps_gets_its_value_after_a_fused_backward():
    for _ in range(fused.FUSE_AFTER + 2):
        x = torch.tensor(DATA, requires_grad=True)
        kept = x.sin()  # saved by the next node and referenced here
        out = (kept * kept).sum()
        out.backward()
        np.testing.assert_allclose(kept.detach().numpy(), np.sin(DATA), rtol=1e-6)
        np.testing.assert_allclose(x.grad.numpy(), 2 * np.sin(DATA) * np.cos(DATA), rtol=1e-6)
        np.testing.assert_allclose(out.item(), np.sum(np.sin(DATA) ** 2), rtol=1e-6)


def test_a_kept_graph_backs_up_twice_after_a_fused_backward():
    for _ in range(fused.FUSE_AFTER + 2):
        x = torch.tensor(DATA, requires_grad=True)
        out = (x.sin() * x).sum()
        out.backward(retain_graph=True)
        out.backward()
        expected = 2 * (np.cos(DATA) * DATA + np.sin(DATA))
        np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)


def test_a_freed_graph_still_fails_a_second_backward():
    for _ in range(fused.FUSE_AFTER + 2):
        x = torch.tensor(DATA, requires_grad=True)
        out = (x.sin() * x).sum()
        out.backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            out.backward()


def test_an_in_place_change_of_a_deferred_saved_value_fails_backward():
    for _ in range(fused.FUSE_AFTER + 2):
        x = torch.tensor(DATA, requires_grad=True)
        y = x * 2
        z = (y * y).sum()
        y.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.backward()


def test_an_in_place_op_on_a_deferred_tensor_writes_its_value():
    for _ in range(3):
        y = torch.tensor(DATA) * 2
        y.mul_(3)
        y += 1
    np.testing.assert_allclose(y.numpy(), DATA * 6 + 1, rtol=1e-6)
    assert y._version == 2


def _in_place_chain(lib, data):
    x = lib.tensor(data, requires_grad=True)
    y = x * 1.0
    for _ in range(5):
        y.mul_(1.01).add_(0.1).sin_()
    out = y.sum()
    out.backward()
    return out.item(), x.grad.numpy()


def test_a_run_of_in_place_ops_stays_deferred_and_matches_jax_and_pytorch(real_torch):
    for _ in range(3):  # (the first learns the ops' shapes)
        y = torch.tensor(DATA) * 1.0
        y.mul_(2).add_(1)
    assert type(y) is LazyTensor  # written unread: the run goes on
    np.testing.assert_allclose(y.numpy(), DATA * 2 + 1, rtol=1e-6)
    value, grad = _in_place_chain(torch, DATA)

    def f(x):
        for _ in range(5):
            x = jnp.sin(x * 1.01 + 0.1)
        return x.sum()

    chex.assert_trees_all_close(value, f(DATA), rtol=1e-6)
    chex.assert_trees_all_close(grad, jax.grad(f)(DATA), rtol=1e-5)
    expected_value, expected_grad = _in_place_chain(real_torch, DATA)
    np.testing.assert_allclose(value, expected_value, rtol=1e-6)
    np.testing.assert_allclose(grad, expected_grad, rtol=1e-5)


def test_a_deferred_in_place_write_keeps_version_checks_and_views():
    for _ in range(3):
        x = torch.tensor(DATA, requires_grad=True)
        y = x * 1.0
        z = y.exp()  # saves its result
        w = (y * y).sum()  # saves y
        y.mul_(2)  # deferred, unread
        assert y._version == 1
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            w.backward(retain_graph=True)
        v = torch.tensor(DATA) * 1.0
        view = v[1:]
        v.add_(1)  # through a view's base: the view sees the write
        np.testing.assert_allclose(view.numpy(), DATA[1:] + 1, rtol=1e-6)
        z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(DATA), rtol=1e-6)


def test_an_op_on_a_committed_value_runs_at_its_call_and_reuses_its_node_recipe():
    """An input committed to a device (a JAX array placed with `jax.device_put`) keeps its
    placement (the op is not deferred), and the op's nodes at the same shapes share one
    `Step`, as deferred ops' do."""
    value = jax.device_put(jnp.asarray(DATA), jax.devices()[0])
    x = torch.Tensor._wrap(value).requires_grad_()
    assert x._value.committed
    nodes = []
    for _ in range(3):
        y = x.cos()
        assert type(y) is not LazyTensor and y._value.committed
        nodes.append(y.grad_fn)
    assert nodes[1].hot is nodes[2].hot
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), -np.sin(DATA), rtol=1e-6)


@pytest.mark.parametrize("make", ["factory", "load", "to"])
def test_a_tensor_placed_on_the_one_device_stays_uncommitted_and_its_ops_defer(make):
    """A factory given `device=`, a checkpoint loaded with `map_location`, `.to(device)`:
    on a process with one device the value is left uncommitted (placement says nothing
    there), so the ops on it still defer. Committed, a model whose position ids are made
    `device=input_ids.device` ran every op of every later step at its call."""
    if make == "factory":
        x = torch.tensor(DATA, device="cpu")
    elif make == "load":
        buffer = io.BytesIO()
        torch.save(torch.tensor(DATA), buffer)
        buffer.seek(0)
        x = torch.load(buffer, map_location="cpu")
    else:
        x = torch.tensor(DATA).to(torch.ones(1).device)
    x.requires_grad_()
    assert not x._value.committed
    for _ in range(3):
        y = x.cos()
    assert type(y) is LazyTensor
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), -np.sin(DATA), rtol=1e-6)


def test_only_an_uncommitted_or_deferred_value_is_replaced_unread():
    array = jnp.asarray(DATA)
    assert lazy.replaces(array)
    assert not lazy.replaces(jax.device_put(array, jax.devices()[0]))  # keeps its device
    for _ in range(3):
        deferred = torch.tensor(DATA) * 2
    assert lazy.replaces(deferred._stored)
    assert not lazy.replaces(DATA)  # a host copy: the write makes it a device array


def test_an_in_place_op_on_a_parameter_computes_its_value():
    p = torch.nn.Parameter(torch.tensor(DATA))
    for _ in range(3):
        with torch.no_grad():
            p.mul_(2)
        assert type(p) is torch.nn.Parameter  # a user's class is never changed
    np.testing.assert_allclose(p.detach().numpy(), DATA * 8, rtol=1e-6)


def _zeroed_steps(lib, data):
    """Backward with a deferred seed, `.grad` zeroed in place between steps (deferred too)."""
    x = lib.tensor(data, requires_grad=True)
    grads = []
    for _ in range(5):
        v = lib.tensor(data) * 0.5
        ((x * 2).sin() * 3).backward(v)
        grads.append(x.grad.numpy().copy())
        with lib.no_grad():
            x.grad.zero_()
    return x, grads


def test_a_deferred_seed_and_a_deferred_grad_feed_the_fused_backward(real_torch):
    x, grads = _zeroed_steps(torch, DATA)  # (a deferred seed failed: "not a valid JAX type")
    assert type(x.grad) is LazyTensor  # zeroed unread
    _, expected = _zeroed_steps(real_torch, DATA)
    np.testing.assert_allclose(grads, expected, rtol=1e-6)
    want = jax.grad(lambda x: jnp.vdot(jnp.sin(x * 2) * 3, DATA * 0.5))(DATA)
    chex.assert_trees_all_close(grads[-1], want, rtol=1e-6)


def test_a_compiled_model_reads_parameters_written_by_deferred_in_place_ops():
    """The "new autograd functions" tutorial's loop: a compiled model whose parameter the
    step writes in place; its call must not be deferred into the run holding that write."""
    result = {}

    def steps():
        a = torch.tensor(0.5, requires_grad=True)
        model = torch.compile(lambda x: a * x.sin())
        for _ in range(6):
            model(torch.tensor(DATA)).sum().backward()
            with torch.no_grad():
                a -= 0.1 * a.grad
                a.grad = None
        result["a"] = a.item()

    thread = threading.Thread(target=steps, daemon=True)
    thread.start()
    thread.join(120)
    assert not thread.is_alive()  # (it waited on its own run's lock for good)
    expected = np.float32(0.5)
    for _ in range(6):
        expected -= np.float32(0.1) * np.sin(DATA).sum(dtype=np.float32)
    np.testing.assert_allclose(result["a"], expected, rtol=1e-5)


def test_a_shared_constant_is_not_changed_through_a_tensor_built_from_it():
    for _ in range(3):
        a = torch.ones(4) * 1.0
        a.add_(5)
    assert torch.ones(4).sum().item() == 4.0
    np.testing.assert_allclose(a.numpy(), 6.0)


def test_double_backward_through_deferred_ops_matches_jax():
    def f(x):
        return jnp.sum(jnp.sin(x) * x**3)

    expected = jax.grad(lambda x: jnp.sum(jax.grad(f)(x)))(DATA)
    for _ in range(3):
        x = torch.tensor(DATA, requires_grad=True)
        (g,) = torch.autograd.grad((torch.sin(x) * x**3).sum(), x, create_graph=True)
        g.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-5)


def test_a_create_graph_backward_defers_its_vjp_ops_on_the_deferred_forward():
    """grad(create_graph=True) computes nothing: its vjp ops chain on the deferred forward, so
    the backward that follows computes the forward and both derivatives in one program."""

    def f(x):
        return jnp.sum(jnp.sin(x) * x**3)

    first = jax.grad(f)(DATA)
    second = jax.grad(lambda x: jnp.sum(jax.grad(f)(x)))(DATA)
    for step in range(lazy.COMPILE_AFTER + 1):
        x = torch.tensor(DATA, requires_grad=True)
        y = torch.sin(x) * x**3
        (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
        if step > 0:  # (the first run learns the ops' shapes)
            assert type(g) is LazyTensor and y._stored.array is None  # nothing computed yet
        g.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), second, rtol=1e-5)
        np.testing.assert_allclose(g.detach().numpy(), first, rtol=1e-5)


def test_a_long_run_of_ops_is_flushed_in_segments():
    x = torch.tensor(DATA)
    y = x
    for _ in range(lazy.MAX_OPS * 2 + 7):
        y = y * 1.0001
    np.testing.assert_allclose(y.numpy(), DATA * np.float32(1.0001) ** (lazy.MAX_OPS * 2 + 7), 1e-4)


def test_a_segment_is_flushed_once_the_arrays_it_reads_pass_its_bound(monkeypatch):
    monkeypatch.setattr(lazy, "MAX_HELD_BYTES", 3 * DATA.nbytes)
    arrays, sums = [], []
    for k in range(20):
        batch = torch.tensor(DATA * k)
        sums.append(batch.sum())  # deferred from the second batch on: it holds the batch
        arrays.append(weakref.ref(batch._stored))
        del batch
    assert type(sums[-1]) is LazyTensor
    assert sum(ref() is not None for ref in arrays) <= 5  # not the 20 a segment would hold
    np.testing.assert_allclose([s.item() for s in sums], DATA.sum() * np.arange(20), rtol=1e-5)


def test_a_deferred_tensor_is_read_in_another_thread():
    for _ in range(2):
        y = torch.tensor(DATA).sin() * 2
    assert type(y) is LazyTensor
    seen = []
    thread = threading.Thread(target=lambda: seen.append(y.numpy()))
    thread.start()
    thread.join()
    np.testing.assert_allclose(seen[0], np.sin(DATA) * 2, rtol=1e-6)


def test_threads_defer_into_their_own_segments():
    results: dict = {}

    def work(k: int) -> None:
        x = torch.tensor(DATA, requires_grad=True)
        for _ in range(20):
            out = ((x * k).sin() * 2).sum()
            out.backward()
        results[k] = x.grad.numpy()

    threads = [threading.Thread(target=work, args=(k,)) for k in (1, 2, 3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for k in (1, 2, 3):
        np.testing.assert_allclose(results[k], 20 * 2 * k * np.cos(DATA * k), rtol=1e-5)


def test_an_op_read_at_once_stops_being_deferred():
    x = torch.tensor(DATA)
    for _ in range(3):
        y = x.atan()
        y.numpy()  # a segment of one op, read right away
    assert type(x.atan()) is torch.Tensor  # now runs at its call


def _read_at_once_each(x):
    """Run each op of `_chain`'s round once and read its result at once (printed cells)."""
    for op in (lambda t: t * 1.01, lambda t: t + 0.1, torch.sin, torch.tanh):
        for _ in range(3):
            op(x).numpy()  # (the first call learns its shapes, the second is deferred, read)


def test_ops_read_at_once_are_deferred_again_after_some_calls(monkeypatch):
    x = torch.tensor(DATA)
    _read_at_once_each(x)
    assert type(x * 1.01) is torch.Tensor and type(torch.tanh(x)) is torch.Tensor
    monkeypatch.setattr(lazy, "REDEFER_AFTER", 7)
    lazy._calls_left[0] = 7
    for _ in range(5):  # 5 calls of marked ops: still run at their call
        x * 1.01
    assert type(torch.tanh(x)) is torch.Tensor
    x * 1.01  # the 7th call: every marked op is deferred again, the ones around it too
    for op in (lambda t: t * 1.01, lambda t: t + 0.1, torch.sin, torch.tanh):
        assert type(op(x)) is LazyTensor
    assert lazy._calls_left[0] == 7 and not lazy._at_once


def test_a_chain_of_ops_once_read_at_once_is_deferred_again_with_the_same_values(monkeypatch):
    monkeypatch.setattr(lazy, "REDEFER_AFTER", 20)
    lazy._calls_left[0] = 20
    _read_at_once_each(torch.tensor(DATA))
    expected = _chain(torch, DATA)  # 20 ops at their call: the 20th defers them again
    appended = []
    monkeypatch.setattr(lazy.Segment, "append", _counting(lazy.Segment.append, appended))
    value, grad = _chain(torch, DATA)
    forward = [args for args in appended if args[0] is appended[0][0]]  # (its segment's)
    assert len(forward) == 21  # the chain's 20 ops and its sum
    np.testing.assert_allclose(value, expected[0], rtol=1e-6)  # (a run computed in its
    np.testing.assert_allclose(grad, expected[1], rtol=1e-6)  # backward's program: an ulp)


def _counting(function, calls: list):
    def counted(*args):
        calls.append(args)
        return function(*args)

    return counted


def test_the_ops_marked_as_read_at_once_are_forgotten_with_the_shapes_they_belong_to(
    monkeypatch,
):
    _read_at_once_each(torch.tensor(DATA))
    assert len(lazy._at_once) == 4
    monkeypatch.setattr(lazy, "SHAPE_CACHE", len(lazy._shapes))
    torch.tensor(DATA[:3]).cos()  # a new shape learnt: the full shape cache is emptied
    assert not lazy._at_once


def test_a_run_of_two_ops_read_at_once_runs_at_the_call_and_of_three_stays_deferred():
    x = torch.tensor(DATA)
    for _ in range(3):
        x.atan().exp().numpy()  # two ops, read right away (`total += y.sum().item()`)
        x.cos().sin().neg().numpy()  # three
    assert type(x.atan()) is torch.Tensor and type(x.exp()) is torch.Tensor
    assert type(x.cos()) is LazyTensor and type(x.neg()) is LazyTensor


def test_a_read_by_an_op_learning_its_shapes_keeps_the_producer_deferred():
    x = torch.tensor(DATA)
    x.cosh()  # runs at its call, learning its shapes
    y = x.cosh()  # deferred: a segment of one op
    y.asinh()  # asinh runs at its call to learn its shapes, and reads y: a warm-up read
    assert type(x.cosh()) is LazyTensor


def test_a_deferred_value_read_inside_a_trace_is_a_constant_of_it():
    for _ in range(2):
        c = torch.tensor(DATA).cos()
    assert type(c) is LazyTensor

    def f(x):
        return (x * c).sum()

    grad = torch.func.grad(f)(torch.tensor(DATA))
    np.testing.assert_allclose(grad.numpy(), np.cos(DATA), rtol=1e-6)


@pytest.mark.parametrize(("value", "enabled"), [(None, True), ("1", True), ("0", False)])
def test_deferral_is_on_unless_the_environment_switches_it_off(value, enabled):
    env = {k: v for k, v in os.environ.items() if k != lazy.ENV}
    if value is not None:
        env[lazy.ENV] = value
    script = "from autograd_compat._defer import lazy; print(lazy.ENABLED)"
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(enabled)


def test_deferral_off_runs_every_op_at_its_call(eager_only):
    for _ in range(3):
        y = torch.tensor(DATA).sin()
    assert type(y) is torch.Tensor
    assert _chain(torch, DATA)[0] == pytest.approx(float(_chain_jax(DATA)), rel=1e-6)


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: XLA splits no loop anyway")
def test_deferred_programs_compile_without_splitting_loops_across_threads():
    """The compile options of deferred runs turn off XLA:CPU's parallel task assigner (by its
    pass name, which a jaxlib upgrade could change): a loop it splits by default stays whole."""

    def f(a, b):
        return jnp.tanh(a) * b + jnp.exp(a) * jnp.sin(b)

    x = np.ones((256, 256), np.float32)
    split = re.compile(r'outer_dimension_partitions":\["')
    for options, splits in (({}, True), (lazy.FUSED, False)):
        text = jax.jit(f, compiler_options=options).lower(x, x).compile().as_text()
        assert bool(split.search(text)) is splits, options


def test_a_value_another_thread_computes_while_it_is_read_is_returned():
    """Two threads read one deferred value: the other's flush can hand the array out between
    this read's look at the array and at its run (a `Pending`'s run is dropped once it has its
    array). Played in one thread: the flush runs at that line of `Pending.result`."""
    for _ in range(2):
        y = torch.tensor(DATA).sin() * 2
    pending = y._stored
    assert type(pending) is lazy.Pending and pending.array is None
    code = lazy.Pending.result.__code__
    line = code.co_firstlineno + next(
        i
        for i, text in enumerate(inspect.getsource(lazy.Pending.result).splitlines())
        if "segment = self.segment" in text
    )

    def trace(frame, event, arg):
        if frame.f_code is code:
            if event == "line" and frame.f_lineno == line:
                pending.segment.flush()  # (the other thread's read)
            return trace
        return None

    sys.settrace(trace)
    try:
        value = pending.result()
    finally:
        sys.settrace(None)
    np.testing.assert_allclose(value, np.sin(DATA) * 2, rtol=1e-6)


def test_a_run_another_thread_evicts_while_it_is_looked_up_still_runs(monkeypatch):
    class EvictedOnLookup(OrderedDict):
        """The run counts as another thread's flush leaves them: it evicts each key just
        after this thread looked it up."""

        def get(self, key, default=None):
            value = super().get(key, default)
            self.pop(key, None)
            return value

    monkeypatch.setattr(lazy, "_programs", EvictedOnLookup())
    programs = [lazy._program("run", lambda x: x + 1, {}) for _ in range(lazy.COMPILE_AFTER + 1)]
    assert programs[: lazy.COMPILE_AFTER - 1] == [None] * (lazy.COMPILE_AFTER - 1)
    assert programs[-1] is programs[-2] is not None
    assert int(programs[-1](1)) == 2


def test_a_run_with_complex_values_gives_the_ops_own_values_from_every_meeting():
    """Complex runs compile as every run does (XLA:CPU laid a transposed complex array out
    wrongly before a reshape only with its fusion pass off, which no run turns off)."""
    rng = np.random.default_rng(0)
    z = (rng.standard_normal((2, 4, 3)) + 1j * rng.standard_normal((2, 4, 3))).astype(np.complex64)
    x = torch.tensor(z)
    expected = np.transpose(z * 2, (2, 0, 1)).reshape(-1)
    for _ in range(lazy.COMPILE_AFTER + 2):
        np.testing.assert_array_equal((x * 2).permute(2, 0, 1).flatten().numpy(), expected)
        einsum = torch.einsum("bij->bji", x * 2).reshape(-1)
        np.testing.assert_array_equal(einsum.numpy(), np.swapaxes(z * 2, 1, 2).reshape(-1))


def _mul_add_chain(x, rounds: int = 100):
    for _ in range(rounds):
        x = x * 1.0001 + 0.0001
    return x


def test_a_compiled_run_rounds_each_op_as_its_own_program(monkeypatch):
    """XLA:CPU contracts a multiply feeding an add into one fused multiply-add, rounded once:
    a run's program keeps each op's own rounding (`_pure/op_rounding`), bit for bit, in
    float32 and float64, where the same chain in one plain jitted program does not."""
    for dtype in (np.float32, np.float64):
        data = DATA.astype(dtype)
        runs = [_mul_add_chain(torch.tensor(data)).numpy() for _ in range(lazy.COMPILE_AFTER + 1)]
        monkeypatch.setattr(lazy, "ENABLED", False)
        eager = _mul_add_chain(torch.tensor(data)).numpy()
        monkeypatch.setattr(lazy, "ENABLED", True)
        for run in runs:
            np.testing.assert_array_equal(run, eager)
        assert not np.array_equal(jax.jit(_mul_add_chain)(data), eager)  # (contracted)


def test_a_forward_computed_in_its_backward_program_rounds_as_its_ops(monkeypatch):
    """A hot step's deferred forward runs inside its backward's program
    (`lazy.call_with_deferred`) and hands out the values still referenced: each op's own
    rounding there too."""
    computed_inside = []
    call_with_deferred = lazy.call_with_deferred

    def counted(*args, **kwargs):
        result = call_with_deferred(*args, **kwargs)
        computed_inside.append(result is not None)
        return result

    monkeypatch.setattr(lazy, "call_with_deferred", counted)

    def step():
        x = torch.tensor(DATA, requires_grad=True)
        y = x
        for _ in range(20):
            y = _mul_add_chain(y, 2).sin()  # (sin saves its input: the backward reads the run)
        y.sum().backward()
        return y.detach().numpy(), x.grad.numpy()

    runs = [step() for _ in range(fused.FUSE_AFTER + lazy.COMPILE_AFTER + 1)]
    assert computed_inside[-1]
    monkeypatch.setattr(lazy, "ENABLED", False)
    value, grad = step()
    for y, g in runs:
        np.testing.assert_array_equal(y, value)
        np.testing.assert_allclose(g, grad, rtol=1e-6)


def test_a_view_of_a_deferred_value_leaves_its_run_deferred(monkeypatch):
    """`view` of a deferred tensor is a view of memory not yet computed (`PendingBuffer`): its
    run stays open, and a write through the view reaches the base as in PyTorch."""
    for meeting in range(3):
        y = torch.tensor(DATA).sin()
        v = y.view(2, 2)
        if meeting:  # (the first call of an op at new shapes runs at once)
            assert type(y) is LazyTensor and y._stored.array is None
        assert v._base is y
        w = (v * 2).flatten()
        np.testing.assert_array_equal(w.numpy(), y.numpy() * 2)
        v[0].add_(1)
        assert y._version == v._version == 1
    monkeypatch.setattr(lazy, "ENABLED", False)
    eager = torch.tensor(DATA).sin()
    np.testing.assert_array_equal(y.numpy(), eager.numpy() + np.array([1, 1, 0, 0], np.float32))


def test_a_compiled_run_moves_subnormal_values_unchanged():
    """The seams between a run's ops keep every bit: a subnormal (which XLA:CPU's float
    arithmetic flushes to zero) that ops only move stays what it is, as op by op."""
    data = np.array([1e-45, -1e-45, 1.0, 2.0], np.float32)
    expected = np.concatenate([data[::-1], data]).view(np.uint32)
    for _ in range(lazy.COMPILE_AFTER + 1):
        x = torch.tensor(data)
        moved = torch.cat([x.flip(0), x]).view(2, 4).flatten()
        np.testing.assert_array_equal(moved.numpy().view(np.uint32), expected)
