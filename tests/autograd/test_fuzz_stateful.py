"""Stateful API fuzzing: one random sequence of autograd calls, run on PyTorch and on
autograd_compat side by side.

A hypothesis RuleBasedStateMachine interleaves building graphs over three leaves (with
reuse of earlier outputs), `backward` (with/without retain_graph, create_graph, `inputs=`,
weights), `autograd.grad` (allow_unused, retain_graph), zeroing or dropping `.grad`, SGD
updates under `no_grad`, `retain_grad`, tensor hooks (added and removed), in-place ops on
non-leaves (which invalidate saved values) and on leaves (an error). After every step the two
worlds must agree: each leaf's value and `.grad` (None or values), every retained `.grad`,
and the exception raised by the step (type and text).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, rule

import autograd_compat as ac

torch = pytest.importorskip("torch", reason="the stateful fuzzer compares against PyTorch")

LEAF_VALUES = [
    np.array([0.5, -1.25, 2.0], np.float32),
    np.array([[1.0, -0.5, 0.25], [0.75, 1.5, -2.0]], np.float32),
    np.array(0.8, np.float32),
]
STEPS = {"count": 0, "errors": 0, "resync": 0}

# Graph templates over leaves (a: (3,), b: (2, 3), c: ()) and an earlier output p (any shape).
TEMPLATES = {
    "sum_mul": lambda a, b, c, p: (a * b).sum(),
    "mean_sin": lambda a, b, c, p: (b.sin() * c).mean(),
    "exp_norm": lambda a, b, c, p: a.exp().norm() + c,
    "vector": lambda a, b, c, p: b @ a,
    "matrix": lambda a, b, c, p: (b * c).tanh(),
    "scalar_only": lambda a, b, c, p: c * c * 3,
    "a_only": lambda a, b, c, p: (a**2).sum(),
    "reuse": lambda a, b, c, p: (p * c).sum() + (a * a).sum(),
    "reuse_vector": lambda a, b, c, p: p.sum() * a,
    "index": lambda a, b, c, p: b[1, [0, 2]].sum() + a[0] * c,
}

# The tensor named in a version error: autograd_compat can't always name a saved view (known
# discrepancy, tests/parity version_error_message_for_saved_view); the rest of the text counts.
VIEW_DETAIL = re.compile(r"\[.*?\]+(, which is output \d+ of \w+)?,? is at version")


def _np(t):
    return None if t is None else np.array(t.detach().numpy(force=True), np.float64)


class World:
    """One library's state: the three leaves, the outputs built so far, the hook handles."""

    def __init__(self, lib) -> None:
        self.lib = lib
        self.leaves = [lib.tensor(v, requires_grad=True) for v in LEAF_VALUES]
        self.outputs: list = []
        self.handles: list = []


class TwinAutograd(RuleBasedStateMachine):
    outputs = Bundle("outputs")

    @initialize()
    def setup(self):
        self.worlds = [World(torch), World(ac)]
        # Outputs whose backward raised, and those built on them: PyTorch may have run (and
        # freed) part of that graph before raising, autograd_compat checks first and frees
        # nothing (known discrepancy), so their next backward fails with different texts.
        self.broken: set = set()
        self.shares: dict = {}  # output -> the earlier outputs whose graph it contains

    # ------------------------------------------------------------------ running one step
    def both(self, step):
        """Run `step(world)` in both worlds; their results or exceptions must agree."""
        outcomes = []
        for world in self.worlds:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    outcomes.append(("ok", step(world)))
                except Exception as exc:  # noqa: BLE001 - errors are results to compare
                    outcomes.append(("error", (type(exc).__name__, str(exc))))
        (kind_t, value_t), (kind_a, value_a) = outcomes
        STEPS["count"] += 1
        assert kind_t == kind_a, (
            f"PyTorch: {kind_t} {value_t!r}; autograd_compat: {kind_a} {value_a!r}"
        )
        if kind_t == "error":
            STEPS["errors"] += 1
            assert value_t[0] == value_a[0], f"error types differ: {value_t} vs {value_a}"
            t_text, a_text = (
                VIEW_DETAIL.sub("[...] is at version", v[1]) for v in (value_t, value_a)
            )
            assert t_text == a_text, f"error texts differ: {value_t} vs {value_a}"
            # Known discrepancy (test_regression_failed_backward_runs_retain_grad_hooks_first):
            # PyTorch may run part of a failing backward (retained .grad of the root is
            # accumulated) before it raises; autograd_compat checks first, changes nothing.
            self.resync()
        else:
            self.same(value_t, value_a, "result")
        return kind_t

    def resync(self):
        """Copy PyTorch's .grad of the leaves and retained outputs into autograd_compat."""
        t_world, a_world = self.worlds
        pairs = list(zip(t_world.leaves, a_world.leaves)) + [
            (t, a) for t, a in zip(t_world.outputs, a_world.outputs) if t.retains_grad
        ]
        for t, a in pairs:
            expected = None
            if t.grad is not None:  # a .grad made under create_graph requires grad
                expected = ac.tensor(_np(t.grad).astype(np.float32))
                expected.requires_grad_(t.grad.requires_grad)
            if (expected is None) != (a.grad is None) or (
                expected is not None
                and (
                    not np.allclose(_np(a.grad), _np(expected))
                    or a.grad.requires_grad != expected.requires_grad
                )
            ):
                STEPS["resync"] += 1
                if t.grad_fn is None:
                    a.grad = expected
                else:
                    a._grad = expected  # a retained non-leaf .grad (no public setter path)

    def same(self, t, a, what: str) -> None:
        if isinstance(t, (list, tuple)):
            assert isinstance(a, (list, tuple)) and len(t) == len(a), (what, t, a)
            for i, (x, y) in enumerate(zip(t, a)):
                self.same(x, y, f"{what}[{i}]")
            return
        if t is None or a is None:
            assert t is None and a is None, f"{what}: PyTorch {t!r}, autograd_compat {a!r}"
            return
        if isinstance(t, bool):
            assert t == a, (what, t, a)
            return
        np.testing.assert_allclose(_np(a), _np(t), rtol=1e-4, atol=1e-5, err_msg=what)
        assert str(t.dtype) == str(a.dtype), (what, t.dtype, a.dtype)
        assert t.requires_grad == a.requires_grad, (what, "requires_grad")

    # ------------------------------------------------------------------ rules
    @rule(target=outputs, template=st.sampled_from(sorted(TEMPLATES)), reuse=st.integers(0, 50))
    def build(self, template, reuse):
        def step(world):
            a, b, c = world.leaves
            p = world.outputs[reuse % len(world.outputs)] if world.outputs else a
            world.outputs.append(TEMPLATES[template](a, b, c, p))
            return world.outputs[-1]

        self.both(step)
        new = len(self.worlds[0].outputs) - 1
        if template.startswith("reuse") and new:
            used = reuse % new
            self.shares[new] = {used} | self.shares.get(used, set())
        return new

    def usable(self, out) -> bool:
        """Whether `out`'s graph is untouched by a failed backward (see `broken`)."""
        return not ({out} | self.shares.get(out, set())) & self.broken

    def run_backward(self, out, step) -> None:
        if self.both(step) == "error":
            # PyTorch may have run and freed any node of this graph, shared ones included
            self.broken |= {out} | self.shares.get(out, set())
            self.broken |= {o for o, used in self.shares.items() if out in used}

    @rule(
        out=outputs,
        retain=st.booleans(),
        create=st.sampled_from([False, False, False, True]),
        inputs=st.sampled_from([None, (0,), (1,), (2,), (0, 2)]),
        weighted=st.booleans(),
    )
    def backward(self, out, retain, create, inputs, weighted):
        def step(world):
            y = world.outputs[out]
            gradient = None
            if weighted or y.numel() != 1:
                n = y.numel()
                values = np.linspace(0.5, 1.5, n, dtype=np.float32).reshape(tuple(y.shape))
                gradient = world.lib.tensor(values)
            chosen = None if inputs is None else [world.leaves[i] for i in inputs]
            y.backward(gradient, retain_graph=retain, create_graph=create, inputs=chosen)

        if not self.usable(out):
            return
        self.run_backward(out, step)
        if inputs is not None:
            # Known discrepancy (test_regression_backward_inputs_still_retains_root_grad):
            # with inputs= PyTorch still fills the retained .grad of the root.
            self.resync()

    @rule(
        out=outputs,
        which=st.sampled_from([(0,), (1,), (2,), (0, 1, 2)]),
        allow_unused=st.booleans(),
        retain=st.booleans(),
    )
    def grad(self, out, which, allow_unused, retain):
        def step(world):
            y = world.outputs[out]
            weights = None
            if y.numel() != 1:
                weights = world.lib.ones(tuple(y.shape))
            xs = [world.leaves[i] for i in which]
            return world.lib.autograd.grad(
                y, xs, weights, retain_graph=retain, allow_unused=allow_unused
            )

        if not self.usable(out):
            return
        self.run_backward(out, step)
        # Known discrepancy (test_regression_backward_inputs_still_retains_root_grad): PyTorch
        # fills the retained .grad of a root even when its node leads to none of the inputs.
        self.resync()

    @rule(leaf=st.integers(0, 2), how=st.sampled_from(["zero", "none"]))
    def reset_grad(self, leaf, how):
        def step(world):
            x = world.leaves[leaf]
            if how == "none":
                x.grad = None
            elif x.grad is not None:
                x.grad.zero_()

        self.both(step)

    @rule(lr=st.sampled_from([0.1, 0.01]))
    def sgd_step(self, lr):
        def step(world):
            with world.lib.no_grad():
                for x in world.leaves:
                    if x.grad is not None:
                        x -= lr * x.grad

        self.both(step)

    @rule(leaf=st.integers(0, 2))
    def inplace_on_leaf(self, leaf):
        self.both(lambda world: world.leaves[leaf].mul_(2))

    @rule(out=outputs, how=st.sampled_from(["add_", "mul_"]))
    def inplace_on_output(self, out, how):
        self.both(lambda world: getattr(world.outputs[out], how)(2))

    @rule(out=outputs)
    def retain_grad(self, out):
        self.both(lambda world: world.outputs[out].retain_grad())

    @rule(leaf=st.integers(0, 2), scale=st.sampled_from([0.5, 2.0]))
    def add_hook(self, leaf, scale):
        def step(world):
            if len(world.handles) < 3:
                world.handles.append(world.leaves[leaf].register_hook(lambda g: g * scale))

        self.both(step)

    @rule()
    def remove_hook(self):
        def step(world):
            if world.handles:
                world.handles.pop(0).remove()

        self.both(step)

    @rule(out=outputs)
    def detach_output(self, out):
        def step(world):
            world.outputs[out] = world.outputs[out].detach()
            return world.outputs[out]

        self.both(step)

    # ------------------------------------------------------------------ invariants
    @invariant()
    def leaves_and_grads_agree(self):
        if not hasattr(self, "worlds"):
            return
        t_world, a_world = self.worlds
        for i, (t, a) in enumerate(zip(t_world.leaves, a_world.leaves)):
            self.same(t, a, f"leaf {i}")
            self.same(t.grad, a.grad, f"leaf {i}.grad")
        for i, (t, a) in enumerate(zip(t_world.outputs, a_world.outputs)):
            assert t.retains_grad == a.retains_grad, f"output {i}.retains_grad"
            assert t.is_leaf == a.is_leaf, f"output {i}.is_leaf"
            if t.retains_grad:
                self.same(t.grad, a.grad, f"output {i}.grad")


TwinAutograd.TestCase.settings = settings(
    max_examples=60,
    stateful_step_count=40,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
test_twin_autograd = TwinAutograd.TestCase


# ----------------------------------------------------------------------------- regressions
# Minimal sequences the machine found (shrunk by hypothesis), replayed on both libraries.
def _replay(lib, steps):
    x = [lib.tensor(v, requires_grad=True) for v in LEAF_VALUES]
    return steps(lib, *x)


def _compare_replay(steps):
    expected = _replay(torch, steps)
    actual = _replay(ac, steps)
    assert len(expected) == len(actual)
    for e, a in zip(expected, actual):
        assert (e is None) == (a is None), (expected, actual)
        if e is not None:
            np.testing.assert_allclose(_np(a), _np(e), rtol=1e-6)


def _retained_root_after_failed_grad(lib, a, b, c):
    y = (a**2).sum()
    y.retain_grad()
    lib.autograd.grad(y, [a])
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        lib.autograd.grad(y, [a])
    return [y.grad, a.grad]


@pytest.mark.xfail(
    strict=True,
    reason="PyTorch runs the root's retain_grad hook before a failing backward raises "
    "(y.grad becomes 2); autograd_compat raises before running anything (y.grad stays 1)",
)
def test_regression_failed_backward_runs_retain_grad_hooks_first():
    _compare_replay(_retained_root_after_failed_grad)


def _retained_root_with_unrelated_inputs(lib, a, b, c):
    y = (a**2).sum()
    y.retain_grad()
    y.backward(inputs=[b])
    return [y.grad, a.grad, b.grad]


@pytest.mark.xfail(
    strict=True,
    reason="backward(inputs=[b]) with a root y that does not reach b: PyTorch still sets the "
    "retained y.grad (1.0); autograd_compat prunes the root's node and leaves y.grad None",
)
def test_regression_backward_inputs_still_retains_root_grad():
    _compare_replay(_retained_root_with_unrelated_inputs)


def _inplace_on_saved_output(lib, a, b, c):
    y = (b * c).tanh()
    y.add_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        lib.autograd.grad(y, [b], lib.ones(2, 3))
    return [b.grad]


def test_regression_inplace_on_output_saved_by_tanh():
    """tanh saves its result: an in-place change of the result breaks the backward."""
    _compare_replay(_inplace_on_saved_output)


def test_step_count():
    """The state machine ran at least 1,750 steps in this run (when it ran)."""
    if STEPS["count"] == 0:
        pytest.skip("the state machine did not run in this session")
    print(f"state machine steps: {STEPS}")
    assert STEPS["count"] >= 1750, STEPS  # 1,779 with the argument checks
    assert STEPS["resync"] <= STEPS["count"] // 10, STEPS  # known discrepancies stay rare
