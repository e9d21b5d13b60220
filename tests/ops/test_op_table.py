"""Every registered op has a row in the op table (`op_table.py`), as JAX's lax_autodiff_test
covers its primitives; each row reaches its op, and the differentiable rows' gradients agree
with jax.vjp of the op's pure function, with float64 central finite differences and, where
PyTorch has the same call, with PyTorch."""

from __future__ import annotations

import contextlib
import sys

import jax
import numpy as np
import pytest

import autograd_compat
import autograd_compat.distributed.tensor  # noqa: F401  (registers DTensor's ops, which have rows)
from autograd_compat._pure.op import INEXACT, Op, conj_complex, registered_ops
from autograd_compat._tape import record
from tests._helpers.torch_compare import (
    _flatten,
    _grads,
    _jax_vjp,
    check_case,
    grad_fn_name,
    values,
)
from tests.ops.op_table import ROWS, OpCase

OPS = registered_ops()


# ----------------------------------------------------------------------------- recording
class Application:
    """One `record.apply(op, *inputs, **static)` seen while a row ran, with its result and
    its inputs' values and versions as they were."""

    def __init__(self, op, inputs, static) -> None:
        self.op = op
        self.inputs = inputs
        self.static = static
        self.result = None
        # read now: a later in-place change replaces a Tensor's value and bumps its version
        tensor = autograd_compat.Tensor
        self.values = [x._value if isinstance(x, tensor) else x for x in inputs]
        self.versions = [x._version if isinstance(x, tensor) else None for x in inputs]


class Seen(list):
    """The applications seen (a list), and `unrecorded`: ids of ops whose jitted forward ran."""

    def __init__(self) -> None:
        super().__init__()
        self.unrecorded: list[str] = []


@contextlib.contextmanager
def recording():
    """Wrap `record.apply` wherever the package bound it (modules import it by name) and
    collect the registered ops it applies; the ids of ops run without a record (their jitted
    function called directly: an unrecorded indexed write, say) go to `seen.unrecorded`."""
    original = record.apply
    seen = Seen()
    compiled = Op.compiled

    def compiled_spy(op, static):
        if op.id is not None:
            seen.unrecorded.append(op.id)
        return compiled(op, static)

    def spy(op, *inputs, **static):
        if op.id is None:  # derived and run-time ops (backward, user Functions)
            return original(op, *inputs, **static)
        app = Application(op, inputs, static)
        app.result = original(op, *inputs, **static)
        seen.append(app)
        return app.result

    patched = [
        module
        for name, module in list(sys.modules.items())
        if (name == "autograd_compat" or name.startswith("autograd_compat."))
        and getattr(module, "apply", None) is original
    ]
    for module in patched:
        module.apply = spy
    Op.compiled = compiled_spy
    try:
        yield seen
    finally:
        Op.compiled = compiled
        for module in patched:
            module.apply = original


# ----------------------------------------------------------------------------- running rows
def _wants_grad(case: OpCase, arrays) -> bool:
    if case.grad is not None:
        return case.grad
    return OPS[case.id].differentiable and any(a.dtype.kind == "f" for a in arrays)


def _requires(case: OpCase, arrays, grad: bool) -> list:
    flags = case.requires_grad or (True,) * len(arrays)
    return [bool(grad and r and a.dtype.kind == "f") for a, r in zip(arrays, flags)]


def _run(case: OpCase, arrays, requires):
    tensors = [autograd_compat.tensor(a, requires_grad=r) for a, r in zip(arrays, requires)]
    with recording() as seen:
        out = case.call(autograd_compat, *tensors)
    return tensors, out, seen


def _params(select=lambda case: True):
    out = []
    for case in ROWS:
        if not select(case):
            continue
        marks = [pytest.mark.xfail(strict=True, reason=case.xfail)] if case.xfail else []
        out.append(pytest.param(case, id=case.id, marks=marks))
    return out


# ----------------------------------------------------------------------------- the walk
def test_every_registered_op_has_exactly_one_row():
    ids = [case.id for case in ROWS]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    assert not duplicates, f"op table rows listed twice: {duplicates}"
    missing = sorted(set(OPS) - set(ids))
    stale = sorted(set(ids) - set(OPS))
    assert not missing, f"registered ops without a row in tests/ops/op_table.py: {missing}"
    assert not stale, f"op table rows for ops that are not registered: {stale}"


# ----------------------------------------------------------------------------- gradients
def _float_outputs(result) -> list:
    outs = result if type(result) is tuple else (result,)
    return [o for o in outs if o._value.dtype in INEXACT and o.requires_grad]


def _op_vjp(case: OpCase, seen) -> bool:
    """(a) The row's op as applied (its last application in the row): the gradients of its
    float outputs with respect to its inputs that require grad, by our engine, against
    jax.vjp of `Op.fn` (conjugated for complex values, PyTorch's convention) with the static
    arguments and input values it got. Returns False where that does not apply: no input
    requires grad, or one was changed in place later (the in-place rows: the input now stands
    for the op's result), or inputs that may depend on each other."""
    apps = [a for a in seen if a.op.id == case.id]
    if not apps:
        return False
    app = apps[-1]
    diff = [
        i
        for i, x in enumerate(app.inputs)
        if isinstance(x, autograd_compat.Tensor)
        and x.requires_grad
        and (x.dtype.is_floating_point or x.dtype.is_complex)
    ]
    outputs = _float_outputs(app.result)
    if not diff or not outputs:
        return False
    if any(app.inputs[i]._version != app.versions[i] for i in diff):
        return False
    distinct = {id(app.inputs[i]) for i in diff}
    if len(distinct) > 1 and not all(app.inputs[i].is_leaf for i in diff):
        return False  # one input may depend on another: autograd.grad gives total derivatives
    if len(distinct) < len(diff):
        return False  # one tensor at several positions: its gradient sums their partials
    values = app.values
    rng = np.random.default_rng(3)
    cts = [rng.standard_normal(tuple(o.shape)).astype(o._value.dtype) for o in outputs]
    ours = autograd_compat.autograd.grad(
        outputs,
        [app.inputs[i] for i in diff],
        [autograd_compat.tensor(c) for c in cts],
        retain_graph=True,
        allow_unused=True,
    )
    results = app.result if type(app.result) is tuple else (app.result,)
    picked = [k for k, o in enumerate(results) if any(o is p for p in outputs)]

    def pure(*diff_values):
        full = list(values)
        for i, v in zip(diff, diff_values):
            full[i] = v
        out = app.op.fn(*full, **app.static)
        out = out if type(out) is tuple else (out,)
        return [out[k] for k in picked]

    @jax.jit  # one compilation: eager jax.vjp dispatches (and compiles) primitive by primitive
    def vjp(primals, cotangents):
        # PyTorch's convention for complex values: the conjugate of JAX's cotangents
        cotangents = [conj_complex(c) for c in cotangents]
        return [conj_complex(g) for g in jax.vjp(pure, *primals)[1](cotangents)]

    expected = vjp([values[i] for i in diff], cts)
    for k, (g, e) in enumerate(zip(ours, expected)):
        got = np.zeros(np.shape(e)) if g is None else np.asarray(g.detach().numpy())
        np.testing.assert_allclose(
            got, np.asarray(e), rtol=1e-9, atol=1e-10, err_msg=f"grad {k} vs jax.vjp of Op.fn"
        )
    return True


def _finite_differences(case: OpCase, arrays, requires, cotangents, grads) -> None:
    """(b) Central differences of <cotangent, f(x + t v)> along a random direction v, in
    float64, against the same directional derivative from our gradients. The call runs with
    the row's inputs requiring grad (some rows differentiate inside), results detached."""
    rng = np.random.default_rng(11)
    diff = [i for i, r in enumerate(requires) if r]
    directions = {i: rng.standard_normal(arrays[i].shape) for i in diff}

    def objective(t):
        tensors = [
            autograd_compat.tensor(a + t * directions[i] if i in directions else a, requires_grad=r)
            for i, (a, r) in enumerate(zip(arrays, requires))
        ]
        outs = _flatten(case.call(autograd_compat, *tensors))
        return sum(float(np.sum(values(o) * c)) for o, c in zip(outs, cotangents) if c is not None)

    eps = case.fd_eps
    numeric = (objective(eps) - objective(-eps)) / (2 * eps)
    analytic = sum(float(np.sum(g * directions[i])) for g, i in zip(grads, diff))
    np.testing.assert_allclose(
        analytic, numeric, rtol=case.fd_rtol, atol=case.fd_atol, err_msg="finite differences"
    )


@pytest.mark.parametrize("case", _params())
def test_row(case: OpCase):
    """The row reaches its op; for a differentiable row, its gradients by our engine against
    (a) jax.vjp of the op's pure function at the op's application (`_op_vjp`), or else of the
    row's traced program, and (b) float64 central finite differences."""
    arrays = case.arrays()
    grad = _wants_grad(case, arrays)
    requires = _requires(case, arrays, grad)
    tensors, out, seen = _run(case, arrays, requires)
    applied = [a.op.id for a in seen]
    if case.id not in applied:  # run without a record: only an unrecorded path does that
        assert case.id in seen.unrecorded, (
            f"the row applied {applied} (and ran {seen.unrecorded}), not {case.id!r}"
        )
    if not any(requires):
        return
    op_checked = _op_vjp(case, seen)
    outputs = _flatten(out)
    rng = np.random.default_rng(7)
    cotangents = [
        rng.standard_normal(tuple(o.shape))
        if o.requires_grad and o.dtype.is_floating_point
        else None
        for o in outputs
    ]
    assert any(c is not None for c in cotangents), "no output of the row requires grad"
    grads = _grads(autograd_compat, outputs, tensors, cotangents)
    if not op_checked and case.trace:  # (a) on the whole row: jax.vjp of the traced program
        diff_index = [i for i, r in enumerate(requires) if r]
        for k, (g, e) in enumerate(zip(grads, _jax_vjp(case.call, arrays, diff_index, cotangents))):
            np.testing.assert_allclose(
                g, e, rtol=1e-9, atol=1e-10, err_msg=f"grad {k} vs jax.vjp of the row's program"
            )
    _finite_differences(case, arrays, requires, cotangents, grads)


@pytest.mark.torch
@pytest.mark.parametrize("case", _params(lambda case: case.torch))
def test_row_against_pytorch(case: OpCase, real_torch):
    """(c) values, dtypes, grad_fn names and float64 gradients against PyTorch's."""
    arrays = case.arrays()
    grad = _wants_grad(case, arrays)
    check_case(
        case.call,
        arrays,
        real_torch,
        requires_grad=_requires(case, arrays, grad),
        grads=grad,
        names=case.names and case.name_differs is None,
        tolerance=case.tolerance,
        finite_differences=False,
        grad_rtol=1e-6,
        grad_atol=1e-9,
    )


def _named_params():
    return [
        pytest.param(
            case, id=case.id, marks=pytest.mark.xfail(strict=True, reason=case.name_differs)
        )
        for case in ROWS
        if case.name_differs
    ]


@pytest.mark.torch
@pytest.mark.parametrize("case", _named_params())
def test_row_grad_fn_names_match_pytorch(case: OpCase, real_torch):
    """The known grad_fn name discrepancies (strict xfails: fixing one fails here)."""
    arrays = case.arrays()
    names = []
    for lib in (real_torch, autograd_compat):
        tensors = [lib.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
        names.append([grad_fn_name(o) for o in _flatten(case.call(lib, *tensors))])
    assert names[1] == names[0], f"grad_fn names: torch {names[0]}, autograd_compat {names[1]}"
