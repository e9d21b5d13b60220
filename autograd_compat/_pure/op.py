"""The op record: one pure JAX function per op, its registry, and its derived vjp and jvp.

An `Op` is a pure function of arrays plus static keyword arguments, registered once under a
unique id. Its forward runs through a `jax.jit` cached per (op, static arguments); its
backward is the derived op `vjp_of(op)`, whose pure function maps (primals, cotangents) to the
input cotangents through `jax.vjp`: also jitted and cached. Because the derived op is an
ordinary op, applying it with recording on (`create_graph=True`) records a node whose own
backward is the vjp of the vjp: derivatives of every order come from nesting JAX transforms.
Nothing here knows about Tensor; `_tape/record.py` applies ops to tensors.
"""

from __future__ import annotations

import functools
from collections import OrderedDict

import jax
import jax.numpy as jnp
import numpy as np

from . import executables, first_calls, float8
from .device import host_is_default, host_to_device
from .dtype_rules import CHECKS
from .jax_internals import trace_ctx
from .program_options import FirstCall

INEXACT = frozenset(
    np.dtype(d)
    for d in (jnp.float16, jnp.bfloat16, jnp.float32, jnp.float64, jnp.complex64, jnp.complex128)
)


# Cache bounds. Every cache keyed by something user code can vary is an LRU of this many
# entries, so a long-running process stays flat. Scalars a user varies (an
# exponent, a slope, eps, a dropout p) are runtime inputs (`scalar_input`), not static keys.
COMPILED_PER_OP = 64  # jitted forwards per op (and per derived vjp op): one per static key
JVP_PER_OP = 32  # jitted forward-mode functions per op
CONSTANTS = 1024  # cached 0-d arrays of `constant`


class HashedTuple(tuple):
    """A tuple as a cache key, its hash computed once: a deep key (a backward's structure, a
    run of deferred ops) costs ~0.1 us an element to hash, and an LRU lookup hashes its key
    twice (`get`, `move_to_end`). A NamedTuple may derive from it too (its fields come first
    in the bases), so that `__init__` takes whatever the tuple was made from."""

    def __init__(self, *items) -> None:
        self.hash = tuple.__hash__(self)

    def __hash__(self) -> int:
        return self.hash


def lru_put(cache: OrderedDict, key, value, size: int) -> None:
    """Insert `key` into the LRU `cache` (an OrderedDict, most recent last), keeping `size`
    entries at most: the least recently used goes first. Hits call `cache.move_to_end(key)`."""
    cache[key] = value
    while len(cache) > size:
        cache.popitem(last=False)


def lru_get(cache: OrderedDict, key):
    """`cache[key]` (marked most recently used), or None."""
    value = cache.get(key)
    if value is not None:
        cache.move_to_end(key)
    return value


def scalar_input(value) -> np.ndarray:
    """A Python scalar as a runtime op input: a 0-d host array (int64 for an int, float64 for
    a float, complex128 for a complex), so a new value never compiles; the op's function casts
    it (`s.astype(x.dtype)`), which rounds as PyTorch's scalar conversion does. Costs ~1 us."""
    if isinstance(value, complex):
        return np.asarray(value, np.complex128)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if -(2**63) <= value < 2**63:
            return np.asarray(value, np.int64)
    return np.asarray(value, np.float64)


class Op:
    """An op: its id, its PyTorch backward name, pure function and what its vjp reads.

    `id` is the registry key (None for the anonymous ops built at run time, see `register`);
    `name` is what `grad_fn.name()` returns. `saves` says which primal inputs the backward
    needs, as PyTorch decides what a node saves:
    "all"; "none" for linear ops (add, sum, reshape, indexing), whose vjp reads only shapes;
    "others" for multilinear ops (mul, matmul), whose vjp for one input reads only the others;
    "positions" for ops linear in every input but the last, a host array they save and never
    free: view ops placed by int64 positions (see `_tape.views.shaped`), add/sub's alpha;
    "output" for ops PyTorch differentiates from their result (exp, tanh, sigmoid, sqrt, relu,
    softmax): the vjp still reads the inputs (immutable snapshots), but the version check
    watches the result, so an in-place change of the result fails backward and an in-place
    change of the input does not, as in PyTorch.
    What is not saved is not freed, so a second backward through it works, as in PyTorch.
    `shown_inputs`: the input positions `next_functions` lists (None: all); index, mask and
    constant inputs (runtime scalars, see `scalar_input`) are no inputs of PyTorch's node.
    Positions past an application's inputs are skipped (optional trailing weight and bias).
    `deferrable`: whether `_defer/lazy` may defer an application into a run of ops; False for a
    function whose trace reads or swaps tensors' state (a torch.compile'd call: traced inside a
    deferred run, it would read that run's own values, waiting on the run's lock for good).
    `residuals`: whether a recorded node saves the residuals of `jax.vjp` run in the forward's
    program, so that its backward does not compute the forward again (`_pure/residuals`):
    None (it does not), "connected" (where they are all its inputs and outputs: a saved
    result, as PyTorch's softmax saves) or "all" (any residuals; the node also keeps its
    primals for a create_graph backward).
    `dtype_rules`: PyTorch's dtype refusals for this op (`dtype_rules.CHECKS`, by op id),
    which `_tape/record.apply` checks before the op runs; None for an op PyTorch runs on any
    dtype.
    `host`: for an op that can run without a program on concrete host arrays (a reshape
    shares its input's CPU buffer), a function of the same arguments as `fn` that returns
    the result, or None where it cannot; `compiled` tries it before the program.
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
        "deferrable",
        "dtype_rules",
        "residuals",
        "_layouts",
        "_saving_op",
        "_pullback_op",
        "host",
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
        deferrable: bool = True,
        residuals: str | None = None,
        host=None,
    ) -> None:
        self.id = id
        self.host = host
        self.residuals = residuals
        self._layouts: OrderedDict = OrderedDict()
        self._saving_op: Op | None = None
        self._pullback_op: Op | None = None
        self.deferrable = deferrable
        self.dtype_rules = CHECKS.get(id) if id is not None else None
        self.name = name
        self.fn = fn
        self.saves = saves
        self.shown_inputs = shown_inputs
        # How PyTorch's version error names a saved result: "output 0 of Exp".
        self._result_label = name.removesuffix("Backward0")
        self.differentiable = differentiable
        self._compiled: OrderedDict = OrderedDict()
        self._vjp_op: Op | None = None
        self._jvp: OrderedDict = OrderedDict()

    def compiled(self, static: tuple):
        """The jitted forward for these static arguments, compiled once per (op, static);
        the `COMPILED_PER_OP` most recently used are kept."""
        cache = self._compiled
        fn = cache.get(static)
        if fn is None:
            pure = functools.partial(self.fn, **dict(static))
            if self.host is not None:
                host = functools.partial(self.host, **dict(static))
                fn = _host_first(host, executables.jit(pure))
            elif self.deferrable:  # a pure function: traced once more to choose its options
                keep = functools.partial(lru_put, cache, static, size=COMPILED_PER_OP)
                fn = FirstCall(pure, keep)
            else:
                fn = executables.jit(pure)
            lru_put(cache, static, fn, COMPILED_PER_OP)
        else:
            cache.move_to_end(static)
        return fn

    def first_call(self, static: tuple, values):
        """The outputs at input avals the op never met (`_defer.lazy.LEARN`): where they are
        concrete CPU arrays outside every trace and every primitive of the op's jaxpr there
        is exact on the host, computed with numpy and nothing compiles (`first_calls`), else
        by the op's program. The next call at these avals runs (and compiles) the program: a
        loop at fixed shapes still gets it, a shape met once never compiles."""
        program = self.compiled(static)
        if self.host is None and trace_ctx.is_top_level() and host_is_default():
            out = first_calls.run(self, static, getattr(program, "plain", program), values)
            if out is not None:
                return out
        return program(*values)

    def forget(self, static: tuple) -> None:
        """Drop the jitted forward for `static`: the next `compiled` makes a new one."""
        self._compiled.pop(static, None)

    def __repr__(self) -> str:
        return f"Op({self.id or self.name})"


def _host_first(host, program):
    """A call of `host`, or of `program` where `host` returns None (see `Op.host`)."""

    def run(*args):
        out = host(*args)
        return program(*args) if out is None else out

    return run


def stuck_trace(error: BaseException) -> bool:
    """Whether `error` is JAX's refusal to trace a function whose earlier trace an interrupt
    cut short (Ctrl-C during a first call): jaxlib 0.10.2's trace cache then keeps that
    function object's entry in flight and raises this at every later call, so the caller
    makes a new function object and calls it instead."""
    return isinstance(error, RecursionError) and str(error).startswith("Recursively calling")


_REGISTRY: dict[str, Op] = {}


def register(
    op_id: str,
    fn,
    *,
    node: str,
    saves: str = "all",
    shown_inputs: tuple | None = None,
    differentiable: bool = True,
    residuals: str | None = None,
    host=None,
) -> Op:
    """Register the pure JAX function `fn` as the op `op_id`, whose nodes are named `node`.

    One registered op per maths: `torch.X`, `Tensor.X`, `F.X` and nn modules reach the same
    entry. Id scheme: the torch function's name as PyTorch spells it ("exp", "max_pool2d",
    "cross_entropy"), prefixed by its namespace outside torch/Tensor/F ("linalg.inv_ex",
    "nn.rnn.lstm", "autograd.functional.stack"), and suffixed with ".variant" where one
    function records several ops ("add.alpha", "sum.dim", "clamp_min.tensor",
    "xlogy.scalar_self", "einsum.permute"); internal machinery gets "_internal.<what>"
    ("_internal.copy_slices").
    Derived ops (`vjp_of`) and ops made at run time for user code (autograd.Function.from_jax,
    autograd.functional traces) are anonymous `Op(...)` objects outside the registry.
    Raises ValueError if `op_id` is already registered.
    """
    if op_id in _REGISTRY:
        raise ValueError(f"op id {op_id!r} is already registered (as {_REGISTRY[op_id]!r})")
    op = _REGISTRY[op_id] = Op(
        node,
        fn,
        saves,
        differentiable,
        id=op_id,
        shown_inputs=shown_inputs,
        residuals=residuals,
        host=host,
    )
    return op


def registered_ops() -> dict[str, Op]:
    """A copy of the registry: op id -> Op, in registration order."""
    return dict(_REGISTRY)


def _zero_cotangent(out):
    if out.dtype in INEXACT:
        return jnp.zeros_like(out)
    return np.zeros(out.shape, jax.dtypes.float0)


def _restricted(fn, static, primals, index):
    """`fn` with its static arguments as a function of the inputs at `index` alone, the other
    inputs fixed at `primals`: what jax.vjp and jax.jvp differentiate."""
    kwargs = dict(static)

    def restricted(*diff_values):
        full = list(primals)
        for i, v in zip(index, diff_values):
            full[i] = v
        return fn(*full, **kwargs)

    return restricted


def conj_complex(x):
    """The conjugate of a complex array, any other unchanged: PyTorch's gradient of a complex
    value is the conjugate of JAX's cotangent (d/dz* against JAX's d/dz convention), so the
    vjp conjugates the cotangents it takes and the gradients it gives."""
    if jnp.issubdtype(x.dtype, jnp.complexfloating):
        return jnp.conj(x)
    return x


def _vjp_pure(*args, fn, static, requires, saved_mask, placeholders, ct_mask):
    """(saved primals..., present cotangents...) -> one cotangent per input that requires grad,
    complex ones in PyTorch's convention (`conj_complex`).

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
    cts = [conj_complex(next(args)) if present else None for present in ct_mask]
    diff_index = [i for i, r in enumerate(requires) if r]
    restricted = _restricted(fn, static, primals, diff_index)
    out, vjp_fn = jax.vjp(restricted, *(primals[i] for i in diff_index))
    if type(out) is tuple:
        ct = tuple(c if c is not None else _zero_cotangent(o) for c, o in zip(cts, out))
    else:
        ct = cts[0]
    return tuple(conj_complex(g) for g in vjp_fn(ct))


def vjp_of(op: Op) -> Op:
    """The derived op whose forward is the vjp of `op`: the backward of `op`'s nodes."""
    if op._vjp_op is None:
        vjp = functools.partial(_vjp_pure, fn=op.fn)
        op._vjp_op = Op(f"{op.name}Backward", vjp, deferrable=op.deferrable)
    return op._vjp_op


_constants: OrderedDict = OrderedDict()


def constant(value, dtype) -> jax.Array:
    """A 0-d array for a Python scalar, cached (LRU of `CONSTANTS`): creating one eagerly costs
    ~100 us, a hit ~0.1. Made by a host transfer, never by a JAX op: called inside a trace
    (torch.compile's), `jnp.asarray` would cache a tracer, which a later program would take
    for a constant of its own."""
    key = (value, type(value), dtype)
    array = lru_get(_constants, key)
    if array is None:
        array = host_to_device(float8.full((), _wrapped(value, dtype), dtype))
        lru_put(_constants, key, array, CONSTANTS)
    return array


def _wrapped(value, dtype):
    """A Python int beyond an integral dtype's range (below 2**64 in size) wrapped into it,
    as PyTorch casts a number operand (`int32_tensor + 2**31`); anything else as it is."""
    if type(value) is not int or np.dtype(dtype).kind not in "iu" or abs(value) >= 2**64:
        return value
    info = np.iinfo(dtype)
    if info.min <= value <= info.max:
        return value
    return (value - int(info.min)) % (1 << info.bits) + int(info.min)


def jvp_pure(*args, fn, static, n, tangent_index):
    """(primals..., tangents of the inputs in tangent_index...) -> (outputs, output tangents)."""
    primals = args[:n]
    restricted = _restricted(fn, static, primals, tangent_index)
    return jax.jvp(restricted, tuple(primals[i] for i in tangent_index), tuple(args[n:]))
