"""torch.autograd.functional: vjp, jvp, jacobian, hessian, vhp, hvp, computed by JAX.

The user's function is traced once through this library (its inputs are Tensors holding JAX
tracers) into a jaxpr, and the quantity asked for is the JAX transform of that jaxpr
(`jax.jacrev`, `jax.jacfwd`, `jax.vjp`, `jax.jvp`, forward-over-reverse for hvp), compiled
with `jax.jit` and cached per jaxpr, so a 1000x1000 Jacobian is one XLA call, not a loop over
rows. During the trace, values that PyTorch would not differentiate (detached tensors,
results computed under no_grad) are wrapped in `lax.stop_gradient`, so the numbers are
PyTorch's. Tensors the function reads from its closure that require grad become explicit
arguments: with `create_graph=True` the result is one recorded op of the inputs and those
tensors, whose backward is again `jax.vjp` (derivatives of any order).

When the function cannot be traced (Python control flow on values, `.item()`, a custom
`autograd.Function`, whose backward is Python) and in `strict=True` mode (whose checks are
about the recorded graph), PyTorch's own tape-based algorithm runs instead, on this
library's engine. `batched_grad` (`autograd.grad(..., is_grads_batched=True)`) runs the
engine's backward under `jax.vmap`.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
from jax import lax

from .._ops import factories as _factories
from .._ops.shape import stack
from .._pure import dtypes as _dtypes
from .._pure import errors as _errors
from .._pure.op import Op
from .._pure.shapes import Size
from .._state import modes as _grad_mode
from .._state.modes import modes
from .._state.tensor import Tensor
from .._tape.backward import grad
from .._tape.record import apply
from . import forward_ad

if TYPE_CHECKING:
    from jax.extend.core import Jaxpr

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]

_CACHE_SIZE = 256
_ops_cache: dict = {}


class _Local(threading.local):
    def __init__(self) -> None:
        self.force_tape = 0  # > 0 inside strict computations: nested calls use the tape too


_local = _Local()


# ----------------------------------------------------------------------------- PyTorch's helpers
def _as_tuple_nocheck(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _as_tuple(inp, arg_name=None, fn_name=None):
    if arg_name is None and fn_name is None:
        return _as_tuple_nocheck(inp)
    is_inp_tuple = True
    if not isinstance(inp, tuple):
        inp = (inp,)
        is_inp_tuple = False
    for i, el in enumerate(inp):
        if not isinstance(el, Tensor):
            if is_inp_tuple:
                raise TypeError(
                    f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                    f"Tensors but the value at index {i} has type {_type_text(el)}."
                )
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                f"Tensors but the given {arg_name} has type {_type_text(el)}."
            )
    return is_inp_tuple, inp


def _type_text(value) -> str:
    return f"<class '{type(value).__module__}.{type(value).__qualname__}'>".replace(
        "'builtins.", "'"
    )


def _tuple_postprocess(res, to_unpack):
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs, create_graph, need_graph):
    res = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            res.append(inp.view_as(inp))
        else:
            res.append(inp.detach().requires_grad_(need_graph))
    return tuple(res)


def _grad_postprocess(inputs, create_graph):
    if isinstance(inputs[0], Tensor):
        if not create_graph:
            return tuple(inp.detach() for inp in inputs)
        return inputs
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(
                f"{prepend}v has invalid size: should be {el_other.size()} but got {el_v.size()}."
            )


def _check_requires_grad(inputs, input_type, strict):
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. This "
                "is not allowed in strict mode."
            )
        if not inp.requires_grad:
            if input_type == "hessian":
                raise RuntimeError(
                    f"The hessian of the user-provided function with respect to input {i} is "
                    "independent of the input. This is not allowed in strict mode. You should "
                    "ensure that your function is thrice differentiable and that the hessian "
                    "depends on the inputs."
                )
            if input_type == "jacobian":
                raise RuntimeError(
                    "While computing the hessian, found that the jacobian of the user-provided "
                    f"function with respect to input {i} is independent of the input. This is "
                    "not allowed in strict mode. You should ensure that your function is twice "
                    "differentiable and that the jacobian depends on the inputs (this would be "
                    "violated by a linear function for example)."
                )
            if input_type == "grad_inputs":
                raise RuntimeError(
                    f"The gradient with respect to input {i} is independent of the inputs of "
                    "the user-provided function. This is not allowed in strict mode."
                )
            raise RuntimeError(
                f"Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when "
                "running in strict mode."
            )


def _autograd_grad(
    outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None, batched=False
):
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    new_outputs = ()
    new_grad_outputs = ()
    for out, grad_out in zip(outputs, grad_outputs):
        if out is not None and out.requires_grad:
            new_outputs += (out,)
            new_grad_outputs += (grad_out,)
    if len(new_outputs) == 0:
        return (None,) * len(inputs)
    return grad(
        new_outputs,
        inputs,
        new_grad_outputs,
        allow_unused=True,
        create_graph=create_graph,
        retain_graph=retain_graph,
        is_grads_batched=batched,
    )


_FILL_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}. This is not "
    "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
    "grad_outputs when using the double backward trick to compute forward mode gradients. This "
    "is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
    "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} "
    "in the grad_jacobian. This is not allowed in strict mode as it prevents from using the "
    "double backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    res = ()
    for i, grads_i in enumerate(grads):
        if grads_i is None:
            if strict:
                raise RuntimeError(_FILL_MESSAGES[stage].format(i=i))
            grads_i = _factories.zeros_like(refs[i])
        elif strict and create_graph and not grads_i.requires_grad:
            if "double" not in stage:
                raise RuntimeError(
                    f"The jacobian of the user-provided function is independent of input {i}. "
                    "This is not allowed in strict mode when create_graph=True."
                )
            raise RuntimeError(
                f"The hessian of the user-provided function is independent of input {i}. This "
                "is not allowed in strict mode when create_graph=True."
            )
        res += (grads_i,)
    return res


# ----------------------------------------------------------------------------- the JAX path
class _Trace:
    """One functional trace: which tracers are its own, which closure tensors it read."""

    def __init__(self) -> None:
        self.trace = None
        self.closures: dict = {}

    def visit(self, value, live: bool, tensor):
        """An op input as the trace should see it: values PyTorch would not differentiate
        (no requires_grad, or grad mode off) are cut with stop_gradient."""
        if isinstance(value, jax.core.Tracer):
            if not live and getattr(value, "_trace", None) is self.trace:
                return lax.stop_gradient(value)
        elif live and isinstance(tensor, Tensor):
            self.closures[id(value)] = tensor
        return value


class _Traced:
    __slots__ = ("jaxpr", "consts", "const_tensors", "is_outputs_tuple", "out_avals")
    jaxpr: Jaxpr
    consts: list
    const_tensors: list[Tensor | None]
    is_outputs_tuple: bool
    out_avals: list


def _trace(func, inputs: tuple, fn_name: str) -> _Traced:
    """Run `func` once on tracer-holding tensors; raise a trace error if it cannot be traced."""
    trace = _Trace()
    info: dict = {}

    def pure(*arrays):
        tensors = []
        for a in arrays:
            t = Tensor._wrap(a)
            t.requires_grad_(True)
            tensors.append(t)
        if arrays:
            trace.trace = getattr(arrays[0], "_trace", None)
        with _grad_mode.enable_grad():
            out = func(*tensors)
        is_tuple, outs = _as_tuple(out, "outputs of the user-provided function", fn_name)
        info["is_tuple"] = is_tuple
        return tuple(o._value for o in outs)

    modes.traces.append(trace)
    modes.refresh_special()
    try:
        closed = jax.make_jaxpr(pure)(*[x._value for x in inputs])
    finally:
        modes.traces.pop()
        modes.refresh_special()
    traced = _Traced()
    traced.jaxpr = closed.jaxpr
    traced.consts = list(closed.consts)
    traced.const_tensors = [trace.closures.get(id(c)) for c in closed.consts]
    traced.is_outputs_tuple = info["is_tuple"]
    traced.out_avals = closed.out_avals
    return traced


def _try_trace(func, inputs: tuple, fn_name: str):
    """The trace, or None when the tape must be used (strict mode, untraceable code,
    outputs that are not floating point)."""
    if _local.force_tape:
        return None
    try:
        traced = _trace(func, inputs, fn_name)
    except _errors.TRACE_ERRORS:
        return None
    for aval in traced.out_avals:
        if not jnp.issubdtype(aval.dtype, jnp.inexact):
            return None
    return traced


def _functional_op(kind: str, traced: _Traced, n_inputs: int, builder) -> Op:
    """The op computing `kind` for this jaxpr, made once per (kind, jaxpr) and cached."""
    key = (kind, n_inputs, len(traced.consts), str(traced.jaxpr))
    op = _ops_cache.get(key)
    if op is None:
        if len(_ops_cache) >= _CACHE_SIZE:
            _ops_cache.clear()
        jaxpr = traced.jaxpr
        n_consts = len(traced.consts)

        def fn(*args):
            xs = args[:n_inputs]
            consts = args[n_inputs : n_inputs + n_consts]
            rest = args[n_inputs + n_consts :]

            def f(*values):
                return tuple(jax.core.eval_jaxpr(jaxpr, list(consts), *values))

            return tuple(builder(f, xs, rest))

        name = kind.split("-")[0].capitalize()
        op = _ops_cache[key] = Op(f"{name}Backward", fn)
    return op


def _run(op: Op, inputs: tuple, traced: _Traced, extra: tuple, create_graph: bool) -> tuple:
    """Apply the functional op: recorded (connected to inputs, closure tensors and `extra`)
    under create_graph, else a plain jitted call whose results are detached."""
    consts = [t if t is not None else c for t, c in zip(traced.const_tensors, traced.consts)]
    if create_graph:
        with _grad_mode.enable_grad():
            return apply(op, *inputs, *consts, *extra)
    values = [x._value if isinstance(x, Tensor) else x for x in (*inputs, *consts, *extra)]
    return tuple(Tensor._wrap(o) for o in op.compiled(())(*values))


def _v_values(v, refs):
    """v cast to the dtype of what it multiplies (as the engine casts grad_outputs)."""
    return tuple(x if x.dtype is r.dtype else x.to(r.dtype) for x, r in zip(v, refs))


# ----------------------------------------------------------------------------- vjp / jvp
def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """The vector-Jacobian product `v^T J` of `func` at `inputs`.

    Args:
        func (function): takes Tensors, returns a Tensor or a tuple of Tensors.
        inputs (tuple of Tensors or Tensor): inputs to `func`.
        v (tuple of Tensors or Tensor): the vector, shaped like the outputs; optional when
            the output has a single element.
        create_graph (bool): make the results differentiable (connected to the inputs).
        strict (bool): raise when an input has no influence on the outputs.

    Returns:
        (func_output, vjp), each a Tensor or a tuple like the outputs / inputs.

    Example::

        >>> def exp_reducer(x):
        ...     return x.exp().sum(dim=1)
        >>> vjp(exp_reducer, torch.zeros(2, 2), torch.ones(2))
        (tensor([2., 2.]), tensor([[1., 1.],
                [1., 1.]]))
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
    if v is not None:
        _, v = _as_tuple(v, "v", "vjp")
    traced = None if strict else _try_trace(func, inputs, "vjp")
    if traced is None:
        return _vjp_tape(func, inputs, is_inputs_tuple, v, create_graph, strict)
    n_out = len(traced.out_avals)
    outputs_shapes = [tuple(a.shape) for a in traced.out_avals]
    if v is not None:
        refs = [_Shape(s, a.dtype) for s, a in zip(outputs_shapes, traced.out_avals)]
        _validate_v(v, refs, traced.is_outputs_tuple)
        v = _v_values(v, [_dtype_ref(a) for a in traced.out_avals])
    else:
        if n_out != 1 or _numel(outputs_shapes[0]) != 1:
            raise RuntimeError(
                "The vector v can only be None if the user-provided function returns a single "
                "Tensor with a single element."
            )
        v = (_ones(outputs_shapes[0], traced.out_avals[0].dtype),)

    def build(f, xs, vs):
        out, pullback = jax.vjp(f, *xs)
        return (*out, *pullback(tuple(vs)))

    op = _functional_op("vjp", traced, len(inputs), build)
    res = _run(op, inputs, traced, v, create_graph)
    outputs, grads = res[:n_out], res[n_out:]
    return _tuple_postprocess(outputs, traced.is_outputs_tuple), _tuple_postprocess(
        grads, is_inputs_tuple
    )


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """The Jacobian-vector product `J v` of `func` at `inputs` (by jax.jvp: forward mode).

    Args:
        func (function): takes Tensors, returns a Tensor or a tuple of Tensors.
        inputs (tuple of Tensors or Tensor): inputs to `func`.
        v (tuple of Tensors or Tensor): the vector, shaped like the inputs; optional when
            the input is a single one-element Tensor.
        create_graph (bool): make the results differentiable (connected to the inputs).
        strict (bool): raise when an output has no dependence on the inputs.

    Returns:
        (func_output, jvp), each a Tensor or a tuple like the outputs.

    Example::

        >>> jvp(lambda x: x**2, torch.tensor([1.0, 2.0]), torch.ones(2))
        (tensor([1., 4.]), tensor([2., 4.]))
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
    if v is not None:
        _, v = _as_tuple(v, "v", "jvp")
        _validate_v(v, inputs, is_inputs_tuple)
        v = _v_values(v, inputs)
    elif len(inputs) != 1 or inputs[0].nelement() != 1:
        raise RuntimeError(
            "The vector v can only be None if the input to the user-provided function is a "
            "single Tensor with a single element."
        )
    traced = None if strict else _try_trace(func, inputs, "jvp")
    if traced is None:
        return _jvp_tape(func, inputs, is_inputs_tuple, v, create_graph, strict)
    if v is None:
        v = (_ones(tuple(inputs[0].shape), inputs[0]._value.dtype),)
    n_out = len(traced.out_avals)

    def build(f, xs, vs):
        out, tangents = jax.jvp(f, tuple(xs), tuple(vs))
        return (*out, *tangents)

    op = _functional_op("jvp", traced, len(inputs), build)
    res = _run(op, inputs, traced, v, create_graph)
    outputs, tangents = res[:n_out], res[n_out:]
    return _tuple_postprocess(outputs, traced.is_outputs_tuple), _tuple_postprocess(
        tangents, traced.is_outputs_tuple
    )


class _Shape:
    """Stands for an output in _validate_v (its size())."""

    def __init__(self, shape, dtype) -> None:
        self.shape = shape
        self.dtype = dtype

    def size(self):
        return Size(self.shape)


def _dtype_ref(aval):
    ref = _Shape(tuple(aval.shape), aval.dtype)
    ref.dtype = _dtypes.from_jax(aval.dtype)
    return ref


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _ones(shape, dtype) -> Tensor:
    return Tensor._wrap(jnp.ones(shape, dtype))


# ----------------------------------------------------------------------------- jacobian
def jacobian(
    func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"
):
    """The Jacobian of `func` at `inputs`: `jax.jacrev` (or `jax.jacfwd` for
    strategy="forward-mode") of the traced function, one compiled call.

    Args:
        func (function): takes Tensors, returns a Tensor or a tuple of Tensors.
        inputs (tuple of Tensors or Tensor): inputs to `func`.
        create_graph (bool): make the Jacobian differentiable (connected to the inputs).
        strict (bool): raise when an output is independent of an input (the tape is used).
        vectorize (bool): accepted for compatibility; the computation is always vectorized.
        strategy (str): "reverse-mode" (fewer outputs than inputs) or "forward-mode".

    Returns:
        A Tensor of shape `output.shape + input.shape` for one input and output; a tuple
        over inputs, over outputs, or a tuple of tuples `[output][input]` otherwise.

    Example::

        >>> jacobian(lambda x: x**2, torch.tensor([1.0, 2.0]))
        tensor([[2., 0.],
                [0., 4.]])
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.'
            )
        if strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`strict=False` or `strategy="reverse-mode"`.'
            )
        if not vectorize:
            raise NotImplementedError(
                "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                "only implemented for `vectorize=True`."
            )
    elif vectorize and strict:
        _, inputs_t = _as_tuple(inputs, "inputs", "jacobian")
        outputs = func(*_grad_preprocess(inputs_t, create_graph, True))
        _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        raise RuntimeError(
            "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
            "supported together. Please either set `strict=False` or `vectorize=False`."
        )
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    traced = None if strict else _try_trace(func, inputs, "jacobian")
    if traced is None:
        if strategy == "forward-mode":
            return _jacfwd_tape(func, inputs, is_inputs_tuple)
        return _jacobian_tape(func, inputs, is_inputs_tuple, create_graph, strict)
    transform = jax.jacfwd if strategy == "forward-mode" else jax.jacrev
    n_in = len(inputs)

    def build(f, xs, _):
        jac = transform(f, argnums=tuple(range(n_in)))(*xs)
        return [j for per_output in jac for j in per_output]

    op = _functional_op(f"jacobian-{strategy}", traced, n_in, build)
    flat = _run(op, inputs, traced, (), create_graph)
    n_out = len(traced.out_avals)
    # PyTorch's forward-mode path builds lists, its reverse-mode path tuples.
    container = list if strategy == "forward-mode" else tuple
    res = container(container(flat[i * n_in : (i + 1) * n_in]) for i in range(n_out))
    return _tuple_postprocess(res, (traced.is_outputs_tuple, is_inputs_tuple))


def hessian(
    func,
    inputs,
    create_graph=False,
    strict=False,
    vectorize=False,
    outer_jacobian_strategy="reverse-mode",
):
    """The Hessian of a scalar function at `inputs` (`jax.jacrev`/`jax.jacfwd` of
    `jax.jacrev` of the traced function).

    Args:
        func (function): takes Tensors, returns a single-element Tensor.
        inputs (tuple of Tensors or Tensor): inputs to `func`.
        create_graph (bool): make the Hessian differentiable.
        strict (bool): raise when the Hessian is independent of an input (the tape is used).
        vectorize (bool): accepted for compatibility; always vectorized.
        outer_jacobian_strategy (str): "reverse-mode" or "forward-mode" (forward-over-reverse).

    Returns:
        A Tensor of shape `input.shape + input.shape`, or a tuple of tuples `[i][j]`.

    Example::

        >>> hessian(lambda x: (x**3).sum(), torch.tensor([1.0, 2.0]))
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    traced = None if strict else _try_trace(func, inputs, "hessian")
    if traced is not None and (traced.is_outputs_tuple or _numel(traced.out_avals[0].shape) != 1):
        traced = None  # the tape path raises PyTorch's errors
    if traced is None:
        return _hessian_tape(
            func,
            inputs,
            is_inputs_tuple,
            create_graph,
            strict,
            vectorize,
            outer_jacobian_strategy,
        )
    outer = jax.jacfwd if outer_jacobian_strategy == "forward-mode" else jax.jacrev
    n_in = len(inputs)

    def build(f, xs, _):
        argnums = tuple(range(n_in))
        hess = outer(jax.jacrev(lambda *a: f(*a)[0].reshape(()), argnums), argnums)(*xs)
        return [h for row in hess for h in row]

    op = _functional_op(f"hessian-{outer_jacobian_strategy}", traced, n_in, build)
    flat = _run(op, inputs, traced, (), create_graph)
    container = list if outer_jacobian_strategy == "forward-mode" else tuple
    res = container(container(flat[i * n_in : (i + 1) * n_in]) for i in range(n_in))
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _scalar_checks(traced, name: str):
    if traced.is_outputs_tuple:
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if _numel(traced.out_avals[0].shape) != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {name} should contain a single element"
        )


def _second_order(kind: str, func, inputs, v, create_graph, strict):
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", kind)
    if v is not None:
        _, v = _as_tuple(v, "v", kind)
        _validate_v(v, inputs, is_inputs_tuple)
        v = _v_values(v, inputs)
    elif len(inputs) != 1 or inputs[0].nelement() != 1:
        raise RuntimeError(
            "The vector v can only be None if the input to the user-provided function is a "
            "single Tensor with a single element."
        )
    traced = None if strict else _try_trace(func, inputs, kind)
    if traced is None:
        tape = _vhp_tape if kind == "vhp" else _hvp_tape
        return tape(func, inputs, is_inputs_tuple, v, create_graph, strict)
    _scalar_checks(traced, kind)
    if v is None:
        v = (_ones(tuple(inputs[0].shape), inputs[0]._value.dtype),)
    n_in = len(inputs)

    def build(f, xs, vs):
        argnums = tuple(range(n_in))
        out = f(*xs)[0]
        grad_f = jax.grad(lambda *a: f(*a)[0].reshape(()), argnums)
        if kind == "vhp":
            _, pullback = jax.vjp(grad_f, *xs)
            return (out, *pullback(tuple(vs)))
        return (out, *jax.jvp(grad_f, tuple(xs), tuple(vs))[1])

    op = _functional_op(kind, traced, n_in, build)
    res = _run(op, inputs, traced, v, create_graph)
    return res[0], _tuple_postprocess(res[1:], is_inputs_tuple)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """The vector-Hessian product `v^T H` of a scalar function at `inputs`.

    Returns:
        (func_output, vhp): vhp is a Tensor or a tuple like the inputs.

    Example::

        >>> vhp(lambda x: (x**3).sum(), torch.tensor([1.0, 2.0]), torch.ones(2))
        (tensor(9.), tensor([ 6., 12.]))
    """
    return _second_order("vhp", func, inputs, v, create_graph, strict)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """The Hessian-vector product `H v` of a scalar function at `inputs` (forward-over-reverse
    with jax.jvp of jax.grad, the fast way; PyTorch uses the double-backward trick).

    Returns:
        (func_output, hvp): hvp is a Tensor or a tuple like the inputs.

    Example::

        >>> hvp(lambda x: (x**3).sum(), torch.tensor([1.0, 2.0]), torch.ones(2))
        (tensor(9.), tensor([ 6., 12.]))
    """
    return _second_order("hvp", func, inputs, v, create_graph, strict)


# ----------------------------------------------------------------------------- the tape path
class _tape:
    """Strict computations run entirely on the tape, nested functional calls included."""

    def __init__(self, strict: bool) -> None:
        self.strict = strict

    def __enter__(self) -> None:
        if self.strict:
            _local.force_tape += 1

    def __exit__(self, *exc_info: object) -> None:
        if self.strict:
            _local.force_tape -= 1


def _vjp_tape(func, inputs, is_inputs_tuple, v, create_graph, strict):
    with _tape(strict):
        with _grad_mode.enable_grad():
            inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
            outputs = func(*inputs)
            is_outputs_tuple, outputs = _as_tuple(
                outputs, "outputs of the user-provided function", "vjp"
            )
            _check_requires_grad(outputs, "outputs", strict=strict)
            if v is not None:
                v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
                _validate_v(v, outputs, is_outputs_tuple)
            elif len(outputs) != 1 or outputs[0].nelement() != 1:
                raise RuntimeError(
                    "The vector v can only be None if the user-provided function returns a "
                    "single Tensor with a single element."
                )
        enable = True if create_graph else _grad_mode.is_grad_enabled()
        with _grad_mode.set_grad_enabled(enable):
            grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
            result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(
        result, is_inputs_tuple
    )


def _jvp_tape(func, inputs, is_inputs_tuple, v, create_graph, strict):
    with _tape(strict):
        with _grad_mode.enable_grad():
            inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
            if v is not None:
                v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            outputs = func(*inputs)
            is_outputs_tuple, outputs = _as_tuple(
                outputs, "outputs of the user-provided function", "jvp"
            )
            _check_requires_grad(outputs, "outputs", strict=strict)
            grad_outputs = tuple(_factories.zeros_like(out).requires_grad_(True) for out in outputs)
            grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
            _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
        with _grad_mode.set_grad_enabled(True if create_graph else _grad_mode.is_grad_enabled()):
            grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
            result = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(
        result, is_outputs_tuple
    )


def _jacobian_tape(func, inputs, is_inputs_tuple, create_graph, strict):
    with _tape(strict), _grad_mode.enable_grad():
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(
            outputs, "outputs of the user-provided function", "jacobian"
        )
        _check_requires_grad(outputs, "outputs", strict=strict)
        jacobian_ = ()
        for i, out in enumerate(outputs):
            jac_i = tuple([] for _ in range(len(inputs)))
            for j in range(out.nelement()):
                vj = _autograd_grad(
                    (out.reshape(-1)[j],), inputs, retain_graph=True, create_graph=create_graph
                )
                for el_idx, (jac_i_el, vj_el, inp_el) in enumerate(zip(jac_i, vj, inputs)):
                    if vj_el is not None:
                        if strict and create_graph and not vj_el.requires_grad:
                            raise RuntimeError(
                                "The jacobian of the user-provided function is independent of "
                                f"input {i}. This is not allowed in strict mode when "
                                "create_graph=True."
                            )
                        jac_i_el.append(vj_el)
                    else:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of "
                                f"input {el_idx}. This is not allowed in strict mode."
                            )
                        jac_i_el.append(_factories.zeros_like(inp_el))
            jacobian_ += (
                tuple(
                    stack(jac_i_el).reshape(tuple(out.shape) + tuple(inputs[el_idx].shape))
                    if jac_i_el
                    else _factories.zeros_like(inputs[el_idx]).reshape((0, *inputs[el_idx].shape))
                    for el_idx, jac_i_el in enumerate(jac_i)
                ),
            )
        jacobian_ = _grad_postprocess(jacobian_, create_graph)
        return _tuple_postprocess(jacobian_, (is_outputs_tuple, is_inputs_tuple))


def _jacfwd_tape(func, inputs, is_inputs_tuple):
    """Forward-mode Jacobian with this library's dual tensors, one basis vector at a time."""
    numels = [x.numel() for x in inputs]
    columns = None
    is_outputs_tuple = False
    outputs = ()
    for index in range(len(inputs)):
        for j in range(numels[index]):
            with forward_ad.dual_level():
                duals = []
                for k, y in enumerate(inputs):
                    tangent = jnp.zeros(y._value.shape, y._value.dtype)
                    if k == index:
                        tangent = tangent.reshape(-1).at[j].set(1).reshape(y._value.shape)
                    duals.append(forward_ad.make_dual(y.detach(), Tensor._wrap(tangent)))
                is_outputs_tuple, outs = _as_tuple(func(*duals), "outputs")
                if columns is None:
                    columns = [[[] for _ in inputs] for _ in outs]
                outputs = []
                for i, out in enumerate(outs):
                    primal, tangent = forward_ad.unpack_dual(out)
                    outputs.append(primal)
                    columns[i][index].append(
                        tangent if tangent is not None else _factories.zeros_like(primal)
                    )
    res = []
    for i, out in enumerate(outputs):
        row = []
        for index, x in enumerate(inputs):
            stacked = stack(columns[i][index], dim=out.ndim)
            row.append(stacked.reshape(tuple(out.shape) + tuple(x.shape)).detach())
        res.append(row)
    return _tuple_postprocess(res, (is_outputs_tuple, is_inputs_tuple))


def _hessian_tape(
    func, inputs, is_inputs_tuple, create_graph, strict, vectorize, outer_jacobian_strategy
):
    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single "
                "element"
            )
        return out.squeeze() if hasattr(out, "squeeze") else out.reshape(())

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        with _tape(True):
            jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    with _tape(True):
        res = jacobian(
            jac_func,
            inputs,
            create_graph=create_graph,
            strict=strict,
            vectorize=vectorize and not strict,
            strategy=outer_jacobian_strategy,
        )
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _second_order_tape_setup(kind, func, inputs, v, create_graph, strict):
    inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
    if v is not None:
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
    outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", kind)
    _check_requires_grad(outputs, "outputs", strict=strict)
    if is_outputs_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {kind} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {kind} should contain a single element"
        )
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict=strict)
    return inputs, v, outputs, is_outputs_tuple, jac


def _vhp_tape(func, inputs, is_inputs_tuple, v, create_graph, strict):
    with _tape(strict):
        with _grad_mode.enable_grad():
            inputs, v, outputs, is_outputs_tuple, jac = _second_order_tape_setup(
                "vhp", func, inputs, v, create_graph, strict
            )
        with _grad_mode.set_grad_enabled(True if create_graph else _grad_mode.is_grad_enabled()):
            grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
            result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(
        result, is_inputs_tuple
    )


def _hvp_tape(func, inputs, is_inputs_tuple, v, create_graph, strict):
    with _tape(strict):
        with _grad_mode.enable_grad():
            inputs, v, outputs, is_outputs_tuple, jac = _second_order_tape_setup(
                "hvp", func, inputs, v, create_graph, strict
            )
            grad_jac = tuple(_factories.zeros_like(inp).requires_grad_(True) for inp in inputs)
            double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
            _check_requires_grad(jac, "hessian", strict=strict)
        with _grad_mode.set_grad_enabled(True if create_graph else _grad_mode.is_grad_enabled()):
            grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
            result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(
        result, is_inputs_tuple
    )


# ----------------------------------------------------------------------------- batched grad
