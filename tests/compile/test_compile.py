"""torch.compile: a compiled call equals the eager call in every observable thing (outputs,
parameters, `.grad`, optimizer and scheduler state, BN statistics, versions, the random
stream), compiles as rarely as PyTorch's, and breaks the graph (eagerly, with one warning) where
it cannot trace."""

from __future__ import annotations

import warnings

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograd_compat as torch
import autograd_compat.nn as nn
from autograd_compat._compile.arguments import WrappedNumber
from autograd_compat._defer import lazy as _lazy
from autograd_compat._ops import random as _random_ops
from tests.autograd.test_gradcheck import _wrong_square

counters = torch._dynamo.utils.counters


@pytest.fixture(autouse=True)
def _fresh_counters():
    for table in counters.values():
        table.clear()
    yield


def _graphs() -> int:
    return counters["stats"].get("unique_graphs", 0)


def _model() -> nn.Module:
    """A classifier with BatchNorm and dropout. The layer before BatchNorm has no bias, as such
    layers are written: its gradient would be 0 in exact arithmetic (the normalization removes
    any shift), so it is rounding noise, which Adam turns into full steps of either sign."""
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Linear(4, 8, bias=False),
        nn.BatchNorm1d(8),
        nn.ReLU(),
        nn.Dropout(0.25),
        nn.Linear(8, 3),
    )


def _snapshot(model, opt):
    return {
        "params": [p.detach().numpy().copy() for p in model.parameters()],
        "grads": [p.grad.numpy().copy() for p in model.parameters()],
        "versions": [p._version for p in model.parameters()],
        "buffers": [b.numpy().copy() for b in model.buffers()],
        "state": [
            v.numpy().copy() for s in opt.state.values() for v in s.values() if v is not None
        ],
    }


def _train(compiled: str, optimizer: str, steps: int = 20):
    """20 steps of a classifier with BN and dropout: eager, a compiled step, or a compiled
    module inside an eager step."""
    model = _model()
    params = model.parameters()
    opt = (
        torch.optim.SGD(params, lr=0.1, momentum=0.9)
        if optimizer == "sgd"
        else torch.optim.Adam(params, lr=0.01)
    )
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    net = torch.compile(model) if compiled == "module" else model
    loss_fn = nn.CrossEntropyLoss()

    def step(x, y):
        opt.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        sched.step()
        return loss

    if compiled == "step":
        step = torch.compile(step)
    torch.manual_seed(1)
    data = [(torch.randn(6, 4), torch.randint(0, 3, (6,))) for _ in range(steps)]
    losses = [step(x, y).item() for x, y in data]
    return losses, _snapshot(model, opt), sched.get_last_lr()


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
@pytest.mark.parametrize("use", ["step", "module"])
def test_compiled_training_equals_eager(use, optimizer, monkeypatch):
    # Eager ops run at their call here, so that both steps round alike op by op (a deferred
    # eager step computes its backward inside another program, `_defer/lazy`).
    monkeypatch.setattr(_lazy, "ENABLED", False)
    # Eager dropout takes JAX keys as a compiled step does (each step draws once: the same key)
    monkeypatch.setattr(_random_ops, "PYTORCH_STREAM", False)
    eager = _train("none", optimizer)
    compiled = _train(use, optimizer)
    np.testing.assert_allclose(compiled[0], eager[0], rtol=1e-5, atol=1e-6)
    for key, values in eager[1].items():
        for ours, theirs in zip(compiled[1][key], values):
            np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6, err_msg=key)
    assert compiled[2] == eager[2]
    assert _graphs() <= 2  # the whole loop: at most two programs


def test_compiled_module_is_one_node_and_differentiates_again():
    model = _model().eval()
    compiled = torch.compile(model)
    assert compiled._orig_mod is model
    assert list(compiled.state_dict()) == [f"_orig_mod.{k}" for k in model.state_dict()]
    assert [id(p) for p in compiled.parameters()] == [id(p) for p in model.parameters()]
    seen = []
    model[0].weight.register_hook(lambda g: seen.append(g.shape))
    x = torch.randn(5, 4, requires_grad=True)
    compiled(x)  # the first call runs eagerly (state made lazily exists before tracing)
    out = compiled(x)
    assert type(out.grad_fn).__name__ == "CompiledFunctionBackward"
    (g,) = torch.autograd.grad(out.pow(2).sum(), x, create_graph=True)
    (gg,) = torch.autograd.grad(g.sin().sum(), x)
    (g_eager,) = torch.autograd.grad(model(x).pow(2).sum(), x, create_graph=True)
    (gg_eager,) = torch.autograd.grad(g_eager.sin().sum(), x)
    np.testing.assert_allclose(g.detach().numpy(), g_eager.detach().numpy(), rtol=1e-5)
    np.testing.assert_allclose(gg.numpy(), gg_eager.numpy(), rtol=1e-4, atol=1e-6)
    compiled(x).sum().backward()
    assert seen == [(8, 4)]  # hooks on the module's parameters fire
    with torch.no_grad():
        assert not compiled(x).requires_grad


def test_writes_are_seen_afterwards_with_eager_versions():
    state = torch.zeros(3)
    counter = torch.zeros((), dtype=torch.int64)

    @torch.compile
    def accumulate(x):
        state.add_(x)
        counter.add_(1)
        return state * 2

    for _ in range(4):
        out = accumulate(torch.ones(3))
    np.testing.assert_array_equal(state.numpy(), [4.0, 4.0, 4.0])
    np.testing.assert_array_equal(out.numpy(), [8.0, 8.0, 8.0])
    assert counter.item() == 4
    assert state._version == 4 and counter._version == 4


def test_random_draws_advance_the_stream_reproducibly():
    """A compiled call draws from a JAX key made from the generator's stream (not eager's
    values; its first call runs eagerly, drawing eager's): each call moves the stream on, and
    the same seed or saved state repeats them."""

    def draw(x):
        return x + torch.randn(3)

    compiled = torch.compile(draw)
    torch.manual_seed(3)
    first = compiled(torch.zeros(3)).numpy()
    torch.manual_seed(3)
    np.testing.assert_array_equal(first, torch.randn(3).numpy())
    runs = []
    for _ in range(2):
        torch.manual_seed(3)
        runs.append(np.stack([compiled(torch.zeros(3)).numpy() for _ in range(4)]))
    np.testing.assert_array_equal(runs[0], runs[1])
    assert len({tuple(row) for row in np.round(runs[0], 5)}) == 4
    state = torch.get_rng_state()
    first = compiled(torch.zeros(3)).numpy()
    torch.set_rng_state(state)
    np.testing.assert_array_equal(compiled(torch.zeros(3)).numpy(), first)


def test_a_changing_python_number_compiles_one_program():
    """The first call runs eagerly and notes the number; the second, with another value,
    compiles the one program that takes it as a runtime input (a loss weight that changes
    every step)."""

    @torch.compile
    def scaled(x, weight):
        return (x * weight).sum()

    x = torch.ones(4)
    results = [scaled(x, 0.5 * i).item() for i in range(50)]
    assert results == [2.0 * i for i in range(50)]
    assert _graphs() == 1
    wrapped = WrappedNumber._wrap(np.float64(2.0))
    assert (torch.ones(2, dtype=torch.float32) * wrapped).dtype is torch.float32


def test_dynamic_false_specializes_and_the_cache_limit_falls_back():
    @torch.compile(dynamic=False)
    def scaled(x, weight):
        return x * weight

    limit = torch._dynamo.config.cache_size_limit
    with pytest.warns(UserWarning, match="cache_size_limit"):
        values = [scaled(torch.ones(1), float(i)).item() for i in range(limit + 3)]
    assert values == [float(i) for i in range(limit + 3)]
    assert _graphs() == limit


def _breaks():
    """Functions that cannot be traced whole, each with its eager result."""
    w = torch.tensor([1.0, -2.0, 3.0])

    def branch(x):
        y = (w * x).sum()
        return y * 2 if y.item() > 0 else y

    def loop(x):
        y = x * 2
        while y.norm() < 1000:  # the seed example's doubling loop
            y = y * 2
        return y

    def prints(x):
        print(x)
        return x + 1

    def to_numpy(x):
        return torch.tensor(x.numpy() * 2)

    def to_list(x):
        return torch.tensor(x.tolist()) + w

    def nonzero(x):
        return x.nonzero()

    def masked(x):
        return torch.masked_select(x, x > 0)

    def boolean_index(x):
        return x[x > 0].sum()

    def equal(x):
        return x * 2 if torch.equal(x, w) else x

    return [branch, loop, prints, to_numpy, to_list, nonzero, masked, boolean_index, equal]


@pytest.mark.parametrize("fn", _breaks(), ids=lambda f: f.__name__)
def test_graph_breaks_run_eagerly_warn_once_and_fullgraph_raises(fn, capsys):
    x = torch.tensor([1.0, -1.0, 2.0])
    expected = fn(x)
    compiled = torch.compile(fn)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = [compiled(x) for _ in range(3)]
    for result in results:
        np.testing.assert_array_equal(result.numpy(), expected.numpy())
    messages = [str(w.message) for w in caught if "torch.compile" in str(w.message)]
    assert len(messages) == 1 and "test_compile.py:" in messages[0]
    strict = torch.compile(fn, fullgraph=True)
    for _ in range(2):  # from the first call (it runs eagerly, then is traced)
        with pytest.raises(torch._dynamo.exc.Unsupported, match=r"test_compile\.py:\d+"):
            strict(x)
    capsys.readouterr()


def test_errors_are_the_eager_errors_and_leave_state_unchanged():
    weight = torch.ones(4, 2)
    state = torch.zeros(2)

    @torch.compile
    def bad(x):
        state.add_(1)
        return x @ weight

    bad(torch.ones(3, 4))
    before = (state.numpy().copy(), state._version)
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied"):
        bad(torch.ones(2, 3))
    assert (state.numpy().tolist(), state._version) == (before[0].tolist(), before[1])

    leaf = torch.ones(2, requires_grad=True)

    @torch.compile
    def inplace_leaf(x):
        leaf.add_(x)
        return leaf

    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        inplace_leaf(torch.ones(2))

    w = torch.ones(2, requires_grad=True)

    @torch.compile
    def backward_twice(x):
        loss = (w * x).exp().sum()
        loss.backward()
        loss.backward()

    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        backward_twice(torch.ones(2))
    assert w.grad is not None  # the eager first call's first backward
    grad = w.grad.numpy().copy()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        backward_twice(torch.ones(2))
    # a compiled call commits all or nothing: the first backward's gradient is not kept
    np.testing.assert_array_equal(w.grad.numpy(), grad)


def test_compiler_namespace():
    @torch.compiler.disable
    def helper(x):
        assert not torch.compiler.is_compiling()
        return x * 2

    seen = []

    @torch.compile
    def uses_helper(x):
        seen.append(torch.compiler.is_compiling())
        return helper(x) + 1

    with pytest.warns(UserWarning, match="torch.compiler.disable"):
        for _ in range(3):
            np.testing.assert_array_equal(uses_helper(torch.ones(2)).numpy(), [3.0, 3.0])
    assert True in seen and not torch.compiler.is_compiling()
    assert torch.compile(uses_helper.__wrapped__, disable=True) is uses_helper.__wrapped__
    assert torch.compile(helper, backend="eager") is helper

    @torch.compile(fullgraph=True, mode="max-autotune", options={"trace.enabled": False})
    def double(x):
        return x * 2

    double(torch.ones(1))
    double(torch.ones(1))
    assert _graphs() == 1
    torch.compiler.reset()
    double(torch.ones(1))
    assert _graphs() == 2


def test_methods_compile_per_instance():
    class Scaler:
        def __init__(self, factor):
            self.factor = torch.tensor(factor)

        @torch.compile
        def apply(self, x):
            return x * self.factor

    a, b = Scaler(2.0), Scaler(3.0)
    for _ in range(2):
        assert a.apply(torch.ones(1)).item() == 2.0
        assert b.apply(torch.ones(1)).item() == 3.0
    a.factor.mul_(10)
    assert a.apply(torch.ones(1)).item() == 20.0


def test_a_step_that_clears_grads_itself_compiles_once():
    w = torch.ones(3, requires_grad=True)

    @torch.compile
    def step(x):
        w.grad = None  # before anything reads w: the trace must still see the old .grad
        loss = (w * x).sum()
        loss.backward()
        return loss

    for i in range(5):
        step(torch.full((3,), float(i)))
        np.testing.assert_array_equal(w.grad.numpy(), np.full(3, float(i)))
    assert _graphs() == 1 and "recompiles" not in counters["stats"]


def _scheduled_training(compile_step: bool, schedule: str) -> tuple[list, list]:
    """50 steps with a learning rate (and, for OneCycleLR, a momentum) that changes every step
    and a Python loss weight that changes every call."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
    if schedule == "onecycle":
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=50)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.7)

    def step(x, y, weight):
        opt.zero_grad()
        loss = weight * nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        sched.step()
        return loss

    if compile_step:
        step = torch.compile(step)
    torch.manual_seed(1)
    x, y = torch.randn(6, 4), torch.randint(0, 3, (6,))
    losses = [step(x, y, 1.0 / (1 + i)).item() for i in range(50)]
    return losses, [p.detach().numpy().copy() for p in model.parameters()]


@pytest.mark.parametrize("schedule", ["onecycle", "steplr"])
def test_a_50_step_schedule_with_a_changing_loss_weight_compiles_at_most_twice(schedule):
    eager = _scheduled_training(False, schedule)
    compiled = _scheduled_training(True, schedule)
    assert _graphs() <= 2 and counters["graph_break"] == {}
    np.testing.assert_allclose(compiled[0], eager[0], rtol=1e-6, atol=1e-7)
    for ours, theirs in zip(compiled[1], eager[1]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-7)


def test_a_compiled_step_donates_the_buffers_it_replaces_unless_something_else_holds_them():
    """Parameters and optimizer state are updated over their old buffers (one copy of the
    model), but a buffer something else still holds (here a raw array) is left whole."""
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

    @torch.compile
    def step(x):
        opt.zero_grad()
        loss = model(x).pow(2).sum()
        loss.backward()
        opt.step()
        return loss

    def buffers():
        momentum = [opt.state[p]["momentum_buffer"] for p in model.parameters()]
        return [t._value.unsafe_buffer_pointer() for t in [*model.parameters(), *momentum]]

    x = torch.ones(2, 4)
    step(x)  # eager warm-up: makes the momentum buffers
    step(x)  # compiles
    before = buffers()
    step(x)
    assert buffers() == before
    kept = model.weight._value
    old = np.asarray(kept).copy()
    view = model.weight.detach()  # shares the parameter's memory, as in PyTorch
    step(x)
    assert not kept.is_deleted()
    np.testing.assert_array_equal(np.asarray(kept), old)
    np.testing.assert_array_equal(view.numpy(), model.weight.detach().numpy())
    assert not np.array_equal(view.numpy(), old)


def _linear_sgd_step(n_in: int, n_out: int) -> tuple:
    """A Linear layer and its compiled SGD step (zero_grad, backward, step) of an input."""
    model = nn.Linear(n_in, n_out)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    @torch.compile
    def step(x):
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()

    return model, step


def test_the_first_compiled_call_donates_and_compiles_one_program():
    """The donation is planned from the trace, so the first compiled call writes over the old
    buffers already and the plain program is never compiled."""
    model, step = _linear_sgd_step(4, 3)
    x = torch.ones(2, 4)
    step(x)  # eager warm-up
    before = [p._value.unsafe_buffer_pointer() for p in model.parameters()]
    step(x)  # traced, compiled and run
    assert [p._value.unsafe_buffer_pointer() for p in model.parameters()] == before
    (entry,) = step.entries.values()
    assert (entry.program._cache_size(), entry.donating._cache_size()) == (0, 1)


def test_a_grad_cleared_between_a_compiled_forward_and_its_backward():
    # char_lstm's order: forward, optimizer.zero_grad() (set_to_none), backward. The forward
    # was traced while w had a .grad; its backward re-traces it after the .grad is gone.
    w = torch.ones(2, requires_grad=True)
    f = torch.compile(lambda x: (w * x).sum())
    for i in range(4):
        out = f(torch.full((2,), float(i + 1)))
        w.grad = None
        out.backward()
        np.testing.assert_array_equal(w.grad.numpy(), np.full(2, float(i + 1)))
    assert _graphs() == 1


def test_a_grad_cleared_before_a_call_is_a_guard_failure():
    w = torch.ones(2, requires_grad=True)
    f = torch.compile(lambda x: (w * x).sum())
    for i in range(4):
        if i == 3:
            w.grad = None  # the program assumed a .grad: a new one is compiled
        f(torch.full((2,), float(i + 1))).backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.full(2, 4.0))
    assert _graphs() == 2


@pytest.mark.parametrize("grad", [False, True], ids=["unrecorded", "a node"])
def test_a_captured_tensor_that_changes_shape_or_dtype_recompiles(grad):
    state = torch.zeros(3, requires_grad=grad)
    f = torch.compile(lambda x: x * (state * 2).sum())
    x = torch.ones(2)
    for value in (np.arange(3.0), np.arange(3.0), np.arange(4.0), np.arange(4), np.arange(4)):
        with torch.no_grad():
            state.data = torch.tensor(value, dtype=torch.float32 if grad else None)
        np.testing.assert_array_equal(f(x).detach().numpy(), np.full(2, 2 * value.sum()))
    # eager, then the entry for float32[3], then one for float32[4]; without grad, an int64[4]
    assert _graphs() == (2 if grad else 3)
    assert counters["stats"]["recompiles"] == _graphs() - 1


_scale = torch.tensor(1.0)  # a global the tests below rebind, as a notebook's loop does


def _rebound_global_steps(lib, f, steps: int = 5):
    """Rebind the global `_scale` before each call of `f`; the losses and w's gradients."""
    global _scale
    w = lib.tensor(2.0, requires_grad=True)
    x = lib.linspace(0, 1, 10)
    results = []
    for i in range(steps):
        _scale = lib.tensor(3.0 + i)
        loss = f(x, w).sum()
        loss.backward()
        results.append((loss.item(), w.grad.item()))
        w.grad = None
    return results


def test_a_global_tensor_rebound_before_each_call_is_read_anew(real_torch):
    """The program read the tensor the global held when it was built, at every call after
    (losses 40, 40, 40, ... where PyTorch gives 40, 50, 60): the entry is remade instead."""
    got = _rebound_global_steps(torch, torch.compile(lambda x, w: x * _scale * w))
    assert counters["stats"]["recompiles"] == 3  # (call 1 runs eagerly, call 2 builds)
    expected = _rebound_global_steps(real_torch, lambda x, w: x * _scale * w)
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    xs = jnp.linspace(0, 1, 10)
    for i, (_, grad) in enumerate(got):
        want = jax.grad(lambda w, s=3.0 + i: jnp.sum(xs * s * w))(2.0)
        np.testing.assert_allclose(grad, want, rtol=1e-6)


def test_a_closed_over_tensor_rebound_between_calls_is_read_anew():
    scale = torch.tensor(0.0)
    f = torch.compile(lambda x: x * scale)
    for i in range(4):
        scale = torch.tensor(float(i))  # (the lambda's cell now holds the new tensor)
        np.testing.assert_array_equal(f(torch.ones(2)).numpy(), [i, i])
    assert _graphs() == 3


def test_a_global_rebound_at_every_call_runs_eagerly_past_the_limit():
    global _scale
    f = torch.compile(lambda x: x * _scale)
    limit = torch._dynamo.config.cache_size_limit
    with pytest.warns(UserWarning, match="reads '_scale', bound to another tensor between calls"):
        for i in range(limit + 4):
            _scale = torch.tensor(float(i))
            np.testing.assert_array_equal(f(torch.ones(2)).numpy(), [i, i])
    assert _graphs() == limit + 1  # then no more programs


def test_a_global_rebound_between_a_forward_and_its_first_backward_is_an_error():
    """The backward traces the call again (the first time its vjp runs): it would read the new
    tensor. PyTorch's backward uses the forward's saved tensors; here it raises, naming it."""
    global _scale
    w = torch.tensor(2.0, requires_grad=True)
    f = torch.compile(lambda x: (x * _scale * w).sum())
    _scale = torch.tensor(3.0)
    f(torch.ones(2)).backward()  # (eager: the first call warms up)
    w.grad = None
    loss = f(torch.ones(2))
    _scale = torch.tensor(5.0)
    with pytest.raises(RuntimeError, match="reads '_scale', which was bound to another tensor"):
        loss.backward()
    assert w.grad is None


def test_a_double_backward_after_the_build_calls_argument_got_a_grad():
    # The WGAN-GP penalty through a compiled critic (examples/wgan_gp.py --compile=model): the
    # entry is built by call 2, whose argument's .grad the backward then fills; the backward of
    # call 3 re-traces the entry, which must not read that argument's later .grad.
    def run(compile_it):
        w = torch.ones(2, requires_grad=True)
        f = torch.compile(lambda x: (w * x).sin().sum(), disable=not compile_it)
        grads = []
        for i in range(4):
            x = torch.full((2,), float(i + 1), requires_grad=True)
            out = f(x)
            (g,) = torch.autograd.grad(out, x, create_graph=True)
            (g.sum() + out).backward()  # also fills x.grad
            grads.append([x.grad.tolist(), w.grad.tolist()])
        return grads

    np.testing.assert_allclose(run(True), run(False), rtol=1e-6)
    assert _graphs() == 1 and counters["graph_break"] == {}


def test_an_in_place_write_to_a_tensor_argument_runs_eagerly():
    # The program returned no new value for its arguments: the write was silently lost (x
    # stayed at its first compiled value). Until arguments are written back, it is a graph
    # break: correct values, with a warning.
    @torch.compile
    def f(x):
        x[0].add_(1)  # through a view, too
        return x * 2

    x = torch.zeros(2)
    with pytest.warns(UserWarning, match="in-place write to a tensor argument"):
        outs = [f(x).tolist() for _ in range(3)]
    assert outs == [[2.0, 0.0], [4.0, 0.0], [6.0, 0.0]]
    assert x.tolist() == [3.0, 0.0] and x._version == 3
    assert counters["graph_break"] == {"an in-place write to a tensor argument": 1}


def test_an_argument_that_brings_a_grad_along_stays_differentiable():
    """A leaf argument with a `.grad` from an earlier backward: the compiled call is still one
    node of the caller's graph (it was mistaken for a step running its own backward)."""
    x = torch.ones(2, requires_grad=True)
    cube = torch.compile(lambda t: t**3)
    for _ in range(3):
        out = cube(x)
        assert out.requires_grad
        out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [9.0, 9.0])
    assert type(out.grad_fn).__name__ == "CompiledFunctionBackward"


# x**2 whose backward is deliberately not its derivative (3x), as a straight-through estimator
# would be: a compiled call must run it, not jax.vjp of the forward
_WrongSquare = _wrong_square(torch)


def test_a_custom_function_compiles_and_its_own_backward_runs():
    w = torch.ones(3, requires_grad=True)

    def step(x):
        w.grad = None
        loss = _WrongSquare.apply(w * x).sum()
        loss.backward()
        return loss

    compiled = torch.compile(step)
    for i in range(3):
        x = torch.full((3,), float(i + 1))
        loss = compiled(x)
        grad = w.grad.numpy().copy()
        assert loss.item() == step(x).item()
        np.testing.assert_array_equal(grad, w.grad.numpy())  # 3 w x^2: the custom backward
    assert _graphs() == 1 and counters["graph_break"] == {}

    # a differentiable call: one node, differentiated by jax.vjp of a custom_vjp
    cube = torch.compile(_WrongSquare.apply)
    x = torch.full((2,), 2.0, requires_grad=True)
    for _ in range(3):
        out = cube(x)
        out.sum().backward()
    assert type(out.grad_fn).__name__ == "CompiledFunctionBackward"
    np.testing.assert_array_equal(x.grad.numpy(), [18.0, 18.0])  # 3 calls of 3 x
    assert _graphs() == 2 and counters["graph_break"] == {}


class CompiledStepAgainstJax(chex.TestCase):
    """A compiled step's loss and gradient are those of `jax.value_and_grad` of the same maths
    written in JAX, jitted or not."""

    @chex.variants(with_jit=True, without_jit=True)
    def test_compiled_step_equals_jax_value_and_grad(self):
        data = np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(3, 4)
        w = torch.tensor(np.full((4, 2), 0.5, np.float32), requires_grad=True)

        @torch.compile
        def step(x):
            w.grad = None
            loss = ((x @ w).tanh() ** 2).mean()
            loss.backward()
            return loss

        for _ in range(2):  # eager warm-up, then the compiled program
            loss = step(torch.tensor(data))
        expected_loss, expected_grad = self.variant(
            jax.value_and_grad(lambda w, x: (jnp.tanh(x @ w) ** 2).mean())
        )(jnp.asarray(w.detach().numpy()), jnp.asarray(data))
        assert _graphs() == 1
        chex.assert_trees_all_close(
            (loss.item(), w.grad.numpy()), (float(expected_loss), expected_grad), rtol=1e-6
        )


def test_constants_made_while_tracing_are_arrays_not_tracers():
    """A Python number first met inside a compiled trace is cached as a concrete array: a
    cached tracer made every later program that used the number expect inputs no call gave
    ("Execution supplied 6 arguments but compiled program expected 8")."""
    from autograd_compat._pure import op as _op

    @torch.compile(dynamic=False)
    def scaled(x, weight):
        return x * weight

    for i in range(3):
        scaled(torch.ones(1), float(i) + 0.25).item()
    assert all(
        isinstance(v, jax.Array) and not isinstance(v, jax.core.Tracer)
        for v in _op._constants.values()
    )
    w = torch.ones(1)

    @torch.compile
    def step(x):
        w.mul_(2.25)  # meets the constant the trace above cached
        return (x * 2.25).sum()

    for _ in range(3):
        assert step(torch.ones(2)).item() == 4.5
    assert w.item() == 2.25**3


def test_a_step_that_sets_a_grad_of_a_grad_runs_eagerly_with_eagers_results():
    # p.grad is captured as p's gradient memory, which follows whichever .grad object p holds
    # at a call; the .grad of that .grad is no state a call follows, so such a step breaks
    def run(compiled):
        p = torch.ones(2, requires_grad=True)
        p.grad = torch.zeros(2, requires_grad=True)

        def step(x):
            p.grad.grad = None
            ((p * x).sum() + (p.grad * x).sum()).backward()
            return x

        step = torch.compile(step, disable=not compiled)
        for i in range(3):
            step(torch.full((2,), float(i + 1)))
        return p.grad.tolist(), p.grad.grad.tolist()

    assert run(False) == ([6.0, 6.0], [3.0, 3.0])
    with pytest.warns(UserWarning, match=r"a \.grad of a \.grad set"):
        assert run(True) == run(False)
    assert counters["graph_break"] == {"a .grad of a .grad set": 1}


def test_the_guard_reads_no_grad_object_of_an_earlier_call():
    # zero_grad(set_to_none) and backward give the parameters new .grad objects every step: the
    # entry neither guards on nor keeps the ones its build saw
    model, step = _linear_sgd_step(3, 1)
    for _ in range(3):
        step(torch.ones(2, 3))
    (entry,) = step.entries.values()
    linked = {id(t) for t, _ in entry.effects.grad_links}
    assert linked == {id(model.weight), id(model.bias)}
    assert entry.guard[0] == (True, True)


class _LazyMomentum(torch.optim.Optimizer):
    """A user's optimizer that makes its state at its first step, as most do."""

    def __init__(self, params, lr=0.1):
        super().__init__(params, {"lr": lr})

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                if "buf" not in state:
                    state["buf"] = torch.zeros_like(p)
                state["buf"].mul_(0.9).add_(p.grad)
                p.add_(state["buf"], alpha=-group["lr"])


@pytest.mark.parametrize(
    "make_optimizer",
    [
        lambda params: torch.optim.SGD(params, lr=0.1, momentum=0.9),
        lambda params: torch.optim.Adam(params, lr=0.01),
        lambda params: _LazyMomentum(params),
    ],
    ids=["sgd_momentum", "adam", "user_optimizer"],
)
def test_a_new_model_and_optimizer_per_fold(make_optimizer):
    """k-fold cross-validation: a compiled step given a fresh model and optimizer per fold
    matches eager steps, and no traced value is left in the optimizer's state."""

    def train_step(model, opt, x, y):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        return loss

    step = torch.compile(train_step)
    x, y = torch.randn(16, 4), torch.randn(16, 1)

    def fold(seed, run):
        torch.manual_seed(seed)
        model = nn.Linear(4, 1)
        opt = make_optimizer(model.parameters())
        losses = [run(model, opt, x, y).item() for _ in range(4)]
        for state in opt.state.values():
            for value in state.values():
                if isinstance(value, torch.Tensor):
                    value.numpy()  # a concrete value, not a tracer
        return losses, model.weight.detach().numpy()

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "cannot be traced" fallback
        for seed in range(3):
            ours, weight = fold(seed, step)
            eager, eager_weight = fold(seed, train_step)
            np.testing.assert_allclose(ours, eager, rtol=1e-6)
            np.testing.assert_allclose(weight, eager_weight, rtol=1e-6)
