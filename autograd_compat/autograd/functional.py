"""torch.autograd.functional: vjp, jvp, jacobian, hessian, vhp, hvp.

Each API function is written once, as a front, and runs on one of two engines with the same
methods (`vjp`, `jvp`, `jacobian`, `hessian`, `vhp`, `hvp`):

- The front normalizes the arguments (`inputs` and `v` as tuples, PyTorch's type and size
  errors, the strategy/strict/create_graph/vectorize checks), picks the engine with `_engine`
  and shapes the engine's tuples like the user's inputs and outputs (`_tuple_postprocess`).
  Checks that need the function's outputs (vjp's `v`, the single-element output of a second
  derivative) are shared functions both engines call.
- The JAX-trace engine (`_JaxEngine`, the fast path): the user's function is traced once
  through this library (its inputs are Tensors holding JAX tracers) into a jaxpr, and the
  quantity asked for is the JAX transform of that jaxpr (`jax.jacrev`, `jax.jacfwd`,
  `jax.vjp`, `jax.jvp`, forward-over-reverse for hvp), compiled with `jax.jit` and cached per
  jaxpr, so a 1000x1000 Jacobian is one XLA call, not a loop over rows. During the trace,
  values that PyTorch would not differentiate (detached tensors, results computed under
  no_grad) are wrapped in `lax.stop_gradient`, so the numbers are PyTorch's. Tensors the
  function reads from its closure that require grad become explicit arguments: with
  `create_graph=True` the result is one recorded op of the inputs and those tensors, whose
  backward is again `jax.vjp` (derivatives of any order).
- The tape engine (`_TapeEngine`): PyTorch's own tape-based algorithm on this library's
  engine. It runs when the function cannot be traced (Python control flow on values,
  `.item()`, a custom `autograd.Function`, whose backward is Python: `TapeFallback`) and in
  `strict=True` mode (whose checks are about the recorded graph; nested functional calls then
  use the tape too).
"""

from __future__ import annotations

import math
import threading
import weakref
from collections import OrderedDict
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
from jax import lax

from .._ops import factories as _factories
from .._ops.shape import stack
from .._pure import dtypes as _dtypes
from .._pure import errors as _errors
from .._pure.jaxpr_key import jaxpr_key
from .._pure.op import Op, lru_get, lru_put
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

_CACHE_SIZE = 256  # traced ops remembered (an LRU)
_ops_cache: OrderedDict = OrderedDict()


class _Local(threading.local):
    def __init__(self) -> None:
        self.force_tape = 0  # > 0 inside strict computations: nested calls use the tape too


_local = _Local()


# ============================================================================= the shared front
# ----------------------------------------------------------------------------- argument helpers
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


def _v_values(v, refs):
    """v cast to the dtype of what it multiplies (as the engine casts grad_outputs)."""
    return tuple(x if x.dtype is r.dtype else x.to(r.dtype) for x, r in zip(v, refs))


def _input_v(v, inputs, is_inputs_tuple, fn_name: str):
    """jvp's, vhp's and hvp's v: shaped like the inputs, cast to their dtypes; None only for
    a single one-element input."""
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        _validate_v(v, inputs, is_inputs_tuple)
        return _v_values(v, inputs)
    if len(inputs) != 1 or inputs[0].nelement() != 1:
        raise RuntimeError(
            "The vector v can only be None if the input to the user-provided function is a "
            "single Tensor with a single element."
        )
    return None


def _check_output_v(v, outputs, is_outputs_tuple) -> None:
    """vjp's v against the function's outputs (Tensors, or `_Shape`s of a trace); both
    engines call it once the outputs are known."""
    if v is not None:
        _validate_v(v, outputs, is_outputs_tuple)
    elif len(outputs) != 1 or outputs[0].nelement() != 1:
        raise RuntimeError(
            "The vector v can only be None if the user-provided function returns a single "
            "Tensor with a single element."
        )


def _check_scalar_output(is_outputs_tuple, outputs, fn_name: str) -> None:
    """hessian, vhp and hvp need a function returning one single-element Tensor."""
    if is_outputs_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {fn_name} should contain a single "
            "element"
        )


# ----------------------------------------------------------------------------- engine choice
def _engine(func, inputs: tuple, fn_name: str, create_graph, strict, scalar_only=False):
    """The JAX-trace engine when `func` traces (outside strict mode; for hessian, when it
    returns a single element), else the tape engine."""
    traced = None if strict else _try_trace(func, inputs, fn_name)
    if traced is not None and scalar_only:
        if traced.is_outputs_tuple or math.prod(traced.out_avals[0].shape) != 1:
            traced = None  # the tape engine raises PyTorch's errors
    if traced is None:
        return _TapeEngine(func, inputs, create_graph, strict)
    return _JaxEngine(traced, inputs, create_graph)


# ----------------------------------------------------------------------------- the API
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
    engine = _engine(func, inputs, "vjp", create_graph, strict)
    is_outputs_tuple, outputs, grads = engine.vjp(v)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(grads, is_inputs_tuple)


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
    v = _input_v(v, inputs, is_inputs_tuple, "jvp")
    engine = _engine(func, inputs, "jvp", create_graph, strict)
    is_outputs_tuple, outputs, tangents = engine.jvp(v)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(
        tangents, is_outputs_tuple
    )


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
    engine = _engine(func, inputs, "jacobian", create_graph, strict)
    is_outputs_tuple, res = engine.jacobian(strategy)
    return _tuple_postprocess(res, (is_outputs_tuple, is_inputs_tuple))


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
    engine = _engine(func, inputs, "hessian", create_graph, strict, scalar_only=True)
    res = engine.hessian(outer_jacobian_strategy, vectorize)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """The vector-Hessian product `v^T H` of a scalar function at `inputs` (reverse over
    reverse: jax.vjp of jax.grad).

    Args:
        func (function): takes Tensors, returns a single-element Tensor.
        inputs (tuple of Tensors or Tensor): inputs to `func`.
        v (tuple of Tensors or Tensor): the vector, shaped like the inputs; optional when
            the input is a single one-element Tensor.
        create_graph (bool): make the results differentiable (connected to the inputs).
        strict (bool): raise when the result is independent of an input (the tape is used).

    Returns:
        (func_output, vhp): vhp is a Tensor or a tuple like the inputs.

    Example::

        >>> vhp(lambda x: (x**3).sum(), torch.tensor([1.0, 2.0]), torch.ones(2))
        (tensor(9.), tensor([ 6., 12.]))
    """
    return _second_order("vhp", func, inputs, v, create_graph, strict)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """The Hessian-vector product `H v` of a scalar function at `inputs` (forward-over-reverse
    with jax.jvp of jax.grad, the fast way; PyTorch uses the double-backward trick). The
    arguments are vhp's; for the symmetric Hessian of a twice continuously differentiable
    function the two give the same numbers.

    Returns:
        (func_output, hvp): hvp is a Tensor or a tuple like the inputs.

    Example::

        >>> x, y = torch.tensor([1.0]), torch.tensor([2.0])
        >>> hvp(lambda x, y: (x * y**2).sum(), (x, y), (torch.ones(1), torch.zeros(1)))
        (tensor(4.), (tensor([0.]), tensor([4.])))
    """
    return _second_order("hvp", func, inputs, v, create_graph, strict)


def _second_order(kind: str, func, inputs, v, create_graph, strict):
    """The front of vhp and hvp, which take the same arguments."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", kind)
    v = _input_v(v, inputs, is_inputs_tuple, kind)
    engine = _engine(func, inputs, kind, create_graph, strict)
    is_outputs_tuple, outputs, res = engine.vhp(v) if kind == "vhp" else engine.hvp(v)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(res, is_inputs_tuple)


# ============================================================================= the JAX-trace engine
class _Trace:
    """One functional trace: which tracers are its own, which closure tensors it read, and
    the state of the tensors it wrote whose values were not its own."""

    def __init__(self) -> None:
        self.trace = None
        self.closures: dict = {}
        self.outside: dict = {}  # id -> (tensor, value, version) before the first write

    def visit(self, value, live: bool, tensor):
        """An op input as the trace should see it: values PyTorch would not differentiate
        (no requires_grad, or grad mode off) are cut with stop_gradient."""
        if isinstance(value, jax.core.Tracer):
            if not live and getattr(value, "_trace", None) is self.trace:
                return lax.stop_gradient(value)
        elif live and isinstance(tensor, Tensor):
            self.closures[id(value)] = tensor
        return value

    def written(self, tensor: Tensor) -> None:
        """`tensor` is about to be rebound (`modes.written`): keep its state if the value is
        not one of this trace's (the tensor may be the caller's)."""
        if id(tensor) not in self.outside:
            current = tensor._value
            if self.trace is None or getattr(current, "_trace", None) is not self.trace:
                version = tensor._version_counter[0]
                self.outside[id(tensor)] = (weakref.ref(tensor), current, version)

    def restore_outside(self) -> bool:
        """Undo the trace's in-place writes to tensors that outlive it (a module's buffers):
        they hold values of the trace, which must not leak. Whether there were any."""
        restored = False
        for ref, value, version in self.outside.values():
            tensor = ref()  # None: a tensor the function made, gone with the trace
            if tensor is None or tensor._value is value:
                continue
            if tensor._storage is None:  # not `_set_value`: no outer trace sees an undo
                tensor._value = value
            else:
                tensor._write_shared(value)
            tensor._version_counter[0] = version
            restored = True
        return restored


class Traced:
    __slots__ = ("jaxpr", "consts", "const_tensors", "is_outputs_tuple", "out_avals")
    jaxpr: Jaxpr
    consts: list
    const_tensors: list[Tensor | None]
    is_outputs_tuple: bool
    out_avals: list


def _trace(func, inputs: tuple, fn_name: str) -> Traced:
    """Run `func` once on tracer-holding tensors; raise a trace error if it cannot be traced."""
    return trace_values(func, [x._value for x in inputs], fn_name)


def trace_values(func, values: list, fn_name: str, requires_grad: list | None = None) -> Traced:
    """`_trace` from input arrays or `jax.ShapeDtypeStruct`s (the shapes the tensors `func`
    receives have). The tensors that require grad (by default every floating-point one) are
    differentiable in the trace; values of the others are cut with stop_gradient."""
    trace = _Trace()
    info: dict = {}
    if requires_grad is None:
        requires_grad = [jnp.issubdtype(v.dtype, jnp.inexact) for v in values]

    def pure(*arrays):
        tensors = []
        for a, requires in zip(arrays, requires_grad):
            t = Tensor._wrap(a)
            if requires:
                t.requires_grad_(True)
            tensors.append(t)
        if arrays:
            trace.trace = getattr(arrays[0], "_trace", None)
        with _grad_mode.enable_grad():
            out = func(*tensors)
        is_tuple, outs = _as_tuple(out, "outputs of the user-provided function", fn_name)
        info["is_tuple"] = is_tuple
        return tuple(o._value for o in outs)

    modes.enter_trace(trace)
    try:
        closed = jax.make_jaxpr(pure)(*values)
    finally:
        modes.leave_trace(trace)
        wrote_outside = trace.restore_outside()
    if wrote_outside:  # PyTorch would update that state: only the tape can
        raise _errors.TapeFallback(
            "the function writes in place to a tensor it did not make (a module's buffer)"
        )
    traced = Traced()
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


def functional_op(kind: str, traced: Traced, n_inputs: int, builder) -> Op:
    """The op computing `kind` for this jaxpr, made once per (kind, jaxpr) and cached."""
    key = (kind, n_inputs, len(traced.consts), jaxpr_key(traced.jaxpr))
    op = lru_get(_ops_cache, key)
    if op is None:
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
        op = Op(f"{name}Backward", fn)
        lru_put(_ops_cache, key, op, _CACHE_SIZE)
    return op


class _Shape:
    """Stands for a traced output where the front's checks read a Tensor (size(), nelement(),
    dtype)."""

    def __init__(self, aval) -> None:
        self.aval = aval

    def size(self):
        return Size(tuple(self.aval.shape))

    def nelement(self) -> int:
        return math.prod(self.aval.shape)

    @property
    def dtype(self):
        return _dtypes.from_jax(self.aval.dtype)


def _ones(shape, dtype) -> Tensor:
    return Tensor._wrap(jnp.ones(shape, dtype))


def _nest(flat, n_rows: int, n_cols: int, strategy: str):
    """A flat list of Jacobian blocks as rows; PyTorch's forward-mode path builds lists, its
    reverse-mode path tuples."""
    container = list if strategy == "forward-mode" else tuple
    return container(container(flat[i * n_cols : (i + 1) * n_cols]) for i in range(n_rows))


class _JaxEngine:
    """Each quantity is one cached, jitted JAX transform of the traced function."""

    def __init__(self, traced: Traced, inputs: tuple, create_graph) -> None:
        self.traced = traced
        self.inputs = inputs
        self.create_graph = create_graph
        self.outputs = [_Shape(a) for a in traced.out_avals]

    def _run(self, kind: str, build, extra: tuple = ()) -> tuple:
        """Apply the functional op: recorded (connected to inputs, closure tensors and `extra`)
        under create_graph, else a plain jitted call whose results are detached."""
        traced, inputs = self.traced, self.inputs
        op = functional_op(kind, traced, len(inputs), build)
        consts = [t if t is not None else c for t, c in zip(traced.const_tensors, traced.consts)]
        if self.create_graph:
            with _grad_mode.enable_grad():
                return apply(op, *inputs, *consts, *extra)
        values = [x._value if isinstance(x, Tensor) else x for x in (*inputs, *consts, *extra)]
        return tuple(Tensor._wrap(o) for o in op.compiled(())(*values))

    def _products(self, kind: str, build, v: tuple) -> tuple:
        """(is_outputs_tuple, outputs, products) of an op returning outputs then products."""
        res = self._run(kind, build, v)
        n_out = len(self.outputs)
        return self.traced.is_outputs_tuple, res[:n_out], res[n_out:]

    def _input_v(self, v):
        """v, or ones for the single one-element input (the front checked which)."""
        if v is None:
            v = (_ones(tuple(self.inputs[0].shape), self.inputs[0]._stored.dtype),)
        return v

    def vjp(self, v):
        _check_output_v(v, self.outputs, self.traced.is_outputs_tuple)
        if v is not None:
            v = _v_values(v, self.outputs)
        else:
            aval = self.traced.out_avals[0]
            v = (_ones(tuple(aval.shape), aval.dtype),)

        def build(f, xs, vs):
            out, pullback = jax.vjp(f, *xs)
            return (*out, *pullback(tuple(vs)))

        return self._products("vjp", build, v)

    def jvp(self, v):
        def build(f, xs, vs):
            out, tangents = jax.jvp(f, tuple(xs), tuple(vs))
            return (*out, *tangents)

        return self._products("jvp", build, self._input_v(v))

    def jacobian(self, strategy: str):
        transform = jax.jacfwd if strategy == "forward-mode" else jax.jacrev
        n_in = len(self.inputs)

        def build(f, xs, _):
            jac = transform(f, argnums=tuple(range(n_in)))(*xs)
            return [j for per_output in jac for j in per_output]

        flat = self._run(f"jacobian-{strategy}", build)
        res = _nest(flat, len(self.outputs), n_in, strategy)
        return self.traced.is_outputs_tuple, res

    def hessian(self, strategy: str, vectorize):
        outer = jax.jacfwd if strategy == "forward-mode" else jax.jacrev
        n_in = len(self.inputs)

        def build(f, xs, _):
            argnums = tuple(range(n_in))
            hess = outer(jax.jacrev(lambda *a: f(*a)[0].reshape(()), argnums), argnums)(*xs)
            return [h for row in hess for h in row]

        return _nest(self._run(f"hessian-{strategy}", build), n_in, n_in, strategy)

    def _second_order(self, kind: str, v):
        """vhp (reverse over reverse) or hvp (forward over reverse) of a scalar function."""
        _check_scalar_output(self.traced.is_outputs_tuple, self.outputs, kind)
        argnums = tuple(range(len(self.inputs)))

        def build(f, xs, vs):
            out = f(*xs)[0]
            grad_f = jax.grad(lambda *a: f(*a)[0].reshape(()), argnums)
            if kind == "vhp":
                _, pullback = jax.vjp(grad_f, *xs)
                return (out, *pullback(tuple(vs)))
            return (out, *jax.jvp(grad_f, tuple(xs), tuple(vs))[1])

        return self._products(kind, build, self._input_v(v))

    def vhp(self, v):
        return self._second_order("vhp", v)

    def hvp(self, v):
        return self._second_order("hvp", v)


# ============================================================================= the tape engine
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


class _TapeEngine:
    """PyTorch's algorithms (torch/autograd/functional.py) on this library's tape: vjp by
    backward, jvp and hvp by the double-backward trick, jacobian row by row."""

    def __init__(self, func, inputs: tuple, create_graph, strict) -> None:
        self.func = func
        self.inputs = inputs
        self.create_graph = create_graph
        self.strict = strict

    def _outputs(self, inputs: tuple, fn_name: str):
        """(is_outputs_tuple, outputs) of the function, checked as PyTorch does."""
        is_outputs_tuple, outputs = _as_tuple(
            self.func(*inputs), "outputs of the user-provided function", fn_name
        )
        _check_requires_grad(outputs, "outputs", strict=self.strict)
        return is_outputs_tuple, outputs

    def _v(self, v):
        return None if v is None else _grad_preprocess(v, self.create_graph, need_graph=False)

    def _product(self, setup, stage: str):
        """PyTorch's skeleton of vjp, jvp, vhp and hvp: under enable_grad, `setup(inputs)`
        returns (is_outputs_tuple, outputs, ys, xs, v, refs); the result is the gradient of
        `ys` with respect to `xs` weighted by `v`, with zeros (or strict errors) for the
        unused `refs`."""
        create_graph, strict = self.create_graph, self.strict
        with _tape(strict):
            with _grad_mode.enable_grad():
                inputs = _grad_preprocess(self.inputs, create_graph=create_graph, need_graph=True)
                is_outputs_tuple, outputs, ys, xs, v, refs = setup(inputs)
            with _grad_mode.set_grad_enabled(
                True if create_graph else _grad_mode.is_grad_enabled()
            ):
                grad_res = _autograd_grad(ys, xs, v, create_graph=create_graph)
                result = _fill_in_zeros(grad_res, refs, strict, create_graph, stage)
        outputs = _grad_postprocess(outputs, create_graph)
        return is_outputs_tuple, outputs, _grad_postprocess(result, create_graph)

    def vjp(self, v):
        def setup(inputs):
            is_outputs_tuple, outputs = self._outputs(inputs, "vjp")
            _check_output_v(v, outputs, is_outputs_tuple)
            return is_outputs_tuple, outputs, outputs, inputs, self._v(v), inputs

        return self._product(setup, "back")

    def jvp(self, v):
        def setup(inputs):
            v_ = self._v(v)
            is_outputs_tuple, outputs = self._outputs(inputs, "jvp")
            grad_outputs = tuple(_factories.zeros_like(out).requires_grad_(True) for out in outputs)
            grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
            _check_requires_grad(grad_inputs, "grad_inputs", strict=self.strict)
            return is_outputs_tuple, outputs, grad_inputs, grad_outputs, v_, outputs

        return self._product(setup, "back_trick")

    def _gradient(self, inputs: tuple, kind: str):
        """vhp's and hvp's first derivative, with graph: (is_outputs_tuple, outputs, jac)."""
        is_outputs_tuple, outputs = self._outputs(inputs, kind)
        _check_scalar_output(is_outputs_tuple, outputs, kind)
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=self.strict)
        return is_outputs_tuple, outputs, jac

    def vhp(self, v):
        def setup(inputs):
            v_ = self._v(v)
            is_outputs_tuple, outputs, jac = self._gradient(inputs, "vhp")
            return is_outputs_tuple, outputs, jac, inputs, v_, inputs

        return self._product(setup, "double_back")

    def hvp(self, v):
        def setup(inputs):
            v_ = self._v(v)
            is_outputs_tuple, outputs, jac = self._gradient(inputs, "hvp")
            grad_jac = tuple(_factories.zeros_like(inp).requires_grad_(True) for inp in inputs)
            double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
            _check_requires_grad(jac, "hessian", strict=self.strict)
            return is_outputs_tuple, outputs, double_back, grad_jac, v_, inputs

        return self._product(setup, "double_back_trick")

    def jacobian(self, strategy: str):
        if strategy == "forward-mode":
            return self._jacfwd()
        create_graph, strict = self.create_graph, self.strict
        with _tape(strict), _grad_mode.enable_grad():
            inputs = _grad_preprocess(self.inputs, create_graph=create_graph, need_graph=True)
            is_outputs_tuple, outputs = self._outputs(inputs, "jacobian")
            jacobian_: tuple = ()
            for i, out in enumerate(outputs):
                jac_i: tuple[list, ...] = tuple([] for _ in range(len(inputs)))
                for j in range(out.nelement()):
                    vj = _autograd_grad(
                        (out.reshape(-1)[j],), inputs, retain_graph=True, create_graph=create_graph
                    )
                    for el_idx, (jac_i_el, vj_el, inp_el) in enumerate(zip(jac_i, vj, inputs)):
                        if vj_el is not None:
                            if strict and create_graph and not vj_el.requires_grad:
                                raise RuntimeError(
                                    "The jacobian of the user-provided function is independent "
                                    f"of input {i}. This is not allowed in strict mode when "
                                    "create_graph=True."
                                )
                            jac_i_el.append(vj_el)
                        else:
                            if strict:
                                raise RuntimeError(
                                    f"Output {i} of the user-provided function is independent "
                                    f"of input {el_idx}. This is not allowed in strict mode."
                                )
                            jac_i_el.append(_factories.zeros_like(inp_el))
                jacobian_ += (
                    tuple(
                        stack(jac_i_el).reshape(tuple(out.shape) + tuple(inputs[el_idx].shape))
                        if jac_i_el
                        else _factories.zeros_like(inputs[el_idx]).reshape(
                            (0, *inputs[el_idx].shape)
                        )
                        for el_idx, jac_i_el in enumerate(jac_i)
                    ),
                )
            return is_outputs_tuple, _grad_postprocess(jacobian_, create_graph)

    def _jacfwd(self):
        """Forward-mode Jacobian with this library's dual tensors, one basis vector at a time."""
        func, inputs = self.func, self.inputs
        numels = [x.numel() for x in inputs]
        columns = None
        is_outputs_tuple = False
        outputs = ()
        for index in range(len(inputs)):
            for j in range(numels[index]):
                with forward_ad.dual_level():
                    duals = []
                    for k, y in enumerate(inputs):
                        tangent = jnp.zeros(y._stored.shape, y._stored.dtype)
                        if k == index:
                            tangent = tangent.reshape(-1).at[j].set(1).reshape(y._stored.shape)
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
        return is_outputs_tuple, res

    def hessian(self, strategy: str, vectorize):
        """The Jacobian (on the tape) of the Jacobian (on the tape, with graph)."""
        strict = self.strict

        def ensure_single_output_function(*inp):
            is_outputs_tuple, outputs = self._outputs(inp, "hessian")
            _check_scalar_output(is_outputs_tuple, outputs, "hessian")
            out = outputs[0]
            return out.squeeze() if hasattr(out, "squeeze") else out.reshape(())

        def jac_func(*inp):
            if strategy == "forward-mode":
                inp = tuple(t.requires_grad_(True) for t in inp)
            with _tape(True):
                jac = jacobian(ensure_single_output_function, inp, create_graph=True)
            _check_requires_grad(jac, "jacobian", strict=strict)
            return jac

        with _tape(True):
            return jacobian(
                jac_func,
                self.inputs,
                create_graph=self.create_graph,
                strict=strict,
                vectorize=vectorize and not strict,
                strategy=strategy,
            )
