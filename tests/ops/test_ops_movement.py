"""Movement ops against real PyTorch, jax.vjp and finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as ac
from autograd_compat.nn.functional import one_hot, pad
from tests._helpers.torch_compare import arr, check_case, check_error


def _one_hot(t, *args, **kwargs):
    return (one_hot if t is ac else t.nn.functional.one_hot)(*args, **kwargs)


def _pad(t, *args, **kwargs):
    return (pad if t is ac else t.nn.functional.pad)(*args, **kwargs)


def _index(values, dtype=np.int64):
    return np.asarray(values, dtype)


# name -> (function of (lib, *inputs), inputs); integer inputs are indices, not differentiated
CASES = {
    "cat": (lambda t, a, b: t.cat([a, b]), [arr((2, 3)), arr((1, 3))]),
    "cat_dim1_three": (lambda t, a, b: t.cat((a, b, a), dim=-1), [arr((2, 3)), arr((2, 1))]),
    "cat_skips_legacy_empty": (
        lambda t, a, b: t.concat([a, t.zeros(0, dtype=a.dtype), b], 1),
        [arr((2, 3)), arr((2, 2))],
    ),
    "concatenate": (lambda t, a, b: t.concatenate([a, b], 0), [arr((2, 3)), arr((1, 3))]),
    "stack": (lambda t, a, b: t.stack([a, b]), [arr((2, 3)), arr((2, 3), seed=9)]),
    "stack_last": (lambda t, a, b: t.stack([a, b, a], -1), [arr((2, 3)), arr((2, 3), seed=9)]),
    "stack_zero_dim": (lambda t, a, b: t.stack([a, b]), [arr(()), arr((), seed=9)]),
    "split": (lambda t, a: a.split(2), [arr((5, 3))]),
    "split_sizes": (lambda t, a: t.split(a, [1, 2], dim=1), [arr((2, 3))]),
    "split_unused_piece": (lambda t, a: a.split(2, 1)[1], [arr((2, 4))]),
    "chunk": (lambda t, a: a.chunk(3), [arr((5, 2))]),
    "chunk_dim": (lambda t, a: t.chunk(a, 4, -1), [arr((2, 6))]),
    "flip": (lambda t, a: a.flip(0), [arr((3, 4))]),
    "flip_dims": (lambda t, a: t.flip(a, (0, -1)), [arr((2, 3, 4))]),
    "roll": (lambda t, a: a.roll(1, 0), [arr((3, 4))]),
    "roll_flat": (lambda t, a: t.roll(a, -5), [arr((3, 4))]),
    "roll_dims": (lambda t, a: a.roll((1, -2), (1, 2)), [arr((2, 3, 4))]),
    "gather": (lambda t, a, i: a.gather(1, i), [arr((3, 4)), _index([[0, 3], [1, 1], [2, 0]])]),
    "gather_smaller": (
        lambda t, a, i: t.gather(a, 0, i),
        [arr((3, 4)), _index([[2, 1, 0], [0, 0, 1]])],
    ),
    "gather_int32": (lambda t, a, i: a.gather(-1, i), [arr((3, 4)), _index([[1]], np.int32)]),
    "scatter": (
        lambda t, a, i, s: a.scatter(1, i, s),
        [arr((3, 4)), _index([[0, 3], [1, 2], [2, 0]]), arr((3, 2))],
    ),
    "scatter_value": (
        lambda t, a, i: t.scatter(a, 0, i, 2.5),
        [arr((3, 4)), _index([[2, 1, 0, 1]])],
    ),
    "scatter_add": (
        lambda t, a, i, s: a.scatter_add(1, i, s),
        [arr((3, 4)), _index([[0, 0], [1, 3], [2, 2]]), arr((3, 2))],
    ),
    "index_select": (lambda t, a, i: a.index_select(1, i), [arr((3, 4)), _index([3, 0, 3])]),
    "index_select_zero_dim_index": (
        lambda t, a, i: t.index_select(a, 0, i),
        [arr((3, 4)), _index(2)],
    ),
    "gather_zero_dim": (lambda t, a, i: a.gather(0, i), [arr(()), _index(0)]),
    "scatter_zero_dim": (lambda t, a, i, s: a.scatter(0, i, s), [arr(()), _index(0), arr(())]),
    "index_select_zero_dim": (lambda t, a, i: a.index_select(0, i), [arr(()), _index([0])]),
    "index_add": (
        lambda t, a, i, s: a.index_add(0, i, s, alpha=2),
        [arr((3, 4)), _index([0, 2, 0]), arr((3, 4), seed=4)],
    ),
    "masked_fill": (lambda t, a: a.masked_fill(a > 0, -1.0), [arr((3, 4))]),
    "masked_fill_broadcast": (
        lambda t, a, b: t.masked_fill(a, b > 0, 0.5),
        [arr((4,)), arr((3, 4))],
    ),
    "masked_fill_tensor_value": (
        lambda t, a, v: a.masked_fill(a < 0, v),
        [arr((3, 4)), arr(())],
    ),
    "masked_select": (lambda t, a: a.masked_select(a > 0), [arr((3, 4))]),
    "masked_select_broadcast": (
        lambda t, a, b: t.masked_select(a, b > 0),
        [arr((4,)), arr((3, 4))],
    ),
    "take": (lambda t, a, i: a.take(i), [arr((3, 4)), _index([[0, -1], [5, 11]])]),
    "flatten": (lambda t, a: a.flatten(), [arr((2, 3, 4))]),
    "flatten_middle": (lambda t, a: t.flatten(a, 1, 2), [arr((2, 3, 4, 2))]),
    "flatten_zero_dim": (lambda t, a: a.flatten(), [arr(())]),
    "unflatten": (lambda t, a: a.unflatten(1, (2, -1)), [arr((3, 4))]),
    "repeat": (lambda t, a: a.repeat(2, 1), [arr((3, 4))]),
    "repeat_more_dims": (lambda t, a: a.repeat(2, 1, 3), [arr((3, 4))]),
    "tile": (lambda t, a: t.tile(a, (2,)), [arr((3, 4))]),
    "movedim": (lambda t, a: a.movedim(0, -1), [arr((2, 3, 4))]),
    "movedim_tuples": (lambda t, a: t.movedim(a, (0, 1), (2, 0)), [arr((2, 3, 4))]),
    "moveaxis": (lambda t, a: t.moveaxis(a, 1, 0), [arr((2, 3, 4))]),
    "swapaxes": (lambda t, a: a.swapaxes(0, 2), [arr((2, 3, 4))]),
    "swapdims": (lambda t, a: t.swapdims(a, -1, 0), [arr((3, 4))]),
    "pad": (lambda t, a: _pad(t, a, (1, 2)), [arr((3, 4))]),
    "pad_two_dims_value": (lambda t, a: _pad(t, a, (1, 0, 0, 2), value=0.5), [arr((2, 3, 4))]),
    "pad_negative_crops": (lambda t, a: _pad(t, a, (-1, 1, 1, -2)), [arr((3, 4))]),
    "where_single_argument": (lambda t, a: t.where(a > 0), [arr((3, 4))]),
    "nonzero": (lambda t, a: (a > 0).nonzero(), [arr((3, 4))]),
    "nonzero_tuple": (lambda t, a: t.nonzero(a > 0, as_tuple=True), [arr((3, 4))]),
    "nonzero_zero_dim": (lambda t, a: (a + 5).nonzero(), [arr(())]),
    "nonzero_zero_dim_tuple": (lambda t, a: (a + 5).nonzero(as_tuple=True), [arr(())]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_movement_float64(name, real_torch):
    fn, inputs = CASES[name]
    eager_only = name.startswith(("masked_select", "nonzero", "where_single"))
    sample = name in sorted(CASES)[::3] and not eager_only
    check_case(fn, inputs, real_torch, jax_vjp=sample)


@pytest.mark.parametrize("name", sorted(CASES)[1::5])
def test_movement_float32(name, real_torch):
    fn, inputs = CASES[name]
    inputs = [a.astype(np.float32) if a.dtype == np.float64 else a for a in inputs]
    check_case(fn, inputs, real_torch)


def test_mixed_dtypes(real_torch):
    i32 = arr((2, 3), "int", np.int32)
    f32 = arr((2, 3), "normal", np.float32)
    b = arr((2, 3), "bool", np.bool_)
    for fn in (
        lambda t, i, f, b: t.cat([i, f]),
        lambda t, i, f, b: t.stack([i, b]),
        lambda t, i, f, b: t.cat([b, i.long()], 1),
        lambda t, i, f, b: i.masked_fill(b, 2.7),
        lambda t, i, f, b: b.masked_fill(b, False),
        lambda t, i, f, b: _pad(t, i, (1, 1), value=1.5),
        lambda t, i, f, b: i.repeat(1, 2).flip(1).roll(1),
        lambda t, i, f, b: _one_hot(t, i.long().abs(), 6),
        lambda t, i, f, b: _one_hot(t, i.long().abs()),
        lambda t, i, f, b: b.take(t.tensor([0, 5])),
        lambda t, i, f, b: i.gather(1, t.tensor([[0], [2]])),
        lambda t, i, f, b: i.index_select(0, t.tensor([1])),
    ):
        check_case(fn, [i32, f32, b], real_torch)


def test_scatter_larger_src_and_reduce(real_torch):
    a, i, s = arr((3, 4)), _index([[0, 0], [1, 3], [2, 2]]), arr((3, 3))
    check_case(lambda t, a, i, s: a.scatter(1, i, s), [a, i, s], real_torch, grads=False)
    for reduce in ("add", "multiply"):
        check_case(
            lambda t, a, i, s, reduce=reduce: a.scatter(1, i, 2.0, reduce=reduce),
            [a, i, s],
            real_torch,
            grads=False,
        )

    def backward_raises(t):
        x = t.ones(3, 4, requires_grad=True)
        x.scatter(1, t.tensor([[0, 1]]), 2.0, reduce="add").sum().backward()

    check_error(backward_raises, real_torch)
    with pytest.warns(UserWarning, match="reduce argument of torch.scatter"):
        out = ac.ones(2).scatter(0, ac.tensor([0, 0]), ac.ones(2), reduce="add")
    assert out.tolist() == [3.0, 1.0]


def test_duplicate_indices_accumulate(real_torch):
    a = arr((3, 4))
    i = _index([[0, 0, 0], [1, 1, 3], [2, 2, 2]])
    s = arr((3, 3), seed=5)
    check_case(lambda t, a, i, s: a.scatter_add(1, i, s), [a, i, s], real_torch)
    check_case(lambda t, a, i: a.gather(1, i), [a, i], real_torch)
    idx = _index([0, 2, 0, 0])
    check_case(lambda t, a, i: a.index_select(0, i), [a, idx], real_torch)
    check_case(lambda t, a, i: a.take(i), [a, idx], real_torch)


def test_inplace_movement_ops(real_torch):
    a = arr((3, 4))
    s = arr((3, 4), seed=3)
    i = _index([[0, 3], [1, 2], [2, 0]])

    def fn(t, a, s, i):
        x = a * 1.0
        x.scatter_(0, t.tensor([[0, 2]]), 1.5)
        x.masked_fill_(a > 0.5, 0.25)
        x.scatter_(1, i, s[:, :2])
        x.scatter_add_(1, i, s[:, 1:3] * 2)
        x.index_add_(0, t.tensor([2, 0]), s[:2])
        return x

    check_case(fn, [a, s, i], real_torch, jax_vjp=False)
    check_error(lambda t: t.zeros(4).masked_fill_(t.ones(3, 4, dtype=t.bool), 1.0), real_torch)
    check_error(
        lambda t: t.zeros(2, requires_grad=True).masked_fill_(t.ones(2) > 0, 1.0), real_torch
    )


def test_eager_only_ops_raise_under_a_trace():
    import jax

    def f(x):
        return ac.from_jax(x).nonzero().jax()

    with pytest.raises(RuntimeError, match="cannot run under a jax trace"):
        jax.jit(f)(np.ones(3))
    with pytest.raises(RuntimeError, match="cannot run under a jax trace"):
        jax.jit(lambda x: ac.from_jax(x).masked_select(ac.from_jax(x) > 0).jax())(np.ones(3))
    with pytest.raises(RuntimeError, match="cannot run under a jax trace"):
        jax.jit(lambda x: one_hot(ac.from_jax(x)).jax())(np.ones(3, np.int64))

    # With a concrete mask, masked_select still differentiates under jax.grad.
    mask = ac.tensor([True, False, True])

    def g(x):
        return ac.from_jax(x).masked_select(mask).sum().jax()

    np.testing.assert_allclose(np.asarray(jax.grad(g)(np.ones(3))), [1.0, 0.0, 1.0])


def test_movement_under_jit():
    import jax

    @jax.jit
    def f(x, i):
        t, index = ac.from_jax(x), ac.from_jax(i)
        y = ac.cat([t, t.flip(0)]).gather(1, ac.cat([index, index]))
        return (pad(y, (1, 1)) + y.roll(1).sum()).jax()

    x = arr((2, 3))
    i = _index([[0, 2], [1, 1]])
    t = ac.tensor(x)
    y = ac.cat([t, t.flip(0)]).gather(1, ac.cat([ac.tensor(i), ac.tensor(i)]))
    expected = pad(y, (1, 1)) + y.roll(1).sum()
    np.testing.assert_allclose(np.asarray(f(x, i)), expected.numpy())


def test_split_outputs_are_separate_graph_outputs(real_torch):
    def fn(t, a):
        first, second, third = a.split(2)
        if a.requires_grad:
            assert [p.output_nr for p in (first, second, third)] == [0, 1, 2]
        return first.sum() * 2 + third.sum()

    check_case(fn, [arr((5, 3))], real_torch)


MOVEMENT_ERRORS = [
    lambda t: t.cat([]),
    lambda t: t.cat([t.ones(3, 4), t.zeros(3, 5)]),
    lambda t: t.cat([t.ones(3, 4), t.zeros(3)]),
    lambda t: t.cat([t.tensor(1.0), t.tensor(2.0)]),
    lambda t: t.cat([t.ones(3, 4), t.ones(3, 4)], 2),
    lambda t: t.cat(t.ones(3)),
    lambda t: t.stack([t.ones(3, 4), t.zeros(3, 5)]),
    lambda t: t.stack([]),
    lambda t: t.stack([t.ones(3, 4), t.ones(3, 4)], 3),
    lambda t: t.ones(3, 4).split([1, 1], 0),
    lambda t: t.ones(3, 4).split(0),
    lambda t: t.ones(3, 4).chunk(0),
    lambda t: t.ones(3, 4).flip((0, 0)),
    lambda t: t.ones(3, 4).flip(2),
    lambda t: t.ones(3, 4).roll((1, 2), (0,)),
    lambda t: t.ones(3, 4).roll((), ()),
    lambda t: t.ones(3, 4).gather(1, t.tensor([[0, 5]])),
    lambda t: t.ones(3, 4).gather(1, t.tensor([[-1]])),
    lambda t: t.ones(3, 4).gather(1, t.tensor([[0.0]])),
    lambda t: t.ones(3, 4).gather(1, t.zeros(4, 2, dtype=t.long)),
    lambda t: t.ones(3, 4).gather(1, t.zeros(4, dtype=t.long)),
    lambda t: t.ones(3, 4).gather(2, t.zeros(3, 4, dtype=t.long)),
    lambda t: t.ones(3, 4).scatter(1, t.tensor([[0, 5]]), 1.0),
    lambda t: t.ones(3, 4).scatter(1, t.tensor([[0]]), t.ones(1, 1, dtype=t.float64)),
    lambda t: t.ones(3, 4).scatter(1, t.tensor([[0, 1]]), t.ones(1, 1)),
    lambda t: t.ones(3, 4).index_select(1, t.tensor([[0]])),
    lambda t: t.ones(3, 4).index_select(1, t.tensor([0.0])),
    lambda t: t.ones(3, 4).index_select(1, t.tensor([7])),
    lambda t: t.ones(3, 4).index_add(0, t.tensor([0, 0]), t.ones(2, 3)),
    lambda t: t.tensor(3.0).index_add(0, t.tensor([0]), t.tensor([2.0])),
    lambda t: t.ones(3, 4).masked_fill(t.ones(3, 4), 1.0),
    lambda t: t.ones(3, 4).masked_fill(t.ones(3, 4, dtype=t.uint8), 1.0),
    lambda t: t.ones(3, 4).masked_fill(t.ones(3, 4) > 0, t.tensor([1.0])),
    lambda t: t.ones(3, 4).masked_fill(t.ones(2, 4) > 0, 1.0),
    lambda t: t.ones(3, 4).take(t.tensor([12])),
    lambda t: t.ones(3, 4).take(t.tensor([1.0])),
    lambda t: t.zeros(2, 3, 4, 5).flatten(2, 1),
    lambda t: t.ones(3, 4).unflatten(1, (3, -1)),
    lambda t: t.ones(3, 4).unflatten(1, (3, 2)),
    lambda t: t.ones(3, 4).repeat(2),
    lambda t: t.zeros(2, 3, 4).movedim((0, 1), (2,)),
    lambda t: t.zeros(2, 3, 4).movedim((0, 0), (2, 1)),
    lambda t: t.ones(3, 4).swapaxes(0, 2),
    lambda t: _one_hot(t, t.tensor([0, 5]), 4),
    lambda t: _one_hot(t, t.tensor([0, -1]), 4),
    lambda t: _one_hot(t, t.tensor([0.0])),
    lambda t: _one_hot(t, t.zeros(0, dtype=t.long)),
    lambda t: _pad(t, t.ones(3, 4), (1,)),
    lambda t: _pad(t, t.ones(3, 4), (1, 1, 1, 1, 1, 1)),
    lambda t: _pad(t, t.ones(3, 4), (-3, -2)),
    lambda t: t.ones(3, 4).scatter_add(1, t.tensor([[0, 1]]), 2.0),
]


@pytest.mark.parametrize("index", range(len(MOVEMENT_ERRORS)))
def test_movement_errors(index, real_torch):
    check_error(MOVEMENT_ERRORS[index], real_torch, message=index != len(MOVEMENT_ERRORS) - 1)


def test_one_hot_is_exported_for_nn():
    assert ac.tensor([1, 0]).tolist() == [1, 0]
    assert one_hot(ac.tensor([1, 0]), 3).tolist() == [[0, 1, 0], [1, 0, 0]]
