"""Calls at new shapes computed on the host (`_pure/first_calls.py`): a pattern met again is
evaluated from one trace over symbolic dimensions, to the bits of the program at each shape."""

from __future__ import annotations

import functools

import jax
import numpy as np
import pytest

from autograd_compat._pure import first_calls, host_rules, jax_internals
from autograd_compat._pure.op import Op, registered_ops
from tests._helpers.jaxprs import bits, inner_eqns

WEIGHT = np.arange(-30.0, 35.0, dtype=np.float32).reshape(13, 5)
WEIGHT[2, 1], WEIGHT[3, 0], WEIGHT[4, 4] = np.nan, -0.0, 1e-40


class Traces:
    """A jitted function that counts its concrete traces."""

    def __init__(self, fn) -> None:
        self.jitted = jax.jit(fn)
        self.count = 0

    def trace(self, *args):
        self.count += 1
        return self.jitted.trace(*args)


def _check_growing(op, static, make, lengths):
    """`op` at each length: the host's bits are the program's; the traces it took."""
    pure = functools.partial(op.fn, **dict(static))
    traces = Traces(pure)
    for n in lengths:
        values = make(n)
        out = first_calls.run(op, static, traces, values)
        assert out is not None
        expected = jax.jit(pure)(*values)
        for got, want in zip(jax.tree.leaves(out), jax.tree.leaves(expected)):
            assert got.shape == want.shape and got.dtype == want.dtype
            np.testing.assert_array_equal(bits(got), bits(want))
    return traces.count


def _entry(op, static, values):
    return first_calls._patterns.get((op, static, first_calls._pattern(values).key))


def test_a_growing_embedding_is_traced_twice_then_evaluated_over_its_dimensions():
    op = registered_ops()["embedding"]
    static = (("padding_idx", None),)
    indices = np.array([3, -1, 12, 13, 40, -14, 0, 7, -13, 2**40, 5, 6, 9, 11], np.int64)

    def make(n):
        return [WEIGHT, np.resize(indices, (1, n))]

    assert _check_growing(op, static, make, range(6, 12)) == 2  # (5 would equal a dim)
    generic = _entry(op, static, make(20))
    assert type(generic) is first_calls.Generic
    names = {e.primitive.name for e in inner_eqns(generic.jaxpr.jaxpr)}
    assert "dim_as_value" in names  # (the index wrap reads the table's length)
    assert _check_growing(op, static, make, (20, 33)) == 0


def _last_row():
    """The select op of `x[:, -1]` on a sequence grown along dim 1, its static arguments and
    its inputs at each length."""
    sequence = np.resize(WEIGHT, (2, 40, 5))

    def rows(n):
        return [sequence[:, :n], np.array([-1])]

    return registered_ops()["select"], (("ops", (("select", 1, None),)),), rows


def test_the_last_row_and_cat_of_a_growing_sequence_match_their_programs():
    select, static, rows = _last_row()
    assert _check_growing(select, static, rows, range(6, 12)) == 2
    cat = registered_ops()["cat"]
    static = (("dim", 1), ("dtype", np.dtype(np.int64)), ("keep", (True, True)))

    def pieces(n):
        return [np.arange(n, dtype=np.int64).reshape(1, n), np.array([[-(2**63)]])]

    assert _check_growing(cat, static, pieces, range(3, 9)) == 2


def test_equal_dimensions_share_a_variable_and_sizes_0_and_1_stay_fixed():
    square = first_calls._pattern([np.zeros((4, 4)), np.zeros((4, 1, 0), np.int32)])
    other = first_calls._pattern([np.zeros((6, 6)), np.zeros((6, 1, 0), np.int32)])
    unequal = first_calls._pattern([np.zeros((6, 5)), np.zeros((6, 1, 0), np.int32)])
    assert square.key == other.key != unequal.key
    assert square.key[1][2] == (~0, 1, 0)
    assert (square.sizes, unequal.sizes) == ((4,), (6, 5))


def test_a_function_that_branches_on_a_dimension_keeps_tracing():
    op = Op("BranchTestBackward0", lambda x: x[:3] if x.shape[0] > 6 else x[:1])

    def make(n):
        return [np.arange(n, dtype=np.int32)]

    assert _check_growing(op, (), make, range(4, 10)) == 6
    assert _entry(op, (), make(11)) is False


def test_a_symbolic_trace_unlike_the_concrete_one_is_not_kept():
    op = Op("KindTestBackward0", lambda x: x[0] if isinstance(x.shape[0], int) else x[1])

    def make(n):
        return [np.arange(n, dtype=np.int32)]

    assert _check_growing(op, (), make, range(4, 8)) == 4
    assert _entry(op, (), make(9)) is False


def test_an_op_whose_trace_reads_state_is_traced_only_as_its_program_would_be():
    traced = []

    def fn(x):
        traced.append(x.shape)
        return x[1:]

    op = Op("StateTestBackward0", fn, deferrable=False)
    for n in range(4, 9):
        values = [np.arange(n, dtype=np.int32)]
        out = first_calls.run(op, (), jax.jit(fn), values)
        np.testing.assert_array_equal(out, values[0][1:])
    assert traced == [(n,) for n in range(4, 9)]


def test_a_generic_jaxpr_refuses_sizes_past_the_bound(monkeypatch):
    op = Op("CatTestBackward0", lambda x: jax.numpy.concatenate([x, x]))

    def make(n):
        return [np.arange(n, dtype=np.int32)]

    _check_growing(op, (), make, range(3, 6))
    assert type(_entry(op, (), make(6))) is first_calls.Generic
    monkeypatch.setattr(first_calls.host_jaxpr, "MAX_ELEMENTS", 20)
    assert first_calls.run(op, (), None, make(10)) is not None
    assert first_calls.run(op, (), None, make(11)) is None


def test_a_generic_program_reads_each_dimension_once_and_drops_unread_steps():
    select, static, rows = _last_row()
    _check_growing(select, static, rows, range(6, 9))
    generic = _entry(select, static, rows(9))
    read = [e.primitive.name for e in inner_eqns(generic.jaxpr.jaxpr)].count("dim_as_value")
    steps = [step.name for step in generic.program.steps]
    assert steps.count("dim_as_value") == 1 < read  # (the trace leaves the others unread)
    assert all(type(dim) is jax_internals.Affine for dim in generic.program.dims)
    d0, d1 = jax.export.symbolic_shape("d0, d1")
    constant, terms = jax_internals.affine(2 * d0 - d1 + 3, ("d0", "d1"))
    assert (constant, sorted(terms)) == (3, [(0, 2), (1, -1)])
    assert jax_internals.affine(d0 * d1, ("d0", "d1")) is None


def test_a_dimension_that_is_no_sum_of_variables_is_read_from_its_expression():
    op = Op("FlattenTestBackward0", lambda x: x.reshape(-1))  # (a size d0 * d1)

    def make(n):
        return [np.arange(n * (n + 1), dtype=np.int16).reshape(n, n + 1)]

    assert _check_growing(op, (), make, range(3, 9)) == 2
    dims = _entry(op, (), make(9)).program.dims
    assert any(type(dim) is not jax_internals.Affine for dim in dims)


def test_the_patterns_kept_are_bounded(monkeypatch):
    monkeypatch.setattr(first_calls, "PATTERNS", 2)
    op = Op("TailTestBackward0", lambda x: x[1:])
    for rank in range(1, 5):  # (four patterns: one per rank)
        for n in (3, 4, 5):
            first_calls.run(op, (), jax.jit(op.fn), [np.zeros((n,) * rank, np.int8)])
    assert len(first_calls._patterns) == 2


def _handed(monkeypatch) -> list:
    """A list that gets (host array, owned, device array) for each result `run` transfers."""
    handed: list = []
    real = first_calls.host_to_device

    def recorded(array, owned=False):
        out = real(array, owned=owned)
        handed.append((array, owned, out))
        return out

    monkeypatch.setattr(first_calls, "host_to_device", recorded)
    return handed


def test_a_big_result_of_its_own_memory_becomes_the_device_buffer(monkeypatch):
    handed = _handed(monkeypatch)
    op = registered_ops()["embedding"]
    weight = np.resize(WEIGHT, (13, 64))  # (rows of 256 bytes: 64 of them pass the bound)

    def make(n):
        return [weight, np.resize(np.arange(-13, 13), (1, n))]

    _check_growing(op, (("padding_idx", None),), make, range(70, 76))
    host, owned, out = handed[-1]  # (a generic call's: traced calls copy)
    assert owned and host.nbytes >= host_rules.OWNED_BYTES
    assert out.unsafe_buffer_pointer() == host.ctypes.data  # (no copy)


def test_a_result_sharing_memory_is_copied(monkeypatch):
    handed = _handed(monkeypatch)
    op = Op("PairTestBackward0", lambda x, y: (x, *[jax.numpy.concatenate([x, y])] * 2))

    def make(n):
        return [np.ones((n, 2048), np.int8), np.zeros((3, 2048), np.int8)]

    _check_growing(op, (), make, range(8, 12))
    assert len(handed) == 12 and not any(owned for _, owned, _ in handed)


@pytest.fixture(autouse=True)
def _own_patterns(monkeypatch):
    """Each test starts with no pattern met."""
    monkeypatch.setattr(first_calls, "_patterns", type(first_calls._patterns)())
