"""The op mechanism: one pure JAX function per op, jitted forwards, and backward by jax.vjp.

An `Op` is a pure function of arrays plus static keyword arguments. `apply(op, *inputs,
**static)` runs its forward through a `jax.jit` cached per (op, static arguments) and, when
grad mode is on and an input requires grad, records a `Node`. The backward of that node is
the derived op `vjp_of(op)`, whose pure function maps (primals, cotangents) to the input
cotangents through `jax.vjp`: also jitted and cached. Because the derived op is an ordinary
op, the engine applies it with recording on when `create_graph=True`, and its own backward is
the vjp of the vjp; derivatives of every order come from nesting JAX transforms.
"""

from __future__ import annotations

import functools
import os
import traceback
import weakref

import jax
import jax.numpy as jnp
import numpy as np

from .._state import modes as _grad_mode
from .._state.modes import modes
from .._state.node import Node, saved_ref
from .._state.tensor import Tensor
from .._tape import hooks as _hooks

_INEXACT = frozenset(
    np.dtype(d)
    for d in (jnp.float16, jnp.bfloat16, jnp.float32, jnp.float64, jnp.complex64, jnp.complex128)
)


class Op:
    """An op: its id, its PyTorch backward name, pure function and what its vjp reads.

    `id` is the registry key (None for the anonymous ops built at run time, see `register`);
    `name` is what `grad_fn.name()` returns. `saves` says which primal inputs the backward
    needs, as PyTorch decides what a node saves:
    "all"; "none" for linear ops (add, sum, reshape, indexing), whose vjp reads only shapes;
    "others" for multilinear ops (mul, matmul), whose vjp for one input reads only the others;
    "output" for ops PyTorch differentiates from their result (exp, tanh, sigmoid, sqrt, relu,
    softmax): the vjp still reads the inputs (immutable snapshots), but the version check
    watches the result, so an in-place change of the result fails backward and an in-place
    change of the input does not, as in PyTorch.
    What is not saved is not freed, so a second backward through it works, as in PyTorch.
    `shown_inputs`: the input positions `next_functions` lists (None: all); index, mask and
    constant inputs are no inputs of PyTorch's node.
    """

    __slots__ = (
        "id",
        "name",
        "fn",
        "saves",
        "differentiable",
        "shown_inputs",
        "_compiled",
        "_vjp_op",
        "_jvp",
        "_result_label",
    )

    def __init__(
        self,
        name: str,
        fn,
        saves: str = "all",
        differentiable: bool = True,
        *,
        id: str | None = None,
        shown_inputs: tuple | None = None,
    ) -> None:
        self.id = id
        self.name = name
        self.fn = fn
        self.saves = saves
        self.shown_inputs = shown_inputs
        # How PyTorch's version error names a saved result: "output 0 of Exp".
        self._result_label = name.removesuffix("Backward0")
        self.differentiable = differentiable
        self._compiled: dict = {}
        self._vjp_op: Op | None = None
        self._jvp: dict = {}

    def compiled(self, static: tuple):
        """The jitted forward for these static arguments, compiled once per (op, static)."""
        fn = self._compiled.get(static)
        if fn is None:
            fn = jax.jit(functools.partial(self.fn, **dict(static)))
            self._compiled[static] = fn
        return fn

    def __repr__(self) -> str:
        return f"Op({self.id or self.name})"


_REGISTRY: dict[str, Op] = {}


def register(
    op_id: str,
    fn,
    *,
    node: str,
    saves: str = "all",
    shown_inputs: tuple | None = None,
    differentiable: bool = True,
) -> Op:
    """Register the pure JAX function `fn` as the op `op_id`, whose nodes are named `node`.

    One registered op per maths: `torch.X`, `Tensor.X`, `F.X` and nn modules reach the same
    entry. Id scheme: the torch function's name as PyTorch spells it ("exp", "max_pool2d",
    "cross_entropy"), prefixed by its namespace outside torch/Tensor/F ("linalg.inv_ex",
    "nn.rnn.lstm", "autograd.functional.stack"), and suffixed with ".variant" where one
    function records several ops ("add.alpha", "sum.dim", "clamp_min.tensor",
    "xlogy.scalar_self", "einsum.permute"); internal machinery gets "_internal.<what>"
    ("_internal.copy_slices"). The random ops register lazily, on first use.
    Derived ops (`vjp_of`) and ops made at run time for user code (autograd.Function.from_jax,
    autograd.functional traces) are anonymous `Op(...)` objects outside the registry.
    Raises ValueError if `op_id` is already registered.
    """
    if op_id in _REGISTRY:
        raise ValueError(f"op id {op_id!r} is already registered (as {_REGISTRY[op_id]!r})")
    op = _REGISTRY[op_id] = Op(node, fn, saves, differentiable, id=op_id, shown_inputs=shown_inputs)
    return op


def registered_ops() -> dict[str, Op]:
    """A copy of the registry: op id -> Op, in registration order."""
    return dict(_REGISTRY)


_SAVE_ALL = {n: (True,) * n for n in range(8)}
_SAVE_NONE = {n: (False,) * n for n in range(8)}


def _saved_mask(saves: str, requires: tuple) -> tuple:
    n = len(requires)
    if saves == "all" or saves == "output":
        return _SAVE_ALL.get(n) or (True,) * n
    if saves == "none":
        return _SAVE_NONE.get(n) or (False,) * n
    needed = sum(requires)
    return tuple([needed - r > 0 for r in requires])  # "others": another input needs a grad


def apply(op: Op, *inputs, **static):
    """Run `op` on Tensors and constant arrays; record a Node when a gradient is needed.

    Returns one Tensor, or a tuple of Tensors when the op's function returns a tuple.
    Outputs of integer or bool dtype never require grad.
    """
    if modes.special:
        return _apply_special(op, inputs, static)
    values = []
    requires = []
    for x in inputs:
        if isinstance(x, Tensor):
            values.append(x._value)
            requires.append(x._requires_grad)
        else:
            values.append(x)
            requires.append(False)
    key = tuple(static.items())
    out = op.compiled(key)(*values)
    if True in requires and op.differentiable and _grad_mode._state.enabled:
        return _record(op, key, inputs, values, tuple(requires), out)
    if type(out) is tuple:
        return tuple([Tensor._wrap(o) for o in out])
    return Tensor._wrap(out)


def _record(op: Op, key: tuple, inputs: tuple, values: list, requires: tuple, out):
    """Make the Node for one op application and wrap its outputs as its results."""
    saved_mask = _saved_mask(op.saves, requires)
    if modes.inference_seen:
        check_inference_saved(inputs, saved_mask)
    watch_inputs = op.saves != "output"
    edges, saved, placeholders, versions = [], [], [], []
    for x, value, r, s in zip(inputs, values, requires, saved_mask):
        edges.append(x._grad_edge() if r else None)
        if s:
            saved.append(value)
            if watch_inputs and isinstance(x, Tensor):
                counter = x._version_counter
                versions.append((counter, counter[0], saved_ref(x)))
        else:
            placeholders.append((value.shape, value.dtype))
    if type(out) is tuple:
        node = Node(
            op,
            key,
            tuple(edges),
            tuple(saved),
            saved_mask,
            tuple(placeholders),
            tuple(versions),
            tuple([(o.shape, o.dtype) for o in out]),
        )
        return tuple(
            [
                Tensor._wrap(o, node, nr) if o.dtype in _INEXACT else Tensor._wrap(o)
                for nr, o in enumerate(out)
            ]
        )
    node = Node(
        op,
        key,
        tuple(edges),
        tuple(saved),
        saved_mask,
        tuple(placeholders),
        tuple(versions),
        ((out.shape, out.dtype),),
    )
    if out.dtype not in _INEXACT:
        return Tensor._wrap(out)
    result = Tensor._wrap(out, node, 0)
    if not watch_inputs:
        node.versions = ((result._version_counter, 0, weakref.ref(result), op._result_label),)
    return result


def watch_written(node, result: Tensor, target: Tensor) -> None:
    """After an in-place op (`y.exp_()`) whose node watches its result: watch `target`, the
    tensor the result was written into, at its new version, as PyTorch's saved result does."""
    versions = node.versions
    if len(versions) == 1 and len(versions[0]) == 4 and versions[0][2]() is result:
        counter = target._version_counter
        node.versions = ((counter, counter[0], weakref.ref(target), versions[0][3]),)


def _zero_cotangent(out):
    if out.dtype in _INEXACT:
        return jnp.zeros_like(out)
    return np.zeros(out.shape, jax.dtypes.float0)


def _vjp_pure(*args, fn, static, requires, saved_mask, placeholders, ct_mask):
    """(saved primals..., present cotangents...) -> one cotangent per input that requires grad.

    Primals that were not saved (their value does not reach the vjp) are rebuilt as zeros of
    their shape inside the jitted function; missing output cotangents are zeros.
    """
    args = iter(args)
    holes = iter(placeholders)
    primals = []
    for saved in saved_mask:
        if saved:
            primals.append(next(args))
        else:
            shape, dtype = next(holes)
            primals.append(jnp.zeros(shape, dtype))
    cts = [next(args) if present else None for present in ct_mask]
    diff_index = [i for i, r in enumerate(requires) if r]
    kwargs = dict(static)

    def restricted(*diff_values):
        full = list(primals)
        for i, v in zip(diff_index, diff_values):
            full[i] = v
        return fn(*full, **kwargs)

    out, vjp_fn = jax.vjp(restricted, *(primals[i] for i in diff_index))
    if type(out) is tuple:
        ct = tuple(c if c is not None else _zero_cotangent(o) for c, o in zip(cts, out))
    else:
        ct = cts[0]
    return tuple(vjp_fn(ct))


def vjp_of(op: Op) -> Op:
    """The derived op whose forward is the vjp of `op`: the backward of `op`'s nodes."""
    if op._vjp_op is None:
        op._vjp_op = Op(f"{op.name}Backward", functools.partial(_vjp_pure, fn=op.fn))
    return op._vjp_op


_constants: dict = {}


def constant(value, dtype) -> jax.Array:
    """A 0-d array for a Python scalar, cached: creating one eagerly costs ~100 us, a hit ~0.1."""
    key = (value, type(value), dtype)
    array = _constants.get(key)
    if array is None:
        if len(_constants) > 4096:
            _constants.clear()
        array = _constants[key] = jnp.asarray(value, dtype)
    return array


# ----------------------------------------------------------------------------- slow path
# `apply` tests `modes.special`; it is set while a mode that changes what an op does is on
# (see `_Modes.refresh_special`). Inference mode needs no slow path.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`."
)


def check_inference_saved(inputs, saved_mask) -> None:
    """PyTorch's error when a node would save an inference tensor."""
    for x, s in zip(inputs, saved_mask):
        if s and isinstance(x, Tensor) and x._is_inference:
            raise RuntimeError(INFERENCE_SAVED)


def _jvp_pure(*args, fn, static, n, tangent_index):
    """(primals..., tangents of the inputs in tangent_index...) -> (outputs, output tangents)."""
    primals = args[:n]
    kwargs = dict(static)

    def restricted(*diff_values):
        full = list(primals)
        for i, v in zip(tangent_index, diff_values):
            full[i] = v
        return fn(*full, **kwargs)

    return jax.jvp(restricted, tuple(primals[i] for i in tangent_index), tuple(args[n:]))


def _jvp_call(op: Op, key: tuple, values: list, tangents: dict):
    """Forward and output tangents of one op application (jitted, cached per op/static/mask)."""
    index = tuple(tangents)
    cache_key = (key, index, len(values))
    fn = op._jvp.get(cache_key)
    if fn is None:
        fn = jax.jit(
            functools.partial(_jvp_pure, fn=op.fn, static=key, n=len(values), tangent_index=index)
        )
        op._jvp[cache_key] = fn
    tans = []
    for i, t in tangents.items():
        value = t._value
        if value.dtype != values[i].dtype:
            value = value.astype(values[i].dtype)
        tans.append(value)
    return fn(*values, *tans)


def set_tangent(tensor: Tensor, tangent) -> None:
    """Attach a forward-AD tangent (a Tensor) to `tensor` at the current level."""
    if tensor._fw_grad is None:  # a WeakSet compares members with ==: add each tensor once
        modes.duals.add(tensor)
    tensor._fw_grad = tangent


def forward_traceback() -> list:
    """The user's stack at an op call (frames inside this package dropped), as PyTorch keeps
    it for anomaly mode."""
    frames = traceback.extract_stack()
    while frames and frames[-1].filename.startswith(_PACKAGE_DIR):
        frames.pop()
    return traceback.format_list(frames)


def decorate_node(node, inputs) -> None:
    """What the slow modes add to a new node: packed saved values, anomaly metadata."""
    hooks = _hooks.current_saved_hooks() if modes.saved_hooks else None
    if hooks is not None and node.saved and not node.custom:
        saved = list(node.saved)
        k = 0
        for x, s in zip(inputs, node.saved_mask):
            if s:
                if isinstance(x, Tensor):
                    saved[k] = _hooks.pack_value(x, hooks)
                k += 1
        node.saved = tuple(saved)
        node.__class__ = _hooks.PackedNode
    if modes.anomaly:
        node.metadata["traceback_"] = forward_traceback()
        if modes.executing:
            node.metadata["parent_"] = modes.executing[-1]


def _node_of(result):
    if type(result) is tuple:
        for t in result:
            if t._grad_fn is not None:
                return t._grad_fn
        return None
    return result._grad_fn


def _apply_special(op: Op, inputs: tuple, static: dict):
    """`apply` while a slow mode is on (see modes.refresh_special); same results otherwise."""
    state = _grad_mode._state
    grad_on = state.enabled
    forward_ad = modes.fw_level is not None and not state.inference
    traces = modes.traces
    values = []
    requires = []
    tangents: dict = {}
    for i, x in enumerate(inputs):
        if isinstance(x, Tensor):
            value = x._value
            live = x._requires_grad
            if forward_ad:
                tangent = x._fw_grad
                if tangent is not None:
                    tangents[i] = tangent
        else:
            value = x
            live = False
        for trace in traces:
            value = trace.visit(value, live and grad_on, x)
        values.append(value)
        requires.append(live)
    key = tuple(static.items())
    if tangents:
        out, out_tangent = _jvp_call(op, key, values, tangents)
    else:
        out = op.compiled(key)(*values)
    if True in requires and op.differentiable and grad_on:
        result = _record(op, key, inputs, values, tuple(requires), out)
        node = _node_of(result)
        if node is not None:
            decorate_node(node, inputs)
    elif type(out) is tuple:
        result = tuple([Tensor._wrap(o) for o in out])
    else:
        result = Tensor._wrap(out)
    if tangents:
        if type(result) is tuple:
            for t, tangent in zip(result, out_tangent):
                if tangent.dtype in _INEXACT:
                    set_tangent(t, Tensor._wrap(tangent))
        elif out_tangent.dtype in _INEXACT:
            set_tangent(result, Tensor._wrap(out_tangent))
    return result
