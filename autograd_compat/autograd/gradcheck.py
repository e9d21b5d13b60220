"""torch.autograd.gradcheck: compare analytical gradients with finite differences.

`gradcheck` computes the numerical Jacobian of `func` by central differences (in the inputs'
dtype: use float64) and the analytical one with this library's backward (`autograd.grad`, one
row per output element, twice to check that the backward is deterministic), and raises
`GradcheckError` with PyTorch's message (both Jacobians, input-major as PyTorch prints them)
on the first mismatch. `fast_mode=True` compares the scalars `v^T J u` for random `u`, `v`
instead, and recomputes the slow Jacobians for the error message. `gradgradcheck` runs
gradcheck on the function's backward (second derivatives).
"""

from __future__ import annotations

import warnings

import jax.numpy as jnp
import numpy as np

from .._ops.random import rand
from .._pure import dtypes as _dtypes
from .._state import modes as _grad_mode
from .._state.tensor import Tensor
from .._tape.backward import grad
from . import forward_ad
from .function import Function

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """Error raised by gradcheck and gradgradcheck."""


FAILED_NONDET_MSG = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""

FAST_FAIL_SLOW_OK_MSG = """
Fast gradcheck failed but element-wise differences are small. This means that the
test might've passed in slow_mode!

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:

If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `fast_mode=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_fast_mode=False`
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_fast_mode=False`
"""


# ----------------------------------------------------------------------------- helpers
def _as_tuple(x) -> tuple:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _differentiable_outputs(x) -> tuple:
    return tuple(o for o in _as_tuple(x) if isinstance(o, Tensor) and o.requires_grad)


def _diff_inputs(inputs: tuple) -> list:
    return [(i, x) for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]


def _tensor(array: np.ndarray, dtype) -> Tensor:
    """A Tensor of `dtype` holding a numpy array (for messages and results)."""
    return Tensor._wrap(jnp.asarray(np.asarray(array), dtype=dtype.jax))


def _np(tensor: Tensor) -> np.ndarray:
    return np.asarray(tensor._value)


def _check_inputs(inputs: tuple) -> None:
    any_requires_grad = False
    for index, x in enumerate(inputs):
        if isinstance(x, Tensor) and x.requires_grad:
            if x.dtype.is_complex:
                raise NotImplementedError(
                    "gradcheck of functions of complex inputs is not supported yet; check the "
                    "real and imaginary parts as separate real inputs"
                )
            if x.dtype.name != "float64":
                warnings.warn(
                    f"Input #{index} requires gradient and is not a double precision floating "
                    "point or complex. This check will likely fail if all the inputs are not of "
                    "double precision floating point or complex. ",
                    UserWarning,
                    stacklevel=3,
                )
            any_requires_grad = True
    if not any_requires_grad:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them "
            "have requires_grad=True."
        )


def _check_outputs(func_out) -> None:
    """`func` must return real Tensors."""
    for o in _as_tuple(func_out):
        if not isinstance(o, Tensor):  # PyTorch fails on `o.requires_grad` (AttributeError)
            raise TypeError(
                "gradcheck expects `func` to return a Tensor or a tuple of Tensors, but it "
                f"returned a {type(o).__name__}"
            )
        if o.dtype.is_complex:
            raise NotImplementedError(
                "gradcheck of functions with complex outputs is not supported yet"
            )


def _notallclose_msg(analytical, numerical, output_idx: int, input_idx: int, forward=False):
    mode = "computed with forward mode " if forward else ""
    return (
        f"Jacobian {mode}mismatch for output {output_idx:d} with respect to input "
        f"{input_idx:d},\nnumerical:{numerical}\nanalytical:{analytical}\n"
    )


def _allclose(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> bool:
    dtype = np.promote_types(a.dtype, b.dtype)
    return bool(np.allclose(a.astype(dtype), b.astype(dtype), rtol=rtol, atol=atol))


def _replace(inputs: tuple, index: int, array: np.ndarray) -> tuple:
    original = inputs[index]
    tensor = Tensor._wrap(jnp.asarray(array, dtype=original._stored.dtype))
    tensor._requires_grad = original._requires_grad
    return inputs[:index] + (tensor,) + inputs[index + 1 :]


def _outputs_np(func, inputs: tuple) -> list:
    """Each output of func at `inputs` as a numpy array (None for non-tensors)."""
    return [_np(o) if isinstance(o, Tensor) else None for o in _as_tuple(func(*inputs))]


# ----------------------------------------------------------------------------- numerical
def _numerical_jacobian(func, inputs: tuple, outputs_np: list, eps: float) -> dict:
    """{(input index, output index): (in_numel, out_numel) array} by central differences,
    each computed in the output's dtype as PyTorch does."""
    result = {}
    for index, x in _diff_inputs(inputs):
        base = _np(x)
        columns: dict[int, list] = {k: [] for k, o in enumerate(outputs_np) if o is not None}
        for j in range(base.size):
            plus = base.copy()
            minus = base.copy()
            plus.flat[j] = base.flat[j] + eps
            minus.flat[j] = base.flat[j] - eps
            out_plus = _outputs_np(func, _replace(inputs, index, plus))
            out_minus = _outputs_np(func, _replace(inputs, index, minus))
            for k in columns:
                a, b = out_plus[k], out_minus[k]
                if a.shape != b.shape or a.shape != outputs_np[k].shape:
                    raise AssertionError(
                        "Expected `func` to return outputs with the same shape when inputs are "
                        f"perturbed on index {j} by {eps}, but got: shapes {a.shape} and "
                        f"{b.shape}."
                    )
                if not np.issubdtype(a.dtype, np.inexact):
                    a = a.astype(np.float64)
                    b = b.astype(np.float64)
                columns[k].append(((a - b) / (2 * eps)).reshape(-1))
        for k, rows in columns.items():
            out = outputs_np[k]
            dtype = out.dtype if np.issubdtype(out.dtype, np.inexact) else np.float64
            result[(index, k)] = (
                np.stack(rows).astype(dtype) if rows else np.zeros((0, out.size), dtype)
            )
    return result


# ----------------------------------------------------------------------------- analytical
def _analytical_jacobian(inputs: tuple, output: Tensor, nondet_tol: float, check_dtypes: bool):
    """{input index: (in_numel, out_numel) array}: one backward per output element, twice."""
    diff = _diff_inputs(inputs)
    tensors = [x for _, x in diff]
    numel = output.numel()

    def rows():
        columns = [[] for _ in diff]
        ok_size, ok_dtype = True, True
        for k in range(numel):
            onehot = np.zeros(numel, np.asarray(output._value).dtype)
            onehot[k] = 1
            go = Tensor._wrap(jnp.asarray(onehot.reshape(output._stored.shape)))
            grads = grad(output, tensors, go, retain_graph=True, allow_unused=True)
            for c, (g, x) in enumerate(zip(grads, tensors)):
                if g is None:
                    columns[c].append(np.zeros(x.numel(), np.asarray(x._value).dtype))
                    continue
                if g.shape != x.shape:
                    ok_size = False
                elif g.dtype is not x.dtype:
                    ok_dtype = False
                columns[c].append(_np(g).reshape(-1).astype(np.asarray(x._value).dtype))
        jac = [
            np.stack(col, axis=1) if col else np.zeros((x.numel(), 0))
            for col, x in zip(columns, tensors)
        ]
        return jac, ok_size, ok_dtype

    first, ok_size, ok_dtype = rows()
    second, _, _ = rows()
    if not ok_dtype and check_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not ok_size:
        raise GradcheckError("Analytical gradient has incorrect size")
    for a, b in zip(first, second):
        if a.size and np.abs(a - b).max() > nondet_tol:
            raise GradcheckError(
                "Backward is not reentrant, i.e., running backward with same input and "
                "grad_output multiple times gives different values, although analytical "
                f"gradient matches numerical gradient.The tolerance for nondeterminism was "
                f"{nondet_tol}." + FAILED_NONDET_MSG
            )
    return {index: jac for (index, _), jac in zip(diff, first)}


def _forward_jacobian(func, inputs: tuple, n_outputs: int) -> dict:
    """{(input index, output index): (in_numel, out_numel)} with forward-mode AD."""
    result = {}
    diff = _diff_inputs(inputs)
    for index, x in diff:
        columns: dict = {}
        for j in range(x.numel()):
            tangent = np.zeros(x.numel(), np.asarray(x._value).dtype)
            tangent[j] = 1
            with forward_ad.dual_level():
                duals = list(inputs)
                for i, y in diff:
                    d = tangent if i == index else np.zeros(y.numel(), tangent.dtype)
                    duals[i] = forward_ad.make_dual(
                        y, Tensor._wrap(jnp.asarray(d.reshape(y._stored.shape), y._stored.dtype))
                    )
                outs = _as_tuple(func(*duals))
                for k, out in enumerate(outs[:n_outputs]):
                    if not isinstance(out, Tensor):
                        continue
                    t = forward_ad.unpack_dual(out).tangent
                    value = np.zeros(out.numel()) if t is None else _np(t).reshape(-1)
                    columns.setdefault(k, []).append(value.astype(np.asarray(out._value).dtype))
        for k, rows in columns.items():
            result[(index, k)] = np.stack(rows)
    return result


# ----------------------------------------------------------------------------- checks
def _slow_check(func, inputs, func_out, outputs, eps, rtol, atol, check_dtypes, nondet_tol):
    outs = _as_tuple(func_out)
    outputs_np = [_np(o) if isinstance(o, Tensor) else None for o in outs]
    numerical = _numerical_jacobian(func, inputs, outputs_np, eps)
    if not outputs:
        for n in numerical.values():
            if np.count_nonzero(n) > 0:
                raise GradcheckError("Numerical gradient for function expected to be zero")
        return
    diff_out = [k for k, o in enumerate(outs) if isinstance(o, Tensor) and o.requires_grad]
    diff_in = [i for i, _ in _diff_inputs(inputs)]
    for i, (k, output) in enumerate(zip(diff_out, outputs)):
        analytical = _analytical_jacobian(inputs, output, nondet_tol, check_dtypes)
        for j, index in enumerate(diff_in):
            a, n = analytical[index], numerical[(index, k)]
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(
                    _notallclose_msg(
                        _tensor(a, inputs[index].dtype), _tensor(n, output.dtype), i, j
                    )
                )


def _forward_check(func, inputs, func_out, eps, rtol, atol):
    outs = _as_tuple(func_out)
    outputs_np = [_np(o) if isinstance(o, Tensor) else None for o in outs]
    numerical = _numerical_jacobian(func, inputs, outputs_np, eps)
    analytical = _forward_jacobian(func, inputs, len(outs))
    diff_out = [k for k, o in enumerate(outs) if isinstance(o, Tensor) and o.requires_grad]
    diff_in = [i for i, _ in _diff_inputs(inputs)]
    for i, k in enumerate(diff_out):
        for j, index in enumerate(diff_in):
            a = analytical.get((index, k))
            n = numerical[(index, k)]
            if a is None:
                a = np.zeros_like(n)
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(
                    _notallclose_msg(
                        _tensor(a, outs[k].dtype), _tensor(n, outs[k].dtype), i, j, forward=True
                    )
                )


def _fast_check(func, inputs, func_out, outputs, eps, rtol, atol, check_dtypes, nondet_tol):
    """Compare v^T J u (numerical: finite differences along u; analytical: vjp with v)."""
    rng = np.random.default_rng(0)
    diff = _diff_inputs(inputs)
    us = []
    for _, x in diff:
        u = rng.random(x.numel())
        us.append((u / np.linalg.norm(u)).astype(np.asarray(x._value).dtype))
    vs = []
    for o in outputs:
        v = rng.random(o.numel())
        vs.append((v / np.linalg.norm(v)).astype(np.asarray(o._value).dtype))
    outs = _as_tuple(func_out)
    diff_out = [k for k, o in enumerate(outs) if isinstance(o, Tensor) and o.requires_grad]
    for j, ((index, x), u) in enumerate(zip(diff, us)):
        base = _np(x)
        plus = (base.reshape(-1) + eps * u).reshape(base.shape)
        minus = (base.reshape(-1) - eps * u).reshape(base.shape)
        out_plus = _outputs_np(func, _replace(inputs, index, plus))
        out_minus = _outputs_np(func, _replace(inputs, index, minus))
        for i, (k, v) in enumerate(zip(diff_out, vs)):
            jvp = ((out_plus[k] - out_minus[k]) / (2 * eps)).reshape(-1)
            numerical = float(np.dot(v.astype(np.float64), jvp.astype(np.float64)))
            go = Tensor._wrap(jnp.asarray(v.reshape(outputs[i]._stored.shape)))
            first = grad(outputs[i], [x], go, retain_graph=True, allow_unused=True)[0]
            second = grad(outputs[i], [x], go, retain_graph=True, allow_unused=True)[0]
            a1 = 0.0 if first is None else float(np.dot(_np(first).reshape(-1), u))
            a2 = 0.0 if second is None else float(np.dot(_np(second).reshape(-1), u))
            if abs(a1 - a2) > nondet_tol:
                raise GradcheckError(
                    "Backward is not reentrant, i.e., running backward with same input and "
                    "grad_output multiple times gives different values, although analytical "
                    f"gradient matches numerical gradient.The tolerance for nondeterminism was "
                    f"{nondet_tol}." + FAILED_NONDET_MSG
                )
            adjusted_atol = atol * float(u.sum()) * float(v.sum())
            if not np.isclose(a1, numerical, rtol=rtol, atol=adjusted_atol):
                raise GradcheckError(
                    _notallclose_msg(a1, numerical, i, j)
                    + _slow_mode_message(func, inputs, outs, index, k, i, eps, rtol, atol)
                )


def _slow_mode_message(func, inputs, outs, index, k, i, eps, rtol, atol) -> str:
    outputs_np = [_np(o) if isinstance(o, Tensor) else None for o in outs]
    numerical = _numerical_jacobian(func, inputs, outputs_np, eps)[(index, k)]
    analytical = _analytical_jacobian(inputs, outs[k], float("inf"), False)[index]
    max_diff = np.abs(numerical - analytical).max()
    msg = (
        "\nThe above quantities relating the numerical and analytical jacobians are computed \n"
        "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more "
        "background \nabout fast mode. Below, we recompute numerical and analytical jacobians "
        "in slow mode:\n\n"
        f"Numerical:\n {_tensor(numerical, outs[k].dtype)}\n"
        f"Analytical:\n{_tensor(analytical, inputs[index].dtype)}\n\n"
        f"The max per-element difference (slow mode) is: {float(max_diff)}.\n"
    )
    if _allclose(analytical, numerical, rtol, atol):
        msg += FAST_FAIL_SLOW_OK_MSG
    return msg


def _test_batched_grad(inputs: tuple, output: Tensor, output_idx: int) -> None:
    """Gradients with is_grads_batched=True equal a loop over the batch."""
    diff = [x for _, x in _diff_inputs(inputs)]
    rng = np.random.default_rng(1)
    batch = rng.standard_normal((2, *output.shape)).astype(np.asarray(output._value).dtype)
    batched = grad(
        output,
        diff,
        Tensor._wrap(jnp.asarray(batch)),
        retain_graph=True,
        allow_unused=True,
        is_grads_batched=True,
    )
    for b in range(2):
        expected = grad(
            output,
            diff,
            Tensor._wrap(jnp.asarray(batch[b])),
            retain_graph=True,
            allow_unused=True,
        )
        for input_idx, (got, exp) in enumerate(zip(batched, expected)):
            if got is None and exp is None:
                continue
            got_np = np.zeros(diff[input_idx].shape) if got is None else _np(got)[b]
            exp_np = np.zeros(diff[input_idx].shape) if exp is None else _np(exp)
            if not np.allclose(got_np, exp_np, rtol=1e-5, atol=1e-7):
                raise GradcheckError(
                    f"For output {output_idx} and input {input_idx}:\n\nWhile computing batched "
                    "gradients (is_grads_batched=True), got a result different from computing "
                    f"them one at a time.\n\nGot:\n{got_np}\n\nExpected:\n{exp_np}\n"
                )


def _test_backward_mul_by_grad_output(outputs: tuple, inputs: tuple) -> None:
    diff = [x for _, x in _diff_inputs(inputs)]
    zeros = [Tensor._wrap(jnp.zeros_like(o._value)) for o in outputs]
    grads = grad(outputs, diff, zeros, allow_unused=True)
    for g, x in zip(grads, diff):
        if g is None:
            continue
        if g.dtype is not x.dtype:
            raise GradcheckError("grad is incorrect type")
        if g.shape != x.shape:
            raise GradcheckError("grad is incorrect size")
        if np.any(_np(g) != 0):
            raise GradcheckError("backward not multiplied by grad_output")


def _test_undefined_backward(func, outputs: tuple, inputs: tuple) -> None:
    """Every backward must cope with undefined (None) output gradients."""

    class UndefinedGrad(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return None

    diff = [x for _, x in _diff_inputs(inputs)]

    def check(outs: list) -> None:
        zeros = [Tensor._wrap(jnp.zeros_like(o._value)) for o in outs]
        try:
            grads = grad(outs, diff, zeros, allow_unused=True)
        except RuntimeError as e:
            raise GradcheckError(
                "Expected backward function to handle undefined output grads. Please look at "
                '"Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'
            ) from e
        for g in grads:
            if g is not None and np.any(_np(g) != 0):
                raise GradcheckError(
                    "Expected all input grads to be undefined or zero when all output grads are "
                    'undefined or zero. Please look at "Notes about undefined output gradients" '
                    'in "tools/autograd/derivatives.yaml"'
                )

    check([UndefinedGrad.apply(o) for o in _differentiable_outputs(func(*inputs))])
    if len(outputs) > 1:
        for undefined in range(len(outputs)):
            outs = _differentiable_outputs(func(*inputs))
            check([UndefinedGrad.apply(o) if k == undefined else o for k, o in enumerate(outs)])


# ----------------------------------------------------------------------------- public
def gradcheck(
    func,
    inputs,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """Check the gradients of `func` at `inputs` against finite differences.

    Args:
        func: a function of Tensors returning a Tensor or a tuple of Tensors.
        inputs (Tensor or tuple): its inputs; those with requires_grad=True are checked
            (use float64).
        eps (float): the finite-difference step. atol, rtol: tolerances of the comparison.
        raise_exception (bool): raise GradcheckError on failure (else return False).
        nondet_tol (float): how much two backward runs may differ.
        check_undefined_grad (bool): check the backward copes with undefined output grads.
        check_grad_dtypes (bool): check gradient dtypes match the inputs'.
        check_batched_grad (bool): check `autograd.grad(..., is_grads_batched=True)`.
        check_forward_ad (bool): check forward-mode AD too. check_backward_ad: reverse mode.
        fast_mode (bool): compare random projections v^T J u only (faster).

    Returns:
        True if the check passes.

    Example::

        >>> x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
        >>> torch.autograd.gradcheck(torch.sin, (x,))
        True
    """
    try:
        tupled = _as_tuple(inputs)
        _check_inputs(tupled)
        with _grad_mode.enable_grad():
            func_out = func(*tupled)
            outputs = _differentiable_outputs(func_out)
            _check_outputs(func_out)
            if check_backward_ad:
                check = _fast_check if fast_mode else _slow_check
                check(
                    func, tupled, func_out, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol
                )
            if check_forward_ad:
                _forward_check(func, tupled, func_out, eps, rtol, atol)
            if not check_backward_ad:
                return True
            if check_batched_grad:
                for i, o in enumerate(outputs):
                    _test_batched_grad(tupled, o, i)
            if outputs:
                _test_backward_mul_by_grad_output(outputs, tupled)
                if check_undefined_grad:
                    _test_undefined_backward(func, outputs, tupled)
        return True
    except GradcheckError:
        if raise_exception:
            raise
        return False


# torch.autograd.gradcheck.GradcheckError; mypy does not model attributes set on a function
gradcheck.GradcheckError = GradcheckError  # type: ignore[attr-defined]


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """Check second derivatives: gradcheck of the map (inputs, grad_outputs) -> gradients.

    `grad_outputs` default to random float64 tensors in [-1, 1) that require grad.

    Example::

        >>> x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
        >>> torch.autograd.gradgradcheck(lambda t: t**3, (x,))
        True
    """
    tupled = _as_tuple(inputs)
    if grad_outputs is None:
        with _grad_mode.enable_grad():
            outs = _differentiable_outputs(func(*tupled))
        grads = []
        for o in outs:
            dtype = o.dtype if (o.dtype.is_floating_point or o.dtype.is_complex) else None
            g = rand(o.shape, dtype=dtype or _float64()) * 2 - 1
            g = g.detach()
            g.requires_grad_(True)
            grads.append(g)
        tupled_grads = tuple(grads)
    else:
        tupled_grads = _as_tuple(grad_outputs)
    n_out = len(tupled_grads)
    diff_in = {i for i, x in enumerate(tupled) if isinstance(x, Tensor) and x.requires_grad}
    diff_go = {i for i, x in enumerate(tupled_grads) if x.requires_grad}

    def new_func(*args):
        input_args = tuple(
            x.requires_grad_() if i in diff_in else x for i, x in enumerate(args[:-n_out])
        )
        outputs = _differentiable_outputs(func(*input_args))
        grad_outs = tuple(
            x.requires_grad_() if i in diff_go else x for i, x in enumerate(args[-n_out:])
        )
        diff_args = tuple(x for i, x in enumerate(input_args) if i in diff_in)
        grad_inputs = grad(outputs, diff_args, grad_outs, create_graph=True, allow_unused=True)
        return tuple(g for g in grad_inputs if g is not None)

    return gradcheck(
        new_func,
        tupled + tupled_grads,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
        check_undefined_grad=check_undefined_grad,
        check_grad_dtypes=check_grad_dtypes,
        check_batched_grad=check_batched_grad,
        fast_mode=fast_mode,
        check_forward_ad=check_fwd_over_rev,
        check_backward_ad=check_rev_over_rev,
        masked=masked,
    )


def _float64():
    return _dtypes.float64
