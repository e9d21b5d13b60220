"""torch.autograd.Function: ops whose backward is user Python code.

`Function.apply` runs the user's `forward` without recording and, when a gradient is needed,
makes the class's `<Name>Backward` node, which is also the `ctx` the user's methods receive
(as in PyTorch, `y.grad_fn` is the ctx). The engine calls that node's `_call_backward` in its
stepwise executor: the user's `backward` runs on Tensors of this library with recording on
under `create_graph=True`, so a backward written with differentiable ops supports double
backward. Graphs containing such nodes are never fused (the backward is not a JAX function).

`Function.from_jax(fn)` goes the other way: it makes a JAX function (a `jax.custom_vjp` one
included) an op of this library, whose backward is `jax.vjp` of it like every built-in op.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import warnings

import jax
import jax.numpy as jnp

from .._ops.factories import zeros, zeros_like
from .._pure import dtypes as _dtypes
from .._pure import errors as _errors
from .._pure import op as _op
from .._pure.op import Op, register
from .._state import modes as _grad_mode
from .._state.modes import modes
from .._state.node import Node, _sequence, accumulator_of
from .._state.tensor import Tensor
from .._tape import hooks as _hooks
from .._tape.hooks import Packed
from .._tape.record import INFERENCE_SAVED, apply, forward_traceback, set_tangent
from .._tape.schedule import check_versions

__all__ = [
    "BackwardCFunction",
    "Function",
    "FunctionCtx",
    "FunctionMeta",
    "InplaceFunction",
    "once_differentiable",
]

_function_ids = itertools.count()


def _sum_to(grad, *, shape):
    lead = grad.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and grad.shape[lead + i] != 1
    )
    if axes:
        grad = jnp.sum(grad, axis=axes, keepdims=True)
    return grad.reshape(shape)


_SUM_TO = register(
    "autograd.function.sum_to_size", _sum_to, node="SumToSizeBackward0", saves="none"
)


_COMPLEX_GRAD_OF_REAL = (
    "Expected isFloatingType(grad.scalar_type()) || (input_is_complex == grad_is_complex) to "
    "be true, but got false.  (Could this error message be improved?  If so, please report an "
    "enhancement request to PyTorch.)"
)


def _expandable(shape: tuple, to: tuple) -> bool:
    """Whether `shape` broadcasts to `to` (a gradient of shape `to` may be summed to it)."""
    if len(shape) > len(to):
        return False
    return all(s == t or s == 1 for s, t in zip(shape[::-1], to[::-1]))


class FunctionCtx:
    """The context a custom Function's methods receive: what forward leaves for backward."""

    def save_for_backward(self, *tensors) -> None:
        """Save tensors (or None) for `backward`, read back through `ctx.saved_tensors`.

        Saved tensors are checked for in-place changes and freed with the graph, as in
        PyTorch; save non-tensor values as ordinary attributes of ctx.
        """
        self.to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        """Save tensors for `jvp` (forward-mode AD), read back through `ctx.saved_tensors`."""
        for tensor in tensors:
            if not (isinstance(tensor, Tensor) or tensor is None):
                raise AssertionError(
                    "save_for_forward expects all arguments to be tensors; you should "
                    "save non-tensors as attributes on ctx."
                )
        self.saved_for_forward = tensors

    def mark_dirty(self, *args) -> None:
        """Declare inputs that forward modified in place (they become outputs of this node)."""
        for i, tensor in enumerate(args):
            if not isinstance(tensor, Tensor):
                raise RuntimeError(
                    f"mark_dirty can only accept variables, but argument {i} is of type "
                    f"{type(tensor).__name__}"
                )
        self.dirty_tensors = args

    def mark_shared_storage(self, *pairs) -> None:
        warnings.warn(
            "`mark_shared_storage` is deprecated. Tensors with shared storages are "
            "automatically tracked. Note that calls to `set_()` are not tracked",
            FutureWarning,
            stacklevel=2,
        )

    def mark_non_differentiable(self, *args) -> None:
        """Declare outputs that are not differentiable (their gradient is always zero)."""
        for tensor in args:
            if not isinstance(tensor, Tensor):
                raise RuntimeError(
                    "mark_non_differentiable only accepts variable arguments, but got "
                    f"{type(tensor).__name__}"
                )
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """Whether undefined output gradients reach backward as zeros (True, the default)
        or as None."""
        self.materialize_grads = value


class BackwardCFunction(FunctionCtx, Node):
    """The node (and ctx) of one application of a custom Function."""

    custom = True
    _forward_cls: type

    def _init_ctx(self) -> None:
        self.op = None
        self.static = ()
        self.edges = ()
        self.saved = None
        self.saved_mask = ()
        self.placeholders = ()
        self.versions = ()
        self.out_meta = ()
        self.residuals = None
        self.had_saved = False
        self._init_hooks(0)
        self.materialize_grads = True
        self.needs_input_grad = ()
        self._saved_entries: tuple = ()  # (tensor or Packed, anchor, version counter, version)
        self._freed = False
        self._in_jvp = False
        self._is_tensor_input: tuple = ()
        self._input_meta: tuple = ()

    # ----------------------------------------------------------------- Node interface
    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        cls = type(self)
        return f"<{cls.__module__}.{cls.__qualname__} object at {hex(id(self))}>"

    def release(self) -> None:
        if self._saved_entries:
            self._freed = True
            self._saved_entries = ()

    def check_alive(self) -> None:
        pass  # as in PyTorch, the error comes when backward reads ctx.saved_tensors

    def check_saved(self) -> tuple:
        return ()

    # ----------------------------------------------------------------- ctx interface
    @property
    def saved_tensors(self) -> tuple:
        """The tensors given to `save_for_backward` (in `jvp`: to `save_for_forward`)."""
        if self._in_jvp:
            return tuple(getattr(self, "saved_for_forward", ()))
        if self._freed:
            raise RuntimeError(_errors.BACKWARD_TWICE)
        out: list = []
        for entry in self._saved_entries:
            if entry is None:
                out.append(None)
                continue
            tensor, anchor, counter, version = entry
            if counter[0] != version:
                check_versions(((counter, version, _Ref(tensor)),), None)
            if type(tensor) is Packed:
                tensor = _unpacked(tensor, anchor)
            out.append(tensor)
        return tuple(out)

    saved_variables = saved_tensors

    def _get_user_fn(self):
        cls = self._forward_cls
        backward_fn, vjp_fn = cls.backward, cls.vjp
        if backward_fn is not Function.backward and vjp_fn is not Function.vjp:
            raise RuntimeError(
                "Implementing both 'backward' and 'vjp' for a custom Function is not allowed. "
                "You should only implement one of them."
            )
        return vjp_fn if vjp_fn is not Function.vjp else backward_fn

    # ----------------------------------------------------------------- backward
    def _call_backward(self, cts: list, create_graph: bool) -> list:
        """Run the user's backward on output gradients; one gradient per edge, validated."""
        if self.materialize_grads:
            cts = [
                ct if ct is not None or meta is None else zeros(meta[0], dtype=_dtype_of(meta[1]))
                for ct, meta in zip(cts, self.out_meta)
            ]
        result = self._get_user_fn()(self, *cts)
        if not isinstance(result, tuple):
            result = (result,)
        expected = len(self._is_tensor_input)
        if len(result) > expected and all(r is None for r in result[expected:]):
            result = result[:expected]
        if len(result) != expected:
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients (expected "
                f"{expected}, got {len(result)})"
            )
        grads: list = []
        k = 0
        for position, (grad, is_tensor) in enumerate(zip(result, self._is_tensor_input)):
            if not is_tensor:
                if grad is not None:
                    raise RuntimeError(
                        f"function {self.name()} returned a gradient different than None at "
                        f"position {position + 1}, but the corresponding forward input was not "
                        "a Variable"
                    )
                continue
            if grad is not None and not isinstance(grad, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(grad).__name__})")
            if grad is None or self.edges[k] is None:
                grads.append(None)
            else:
                grads.append(self._validate(k, grad))
            k += 1
        return grads

    def _validate(self, index: int, grad: Tensor) -> Tensor:
        """PyTorch's validate_outputs: sum a broadcast gradient back, cast to the input dtype."""
        shape, dtype = self._input_meta[index]
        if tuple(grad.shape) != shape:
            if not _expandable(shape, tuple(grad.shape)):
                raise RuntimeError(
                    f"Function {self.name()} returned an invalid gradient at index {index} - "
                    f"got {list(grad.shape)} but expected shape compatible with {list(shape)}"
                )
            grad = apply(_SUM_TO, grad, shape=shape)
        if grad._stored.dtype != dtype:
            if grad.is_complex() and not jnp.issubdtype(dtype, jnp.complexfloating):
                raise RuntimeError(_COMPLEX_GRAD_OF_REAL)
            grad = grad.to(_dtype_of(dtype))
        return grad


class _Ref:
    def __init__(self, obj) -> None:
        self.obj = obj if isinstance(obj, Tensor) else None

    def __call__(self):
        return self.obj


def _dtype_of(jax_dtype):
    return _dtypes.from_jax(jax_dtype)


def _unpacked(packed, anchor) -> Tensor:
    """A tensor from an unpack hook, reconnected to the graph place the saved one had."""
    result = packed.unpack(packed.packed)
    if not isinstance(result, Tensor):
        raise TypeError(
            "Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
            f"{type(result).__name__}"
        )
    if anchor is None:
        return result
    kind, a, b = anchor
    if kind == "node":
        return Tensor._wrap(result._value, a, b)
    tensor = Tensor._wrap(result._value)
    tensor._requires_grad = True
    tensor._accumulator = a._accumulator
    return tensor


class FunctionMeta(type):
    """Makes the `<Name>Backward` node class of each Function subclass."""

    def __init__(cls, name, bases, attrs) -> None:
        attrs_node = {"_forward_cls": cls, "_autograd_function_id": next(_function_ids)}
        backward_cls = type(name + "Backward", (BackwardCFunction,), attrs_node)
        cls._backward_cls = backward_cls
        super().__init__(name, bases, attrs)


class _SingleLevelFunction(FunctionCtx, metaclass=FunctionMeta):
    @staticmethod
    def forward(*args, **kwargs):
        """Compute the outputs (static; first argument ctx unless setup_context is defined)."""
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx, inputs: tuple, output) -> None:
        """Fill ctx from the inputs and output (forward then takes no ctx)."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        """Gradients of the inputs (one per forward input; None where there is none)."""
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """Output tangents from input tangents (forward-mode AD)."""
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD."
        )


class Function(_SingleLevelFunction):
    """Base class for ops with a custom backward, as `torch.autograd.Function`.

    Example::

        >>> class Exp(torch.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         result = x.exp()
        ...         ctx.save_for_backward(result)
        ...         return result
        ...     @staticmethod
        ...     def backward(ctx, grad_output):
        ...         (result,) = ctx.saved_tensors
        ...         return grad_output * result
        >>> x = torch.zeros(2, requires_grad=True)
        >>> Exp.apply(x).sum().backward()
        >>> x.grad
        tensor([1., 1.])
    """

    def __init__(self, *args, **kwargs) -> None:
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions are "
            "all static, so you should invoke them on the class itself. Instantiating an "
            "autograd function will raise an error in a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    generate_vmap_rule = False

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run forward and, when a gradient is needed, record this Function's node."""
        if modes.traces and len(modes.traces) > len(modes.captures):
            # an autograd.functional trace cannot run a Python backward
            raise _errors.TapeFallback(cls.__name__)
        setup_context = cls.setup_context is not _SingleLevelFunction.setup_context
        if setup_context:
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        output = _apply(cls, setup_context, args, kwargs)
        if modes.captures:  # a torch.compile trace: its own vjp must run this backward too
            _through_custom_vjp(cls, setup_context, args, kwargs, output)
        return output

    @staticmethod
    def from_jax(fn, name: str | None = None, *, saves: str = "all"):
        """Make a JAX function an op of this library (differentiated by `jax.vjp` of it).

        `fn` takes arrays (positional) and static keyword arguments (hashable) and returns
        an array or a tuple of arrays; a `jax.custom_vjp` or `jax.custom_jvp` function keeps
        its custom rule. The returned function takes Tensors (or numbers) and returns
        Tensors with a grad_fn named `name` (default: `"<fn name>Backward"`).

        Example::

            >>> import jax
            >>> import jax.numpy as jnp
            >>> @jax.custom_vjp
            ... def clip_gradient(x):
            ...     return x
            >>> clip_gradient.defvjp(lambda x: (x, None), lambda _, g: (jnp.clip(g, -1, 1),))
            >>> op = torch.autograd.Function.from_jax(clip_gradient)
            >>> x = torch.ones(2, requires_grad=True)
            >>> (op(x) * 5).sum().backward()
            >>> x.grad
            tensor([1., 1.])
        """
        label = name or f"{getattr(fn, '__name__', type(fn).__name__)}Backward"
        op = Op(label, fn, saves)

        @functools.wraps(fn)
        def wrapped(*args, **static):
            inputs = [a if isinstance(a, Tensor) else jnp.asarray(a) for a in args]
            return apply(op, *inputs, **static)

        wrapped.op = op  # type: ignore[attr-defined]  # an attribute on the wrapper function
        return wrapped

    @staticmethod
    def vmap(info, in_dims, *args):
        raise NotImplementedError(
            "To use autograd.Function with vmap, you must either override the vmap staticmethod "
            "or set generate_vmap_rule=True."
        )


class _suspend_forward_ad:
    """Run the user's forward/jvp without computing tangents of their inner ops."""

    def __enter__(self) -> None:
        self.level = modes.fw_level
        if self.level is not None:
            modes.fw_level = None
            modes.refresh_special()

    def __exit__(self, *exc_info: object) -> None:
        if self.level is not None:
            modes.fw_level = self.level
            modes.refresh_special()


def _apply(cls, setup_context: bool, args: tuple, kwargs: dict):
    ctx = object.__new__(cls._backward_cls)  # node_class(op) picks an op's class; not here
    ctx._init_ctx()
    grad_on = _grad_mode._state.enabled
    is_tensor = tuple(isinstance(a, Tensor) for a in args)
    needs = tuple(t and grad_on and a.requires_grad for a, t in zip(args, is_tensor))
    ctx.needs_input_grad = needs
    differentiable = True in needs
    tensor_inputs = [a for a, t in zip(args, is_tensor) if t]
    if differentiable:
        ctx.edges = tuple(t._grad_edge() if t.requires_grad else None for t in tensor_inputs)
    ctx._is_tensor_input = is_tensor
    ctx._input_meta = tuple((tuple(t._stored.shape), t._stored.dtype) for t in tensor_inputs)
    tangents = None
    if modes.fw_level is not None and not _grad_mode._state.inference:
        if any(t._fw_grad is not None for t in tensor_inputs):
            tangents = _input_tangents(args)
    output = _call_forward(cls, ctx, setup_context, args, kwargs)
    is_tuple = isinstance(output, tuple)
    outputs = output if is_tuple else (output,)
    results = _wrap_outputs(ctx, args, outputs, differentiable)
    if differentiable:
        ctx.seq = next(_sequence)
        if modes.anomaly:
            ctx.metadata["traceback_"] = forward_traceback()
            if modes.executing:
                ctx.metadata["parent_"] = modes.executing[-1]
    _save(ctx, results, outputs, differentiable)
    if tangents is not None:
        _forward_ad(cls, ctx, tangents, results)
    return tuple(results) if is_tuple else results[0]


def _call_forward(cls, ctx, setup_context: bool, args: tuple, kwargs: dict):
    """The user's forward (and setup_context), untracked."""
    with _suspend_forward_ad(), _grad_mode.no_grad():
        if setup_context:
            output = cls.forward(*args, **kwargs)
            cls.setup_context(ctx, args, output)
            return output
        return cls.forward(ctx, *args, **kwargs)


def _run_forward(cls, setup_context: bool, args: tuple, kwargs: dict):
    """(a new ctx, the outputs) of the user's forward, untracked."""
    ctx = object.__new__(cls._backward_cls)
    ctx._init_ctx()
    ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
    output = _call_forward(cls, ctx, setup_context, args, kwargs)
    return ctx, output if isinstance(output, tuple) else (output,)


def _through_custom_vjp(cls, setup_context: bool, args: tuple, kwargs: dict, output) -> None:
    """Inside a torch.compile trace, give the outputs of a Function applied on the tape the
    values of a `jax.custom_vjp` of its forward and backward: the traced call is one node
    differentiated by `jax.vjp`, which then runs this backward, not JAX's derivative of the
    forward. A Function that writes its inputs (mark_dirty) or returns non-float outputs
    keeps the tape only, and the call that applies it breaks the graph where it is
    differentiated (`Capture.custom_function`)."""
    outputs = output if isinstance(output, tuple) else (output,)
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    input_ids = {id(args[i]) for i in positions}
    if not all(
        isinstance(o, Tensor) and o._stored.dtype in _op.INEXACT and id(o) not in input_ids
        for o in outputs
    ):
        for capture in modes.captures:
            capture.custom_function(cls.__name__)
        return
    kept: dict = {}

    def forward(*values):
        call = list(args)
        for i, value in zip(positions, values):
            call[i] = Tensor._wrap(value)
            call[i]._requires_grad = args[i].requires_grad
        ctx, outs = _run_forward(cls, setup_context, tuple(call), kwargs)
        saved = tuple(None if t is None else t._value for t in getattr(ctx, "to_save", ()))
        return ctx, tuple(o._value for o in outs), saved

    @jax.custom_vjp
    def function(*values):
        return forward(*values)[1]

    def function_fwd(*values):
        ctx, outs, saved = forward(*values)
        kept["ctx"], kept["inputs"] = ctx, values
        return outs, saved

    def function_bwd(saved, cotangents):
        ctx = kept["ctx"]
        ctx._saved_entries = tuple(
            None if v is None else (Tensor._wrap(v), None, [0], 0) for v in saved
        )
        with _grad_mode.no_grad():
            grads = ctx._get_user_fn()(ctx, *(Tensor._wrap(c) for c in cotangents))
        grads = grads if isinstance(grads, tuple) else (grads,)
        inputs = kept["inputs"]
        return tuple(
            jnp.zeros_like(value)
            if grads[i] is None
            else jnp.broadcast_to(grads[i]._value, value.shape).astype(value.dtype)
            for i, value in zip(positions, inputs)
        )

    function.defvjp(function_fwd, function_bwd)
    values = function(*(args[i]._value for i in positions))
    for out, value in zip(outputs, values):
        out._value = value


def _wrap_outputs(ctx, args: tuple, outputs: tuple, differentiable: bool) -> list:
    """Give the forward's outputs their place in the graph (PyTorch's _wrap_outputs)."""
    input_ids = {id(a) for a in args if isinstance(a, Tensor)}
    dirty = {id(t) for t in getattr(ctx, "dirty_tensors", ())}
    non_diff = {id(t) for t in getattr(ctx, "non_differentiable", ())}
    if not dirty <= {id(out) for out in outputs}:
        raise RuntimeError(
            "Some elements marked as dirty during the forward method were not returned as "
            "output. The inputs that are modified inplace must all be outputs of the Function."
        )
    results = []
    meta: list = []
    for i, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            results.append(out)
            meta.append(None)
            continue
        meta.append((tuple(out._stored.shape), out._stored.dtype))
        inexact = out._stored.dtype in _op.INEXACT
        attach = differentiable and inexact and id(out) not in non_diff
        if id(out) in dirty:
            if attach:
                if out.grad_fn is None and out._requires_grad:
                    raise RuntimeError(
                        "a leaf Variable that requires grad has been used in an in-place operation."
                    )
                out.grad_fn = ctx
                out.output_nr = i
                out._requires_grad = True
            out._version_counter[0] += 1  # PyTorch counts mark_dirty as a write too
            result = out
        elif id(out) in input_ids or out._storage is not None or out.grad_fn is not None:
            # An input returned as is (PyTorch returns a view of it) or a tensor aliasing
            # other memory: a new tensor carries this node's edge.
            result = Tensor._wrap(out._value)
            if attach:
                result.grad_fn = ctx
                result.output_nr = i
            result._requires_grad = attach
        else:
            result = out
            if attach:
                out.grad_fn = ctx
                out.output_nr = i
                out._requires_grad = True
        results.append(result)
    ctx.out_meta = tuple(meta)
    return results


def _save(ctx, results: list, outputs: tuple, differentiable: bool) -> None:
    """Check what forward saved, note its versions, pack it through saved-tensor hooks."""
    to_save = getattr(ctx, "to_save", None)
    if not to_save:
        return
    replaced = {id(o): r for o, r in zip(outputs, results) if isinstance(o, Tensor)}
    hooks = _hooks.current_saved_hooks() if modes.saved_hooks else None
    entries: list = []
    for i, tensor in enumerate(to_save):
        if tensor is None:
            entries.append(None)
            continue
        if not isinstance(tensor, Tensor):
            raise TypeError(
                f"save_for_backward can only save variables, but argument {i} is of type "
                f"{type(tensor).__name__}"
            )
        tensor = replaced.get(id(tensor), tensor)
        if differentiable and tensor._is_inference:
            raise RuntimeError(INFERENCE_SAVED)
        counter = tensor._version_counter
        anchor = None
        stored = tensor
        if hooks is not None:
            stored = _hooks.pack_value(tensor, hooks)
            if tensor.grad_fn is not None:
                anchor = ("node", tensor.grad_fn, tensor.output_nr)
            elif tensor.requires_grad:
                anchor = ("leaf", tensor, accumulator_of(tensor))
        entries.append((stored, anchor, counter, counter[0]))
    ctx._saved_entries = tuple(entries)
    ctx.had_saved = True


def _input_tangents(args: tuple) -> list:
    out: list = []
    for a in args:
        if not isinstance(a, Tensor):
            out.append(None)
        elif a._fw_grad is not None:
            out.append(a._fw_grad)
        else:
            out.append(zeros_like(a))
    return out


def _forward_ad(cls, ctx, tangents: list, results: list) -> None:
    """Output tangents of a custom Function from its `jvp` (PyTorch requires one)."""
    ctx._in_jvp = True
    try:
        with _suspend_forward_ad(), _grad_mode.no_grad():
            out = cls.jvp(ctx, *tangents)
    finally:
        ctx._in_jvp = False
    out = out if isinstance(out, tuple) else (out,)
    for result, tangent in zip(results, out):
        if isinstance(result, Tensor) and isinstance(tangent, Tensor):
            if result._stored.dtype in _op.INEXACT:
                set_tangent(result, tangent)


# ----------------------------------------------------------------------------- once_differentiable
class _DelayedError(Function):
    """Outputs whose backward raises: marks the result of a once_differentiable backward."""

    @staticmethod
    def forward(ctx, message, *tensors):
        ctx.message = message
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(ctx.message)


def once_differentiable(fn):
    """Decorate a Function's backward that is not itself differentiable: it runs under
    no_grad, and differentiating its result raises PyTorch's error."""

    @functools.wraps(fn)
    def wrapper(ctx, *args, **kwargs):
        with _grad_mode.no_grad():
            outputs = fn(ctx, *args, **kwargs)
        if not _grad_mode.is_grad_enabled():
            return outputs
        requires_grad = any(isinstance(a, Tensor) and a.requires_grad for a in args)
        if not requires_grad:
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs

        def fake_requires_grad(var):
            if var is not None:
                var = var.detach()
                var.requires_grad = True
            return var

        present = [fake_requires_grad(v) for v in outs if v is not None]
        wrapped = iter(
            _DelayedError.apply(
                "trying to differentiate twice a function that was marked with "
                "@once_differentiable",
                *present,
            )
        )
        result = tuple(next(wrapped) if v is not None else None for v in outs)
        return result[0] if single else result

    return wrapper


class InplaceFunction(Function):
    """A Function with an `inplace` flag (legacy base class kept for compatibility)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace
