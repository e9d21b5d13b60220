"""Indexing and item assignment: every index form of `__getitem__` (ints, slices
with steps, None, `...`, bools, masks, integer tensors and lists, mixed basic/advanced) with
PyTorch's result shapes, views, node names, gradients (repeated indices accumulate) and
errors; `t[idx] = value` for every form, differentiable in target and value. Each scenario
runs on this library and on real PyTorch and must give the same results and errors."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograd_compat as torch
from tests._helpers.torch_compare import (
    Corpus,
    catch,
    check_error,
    grad_fn_name,
    require_torch,
    run_parity,
    uniform,
)

W = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5) / 4  # shared: one compile per shape
X3 = np.arange(60, dtype=np.float32).reshape(3, 4, 5) / 10


def _indices(lib):
    """Index forms; tensors are made with `lib` so both libraries see the same thing."""
    mask = lib.tensor(X3[:, :, 0] > 2.0)
    return [
        1,
        slice(None, None, 2),
        (slice(None), slice(1, 4, 2)),
        (slice(None), slice(None)),
        (slice(0, 10), slice(-4, None)),
        slice(None),
        None,
        (1, None),
        Ellipsis,
        (Ellipsis, 1),
        True,
        False,
        lib.tensor(True),
        lib.tensor([2, 0, 2]),
        lib.tensor([[1], [0]]),
        ([0, 1], slice(None), [1, 4]),
        ([0, 2], [1, 3]),
        (1, slice(None), [0, 1]),
        (slice(None), [[0, 1]], [[1], [2]]),
        (None, slice(None), [0, 1], 0),
        mask,
        (mask, 1),
        (lib.tensor([True, False, True]), [1, 2]),
        (slice(None), lib.tensor([False, True, True, False])),
        [],
    ]


def getitem_all_forms(lib):
    x = lib.tensor(X3, requires_grad=True)
    out, ys = [], []
    for index in _indices(lib):
        y = x[index]
        out.append((y, grad_fn_name(y), y._base is x))
        ys.append(y)
    weights = [
        lib.tensor(np.linspace(-1, 1, y.numel(), dtype=np.float32).reshape(y.shape)) for y in ys
    ]
    lib.autograd.backward(ys, weights)  # each form's vjp, with repeated indices accumulating
    chains = []
    for index in ((1, 2), (None, slice(None), None), (1, slice(1, None), [0, 2]), (0, 1, None)):
        node, chain = x[index].grad_fn, []
        while node is not None and node.name() != "torch::autograd::AccumulateGrad":
            chain.append(node.name())
            node = node.next_functions[0][0]
        chains.append(chain)
    return out, x.grad, chains


def getitem_numpy_and_python_scalars(lib):
    x = lib.tensor(X3)
    return (
        x[np.int64(1)],
        x[np.array([0, 2])],
        x[np.array(1)],
        x[np.array([True, False, True])],
        x[(1,)],
        x[1:2, np.int32(3)],
        x[lib.tensor(1, dtype=lib.int32)],
        x[lib.tensor([0, 1], dtype=lib.int32)],
        x[lib.tensor(-1) : lib.tensor(3)],
    )


def repeated_indices_accumulate(lib):
    x = lib.tensor(W, requires_grad=True)
    y = x[[0, 0, 2, 0]]
    z = x[[0, 0], [1, 1]]
    m = x[:, [3, 3]]
    ((y * lib.tensor(W[:1] + 1)).sum() + z.sum() + m.sum()).backward()
    return y, z, x.grad, grad_fn_name(y)


def getitem_errors(lib):
    x = lib.tensor(X3)
    z = lib.zeros(3, 4)
    return [
        catch(f)
        for f in (
            lambda: z[5],
            lambda: z[-4],
            lambda: z[0, 4],
            lambda: z[None, 5],
            lambda: z[None, None, 5],
            lambda: z[:, 9],
            lambda: z[0][9],
            lambda: z[[0, 5]],
            lambda: z[:, [0, 5]],
            lambda: z[:, [0, -5]],
            lambda: x[:, :, [5]],
            lambda: x[[0], [5]],
            lambda: x[[0], :, [7]],
            lambda: z[0, 0, 0],
            lambda: z[1.5],
            lambda: z[lib.tensor([1.5])],
            lambda: z[::0],
            lambda: z[::-1],
            lambda: z[lib.tensor([True, False])],
            lambda: x[lib.ones(3, 5, dtype=lib.bool)],
            lambda: x[:, lib.ones(4, 4, dtype=lib.bool)],
            lambda: x[lib.ones(3, 4, 5, 2, dtype=lib.bool)],
            lambda: lib.tensor(3.0)[0],
            lambda: z[[0, 1], [0, 1, 2]],
        )
    ]


def setitem_all_forms(lib):
    x = lib.tensor(X3)
    out = []
    values = [7.5, lib.tensor(2.5), lib.tensor([[[-1.0]]])]
    for i, index in enumerate(_indices(lib)[::3]):
        value = values[i % len(values)]
        before = x._version
        x[index] = value
        out.append((x.clone(), x._version - before))
    for nothing in (False, lib.tensor(False), lib.tensor(0, dtype=lib.uint8)):  # selects no
        before = x._version  # element: nothing written
        x[nothing] = 3.0
        out.append((x.clone(), x._version - before))
    x[1] = lib.tensor(X3[0])
    x[0, 1:3] = lib.tensor(X3[0, :2]) * 2
    x[:, 1] = lib.tensor(X3[:, 2]).unsqueeze(0)
    x[..., 2] = lib.tensor([[1.0, 2.0, 3.0, 4.0]]).t()[:, 0]
    x[[0, 2], 1] = lib.tensor(X3[0, 0])
    x[lib.tensor(X3 > 4)] = -1.0
    x[lib.tensor(X3[:, :, 0] > 2)] = lib.tensor(X3[0, 0])
    x[None, 2, :, lib.tensor([0, 4])] = lib.tensor([9.0, 8.0, 7.0, 6.0]).view(4, 1)
    return out, x, x._version


def setitem_dtypes_and_values(lib):
    n = lib.zeros(3, dtype=lib.long)
    n[0] = 1.7
    n[1] = -1.7
    n[2:] = lib.tensor([3.5])
    n[[1]] = 4
    f = lib.zeros(3)
    f[0] = True
    f[[1, 2]] = 5
    b = lib.zeros(3, dtype=lib.bool)
    b[1] = 1
    errors = [
        catch(lambda: n.__setitem__([0], lib.tensor([1.5]))),
        catch(lambda: f.__setitem__([1, 2], lib.tensor([1, 2]))),
        catch(lambda: n.__setitem__(0, "a")),
        catch(lambda: n.__setitem__(0, [1])),
        catch(lambda: n.__setitem__(slice(1, None), np.array([6, 7]))),
        catch(lambda: f.__setitem__(0, lib.tensor([1.0, 2.0]))),
        catch(lambda: lib.zeros(3, 4).__setitem__(0, lib.ones(3))),
        catch(lambda: lib.zeros(3, 4).__setitem__([0, 1], lib.ones(3, 4))),
        catch(lambda: lib.zeros(3, 4).__setitem__([0, 2], lib.ones(3))),
        catch(lambda: lib.zeros(3, 4).__setitem__(0, lib.ones(2, 4))),
        catch(lambda: lib.zeros(2, 3).__setitem__((slice(None), 0), lib.ones(2, 1))),
        catch(lambda: lib.zeros(3, 4).__setitem__(5, 1)),
    ]
    z = lib.zeros(2, 3)
    z[0] = lib.ones(1, 1, 3)
    z[False] = 1.0
    v0 = z._version
    z[None] = 2.0
    return n, f, b, errors, z, v0, z._version


def setitem_gradients(lib):
    w = lib.tensor(W, requires_grad=True)
    val = lib.tensor(W[0] + 1, requires_grad=True)
    s = lib.tensor(3.0, requires_grad=True)
    a = w * 2
    a[0] = 0
    a[1, ::2] = val[:2] * s
    a[:, 3] = s
    a[[2, 2], [0, 1]] = val[1:3]
    a[a > 4] = val[0]
    a[lib.tensor(False)] = s  # an empty write: s still gets a (zero) gradient from it
    names = (grad_fn_name(a), a.grad_fn.next_functions[0][0].name())
    (a * lib.tensor(W + 2)).sum().backward()
    z = lib.zeros(3, 4)
    z[1] = val  # the target does not require grad: it now does, through CopySlices
    z[[0, 0]] = val * 2  # duplicates: every one gets the gradient
    flags = (z.requires_grad, z.is_leaf, grad_fn_name(z))
    (z * z).sum().backward()
    return a, names, w.grad, val.grad, s.grad, z, flags


def setitem_leaf_rules(lib):
    w = lib.tensor(W, requires_grad=True)
    errors = [
        catch(lambda: w.__setitem__(0, 1.0)),
        catch(lambda: w.__setitem__([0], 1.0)),
        catch(lambda: w.__setitem__(slice(None), 1.0)),
        catch(lambda: w.__setitem__(Ellipsis, 1.0)),
        catch(lambda: w.__setitem__(None, 1.0)),
        catch(lambda: w.__setitem__(w > 0, 1.0)),
    ]
    with lib.no_grad():
        w[0] = 1.0
        w[[1]] = lib.tensor(W[2])
        w[w < 0] = 0.0
    g = lib.tensor(W)
    a = g * 1
    a[:] = 2.0  # a full slice writes `a` itself (no view)
    a2 = g * 1
    a2[...] = lib.tensor(W[0])
    return errors, w, w._version, w.requires_grad, grad_fn_name(a), grad_fn_name(a2)


def augmented_assignment(lib):
    w = lib.tensor(W, requires_grad=True)
    a = w * 1
    a[0] += 1
    a[:, 1] *= 2
    a[[0, 2]] -= lib.tensor(W[1])
    a[a > 1] /= 2
    v = a._version
    (a * a).sum().backward()
    x = lib.tensor(W)
    x[[0, 0]] += 1  # gather, add, index_put: the duplicate writes once
    return a, v, w.grad, x, x._version


def index_nodes_list_differentiable_inputs_only(lib):
    """next_functions lists one edge per differentiable input: index arrays, masks and
    constants are not inputs of PyTorch's nodes."""
    w = lib.tensor(W, requires_grad=True)
    s = lib.tensor(W, requires_grad=True)
    y = w * 1
    iv = lib.tensor([0, 2, 0])
    m = lib.tensor([True, False, True, False])

    def edges(t):
        return (
            grad_fn_name(t),
            [None if f is None else f.name() for f, _ in t.grad_fn.next_functions],
        )

    outs = [
        y[iv],
        y[iv, iv],
        y[1:, [0, 2]],
        y[:, m],
        y.gather(1, lib.tensor([[0], [3], [1]])),
        y.index_select(1, iv),
        y.take(iv),
        y.masked_select(m),
        y.masked_fill(m, 1.0),
        y.masked_fill(m, s[0, 0]),
        y.scatter(0, lib.tensor([[2, 0, 1, 0]]), s),
        y.scatter(0, lib.tensor([[2, 0, 1, 0]]), 2.0),
        y.scatter_add(0, lib.tensor([[2, 0, 1, 0]]), s),
        y.index_add(1, iv, s[:, :3], alpha=2),
        y.index_fill(1, iv, 2.0),
        y.index_fill(1, iv, s[0, 0]),
        y.index_copy(1, lib.tensor([3, 1]), s[:, :2]),
        y.masked_scatter(m, s),
    ]
    puts = []
    for value in (1.0, lib.ones(2, 4), s[:2]):
        z = w * 1
        z[iv[:2]] = value
        puts.append(edges(z))
    return [edges(t) for t in outs], puts


# The old scenario check compared every inexact dtype to (1e-6, 1e-6).
SCENARIOS = Corpus(
    [
        index_nodes_list_differentiable_inputs_only,
        getitem_all_forms,
        getitem_numpy_and_python_scalars,
        repeated_indices_accumulate,
        getitem_errors,
        setitem_all_forms,
        setitem_dtypes_and_values,
        setitem_gradients,
        setitem_leaf_rules,
        augmented_assignment,
    ],
    tolerance=uniform(1e-6, 1e-6),
)


@pytest.mark.parametrize("scenario", SCENARIOS.params())
def test_matches_pytorch(scenario):
    run_parity(scenario)


# Each index op's bounds check (one shared search, each op's own PyTorch type and text).
OUT_OF_RANGE = {
    "take": lambda t: t.take(t.zeros(2, 3), t.tensor([0, -7])),
    "put": lambda t: t.put(t.zeros(6), t.tensor([1, 6]), t.ones(2)),
    "index_select": lambda t: t.index_select(t.zeros(2, 3), 1, t.tensor([0, 3])),
    "index_add": lambda t: t.zeros(3).index_add(0, t.tensor([3]), t.ones(1)),
    "index_copy": lambda t: t.zeros(2, 3).index_copy(1, t.tensor([4]), t.ones(2, 1)),
    "index_reduce": lambda t: t.zeros(2, 3).index_reduce(1, t.tensor([3]), t.ones(2, 1), "amax"),
    "index_fill": lambda t: t.zeros(2, 3).index_fill(1, t.tensor([-4]), 1.0),
    "gather": lambda t: t.gather(t.zeros(2, 3), 1, t.tensor([[0], [3]])),
}


@pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta")
@pytest.mark.parametrize("name", OUT_OF_RANGE)
def test_out_of_range_index_errors_match_pytorch(name):
    check_error(OUT_OF_RANGE[name], require_torch())


# Indices of no valid kind: counted against the dimensions first (a 0-d tensor indexed by a
# string says "too many indices", as YOLOS's loss does on a tensor of labels), then refused.
INVALID_INDEX = {
    "str_of_0d": lambda t: t.tensor(1.0)["class_labels"],
    "float_of_0d": lambda t: t.tensor(1.0)[1.5],
    "str_of_1d": lambda t: t.ones(2)["a"],
    "float_of_1d": lambda t: t.ones(2)[1.5],
    "str_past_the_dims": lambda t: t.ones(2)[0, "a"],
}


@pytest.mark.parametrize("name", INVALID_INDEX)
def test_invalid_index_errors_match_pytorch(name):
    check_error(INVALID_INDEX[name], require_torch())


# ----------------------------------------------------------------------------- without torch
def test_indexing_gradients_match_jax_grad():
    mask = X3[:, :, 0] > 2.0  # concrete, so the pure function can be jitted

    def pure(x, v):
        y = x[1:, ::2] * 2 + x[jnp.array([0, 0, 2])][:, :2, 0].sum() + x[mask].sum()
        x = x.at[0, 1].set(v)
        x = x.at[jnp.array([2, 1]), :, jnp.array([4, 4])].set(v[0])
        return (y * y).sum() + (x**2).sum()

    x = torch.tensor(X3, requires_grad=True)
    v = torch.tensor(X3[0, 0], requires_grad=True)
    a = x * 1
    y = a[1:, ::2] * 2 + a[[0, 0, 2]][:, :2, 0].sum() + a[a[:, :, 0] > 2.0].sum()
    a[0, 1] = v
    a[[2, 1], :, [4, 4]] = v[0]
    ((y * y).sum() + (a**2).sum()).backward()
    gx, gv = jax.jit(jax.grad(pure, argnums=(0, 1)))(jnp.asarray(X3), jnp.asarray(X3[0, 0]))
    np.testing.assert_allclose(x.grad.numpy(), gx, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(v.grad.numpy(), gv, rtol=1e-5, atol=1e-4)


def test_sequence_index_warns_like_pytorch():
    x = torch.zeros(3, 4)
    with pytest.warns(UserWarning, match="Using a non-tuple sequence for multidimensional"):
        assert x[[[0, 1], [1, 2]]].shape == (2,)
    with pytest.warns(UserWarning, match="indexing with dtype torch.uint8 is now deprecated"):
        assert x[torch.tensor([1, 0, 1], dtype=torch.uint8)].shape == (2, 4)


def test_index_errors_say_pytorch_text():
    x = torch.zeros(3)
    with pytest.raises(IndexError, match=r"^index 5 is out of bounds for dimension 0 with size 3$"):
        x[5]
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        x[[1, 5]] = 0.0
    assert x._version == 0


def test_varying_positions_reuse_one_compiled_function():
    """`x[i]`, `x[i, j]`, `x[i:i+5]`, `narrow`, `select` and `x[i] = v` for every position
    compile once per shape of view, not once per position (each compile is ~100 ms)."""
    from autograd_compat._pure.op import registered_ops

    def compiled_count():
        ops = registered_ops().values()
        return sum(
            len(op._compiled) + len(op._vjp_op._compiled if op._vjp_op else ()) for op in ops
        )

    x = torch.randn(20, 20, requires_grad=True)
    buffer = torch.zeros(20, 20)

    def touch(i):
        x[i].sum().backward()
        x[i, 19 - i].item()
        x[i : i + 5].sum().backward()
        x.narrow(1, i, 3).sum().backward()
        x.select(1, i).sum().backward()
        buffer[i] = float(i)
        buffer[i, 2:4] = torch.ones(2)

    for i in range(3):
        touch(i)
    before = compiled_count()
    for i in range(3, 15):
        touch(i)
    assert compiled_count() == before
    np.testing.assert_allclose(x.grad.numpy().sum(), 15 * (20 + 5 * 20 + 3 * 20 + 20))
    np.testing.assert_array_equal(buffer.numpy()[:15, 0], np.arange(15.0))
    np.testing.assert_array_equal(buffer.numpy()[:15, 2:4], np.ones((15, 2)))
