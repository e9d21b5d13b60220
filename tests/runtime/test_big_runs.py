"""Big ops deferred too (`_defer/lazy.py`): a step's forward joins its backward's program, its
run compiled only once running it op by op has paid for the compile, and checks that read
values (cross-entropy's class indices) leave the run open.

Values are checked against the same code with deferral off, to the bit, and gradients against
real PyTorch.
"""

from __future__ import annotations

import weakref

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._defer import lazy
from autograd_compat._pure import op_rounding
from autograd_compat._tape import fused

pytestmark = pytest.mark.usefixtures("deferral_on")

ROWS, CLASSES = 160, 128  # 20480 logits: above `lazy.SMALL_ELEMENTS`, a big op's output
rng = np.random.default_rng(5)
FEATURES = rng.standard_normal((ROWS, 16)).astype(np.float32)
WEIGHT = rng.standard_normal((CLASSES, 16)).astype(np.float32)
LABELS = rng.integers(0, CLASSES, size=ROWS + 1)


def _step(lib):
    """A forward with a big linear layer whose targets are labels shifted by ops (as
    transformers' causal-LM loss makes them), and its backward."""
    w = lib.tensor(WEIGHT, requires_grad=True)
    logits = lib.tanh(lib.tensor(FEATURES) @ w.T) * 2.0
    targets = lib.tensor(LABELS)[1:].contiguous()
    loss = lib.nn.functional.cross_entropy(logits, targets)
    loss.backward()
    return loss.item(), w.grad.numpy()


def _runs() -> list:
    return [v for v in lazy._programs.values() if type(v) is not lazy.Uncompiled]


def test_a_big_op_is_deferred():
    x = torch.tensor(FEATURES) @ torch.tensor(WEIGHT).T  # learns its shapes
    assert lazy.SMALL_ELEMENTS < x.numel()
    y = torch.tensor(FEATURES) @ torch.tensor(WEIGHT).T
    assert type(y._stored) is lazy.Pending and y._stored.segment.big
    np.testing.assert_array_equal(y.numpy(), x.numpy())


@pytest.mark.parametrize("estimate", [0.0, 1e9])
def test_a_big_run_compiles_once_its_time_op_by_op_paid_for_it(monkeypatch, real_torch, estimate):
    """With a compile estimated at nothing the step's forward and backward become one program
    at its `COMPILE_AFTER`-th meeting; estimated at a billion seconds a step, it stays op by op.
    Either way every step gives the values of deferral off, and PyTorch's."""
    monkeypatch.setattr(lazy, "COMPILE_S_PER_OP", estimate)
    lazy._programs.clear()
    steps = [_step(torch) for _ in range(fused.FUSE_AFTER + lazy.COMPILE_AFTER + 1)]
    compiled = _runs()
    if estimate:
        assert not compiled
        records = [v for v in lazy._programs.values() if v.met >= lazy.COMPILE_AFTER]
        assert records and all(0 < r.seconds < estimate for r in records)
    else:
        assert compiled
    monkeypatch.setattr(lazy, "ENABLED", False)
    eager = _step(torch)
    for loss, grad in steps:
        assert loss == eager[0]
        np.testing.assert_array_equal(grad, eager[1])
    theirs = _step(real_torch)
    np.testing.assert_allclose(steps[-1][0], theirs[0], rtol=1e-5)
    np.testing.assert_allclose(steps[-1][1], theirs[1], rtol=1e-4, atol=1e-6)


def test_a_run_of_small_ops_compiles_at_its_meeting_whatever_the_estimate(monkeypatch):
    monkeypatch.setattr(lazy, "COMPILE_S_PER_OP", 1e9)
    lazy._programs.clear()
    x = torch.tensor(FEATURES[0])
    for _ in range(lazy.COMPILE_AFTER + 1):
        ((x * 2 + 1) * 3).sum().item()
    assert _runs()


def test_cross_entropy_reads_its_targets_and_leaves_the_run_open():
    """The range check computes only the ops the targets come from (a slice and a copy of a
    tuple op's output here): the logits stay deferred until the backward."""
    for _ in range(2):  # the ops learn their shapes
        _step(torch)
    w = torch.tensor(WEIGHT, requires_grad=True)
    logits = torch.tanh(torch.tensor(FEATURES) @ w.T) * 2.0
    first, second = torch.tensor(LABELS).split([1, ROWS])
    targets = second.contiguous()
    loss = torch.nn.functional.cross_entropy(logits, targets)
    assert type(logits._stored) is lazy.Pending and logits._stored.array is None
    assert not logits._stored.segment.closed
    loss.backward()
    assert w.grad is not None and int(first.item()) == LABELS[0]


def test_a_target_out_of_range_made_by_deferred_ops_raises_at_the_call():
    for _ in range(2):
        _step(torch)
    logits = torch.tanh(torch.tensor(FEATURES) @ torch.tensor(WEIGHT).T) * 2.0
    bad = torch.tensor(LABELS)[1:].contiguous() + CLASSES  # every class index out of range
    with pytest.raises(IndexError, match=rf"Target {LABELS[1] + CLASSES} is out of bounds"):
        torch.nn.functional.cross_entropy(logits, bad)
    assert type(logits._stored) is lazy.Pending  # the run stays open after the error too
    np.testing.assert_allclose(logits.numpy(), np.tanh(FEATURES @ WEIGHT.T) * 2.0, rtol=1e-5)


def test_an_embedding_reads_its_deferred_indices_and_leaves_them_deferred():
    table = torch.nn.Embedding(CLASSES, 8)
    for _ in range(3):
        positions = torch.arange(0, 64).unsqueeze(0) + 1
        out = table(positions)
    assert type(positions._stored) is lazy.Pending and positions._stored.array is None
    np.testing.assert_array_equal(out.detach().numpy()[0], table.weight.detach().numpy()[1:65])
    with pytest.raises(IndexError, match="index out of range in self"):
        table(torch.arange(0, 64).unsqueeze(0) + CLASSES)


class _Value:
    """An output whose life the test watches."""


class _FakeOp:
    """A plan's op: `compiled(static)` is its function."""

    def __init__(self, function) -> None:
        self.function = function

    def compiled(self, static):
        return self.function


def test_a_run_op_by_op_drops_each_value_after_its_last_use():
    """Run op by op, a plan holds no output past its last reader (or at all, if none reads
    it), but the wanted ones: a run of big ops holds what its ops run at their calls would."""
    made: list = []

    def make(*inputs):
        made.append(weakref.ref(value := _Value()))
        return value

    def alive() -> list:
        return [ref() is not None for ref in made]

    seen = []
    step = _FakeOp(make)
    watch = _FakeOp(lambda *inputs: seen.append(alive()) or make())
    plan = (
        (step, (), (0,), False),  # slot 0, read by the next op only
        (step, (), (~0,), False),  # slot 1, read by the watch
        (step, (), (0,), False),  # slot 2, read by nothing
        (watch, (), (~1,), False),  # slot 3, wanted
        (step, (), (~3,), False),  # slot 4, wanted
    )
    out = lazy._run_plan([object()], plan, (3, 4))
    assert seen == [[False, True, False]]  # slot 0 after its reader, slot 2 at once
    assert len(out) == 2 and alive() == [False, False, False, True, True]


def _seams(fn, *shapes) -> tuple:
    closed = jax.make_jaxpr(fn)(*[jax.ShapeDtypeStruct(s, jnp.float32) for s in shapes])
    return op_rounding.needs_seam(closed)


@pytest.mark.parametrize(
    "fn, expected",
    [
        (lambda x, y: x * y, (True,)),  # a product: the next op's add could contract it
        (lambda x, y: -(x * y).T, (True,)),  # moved and negated, still one
        (lambda x, y: jnp.where(x > 0, x * y, y), (True,)),
        (lambda x, y: jnp.exp(x), (True,)),  # what XLA inlines for it may end in a multiply
        (lambda x, y: x * y + 1.0, (False,)),  # an add
        (lambda x, y: (jnp.maximum(x, 0.0).reshape(-1), x @ y.T), (False, False)),
        (lambda x, y: jax.nn.relu(x * y), (False,)),  # inside a custom_jvp and a jit
        (lambda x, y: (x.sum(0), x * 2, x), (False, True, False)),  # an input is none
    ],
)
def test_only_an_output_that_may_be_a_product_takes_a_seam(fn, expected):
    """A seam keeps a multiply from contracting with a later op's add; an output no multiply
    ends in takes none, so XLA keeps its layouts and fusions there (the ResNet's eager step
    took 256 ms seamed everywhere, 161 so)."""
    assert _seams(fn, (4, 3), (4, 3)) == expected


def test_a_loop_body_counts_as_a_product():
    """A loop's carry may become a product on a later iteration: its outputs take seams."""

    def loop(x, y):
        return jax.lax.fori_loop(0, 3, lambda i, c: (c[1], c[0] + 1.0), (x, y))

    assert _seams(loop, (4,), (4,)) == (True, True)


@pytest.mark.parametrize("momentum", [0.1, None])
def test_batch_norm_updates_its_running_statistics_without_reading_them(real_torch, momentum):
    """The running statistics' update is an op like the others: a training step's batch norm
    leaves its output deferred, and after a few steps (a cumulative average's factor changes
    each step) the statistics are PyTorch's."""
    images = rng.standard_normal((3, 8, 4, 16, 16)).astype(np.float32)

    def run(lib):
        norm = lib.nn.BatchNorm2d(4, momentum=momentum)
        outs = [norm(lib.tensor(x) * 2.0) for x in images]
        return norm, outs

    norm, outs = run(torch)
    pending = outs[-1]._stored
    assert type(pending) is lazy.Pending and pending.array is None  # nothing read it
    theirs, their_outs = run(real_torch)
    for name in ("running_mean", "running_var"):
        ours_stat = getattr(norm, name).numpy()
        np.testing.assert_allclose(ours_stat, getattr(theirs, name).numpy(), rtol=1e-5)
    np.testing.assert_allclose(
        outs[-1].detach().numpy(), their_outs[-1].detach().numpy(), atol=1e-5
    )
    assert int(norm.num_batches_tracked) == 3
