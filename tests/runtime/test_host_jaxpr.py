"""Ops met at new shapes evaluated on the host (`_pure/host_jaxpr.py`, `Op.first_call`): the
bits XLA:CPU gives, for every primitive accepted, and nothing compiled."""

from __future__ import annotations

import contextlib
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import autograd_compat as torch
from autograd_compat._pure import executables, host_jaxpr, host_rules
from autograd_compat._pure.op import Op, registered_ops
from autograd_compat.nn import functional as F
from tests._helpers.jaxprs import bits, inner_eqns

F32 = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-40, -1e-40, 3.5, -2.0], np.float32)
I8 = np.array([127, -128, -1, 0, 1, 100, -100, 64, 7, -7], np.int8)
I64 = np.array([2**63 - 1, -(2**63), -1, 0, 1, 2**53 + 1, -(2**31), 2**31, 3, -9], np.int64)
U8 = np.array([0, 255, 1, 128, 7, 200, 3, 0, 9, 250], np.uint8)
B = np.array([True, False, True, True, False, False, True, False, True, False])
SHIFTS = np.array([0, 1, 7, 8, 9, -1, 3, 64, 2, 5], np.int8)
WILD = np.array([-12, -1, 0, 1, 5, 9, 10, 11, 2**40, -(2**40)], np.int64)  # gather/slice starts

# One function per accepted primitive; its jaxpr holds that primitive.
CASES = {
    "slice": lambda: (lambda x: lax.slice(x, (1,), (9,), (3,)), F32),
    "dynamic_slice": lambda: (
        lambda x, i: [lax.dynamic_slice(x, (j,), (4,)) for j in (*i, *i.astype(np.uint32))],
        F32,
        WILD,
    ),
    "dynamic_update_slice": lambda: (
        lambda x, i: [lax.dynamic_update_slice(x, x[:3], (j,)) for j in i],
        F32,
        WILD,
    ),
    "gather": lambda: (
        lambda x, i: (
            x.reshape(5, 2)[i],
            jnp.take(x, i, mode="fill"),
            jnp.take(x, i, mode="clip"),
            jnp.take(x.reshape(2, 5), i, axis=1, mode="fill", fill_value=-3.0),
            x[i.clip(-10, 9)],
            jax.vmap(lambda j: lax.dynamic_slice(x, (j,), (3,)))(i),  # (windows of 3)
            x.reshape(2, 5)[i & 1, i.clip(0, 4)],
            jnp.take(x, i.clip(0, 9), mode="fill"),  # (every index in range)
            jnp.take(x.reshape(2, 5), i.clip(0, 4).astype(np.uint8), axis=1, mode="clip"),
        ),
        F32,
        WILD,
    ),
    "concatenate": lambda: (lambda x, y: jnp.concatenate([x, y, x]), F32, F32[::-1].copy()),
    "reshape": lambda: (lambda x: lax.reshape(x, (2, 5)), I64),
    "broadcast_in_dim": lambda: (lambda x: lax.broadcast_in_dim(x, (3, 10, 2), (1,)), U8),
    "transpose": lambda: (lambda x: x.reshape(2, 5, 1).transpose(2, 0, 1), F32),
    "squeeze": lambda: (lambda x: (lax.squeeze(x.reshape(1, 10, 1), (0, 2)), x[3]), B),
    "pad": lambda: (
        lambda x: (
            lax.pad(x, np.float32(-0.0), [(2, -3, 1)]),
            lax.pad(x, np.float32(np.nan), [(-1, 2, 0)]),
        ),
        F32,
    ),
    "rev": lambda: (lambda x: lax.rev(x.reshape(2, 5), (0, 1)), F32),
    "iota": lambda: (lambda x: lax.iota(np.int16, 10) + x, I8.astype(np.int16)),
    "split": lambda: (lambda x: jnp.split(x, [3, 4], axis=0), F32),
    "select_n": lambda: (
        lambda p, x, y, i: (lax.select_n(p, x, y), lax.select_n(i, x, y, x[::-1])),
        B,
        F32,
        F32[::-1].copy(),
        (I8.astype(np.int32) % 3).clip(0, 2),
    ),
    "copy": lambda: (lambda x: lax.copy_p.bind(x), F32),
    "convert_element_type": lambda: (
        lambda i, b, u: (
            i.astype(np.int8),
            i.astype(np.uint32),
            i.astype(np.bool_),
            i.astype(np.float32),
            i.astype(np.float64),
            b.astype(np.float32),
            u.astype(np.int8),
        ),
        I64,
        B,
        U8,
    ),
    "add": lambda: (lambda x, y: x + y, I64, I64[::-1].copy()),
    "sub": lambda: (lambda x, y: (x - y, y - x), I8, I8[::-1].copy()),
    "mul": lambda: (lambda x, y: x * y, I64, I64[::-1].copy()),
    "neg": lambda: (lambda x, u: (-x, lax.neg(u)), I8, U8),
    "abs": lambda: (lambda x: lax.abs(x), I8),
    "max": lambda: (lambda x, y, b: (lax.max(x, y), lax.max(b, ~b)), I8, I8[::-1].copy(), B),
    "min": lambda: (lambda x, y: lax.min(x, y), U8, U8[::-1].copy()),
    "clamp": lambda: (lambda x: lax.clamp(np.int64(-5), x, np.int64(2**40)), I64),
    "and": lambda: (lambda x, y: x & y, I64, I64[::-1].copy()),
    "or": lambda: (lambda x, y: x | y, U8, U8[::-1].copy()),
    "xor": lambda: (lambda x, y: x ^ y, I8, I8[::-1].copy()),
    "not": lambda: (lambda x, b: (~x, ~b), I8, B),
    "eq": lambda: (lambda x, y: x == y, I8, I8[::-1].copy()),
    "ne": lambda: (lambda x, y: x != y, B, B[::-1].copy()),
    "lt": lambda: (lambda x, y: x < y, U8, U8[::-1].copy()),
    "le": lambda: (lambda x, y: x <= y, I64, I64[::-1].copy()),
    "gt": lambda: (lambda x, y: x > y, I8, I8[::-1].copy()),
    "ge": lambda: (lambda x, y: x >= y, I64, I64[::-1].copy()),
    "shift_left": lambda: (lambda x, s: lax.shift_left(x, s), I8, SHIFTS),
    "shift_right_arithmetic": lambda: (lambda x, s: lax.shift_right_arithmetic(x, s), I8, SHIFTS),
    "shift_right_logical": lambda: (lambda x, s: lax.shift_right_logical(x, s), I8, SHIFTS),
}

# Functions whose jaxpr holds something numpy does not compute as XLA:CPU does.
REFUSED = {
    "exp": lambda x: jnp.exp(x),
    "a float sum": lambda x: x.sum(),
    "a multiply feeding an add": lambda x: x * x + x,
    "a float comparison": lambda x: x > 0,
    "a float negation": lambda x: -x,
    "a float max": lambda x: jnp.maximum(x, 0),
    "a float to int cast": lambda x: x.astype(np.int32),
    "a float widening": lambda x: x.astype(np.float64),
    "a weakly typed output": lambda x: lax.full((2,), 3),
}


def _outputs(case):
    fn, *args = case()
    jitted = jax.jit(fn)
    traced = jitted.trace(*args)
    host = host_jaxpr.evaluate(traced.jaxpr, args) if host_rules.exact(traced.jaxpr) else None
    return traced, host, jax.tree.leaves(jitted(*args))


def test_every_accepted_primitive_is_checked():
    accepted = set(host_rules.MOVES) | set(host_rules.INTEGER)
    assert accepted == set(CASES) | {"dim_as_value"}  # (that one: test_first_calls.py)


@pytest.mark.parametrize("name", list(CASES))
def test_the_host_gives_the_bits_xla_gives(name):
    traced, host, program = _outputs(CASES[name])
    assert name in {eqn.primitive.name for eqn in inner_eqns(traced.jaxpr.jaxpr)}
    assert host is not None, host_rules.refusal(traced.jaxpr.jaxpr)
    assert len(host) == len(program)
    for got, expected in zip(host, program):
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(bits(got), bits(expected))


@pytest.mark.parametrize("name", list(REFUSED))
def test_what_is_not_exact_is_refused(name):
    traced = jax.jit(REFUSED[name]).trace(F32)
    assert not host_rules.exact(traced.jaxpr)


def test_a_value_past_the_size_bound_is_refused(monkeypatch):
    monkeypatch.setattr(host_jaxpr, "MAX_ELEMENTS", 9)
    big = np.resize(F32, 99)
    for fn, evaluated in ((lambda x: x[::-1], False), (lambda x: x[:9], True)):
        traced = jax.jit(fn).trace(big)  # (a bigger input is no bar, a bigger output is)
        assert (host_jaxpr.evaluate(traced.jaxpr, [big]) is not None) is evaluated


@contextlib.contextmanager
def _compiles():
    """A list that gets one entry per program XLA compiles in the block."""
    seen: list = []

    def listener(event, duration, **_):
        if event == executables.COMPILE_EVENT:
            seen.append(duration)

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        yield seen
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)


def test_an_op_met_once_at_a_shape_compiles_nothing_and_gives_the_programbits():
    cat = registered_ops()["cat"]
    static = (("dim", 0), ("dtype", np.dtype(np.float32)), ("keep", (True, True)))
    x = jnp.asarray(np.resize(F32, 37))  # (a length no other test uses)
    y = np.resize(F32[::-1], (5,))
    with _compiles() as seen:
        out = cat.first_call(static, [x, y])
    assert seen == []
    assert type(out) is type(x) and not out.aval.weak_type
    with _compiles() as seen:
        expected = cat.compiled(static)(x, y)
    assert len(seen) == 1
    np.testing.assert_array_equal(bits(out), bits(expected))


def test_an_op_with_a_refused_primitive_compiles_as_before():
    op = Op("ExpTestBackward0", jnp.exp)
    x = jnp.asarray(np.resize(F32, 41))
    with _compiles() as seen:
        out = op.first_call((), [x])
    assert len(seen) == 1
    np.testing.assert_array_equal(bits(out), bits(jax.jit(jnp.exp)(x)))


def test_inside_a_trace_the_program_is_traced_as_before(monkeypatch):
    op = Op("TakeTestBackward0", lambda x, i: x[i])
    calls = []
    real = host_jaxpr.evaluate
    monkeypatch.setattr(host_jaxpr, "evaluate", lambda *a: calls.append(a) or real(*a))
    out = jax.jit(lambda x, i: op.first_call((), [x, i]))(jnp.asarray(F32), np.array([3, -1, 2]))
    assert calls == []
    np.testing.assert_array_equal(bits(out), bits(F32[[3, -1, 2]]))


@pytest.mark.parametrize("device", [None, "cpu"])
def test_growing_generation_compiles_nothing_per_token_and_matches_torch(
    real_torch, deferral_on, device
):
    """The bigram generation (embedding of the whole sequence, its last row, softmax,
    multinomial, cat) compiles no program per token, and its tokens are PyTorch's."""

    def generate(lib, functional, tokens, watch=None):
        lib.manual_seed(7)
        table = lib.nn.Embedding(11, 11).to(device)
        idx = lib.zeros((1, 1), dtype=lib.long, device=device)
        with lib.no_grad():
            for step in range(tokens):
                logits = table(idx)[:, -1, :]
                probs = functional.softmax(logits, dim=-1)
                idx = lib.cat((idx, lib.multinomial(probs, num_samples=1)), dim=1)
                if step == 2 and watch is not None:
                    watch.clear()  # (the fixed-shape softmax and multinomial compile once)
        return idx[0].tolist()

    with _compiles() as seen:
        ours = generate(torch, F, 12, seen)
    assert seen == []
    assert ours == generate(real_torch, real_torch.nn.functional, 12)


def test_a_result_lies_where_the_program_s_would():
    """On the device of a committed input (committed there unless it is the process's one
    device, where `_device.commit` leaves arrays uncommitted)."""
    cat = registered_ops()["cat"]
    static = (("dim", 0), ("dtype", np.dtype(np.float32)), ("keep", (True, True)))
    x = jax.device_put(np.resize(F32, 39), jax.devices()[0])  # (committed)
    y = np.resize(F32[::-1], (4,))
    with _compiles() as seen:
        out = cat.first_call(static, [x, y])
    assert seen == []
    expected = cat.compiled(static)(x, y)
    assert expected.committed and out.devices() == expected.devices()
    assert out.committed is (len(jax.devices()) > 1)
    np.testing.assert_array_equal(bits(out), bits(expected))


def test_a_grad_through_ops_first_met_on_the_host_is_torch_s(real_torch):
    """The node of an op computed on the host is the vjp of the same op: its gradients are
    PyTorch's."""

    def run(lib):
        weight = lib.tensor(np.arange(12.0).reshape(4, 3), requires_grad=True)
        idx = lib.tensor([[3, 0, 3, 1, 2, 0, 1]])
        rows = lib.nn.functional.embedding(idx, weight)
        picked = lib.cat((rows[:, -1, :], rows[:, 1, :] * 2), dim=0)
        (picked * lib.tensor([[1.0, 2.0, 3.0]])).sum().backward()
        return picked.tolist(), weight.grad.tolist()

    assert run(torch) == run(real_torch)


def test_the_second_call_at_a_shape_compiles_its_program_and_the_third_nothing(deferral_on):
    x = torch.arange(43)  # (a length no other test uses)
    y = x[:5] + 0
    counts = []
    for _ in range(3):
        with _compiles() as seen:
            out = torch.cat((x, y))
            out.tolist()
        counts.append(len(seen))
    assert counts == [0, 1, 0]
    assert out.tolist() == list(range(43)) + list(range(5))


def test_a_compiled_function_never_hands_the_host_a_tracer(real_torch, monkeypatch):
    """torch.compile's first call runs eagerly (its ops may go to the host), its trace does
    not: the evaluator only ever sees concrete arrays, and the results are PyTorch's."""
    seen = []
    real = host_jaxpr.evaluate

    def watched(closed, args):
        seen.append(all(isinstance(a, (np.ndarray, jax.Array)) for a in args))
        assert not any(isinstance(a, jax.core.Tracer) for a in args)
        return real(closed, args)

    monkeypatch.setattr(host_jaxpr, "evaluate", watched)

    def fn(lib, x, i):
        return lib.cat((x[:, i], x[:, -1:] * 2), dim=1).sum(dim=0)

    compiled = torch.compile(lambda x, i: fn(torch, x, i))
    for n in (3, 3, 3, 5):
        x = np.arange(n * 4.0, dtype=np.float32).reshape(n, 4)
        i = np.array([2, 0, 3])
        ours = compiled(torch.tensor(x), torch.tensor(i)).tolist()
        assert ours == fn(real_torch, real_torch.tensor(x), real_torch.tensor(i)).tolist()
    assert seen and all(seen)


def test_a_gather_with_every_index_in_range_is_a_plain_lookup(monkeypatch):
    """An embedding's rows in range are taken by one fancy index: no clamp, no fill."""
    weight = np.resize(F32, (7, 3))
    indices = np.array([[6, 0, 3, 3]])
    fn = functools.partial(registered_ops()["embedding"].fn, padding_idx=None)
    traced = jax.jit(fn).trace(weight, indices)
    monkeypatch.setattr(host_rules, "_clamped_gather", None)  # (a call would raise)
    (host,) = host_jaxpr.evaluate(traced.jaxpr, [weight, indices])
    np.testing.assert_array_equal(bits(host), bits(jax.jit(fn)(weight, indices)))
