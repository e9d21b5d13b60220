"""Memory: what a backward frees, and that training loops and create_graph don't leak.

- backward() without retain_graph releases the arrays the graph saved (counted among
  jax.live_arrays() by a shape no other test uses) and the graph's nodes die with the last
  tensor that refers to them;
- a 10,000-step training loop of two parameters keeps the number of live arrays, of Python
  objects and the process RSS flat (and tracemalloc shows no growth over 1,000 steps);
- backward(create_graph=True) makes the cycle leaf -> .grad -> graph -> leaf (PyTorch warns
  about it); the garbage collector must be able to free it: nothing in gc.garbage and the
  weakrefs to the leaf and the nodes die after del + gc.collect().
"""

from __future__ import annotations

import gc
import os
import textwrap
import tracemalloc
import weakref

import jax
import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._defer import lazy
from tests._helpers.fresh_process import run_json

MARK = (7, 13)  # a shape only these tests use, to count our arrays among all live ones


def _marked_arrays() -> int:
    return sum(1 for a in jax.live_arrays() if a.shape == MARK)


def _nodes(tensor) -> list:
    """Every node of the graph below `tensor` (grad_fn and what it reaches)."""
    seen, stack = [], [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or any(node is s for s in seen):
            continue
        seen.append(node)
        stack.extend(n for n, _ in node.next_functions)
    return seen


@pytest.fixture
def leaves():
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.standard_normal(MARK).astype(np.float32), requires_grad=True)
    w = torch.tensor(rng.standard_normal(MARK).astype(np.float32), requires_grad=True)
    x.jax(), w.jax()  # device arrays now (a small leaf waits on the host until first read)
    return x, w


def test_backward_releases_saved_arrays(leaves):
    x, w = leaves
    gc.collect()
    baseline = _marked_arrays()
    # Intermediates held only by the graph: exp(x), sin(exp(x)) * w, tanh(...)
    y = ((x.exp().sin() * w).tanh() * x).sum()
    held = _marked_arrays() - baseline
    assert held >= 3, held  # the graph keeps saved intermediates alive
    y.backward()
    gc.collect()
    # What is left: x.grad and w.grad (y is a scalar, of another shape)
    assert _marked_arrays() - baseline == 2, (held, _marked_arrays() - baseline)


def test_retain_graph_keeps_saved_arrays_until_the_last_backward(leaves):
    x, w = leaves
    gc.collect()
    baseline = _marked_arrays()
    y = ((x.exp().sin() * w).tanh() * x).sum()
    y.item()  # computes the forward (small ops may be deferred until read, `_defer/lazy`)
    held = _marked_arrays() - baseline
    y.backward(retain_graph=True)
    gc.collect()
    assert _marked_arrays() - baseline == held + 2  # saved arrays kept, plus the two grads
    y.backward()
    gc.collect()
    assert _marked_arrays() - baseline == 2


def test_graph_nodes_die_with_their_tensors_without_gc(leaves):
    """No reference cycles in an ordinary graph: refcounting alone frees it, as in PyTorch."""
    x, w = leaves
    y = ((x.exp() * w).sin() + x).sum()
    refs = [weakref.ref(n) for n in _nodes(y) if type(n).__name__ != "AccumulateGrad"]
    assert len(refs) >= 4
    y.backward()
    gc.disable()
    try:
        del y
        assert [r() for r in refs] == [None] * len(refs)
    finally:
        gc.enable()


def test_autograd_grad_releases_saved_arrays(leaves):
    x, w = leaves
    gc.collect()
    baseline = _marked_arrays()
    y = ((x.exp().sin() * w).tanh() * x).sum()
    gx, gw = torch.autograd.grad(y, [x, w])
    gc.collect()
    assert _marked_arrays() - baseline == 2  # gx and gw
    del gx, gw
    gc.collect()
    assert _marked_arrays() == baseline


# 10,000 SGD steps on two parameters, counted at steps 1,000 and 10,000. In a process of its own:
# in the suite's, an op that an earlier test read at once runs at its call until 1,024 calls have
# passed (`_defer/lazy.REDEFER_AFTER`), so the loop's run could change and compile once after
# step 1,000, and JAX's caches grow by that one program's objects.
TRAINING_LOOP = textwrap.dedent(
    """
    import gc, json, os
    import jax
    import autograd_compat as torch

    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    w = torch.tensor(0.5, requires_grad=True)
    b = torch.tensor(0.0, requires_grad=True)
    x = torch.tensor([1.0, 2.0, 3.0])
    y = torch.tensor([2.0, 4.1, 5.9])
    checkpoints = {}
    for step in range(1, 10_001):
        loss = ((x * w + b - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= 0.01 * w.grad
            b -= 0.01 * b.grad
        w.grad = None
        b.grad = None
        if step in (1_000, 10_000):
            gc.collect()
            checkpoints[step] = {
                "arrays": len(jax.live_arrays()), "objects": len(gc.get_objects()), "rss": rss()
            }
    print(json.dumps({"checkpoints": checkpoints, "w": w.item(), "b": b.item()}))
    """
)


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="RSS is read from /proc")
def test_training_loop_10k_steps_is_flat():
    """10,000 SGD steps on two parameters: live arrays, Python objects and RSS stay flat."""
    result = run_json(TRAINING_LOOP)
    first, last = result["checkpoints"]["1000"], result["checkpoints"]["10000"]
    assert last["arrays"] <= first["arrays"] + 2, result
    assert last["objects"] <= first["objects"] + 200, result
    assert last["rss"] - first["rss"] < 32 * 2**20, result
    assert abs(result["w"] - 1.95) < 0.01 and abs(result["b"] - 0.1) < 0.02, result


def test_training_loop_python_allocations_flat():
    """tracemalloc over 300 steps (after warm-up): the Python heap does not grow."""
    # Ops that earlier tests read at once are deferred again after so many calls (`_defer/lazy`):
    # lifted inside the 300 steps, a run would change once and compile (JAX's caches grow).
    lazy._redefer()
    w = torch.tensor([0.5, -0.5], requires_grad=True)
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    target = torch.tensor([1.0, 0.0])

    def step():
        loss = ((x @ w - target) ** 2).sum()
        loss.backward()
        with torch.no_grad():
            w.sub_(0.01 * w.grad)
        w.grad.zero_()

    for _ in range(50):  # warm-up: compilations, caches, the fused backward
        step()
    gc.collect()
    tracemalloc.start()
    try:
        start, _ = tracemalloc.get_traced_memory()
        for _ in range(300):
            step()
        gc.collect()
        end, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert end - start < 16 * 1024, (start, end)


def test_create_graph_backward_cycle_is_collectable():
    x = torch.tensor(np.linspace(-1, 1, 91, dtype=np.float32).reshape(MARK), requires_grad=True)
    w = torch.tensor(np.ones(MARK, np.float32), requires_grad=True)
    y = ((x.exp() * w).sin() * x).sum()
    y.backward(create_graph=True)
    assert x.grad.requires_grad and x.grad.grad_fn is not None
    refs = [weakref.ref(n) for n in _nodes(x.grad) if type(n).__name__ != "AccumulateGrad"]
    refs += [weakref.ref(n) for n in _nodes(y)]
    refs += [weakref.ref(x), weakref.ref(w), weakref.ref(x.grad), weakref.ref(w.grad)]
    gc.collect()
    del x, w, y
    gc.collect()
    assert gc.garbage == []
    alive = [r() for r in refs if r() is not None]
    assert alive == [], alive


def test_create_graph_higher_order_loop_is_collectable():
    """Repeated gradient-penalty steps (grad with create_graph, then backward) leave no
    uncollectable garbage and no growing set of live arrays."""
    w = torch.tensor(np.ones(MARK, np.float32), requires_grad=True)
    x = torch.tensor(np.linspace(-1, 1, 91, dtype=np.float32).reshape(MARK))
    counts = []
    for step in range(1, 16):
        out = (x * w).tanh().sum()
        (g,) = torch.autograd.grad(out, w, create_graph=True)
        penalty = ((g.norm() - 1) ** 2) + out
        penalty.backward()
        with torch.no_grad():
            w -= 0.01 * w.grad
        w.grad = None
        del out, g, penalty
        if step in (3, 15):
            gc.collect()
            counts.append(_marked_arrays())
    assert gc.garbage == []
    assert counts[-1] <= counts[0], counts
