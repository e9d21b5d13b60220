"""PyTorch's `out=` argument against real PyTorch: every public function that takes it writes
the result into `out` and returns it, with PyTorch's resizing, dtype and autograd rules."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as ours
from tests._helpers.torch_compare import assert_same, run
from tests.ops import out_survey


def test_every_function_taking_out_writes_it(real_torch):
    """The survey: each function PyTorch gives `out=` (and autograd_compat has) returns `out`
    holding the result, with PyTorch's shapes and dtypes."""
    calls = out_survey.survey_calls(real_torch)
    assert len(calls) > 250  # the candidate calls reach the functions
    kinds = {call.qualname: out_survey.classify(real_torch, ours, call) for call in calls}
    wrong = {name: kind for name, kind in kinds.items() if kind not in ("writes", "missing")}
    assert not wrong, wrong


def _same(prog, real_torch) -> None:
    """`prog(lib)` returns and warns (category, text) the same with both libraries."""
    theirs, their_warnings = run(prog, real_torch)
    mine, my_warnings = run(prog, ours)
    assert_same(mine, theirs)
    assert my_warnings == their_warnings


def _x(lib, shape=(2, 3), dtype=None):
    data = np.arange(np.prod(shape), dtype=np.float64).reshape(shape) / 7 + 0.25
    return lib.tensor(data, dtype=dtype or lib.float32)


@pytest.mark.parametrize(
    "prog",
    [
        # the result is `out` itself, holding the values; out aliasing an input
        lambda lib: (lambda o: (lib.add(_x(lib), 1, out=o) is o, o))(lib.zeros(2, 3)),
        lambda lib: (lambda x: (lib.mul(x, x, out=x) is x, x))(_x(lib)),
        # a resized out: the warning when it had elements, none when empty
        lambda lib: (lambda o: (lib.exp(_x(lib), out=o), o.shape))(lib.zeros(5)),
        lambda lib: (lambda o: (lib.exp(_x(lib), out=o), o.shape))(lib.zeros(0)),
        # dtypes: cast where PyTorch casts, its errors where not
        lambda lib: lib.add(_x(lib), 1, out=lib.zeros(2, 3, dtype=lib.float64)),
        lambda lib: lib.add(_x(lib), 1, out=lib.zeros(2, 3, dtype=lib.int64)),
        lambda lib: lib.eq(_x(lib), 1, out=lib.zeros(2, 3)),
        lambda lib: lib.mm(_x(lib), _x(lib).T, out=lib.zeros(2, 2, dtype=lib.float64)),
        lambda lib: lib.abs(_x(lib), out=lib.zeros(2, 3, dtype=lib.float64)),
        # factories make out's dtype; a dtype= must be out's
        lambda lib: lib.ones(2, 3, out=lib.zeros(1, dtype=lib.int64)),
        lambda lib: lib.arange(4.0, out=lib.zeros(4, dtype=lib.int64)),
        lambda lib: lib.zeros(2, dtype=lib.float64, out=lib.zeros(2)),
        lambda lib: lib.full((2,), 1.5, out=lib.zeros(2, dtype=lib.int64)),
        lambda lib: lib.cat([_x(lib), _x(lib)], out=lib.zeros(4, 3)),
        lambda lib: lib.stack([_x(lib), _x(lib)], 1, out=lib.zeros(0)),
        # tuple outs: the function's named tuple of the same tensors
        lambda lib: (lambda v, i: (lib.max(_x(lib), 0, out=(v, i)), v, i))(
            lib.zeros(3), lib.zeros(3, dtype=lib.int64)
        ),
        lambda lib: (lambda v, i: (lib.sort(-_x(lib), 1, out=(v, i))[0] is v, v, i))(
            lib.zeros(0), lib.zeros(0, dtype=lib.int64)
        ),
        lambda lib: (lambda v, i: (lib.topk(_x(lib), 2, out=(v, i)), v, i))(
            lib.zeros(2, 2), lib.zeros(2, 2, dtype=lib.int64)
        ),
        lambda lib: lib.linalg.eigh(lib.eye(3) * 2, out=(lib.zeros(3), lib.zeros(3, 3))),
        lambda lib: lib.linalg.solve(lib.eye(2) * 2, _x(lib), out=lib.zeros(2, 3)),
        # `out` by position, where PyTorch's signature has it so
        lambda lib: (lambda o: (lib.tensordot(_x(lib), _x(lib), ([1], [1]), o) is o, o))(
            lib.zeros(2, 2)
        ),
        lambda lib: (lambda o: (lib.nn.functional.normalize(_x(lib), 2.0, 1, 1e-12, o), o))(
            lib.zeros(2, 3)
        ),
    ],
)
def test_out_follows_pytorch(prog, real_torch):
    _same(prog, real_torch)


def _grad_case(lib, out_requires_grad: bool, input_requires_grad: bool, enabled: bool):
    x = _x(lib).requires_grad_(input_requires_grad)
    out = lib.zeros(2, 3, requires_grad=out_requires_grad)
    with lib.set_grad_enabled(enabled):
        result = lib.sin(x, out=out if not out_requires_grad else out)
    return result.requires_grad, result.grad_fn is None, out


@pytest.mark.parametrize(
    ("out_grad", "input_grad", "enabled"),
    [(False, True, True), (True, False, True), (False, True, False), (False, False, True)],
)
def test_out_refuses_autograd_as_pytorch(real_torch, out_grad, input_grad, enabled):
    _same(lambda lib: _grad_case(lib, out_grad, input_grad, enabled), real_torch)


@pytest.mark.parametrize("name", ["eq", "tensordot"])
def test_out_under_autograd_where_pytorch_writes(real_torch, name):
    """Results that are not differentiable, and functions PyTorch composes of other ops (out
    then takes the result's graph), write under autograd."""

    def prog(lib):
        x = _x(lib, (3, 3)).requires_grad_()
        args = {"eq": (x, 1.0), "tensordot": (x, x)}[name]
        out = lib.zeros(0, dtype=lib.bool if name == "eq" else lib.float32)
        result = getattr(lib, name)(*args, out=out)
        if result.requires_grad:
            result.sum().backward()
        return result is out, out.requires_grad, x.grad, out.detach()

    _same(prog, real_torch)


def test_out_through_a_view_writes_its_base_and_bumps_the_version(real_torch):
    def prog(lib):
        base = lib.zeros(3, 4)
        version = base._version
        lib.mul(_x(lib, (3, 2)), 2, out=base[:, 1:3])
        return base, base._version > version

    _same(prog, real_torch)


def test_wrong_out_types_raise_type_errors():
    x = ours.ones(3, 4)
    with pytest.raises(TypeError, match="argument 'out'"):
        ours.max(x, 0, out=ours.zeros(3))
    with pytest.raises(TypeError, match="argument 'out'"):
        ours.add(x, x, out=[1.0])


def test_methods_and_operators_take_no_out():
    """Tensor methods and operators bind the front ends under the wrapper (no extra call)."""
    assert not hasattr(ours.Tensor.add, "_without_out")
    assert ours.Tensor.add is ours.add._without_out
