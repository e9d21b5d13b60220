"""Item reads and writes in Python loops (`N[i, j] += 1`, `x[i] = v`, `s += x[i].item()`),
which small CPU tensors take on the host (`_tape/host_items`): PyTorch's exact values, errors,
version counters and views, and the op path wherever a graph, a trace or other memory is in
play (torch.compile, requires_grad, deferred values, views held across writes)."""

from __future__ import annotations

import random

import jax
import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._defer import lazy as _lazy
from autograd_compat._state.modes import modes
from autograd_compat._state.tensor import HostArrayTensor, HostView, Tensor
from autograd_compat._tape import host_items
from tests._helpers.torch_compare import catch, check_error, run_parity

_PAIRS = [(random.Random(0).randrange(27), random.Random(1).randrange(27))] + [
    (i * 7 % 27, i * 11 % 27) for i in range(300)
]


def _hex(t) -> list:
    """A float tensor's elements bit for bit (as float64 hex strings)."""
    return [float(v).hex() for v in t.double().reshape(-1).tolist()]


def _loops(lib):
    """The three loops of the bigram notebook and its kin, with each tensor's version."""
    counts = lib.zeros((27, 27), dtype=lib.int32)
    for i, j in _PAIRS:
        counts[i, j] += 1
    for i, j in _PAIRS[:40]:
        counts[j][i] += 2
    x = lib.zeros(100)
    for k in range(300):
        x[k % 100] = k * 0.37
    total = 0.0
    for k in range(300):
        total += x[k % 100].item()
    floats = lib.zeros(5, dtype=lib.float64)
    for k in range(40):
        floats[k % 5] += 0.1
        floats[(k + 2) % 5] -= 0.3
    return {
        "counts": counts.tolist(),
        "counts_version": counts._version,
        "x": _hex(x),
        "x_version": x._version,
        "total": total.hex(),
        "floats": _hex(floats),
        "after_an_op": (counts * 2).sum().item(),
    }


def test_the_loops_give_pytorchs_exact_results():
    run_parity(_loops)


def _writes(lib):
    """Negative indices, casts of Python numbers into each dtype, int wrap-around, 0-d
    results and their `.item()` types, and the version counter after every write."""
    out = []
    x = lib.zeros(4)
    x[-1] = 3
    x[0] = True
    x[1] = 2.5
    x[2] = 1e38
    out += [_hex(x), x._version, x[-2].item(), type(x[-4].item()).__name__]
    n = lib.zeros((3, 3), dtype=lib.int32)
    n[0, 0] = 2.7
    n[0, 1] = -2.7
    n[-1, -2] += 1
    n[1] = 4
    n[2, 0] = 2**31 - 1
    n[2, 0] += 1
    n[2, 1] -= 2**31
    n[2, 2] -= 5
    out += [n.tolist(), n._version, type(n[1, 1].item()).__name__]
    u = lib.zeros(3, dtype=lib.uint8)
    u[0] = -1
    u[1] = 255
    u[2] += 200
    u[2] += 100
    b = lib.zeros(4, dtype=lib.bool)
    b[0] = 5
    b[1] = 0.5
    b[2] = True
    out += [u.tolist(), b.tolist(), type(b[0].item()).__name__, u._version, b._version]
    for name in ("float16", "bfloat16", "float64", "int8", "int64"):
        t = lib.zeros(3, dtype=getattr(lib, name))
        t[0] = 1 / 3 if name.startswith(("float", "bfloat")) else -7
        t[1] = 100
        t[-1] = t[0]
        out.append(_hex(t) if t.is_floating_point() else t.tolist())
    f = lib.zeros(3)
    f[0] += 0.1
    f[0] += 1e-8
    f[1] -= 3
    f[2] = 16777217
    out.append(_hex(f))
    item = x[1]
    out += [item.shape, item.dim(), item.stride(), item.storage_offset(), item.is_contiguous()]
    row = n[1]
    out += [row.shape, row.stride(), row.storage_offset(), row._base is n, row._version]
    return out


def test_writes_match_pytorch():
    run_parity(_writes)


def _errors(lib):
    """PyTorch's errors for item reads and writes the host path refuses to guess at."""
    x = lib.zeros(4)
    n = lib.zeros((3, 3), dtype=lib.int32)
    u = lib.zeros(2, dtype=lib.uint8)

    def add_one(t, index):
        t[index] += 1

    cases = [
        lambda: x.__setitem__(4, 1.0),
        lambda: x.__setitem__(-5, 1.0),
        lambda: x[4],
        lambda: n.__setitem__((1, 5), 1),
        lambda: n.__setitem__((0, 0, 0), 1),
        lambda: add_one(n, (3, 0)),
        lambda: add_one(n, (0, -4)),
        lambda: n.__setitem__((0, 0), 2**40),
        lambda: n.__setitem__((0, 0), float("nan")),
        lambda: u.__setitem__(0, 256),
        lambda: x.__setitem__(0, 1 + 2j),
        lambda: x.__setitem__(0, "a"),
        lambda: x.__setitem__(0, 1e39),
        lambda: add_one(n, (0, 0)) or n.__getitem__((0, 0)).__iadd__(1.5),
        lambda: lib.tensor(3.0)[0],
    ]
    return [catch(case) for case in cases] + [x.tolist(), n.tolist(), x._version, n._version]


def test_errors_match_pytorch():
    run_parity(_errors)


def _views(lib):
    """A view held across writes sees them (and writes through it reach the base), whichever
    path each write takes; versions are shared."""
    x = lib.arange(6.0)
    v = x[3]
    x[3] = 9.5
    seen = [v.item()]
    v += 1
    seen.append(x.tolist())
    window = x[1:4]
    x[2] = -1.0
    x[1] += 0.5
    seen += [window.tolist(), v.item(), window._version, x._version]
    n = lib.zeros((2, 3), dtype=lib.int64)
    row = n[1]
    n[1, 2] += 4
    row[0] = 7
    cell = row[2]
    cell -= 1
    seen += [n.tolist(), row.tolist(), cell.item(), n._version]
    y = x * 2
    z = y[0]
    y[0] = 11.0
    seen += [z.item(), y.tolist(), z + 1, y + 1, n[0, 1] * 2, n[0] - 1]
    d = x.detach()
    x[0] = 42.0
    seen += [d.tolist(), d._version]
    return seen


def test_views_see_every_write_as_in_pytorch():
    run_parity(_views)


def _with_grad(lib):
    """A tensor in the graph keeps the op path: CopySlices, the gradient, PyTorch's errors."""
    w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = w * 2
    y[0] = 5.0
    y[1] += 1
    z = lib.zeros(3)
    z[2] = (w * w).sum()
    (y.sum() + z.sum()).backward()
    refused = catch(lambda: w.__setitem__(0, 1.0))
    with lib.no_grad():
        w[1] = 0.5
    saved = lib.zeros(2)
    product = (w[:2] * saved).sum()
    saved[0] = 5.0  # saved by the mul: its backward refuses, as PyTorch's does
    stale = catch(product.backward)
    return y, z, w.grad, refused, w.detach(), w._version, stale, saved._version


def test_a_tensor_that_requires_grad_records_copy_slices():
    run_parity(_with_grad)


def _reads(lib):
    """`x[i].item()` of computed tensors (deferred views read where their memory is): every
    element bit for bit, after in-place writes, through views of views, permuted and
    reinterpreted memory."""
    x = lib.arange(12.0) * 1.37
    seen = [x[i].item().hex() for i in range(12)]
    v = x[3]
    x.mul_(3)
    seen += [v.item().hex(), x[-1].item().hex()]
    grid = x.reshape(3, 4).t()
    seen += [grid[i][j].item().hex() for i in range(4) for j in range(3)]
    bits = x.view(lib.int32)
    seen += [bits[5].item(), (x[2:] * 2)[4].item().hex(), x.sum().item().hex()]
    ints = lib.arange(6).reshape(2, 3) * 5
    seen += [ints[1, 2].item(), type(ints[0, 0].item()).__name__, ints[0][1].item()]
    return seen


def test_reads_of_computed_tensors_match_pytorch(monkeypatch):
    monkeypatch.setattr(_lazy, "ENABLED", True)
    run_parity(_reads)


def test_the_loops_run_on_the_host_and_ops_read_device_arrays():
    """The writes and reads take the host path (no XLA call); the next op reads a device
    array with the written values, and its views become device arrays too."""
    counts = torch.zeros((3, 4), dtype=torch.int32)
    counts[1, 2] += 1
    assert type(counts) is HostArrayTensor
    cell = counts[1, 2]
    row = counts[1]
    assert type(cell) is HostView and type(row) is HostView
    counts[1, 2] += 1
    row[3] = 5
    assert cell.item() == 2 and row.tolist() == [0, 0, 2, 5]
    doubled = counts * 2
    assert type(counts) is Tensor and isinstance(counts._value, jax.Array)
    assert doubled.tolist() == [[0, 0, 0, 0], [0, 0, 4, 10], [0, 0, 0, 0]]
    counts[1, 2] += 1  # a device array again with live host views: they follow the new copy
    assert type(counts) is HostArrayTensor and cell.item() == 3 and row.tolist()[2] == 3
    assert (cell + 1).item() == 4 and type(cell) is Tensor
    counts[0, 0] = 9  # a plain view by int indices is made a host view again
    assert type(counts) is HostArrayTensor and type(cell) is HostView
    window = counts[1, 1:]
    counts[1, 2] = 8  # a slice of it is alive: the op path, which every view sees
    assert type(counts) is Tensor and window.tolist() == [0, 8, 5] and cell.item() == 8
    assert counts[0, 0].item() == 9 and row.tolist() == [0, 0, 8, 5]


def test_memory_readers_see_the_host_writes(tmp_path):
    """What reads a tensor's memory other than through an op (data_ptr, as_strided, numpy,
    save, clone, detach) sees the host writes, with or without live views."""
    x = torch.zeros(6)
    x[1] = 2.0
    view = x[4]
    x[4] = 3.0
    assert x.as_strided((2,), (3,), 1).tolist() == [2.0, 3.0]
    x[0] = 1.0
    x.data_ptr()
    x[5] = 7.0
    assert view.item() == 3.0 and x.numpy().tolist() == [1.0, 2.0, 0.0, 0.0, 3.0, 7.0]
    x[2] = -1.0
    torch.save({"x": x, "view": view}, tmp_path / "x.pt")
    loaded = torch.load(tmp_path / "x.pt")
    assert loaded["x"].tolist() == [1.0, 2.0, -1.0, 0.0, 3.0, 7.0] and loaded["view"].item() == 3
    x[3] = 4.0
    copy, alias = x.clone(), x.detach()
    x[3] = 5.0
    assert copy[3].item() == 4.0 and alias[3].item() == 5.0 and alias._version == x._version


def test_deferred_values_and_big_tensors_take_the_writes_in_order(monkeypatch):
    """A deferred op's result is computed before the host write; a tensor beyond
    HOST_ELEMENTS keeps the op path with the same results."""
    monkeypatch.setattr(_lazy, "ENABLED", True)
    x = torch.arange(5.0)
    y = (x * 2).add_(1)
    y[1] = 0.5
    y[2] += 1
    assert y.tolist() == [1.0, 0.5, 6.0, 7.0, 9.0] and y._version == 4
    big = torch.zeros(host_items.HOST_ELEMENTS + 1, dtype=torch.int64)
    big[-1] += 3
    big[0] = 2
    assert type(big) is Tensor and big[-1].item() == 3 and big.sum().item() == 5


def _compiled_loop(lib, compiled: bool):
    counts = lib.zeros((4, 4), dtype=lib.int32)
    x = lib.zeros(4)

    def step(i, j):
        counts[i, j] += 1
        x[j] = 2.5
        x[i] -= 1
        return x[i] * 2

    run = lib.compile(step) if compiled else step
    outs = [run(i % 2, (i * 3) % 4).item() for i in range(6)]
    return counts.tolist(), x.tolist(), outs


def test_inside_torch_compile_the_op_path_runs(real_torch, monkeypatch):
    """A compiled function's item writes are traced as ops (the host path would bake them in
    or write outside the program): the results are PyTorch eager's."""
    taken: list = []
    set_item = host_items.set_item

    def spy(t, index, value):
        done = set_item(t, index, value)
        taken.append((bool(modes.tracing), done))
        return done

    monkeypatch.setattr(host_items, "set_item", spy)
    expected = _compiled_loop(real_torch, compiled=False)
    assert _compiled_loop(torch, compiled=True) == expected
    assert (True, False) in taken and (True, True) not in taken


def test_jax_traces_take_the_op_path():
    """Tensors over jax tracers (`jax.jit`, `torch.func.vmap`) are never held on the host."""

    def fill(a):
        t = Tensor._wrap(a)
        t[0] = 5.0
        t[1] += 1
        return (t * t[2])._value

    np.testing.assert_array_equal(jax.jit(fill)(np.ones(3, np.float32)), [5.0, 2.0, 1.0])
    rows = torch.func.vmap(lambda row: row[1] * 2)(torch.arange(6.0).reshape(2, 3))
    assert rows.tolist() == [2.0, 8.0]


def test_errors_leave_the_tensor_as_it_was(real_torch):
    check_error(lambda lib: lib.zeros(3, dtype=lib.int32).__setitem__(3, 1), real_torch)
    n = torch.zeros(2, dtype=torch.int32)
    n[0] = 1
    with pytest.raises(RuntimeError, match="without overflow"):
        n[1] = 2**40
    assert n.tolist() == [1, 0] and n._version == 1


def test_views_keep_the_old_memory_when_data_is_replaced():
    """`x.data = y` while host views of `x` live: they keep the old memory, as in PyTorch,
    and a write through one reaches only them."""
    x = torch.zeros(4)
    x[1] = 2.0
    view, row = x[1], x[2]
    x.data = torch.ones(3)
    row.mul_(0)
    view.add_(1)
    view[()] = view * 2
    assert x.tolist() == [1.0, 1.0, 1.0] and view.item() == 6.0 and row.item() == 0.0
    x[0] = 5.0
    assert x.tolist() == [5.0, 1.0, 1.0] and view.item() == 6.0


def test_a_tensor_that_was_a_parameters_data_is_written_on_the_host_once_alone():
    """While a Parameter shares its memory the writes take the op path and reach it; once
    the Parameter is gone the tensor moves to the host."""
    data = torch.zeros(3)
    param = torch.nn.Parameter(data, requires_grad=False)
    data[0] = 1.0
    assert type(data) is Tensor and param.tolist() == [1.0, 0.0, 0.0]
    del param
    data[1] += 2
    data[2] = 3.0
    assert type(data) is HostArrayTensor and data[1].item() == 2.0
    assert data.tolist() == [1.0, 2.0, 3.0] and data._version == 4  # (+= counts two)
