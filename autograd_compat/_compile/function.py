"""`torch.compile` of a function: one XLA program per call, from unchanged PyTorch code.

A call is served by an *entry*, found by guards on what the trace assumed: the structure and
static leaves of the arguments, each tensor argument's shape, dtype and `requires_grad`, grad
mode and the default dtype; then, per entry, the captured memories' shapes and dtypes, which of
their tensors have a `.grad`, the `training` flag of every module the trace called, and the
tensor each global or closed-over variable the function names holds (`bindings`).

Building an entry takes two traces. The first (`jax.make_jaxpr`, nothing compiled) finds what
the function touches besides its arguments (`capture.Capture`) and what it changes: memories
written and their version moves, gradients set, the PRNG key consumed. Everything it changed is
put back. The second is the compiled one: an `Op` whose pure function swaps tracers into the
captured memories, gradients and PRNG key, runs the user's function and returns its outputs and
the new state. The call applies that op (so the call is one node of the autograd graph, its
backward the vjp of the whole traced function) and writes the new state back, bumping versions
as the eager call would have.

What cannot be traced (a tensor's value read in Python, data-dependent shapes, printing) is a
graph break: the call runs eagerly, with one warning naming the place (an error with
`fullgraph=True`). A function that keeps needing new entries falls back to eager past
`torch._dynamo.config.cache_size_limit`, as PyTorch's does.
"""

from __future__ import annotations

import functools
import sys
import traceback
import warnings
import weakref
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from .._pure import dtypes as _dtypes
from .._pure import errors as _errors
from .._pure import executables
from .._pure import memory as _memory
from .._pure.interrupts import call_through_interrupt
from .._pure.op import Op
from .._pure.references import CALL_REFERENCES
from .._pure.sharding import keep_sharding
from .._state import modes as _grad_mode
from .._state.modes import modes
from .._state.random import default_generator
from .._state.tensor import PLAIN_TYPES, Tensor, program_input
from .._state.torch_function import _disabled_torch_function_impl
from .._tape.record import apply
from . import config
from .bindings import first_rebound, tensor_bindings
from .capture import Capture, GradMemory, Memory


class _Eager:
    """The entry of calls that run the function eagerly (a graph break, or past the limit)."""


_EAGER = _Eager()
_NUMBER_TYPES = (int, float)
_ONE_LEAF = jax.tree_util.tree_structure(0)  # the output structure of a single tensor


class Unsupported(RuntimeError):
    """What `fullgraph=True` raises where the default would break the graph (PyTorch's
    `torch._dynamo.exc.Unsupported`)."""


class WrappedNumber(Tensor):
    """A Python number argument made a runtime input: a 0-d tensor that promotes as the
    number would (`float32_tensor * w` stays float32), as PyTorch's wrapped numbers do."""

    __slots__ = ()
    _wrapped_number = True
    __torch_function__ = _disabled_torch_function_impl  # a plain number to every op


class _StaleState(Exception):
    """Raised inside a program's trace when a captured memory's shape or dtype is not the one
    its entry was built for: jax.jit's own signature check is the guard on memories' shapes,
    so a call reads no shape in Python."""


class _Retrace(Exception):
    """Raised inside the compiled trace when it reads a memory the discovery trace did not."""

    def __init__(self, tensors: list[Tensor]) -> None:
        super().__init__()
        self.tensors = tensors


# what a call's run raises that `CompiledFunction._call` handles (by remaking the entry, or
# running the function eagerly): the flat path leaves these to it
_RUN_AGAIN = (_StaleState, _Retrace, *_errors.GRAPH_BREAKS)

_LIBRARIES = ("autograd_compat", "jax", "jaxlib", "numpy")


def _user_frame(tb) -> str:
    """`file:line` of the innermost frame of `tb` in the user's code, not in this package or
    the libraries under it (where the user's code did what cannot be traced)."""
    place = ""
    for frame, lineno in traceback.walk_tb(tb):
        module = frame.f_globals.get("__name__", "")
        if module.split(".")[0] not in _LIBRARIES:
            place = f"{frame.f_code.co_filename}:{lineno}"
    return place


_JAX_REASONS: dict[type, str] = {
    jax.errors.TracerBoolConversionError: "a tensor's value used as a Python bool",
    jax.errors.TracerArrayConversionError: "a tensor's value read into numpy or Python",
    jax.errors.TracerIntegerConversionError: "a tensor's value used as a Python int",
    jax.errors.ConcretizationTypeError: "a tensor's value needed by Python",
}


def _reason(error: BaseException) -> str:
    """A graph break's reason: our own breaks say what they are; JAX's what they mean, with
    the error's type (what a search finds)."""
    if isinstance(error, _errors.GraphBreak) and str(error):
        return str(error).splitlines()[0]
    meaning = _JAX_REASONS.get(type(error))
    name = type(error).__name__
    return f"{meaning}: {name}" if meaning else name


# ----------------------------------------------------------------------------- counters
counters: dict[str, dict[str, int]] = {"stats": {}, "graph_break": {}}


def _count(group: str, name: str) -> None:
    table = counters[group]
    table[name] = table.get(name, 0) + 1


# ----------------------------------------------------------------------------- arguments
def _is_tensor(x) -> bool:
    return isinstance(x, Tensor)


def _signature(tensor: Tensor) -> tuple:
    """What a guard keeps of a tensor argument (a HostTensor is read where it is, on the host)."""
    value = tensor._stored
    return (value.shape, value.dtype, tensor._requires_grad, tensor._grad is not None)


def _grad_of(tensor: Tensor):
    """The value of `tensor.grad` (which the caller knows is set)."""
    grad = tensor._grad
    if grad is None:
        raise RuntimeError("torch.compile: expected a .grad here")  # an internal invariant
    return grad._value


def _set_grad(tensor: Tensor, value) -> None:
    """Write a gradient the program computed into `tensor.grad`: in place when it has one,
    as an eager accumulation does."""
    grad = tensor._grad
    if grad is not None:
        grad._set_value(value)
    else:
        tensor._grad = Tensor._wrap(value)


def _grads_of(tensors: Sequence[Tensor]) -> list:
    """The `.grad` values of those of `tensors` that have one (accumulated into)."""
    return [t._grad._value for t in tensors if t._grad is not None]


def _number_array(value):
    """A Python number made a runtime input: an int64 or float64 0-d array."""
    return jnp.asarray(value, jnp.int64 if isinstance(value, int) else jnp.float64)


@functools.cache
def _positions(n: int) -> tuple[int, ...]:
    return tuple(range(n))


@functools.cache
def _positional_treedef(n: int):
    """The tree structure of `(args, kwargs)` for `n` tensor arguments and no keywords."""
    return jax.tree_util.tree_structure(((0,) * n, {}))


def _guard_key(treedef, static: tuple, tensors: Sequence[Tensor], numbers: tuple) -> tuple:
    """The part of an entry's guard computed from a call's arguments and the modes."""
    state = _grad_mode._state
    signatures = tuple([_signature(t) for t in tensors])
    return (
        treedef,
        static,
        signatures,
        numbers,
        state.enabled,
        state.inference,
        _dtypes.get_default_dtype(),
    )


class _Arguments:
    """One call's arguments, split into tensors, runtime numbers and static leaves."""

    flags: list | None = None  # per tensor (requires_grad, has a .grad), fixed by an entry
    leaves: Sequence  # the flattened (args, kwargs)
    tensor_index: tuple[int, ...]  # the positions in `leaves` of tensors
    number_index: tuple[int, ...]  # and of Python numbers made runtime inputs

    def __init__(self, compiled: CompiledFunction, args: tuple, kwargs: dict) -> None:
        if not kwargs and PLAIN_TYPES.issuperset(map(type, args)):  # the common call, flat
            self.leaves, self.treedef = args, _positional_treedef(len(args))
            self.tensor_index, self.number_index = _positions(len(args)), ()
            self.static: tuple = ()
            return
        leaves, self.treedef = jax.tree_util.tree_flatten((args, kwargs), is_leaf=_is_tensor)
        self.leaves = leaves
        self.tensor_index = tuple(i for i, x in enumerate(leaves) if isinstance(x, Tensor))
        self.number_index = tuple(
            i
            for i, x in enumerate(leaves)
            if type(x) in _NUMBER_TYPES and compiled.is_dynamic(i, x)
        )
        skip = set(self.tensor_index) | set(self.number_index)
        self.static = tuple((i, x) for i, x in enumerate(leaves) if i not in skip)

    def key(self) -> tuple:
        """The part of the guard computed from the arguments and the modes."""
        numbers = tuple([(i, type(self.leaves[i])) for i in self.number_index])
        return _guard_key(self.treedef, self.static, self.tensors(), numbers)

    def tensors(self) -> list[Tensor]:
        return [self.leaves[i] for i in self.tensor_index]

    def numbers(self) -> list:
        """The Python numbers made runtime inputs, as arrays."""
        return [_number_array(self.leaves[i]) for i in self.number_index]

    def freeze(self) -> None:
        """Fix each tensor's `requires_grad` and `.grad` presence as the entry's guard saw
        them: a re-trace for a backward must not read what the tensors became since."""
        self.flags = [(t.requires_grad, t._grad is not None) for t in self.tensors()]

    def rebuild(self, tensor_values, number_values, grad_values=()) -> tuple:
        """(args, kwargs) with tracers in place of the tensors (with their `.grad`, for a
        backward inside) and runtime numbers; the rebuilt tensors are kept in `rebuilt`."""
        leaves = list(self.leaves)
        grads = iter(grad_values)
        flags = self.flags
        if flags is None:
            flags = [(t.requires_grad, t._grad is not None) for t in self.tensors()]
        self.rebuilt = []
        self.initial_grads: list[tuple[Tensor | None, object]] = []  # (.grad, its value)
        for i, value, (requires_grad, has_grad) in zip(self.tensor_index, tensor_values, flags):
            tensor = Tensor._wrap(value)
            tensor._requires_grad = requires_grad
            if has_grad:
                tensor._grad = Tensor._wrap(next(grads))
            grad = tensor._grad
            self.initial_grads.append((grad, None if grad is None else grad._value))
            self.rebuilt.append(tensor)
            leaves[i] = tensor
        for i, value in zip(self.number_index, number_values):
            leaves[i] = WrappedNumber._wrap(value)
        return jax.tree_util.tree_unflatten(self.treedef, leaves)


# ----------------------------------------------------------------------------- an entry
class _Effects:
    """What one trace of the function changed besides its outputs, found by the discovery
    trace: which captured memories it wrote (and their version moves), which gradients it
    set, whether it drew random numbers, and its output structure."""

    def __init__(self, capture: Capture, rebuilt: list[Tensor], initial_grads: list) -> None:
        self.memories: list[Memory | GradMemory] = []
        self.written: list[bool] = []
        self.version_moves: list[list[tuple[Tensor | None, int]]] = []
        # (tensor, its .grad object) for the captured tensors: a .grad that exists is captured
        # as a memory of its own (updated in place, as accumulation does)
        self.grad_links: list[tuple[Tensor, Tensor | None]] = []
        self.grad_results: list[Tensor] = []  # tensors whose .grad the function sets
        self.grad_cleared: list[Tensor] = []  # tensors whose .grad it sets to None
        self.sets_grad_of_grad = False  # whether it sets a .grad's own .grad (runs eagerly)
        for snapshot in capture.snapshots.values():
            self.written.append(snapshot.memory.get() is not snapshot.value)
            moves: list[tuple[Tensor | None, int]] = [
                (t, t._version_counter[0] - v) for t, v in snapshot.versions
            ]
            if snapshot.grad_of is None:
                self.memories.append(snapshot.memory)
            else:  # follow the tensor's .grad, whichever object it is at a call
                self.memories.append(GradMemory(snapshot.grad_of))
                moves = [(None, move) for _, move in moves]
            self.version_moves.append(moves)
            if snapshot.grad_of is not None:  # a .grad's own .grad is no state a call follows
                self.sets_grad_of_grad |= any(t._grad is not old for t, old in snapshot.grads)
                continue
            for t, old in snapshot.grads:
                self.grad_links.append((t, old))
                if t._grad is not old:
                    (self.grad_results if t._grad is not None else self.grad_cleared).append(t)
        # tensor arguments whose .grad the function sets or accumulates into (a backward
        # inside); a .grad an argument only brings along is no effect
        self.arg_grads = [
            k
            for k, (t, (grad, value)) in enumerate(zip(rebuilt, initial_grads))
            if t._grad is not None and (t._grad is not grad or t._grad._value is not value)
        ]
        self.modules = list(capture.modules.values())
        self.n_runtime = len(capture.getters)
        self.getters = capture.getters
        self.deferred = capture.deferred
        self.read_after_deferred = capture.read_after_deferred
        self.uses_rng = default_generator._key is not capture.rng_key
        self.custom_functions = capture.custom_functions

    def values(self) -> list:
        """The captured memories' root values now (the guard holds: every captured .grad is
        there)."""
        return [m.get() for m in self.memories]

    def guard(self) -> tuple:
        """What the entry assumed about the captured state, as a value to compare; empty when
        nothing was captured. The memories' shapes and dtypes are not in it: the program's
        trace checks them (`_StaleState`), and jax.jit traces again only when they change."""
        if not (self.grad_links or self.modules):
            return ()
        return (
            tuple([t._grad is not None for t, _ in self.grad_links]),
            tuple([m.training for m in self.modules]),
        )


class _Entry:
    """One compiled program of a function, for one guard."""

    def __init__(self, compiled: CompiledFunction, arguments: _Arguments, effects: _Effects):
        self.arguments = arguments
        arguments.freeze()
        self.effects = effects
        self.guard = effects.guard()
        self.bindings = tensor_bindings(compiled.fn)  # (made right after the discovery trace)
        self.root_signature = [(v.shape, v.dtype) for v in effects.values()]
        # (memory, tensor or None for the memory's own, version move) of each write
        self.version_moves = [
            (memory, t, move)
            for memory, moves in zip(effects.memories, effects.version_moves)
            for t, move in moves
            if move
        ]
        self.written = [m for m, written in zip(effects.memories, effects.written) if written]
        self.arguments_have_grads = any(has_grad for _, has_grad in arguments.flags or ())
        self.has_tail = self.arguments_have_grads or bool(effects.getters) or effects.uses_rng
        self.out_treedef = None
        self.out_static: tuple = ()
        self.out_tensor_index: list[int] = []
        # a step that ran its own backward is no node of the caller's graph
        self.differentiable = not (effects.grad_results or effects.arg_grads)
        self.op = Op(
            "CompiledFunctionBackward",
            functools.partial(_run_traced, entry=self, fn=compiled.fn),
            deferrable=False,  # its trace swaps the captured tensors' values (see `Op`)
        )
        # (input position, memory) of the buffers a call donates, planned after the first
        self.donated: list[tuple[int, Memory | GradMemory]] | None = None
        self.donating: Callable | None = None  # the program that donates them
        self.program: Callable | None = None  # the program, once called unrecorded

    def holds(self) -> bool:
        """Whether what the entry assumed about the captured state holds now: the guard's
        values, and every global or closed-over tensor the function names still bound."""
        if self.guard and self.effects.guard() != self.guard:
            return False
        return not self.bindings or first_rebound(self.bindings) is None

    def roots(self) -> list:
        """The captured memories as op inputs: a tensor over the root (for the gradient edge)
        where one exists, else the root value."""
        inputs = []
        for memory in self.effects.memories:
            tensor = memory.tensor
            spec = None if tensor._storage is None else tensor._storage.spec
            inputs.append(tensor if not spec else memory.get())
        return inputs

    def run(self, tensors: Sequence[Tensor], numbers: list):
        """One call on the tensor arguments and the runtime numbers (as arrays), the guard
        checked: the program on them and the captured memories' root values, then the new
        state written back."""
        effects = self.effects
        if effects.uses_rng:  # from reading the key to writing its successor (`_write_back`)
            default_generator.lock.acquire()
        try:
            return self._run_locked(tensors, numbers)
        finally:
            if effects.uses_rng:
                default_generator.lock.release()

    def _run_locked(self, tensors: Sequence[Tensor], numbers: list):
        """The call: its program, then the new state written back.

        A signal handler's exception (Ctrl-C's or a timer's KeyboardInterrupt) may surface
        wherever a call returns. Before the program has run it is raised and nothing has
        changed; once the program has run, the buffers it consumed (donated) are gone, so
        the write-back is finished first (it is run again if interrupted: setting a value
        twice is setting it once) and the interruption raised after. The program's results
        are stored in this frame with no call in between, where none can be dropped."""
        effects = self.effects
        tail = self._tail(tensors) if self.has_tail else []
        node = self.differentiable and _grad_mode._state.enabled  # a node, if any input needs
        # The writes happen during the call: the node sees the versions they leave behind.
        self._move_versions(1)
        raw = None
        pending = None
        while True:
            try:
                if raw is None:
                    raw, pending = self._program_results(tensors, numbers, tail, node)
                n_out = len(self.out_tensor_index)  # known once the first call has traced
                if node:
                    outputs, state = raw[:n_out], [r._value for r in raw[n_out:]]
                else:
                    outputs, state = [Tensor._wrap(v) for v in raw[:n_out]], raw[n_out:]
                result = self._write_back(outputs, state, tensors)
                break
            except BaseException as interruption:
                if raw is None or isinstance(interruption, Exception):
                    if raw is None:
                        self._move_versions(-1)
                    raise
                pending = pending or interruption
        for update in effects.deferred:
            update()
        if pending is not None:
            raise pending  # (every tensor the call touched is whole)
        return result

    def _program_results(self, tensors: Sequence[Tensor], numbers: list, tail: list, node: bool):
        """(the program's raw results, an interruption raised as it returned): as a node of
        the autograd graph (tensors), else run unrecorded (arrays)."""
        if node:
            return list(apply(self.op, *tensors, *numbers, *self.roots(), *tail)), None
        values = [program_input(t) for t in tensors]
        values += numbers
        values += self.effects.values()
        values += tail
        return self._run_program(values)

    def _tail(self, tensors: Sequence[Tensor]) -> list:
        """The program inputs after the memories: the arguments' `.grad` values, the runtime
        inputs (host arrays: jit transfers them itself, faster than jnp.asarray) and the PRNG
        key."""
        tail = _grads_of(tensors) if self.arguments_have_grads else []
        tail += [np.asarray(getter()) for getter in self.effects.getters]
        if self.effects.uses_rng:
            tail.append(default_generator._key)
        return tail

    def _move_versions(self, sign: int) -> None:
        for memory, t, move in self.version_moves:
            (memory.tensor if t is None else t)._version_counter[0] += sign * move

    def _run_program(self, values: list) -> tuple:
        """Run the program unrecorded: a step that ran its own backward (its outputs are no
        node's: PyTorch's are freed by that backward), in the caller's grad mode, or any call
        in no-grad mode.

        The buffers it replaces (parameters, optimizer state, gradients) are donated, so XLA
        writes the new values over the old and a step does not hold two copies of the model,
        when nothing but their memory holds them: a saved tensor of an older graph or a raw
        array the user kept would be left deleted (numpy views JAX itself keeps whole)."""
        program = self.program
        if program is None:
            program = self.program = self.op.compiled(())
        donating = self.donating
        if donating is not None and all(
            # holders: the memory's own and `values` (`_pure/references`)
            sys.getrefcount(values[position])
            <= CALL_REFERENCES + 1 + memory.holders(values[position])
            for position, memory in self.donated or ()
        ):
            program = donating
        try:  # (the donated inputs are gone once it returns: its results are kept)
            results, interrupted = call_through_interrupt(program, *values)
        except _memory.DISPATCH_ERRORS as failure:  # an allocation that failed at dispatch
            _memory.raise_exhausted(failure)
        if self.donated is None:
            try:
                self._plan_donation(values, results)
            except Exception:
                raise
            except BaseException as interruption:  # planned again at the next call
                self.donated = None
                interrupted = interrupted or interruption
        return results, interrupted

    def _plan_donation(self, values: list, results) -> None:
        """After the first call: the inputs to donate, the replaced memories whose new value
        has the old one's shape and dtype (XLA reuses only those), and their program."""
        effects, arguments = self.effects, self.arguments
        first = len(arguments.tensor_index) + len(arguments.number_index)
        result = len(self.out_tensor_index)
        self.donated = []
        for k, (memory, written) in enumerate(zip(effects.memories, effects.written)):
            if not written:
                continue
            old, new = values[first + k], results[result]
            result += 1
            if (old.shape, old.dtype) == (new.shape, new.dtype):
                self.donated.append((first + k, memory))
        if self.donated:
            positions = tuple(position for position, _ in self.donated)
            self.donating = executables.jit(self.op.fn, donate_argnums=positions)

    def _write_back(self, outputs: list, state: list, tensors: Sequence[Tensor]):
        """Commit the new `state` (arrays) as the eager call would have, then rebuild the
        outputs (tensors)."""
        effects = self.effects
        for memory, value in zip(self.written, state):
            memory.set(value)
        position = len(self.written)
        for t in effects.grad_results:  # the function made a new .grad object
            t._grad = Tensor._wrap(state[position])
            position += 1
        for k in effects.arg_grads:
            _set_grad(tensors[k], state[position])
            position += 1
        for t in effects.grad_cleared:
            t._grad = None
        if effects.uses_rng:
            default_generator._key = state[position]
        if outputs and self.out_treedef == _ONE_LEAF:  # the function returned one tensor
            return outputs[0]
        leaves = list(self.out_static)
        for i, tensor in zip(self.out_tensor_index, outputs):
            leaves[i] = tensor
        return jax.tree_util.tree_unflatten(self.out_treedef, leaves)


def _run_traced(*arrays, entry: _Entry, fn: Callable):
    """The compiled entry's pure function: state in as tracers, the function run once,
    outputs and new state out; every swapped value is put back afterwards."""
    effects, arguments = entry.effects, entry.arguments
    n_t, n_n = len(arguments.tensor_index), len(arguments.number_index)
    n_m = len(effects.memories)
    values = list(arrays)
    tensor_values, values = values[:n_t], values[n_t:]
    number_values, values = values[:n_n], values[n_n:]
    roots, values = values[:n_m], values[n_m:]
    if [(r.shape, r.dtype) for r in roots] != entry.root_signature:
        raise _StaleState
    rebound = first_rebound(entry.bindings)
    if rebound is not None:  # (a call checks this first: here a backward traces the call anew)
        raise RuntimeError(
            f"torch.compile: {getattr(fn, '__name__', 'the function')}() reads {rebound!r}, "
            "which was bound to another tensor after this call's forward; its backward traces "
            "the function again and would read the new tensor. Run the backward before "
            "rebinding it, or pass the tensor as an argument."
        )
    n_a = sum(has_grad for _, has_grad in arguments.flags or ())
    arg_grads, values = values[:n_a], values[n_a:]
    runtime, values = values[: effects.n_runtime], values[effects.n_runtime :]
    saved_grads = [(t, t._grad) for t, _ in effects.grad_links]
    for memory, root in zip(effects.memories, roots):
        if isinstance(memory, GradMemory):
            memory.hold(root)
    saved = [(m, m.get()) for m in effects.memories]
    old_leaves = [t._value for t in effects.grad_results]  # new grads take their layouts
    saved_versions = [(t, t._version_counter[0]) for m in effects.memories for t in m.tensors()]
    saved_key = default_generator._key
    capture = Capture(runtime_values=runtime)
    modes.hold_traces()  # the memories are bound to tracers until the finally below
    try:
        for memory, root in zip(effects.memories, roots):
            memory.set(root)
        if effects.uses_rng:
            default_generator._key = values[0]
        args, kwargs = arguments.rebuild(tensor_values, number_values, arg_grads)
        with capture:
            out = fn(*args, **kwargs)
        if capture.snapshots:
            raise _Retrace([s.memory.tensor for s in capture.snapshots.values()])
        leaves, entry.out_treedef = jax.tree_util.tree_flatten(out, is_leaf=_is_tensor)
        entry.out_tensor_index = [i for i, x in enumerate(leaves) if isinstance(x, Tensor)]
        entry.out_static = tuple(None if isinstance(x, Tensor) else x for x in leaves)
        results = [leaves[i]._value for i in entry.out_tensor_index]
        results += [keep_sharding(m.get(), old) for (m, old), w in zip(saved, effects.written) if w]
        results += [keep_sharding(_grad_of(t), v) for t, v in zip(effects.grad_results, old_leaves)]
        results += [_grad_of(arguments.rebuilt[k]) for k in effects.arg_grads]
        if effects.uses_rng:
            results.append(default_generator._key)
        return tuple(results)
    finally:
        capture.restore()
        for memory, value in saved:
            memory.set(value)
        for t, grad in saved_grads:
            t._grad = grad
        for t, version in saved_versions:
            t._version_counter[0] = version
        default_generator.restore_key(saved_key)
        modes.release_traces()


# ----------------------------------------------------------------------------- the function
class CompiledFunction:
    """A function compiled with `torch.compile`: call it as the function itself."""

    def __init__(self, fn: Callable, *, fullgraph: bool = False, dynamic=None) -> None:
        self.fn = fn
        self.fullgraph = fullgraph
        self.dynamic = dynamic
        self.entries: dict[tuple, _Entry | _Eager] = {}
        self._numbers: dict[int, object] = {}  # first value seen at each number position
        self._dynamic_positions: set[int] = set()
        self._warned: set[str] = set()
        self._warmed_up = False
        # the objects among static arguments (modules, optimizers) a call has run with: the
        # first call with a new one runs eagerly too, so its lazily made state exists
        self._warmed: weakref.WeakSet = weakref.WeakSet()
        self._rebinds = 0  # entries remade because a global or closed-over tensor was rebound
        functools.update_wrapper(self, fn)

    def __get__(self, instance, owner):
        """Decorating a method: bind it, as a function would be."""
        if instance is None:
            return self
        return functools.partial(self, instance)

    def is_dynamic(self, position: int, value) -> bool:
        """Whether the Python number at `position` is a runtime input: always with
        `dynamic=True`, never with `dynamic=False`, else once it has changed (PyTorch's
        automatic dynamic)."""
        if self.dynamic is not None or isinstance(value, bool):
            return bool(self.dynamic) and not isinstance(value, bool)
        if position in self._dynamic_positions:
            return True
        first = self._numbers.setdefault(position, value)
        if first != value:
            self._dynamic_positions.add(position)
            return True
        return False

    def __call__(self, *args, **kwargs):
        # disabled, or inside a mode that needs the eager path (a trace in progress, anomaly
        # detection, forward-mode AD, saved-tensor hooks)
        if config.disabled or modes.special:
            return self.fn(*args, **kwargs)
        if not self._warmed_up:  # state made lazily on a first call (optimizer moments, ...)
            return self._warm_up(args, kwargs)  # exists before anything is traced
        if not kwargs and PLAIN_TYPES.issuperset(map(type, args)):  # tensors only, no copies
            key = _guard_key(_positional_treedef(len(args)), (), args, ())
            entry = self.entries.get(key)
            if type(entry) is _Entry and entry.holds():
                try:
                    return entry.run(args, [])
                except _RUN_AGAIN:  # handled where `_call` runs it again
                    pass
        return self._call(args, kwargs)

    def _warm_up(self, args: tuple, kwargs: dict):
        """The first call: run eagerly, the Python numbers among the arguments noted (a
        number that changes at the next call is a runtime input from then on: one program,
        not one for each of the first two values). With `fullgraph=True` the call is then
        traced, so a graph break raises at this first call."""
        self._warmed_up = True
        _Arguments(self, args, kwargs)
        result = self.fn(*args, **kwargs)
        if self.fullgraph:
            arguments = _Arguments(self, args, kwargs)
            key = arguments.key()
            if key not in self.entries:
                self._new_entry(key, arguments, args, kwargs)
        return result

    def _call(self, args: tuple, kwargs: dict):
        """A call of any arguments: its entry found, made or remade, and run."""
        arguments = _Arguments(self, args, kwargs)
        try:
            key = arguments.key()
            entry = self.entries.get(key)
        except TypeError:  # an unhashable static argument: nothing to guard on
            return self._break(args, kwargs, "an argument that cannot be hashed", "")
        if isinstance(entry, _Eager):
            return self.fn(*args, **kwargs)
        if entry is None and self._first_with_new_objects(arguments):
            return self.fn(*args, **kwargs)
        if entry is not None and not entry.holds():
            _count("stats", "recompiles")
            rebound = first_rebound(entry.bindings)
            if rebound is not None:
                self._rebinds += 1
                if self._rebinds > config.cache_size_limit:
                    self._warn_rebound(rebound)
                    self.entries[key] = _EAGER
                    return self.fn(*args, **kwargs)
            entry = None
        if entry is None:
            entry = self._new_entry(key, arguments, args, kwargs)
            if entry is _EAGER:
                return self.fn(*args, **kwargs)
        try:
            return self._run(entry, arguments, args, kwargs)
        except _StaleState:  # a captured memory changed shape or dtype since the entry's trace
            _count("stats", "recompiles")
            entry = self._new_entry(key, arguments, args, kwargs)
            if entry is _EAGER:
                return self.fn(*args, **kwargs)
            return self._run(entry, arguments, args, kwargs)

    def _first_with_new_objects(self, arguments: _Arguments) -> bool:
        """Whether a static argument is an object (a module, an optimizer) no call has run
        with yet: that call runs eagerly, as the first call does, so state it makes lazily
        (an optimizer's moments) is made outside any trace, where it stays the caller's."""
        new = False
        for _, value in arguments.static:
            try:
                if value not in self._warmed:
                    self._warmed.add(value)
                    new = True
            except TypeError:  # no weak reference to it: a plain value, not state
                continue
        return new

    def _new_entry(self, key: tuple, arguments: _Arguments, args: tuple, kwargs: dict):
        """A new entry for `key` (or `_EAGER` past the cache size limit or at a graph break)."""
        if len(self.entries) >= config.cache_size_limit:
            self._warn_limit()
            self.entries[key] = _EAGER
            return _EAGER
        entry = self._build(arguments, args, kwargs)
        self.entries[key] = entry
        return entry

    def _run(self, entry: _Entry, arguments: _Arguments, args: tuple, kwargs: dict):
        try:
            return entry.run(arguments.tensors(), arguments.numbers())
        except _Retrace:  # the compiled trace read more than the discovery trace saw
            self.entries[arguments.key()] = _EAGER
            return self._break(args, kwargs, "state found only by the second trace", "")
        except _errors.GRAPH_BREAKS as error:
            self.entries[arguments.key()] = _EAGER
            return self._break(args, kwargs, _reason(error), _user_frame(error.__traceback__))

    def _build(self, arguments: _Arguments, args: tuple, kwargs: dict):
        """Discover what the function touches (first trace) and make the entry."""
        capture = Capture()
        tensor_values = [arguments.leaves[i]._value for i in arguments.tensor_index]
        number_values = [_number_array(arguments.leaves[i]) for i in arguments.number_index]

        def discover(tensor_values, number_values, grad_values):
            call_args, call_kwargs = arguments.rebuild(tensor_values, number_values, grad_values)
            with capture:
                out = self.fn(*call_args, **call_kwargs)
            effects = _Effects(capture, arguments.rebuilt, arguments.initial_grads)
            leaves = jax.tree_util.tree_leaves(out, is_leaf=_is_tensor)
            return effects, [x._value for x in leaves if isinstance(x, Tensor)]

        found: dict = {}

        def traced(tensor_values, number_values, grad_values):
            effects, outputs = discover(tensor_values, number_values, grad_values)
            found["effects"] = effects
            return outputs

        modes.hold_traces()  # the trace binds what it touches to tracers until restored
        try:
            try:
                grads = _grads_of(arguments.tensors())
                jax.make_jaxpr(traced)(tensor_values, number_values, grads)
            finally:
                capture.restore()
                modes.release_traces()
        except _errors.GRAPH_BREAKS as error:
            self._break_warning(_reason(error), _user_frame(error.__traceback__))
            return _EAGER
        effects = found["effects"]
        if any(t._version_counter[0] for t in arguments.rebuilt):  # not written back yet
            self._break_warning("an in-place write to a tensor argument", "")
            return _EAGER
        if effects.sets_grad_of_grad:
            self._break_warning("a .grad of a .grad set", "")
            return _EAGER
        if effects.read_after_deferred:  # e.g. scheduler.step() before optimizer.step()
            self._break_warning("a Python-only update before a read of its result", "")
            return _EAGER
        ran_backward = effects.grad_results or effects.arg_grads
        if effects.custom_functions and not ran_backward:
            # the call would be one node differentiated by jax.vjp of its trace, which would
            # not run the Function's own backward
            name = effects.custom_functions[0]
            self._break_warning(f"custom autograd.Function {name} in a differentiable call", "")
            return _EAGER
        if ran_backward and any(t.grad_fn is not None for t in arguments.tensors()):
            self._break_warning("a backward inside, through an argument that has a grad_fn", "")
            return _EAGER
        _count("stats", "unique_graphs")
        return _Entry(self, arguments, effects)

    def _break(self, args: tuple, kwargs: dict, reason: str, place: str):
        self._break_warning(reason, place)
        return self.fn(*args, **kwargs)

    def _break_warning(self, reason: str, place: str) -> None:
        """A graph break: PyTorch's `fullgraph=True` error, or one warning per place."""
        where = f" at {place}" if place else ""
        message = (
            f"torch.compile: {self.fn.__name__}() cannot be traced into one program ({reason}"
            f"{where}); it runs eagerly. Move the Python use of tensor values out of the "
            "compiled function, or use tensor ops (torch.where) instead."
        )
        _count("graph_break", reason)
        if self.fullgraph:
            raise Unsupported(message)
        if place not in self._warned:
            self._warned.add(place)
            warnings.warn(message, UserWarning, stacklevel=4)

    def _warn_rebound(self, name: str) -> None:
        _count("stats", "cache_size_limit")
        warnings.warn(
            f"torch.compile: {self.fn.__name__}() reads {name!r}, bound to another tensor "
            f"between calls: each call needed a new program, and past "
            f"config.cache_size_limit ({config.cache_size_limit}) such calls run eagerly. Pass "
            "the tensor as an argument to keep one program.",
            UserWarning,
            stacklevel=4,
        )

    def _warn_limit(self) -> None:
        _count("stats", "cache_size_limit")
        warnings.warn(
            f"torch._dynamo hit config.cache_size_limit ({config.cache_size_limit}) for "
            f"{self.fn.__name__}(): each call needed a new program (changing shapes, dtypes, "
            "requires_grad or Python values); new kinds of calls now run eagerly.",
            UserWarning,
            stacklevel=3,
        )
