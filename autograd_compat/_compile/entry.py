"""A compiled function's entry: one program for one guard, and its call.

An entry is made from the discovery trace (`Effects`: what the function changed besides its
outputs). Its program is an `Op` whose pure function (`_run_traced`) swaps tracers into the
captured memories, gradients and PRNG key, runs the user's function and returns its outputs and
the new state; the program takes one flat argument list (`FlatLayout`). A call applies that op
(so the call is one node of the autograd graph, its backward the vjp of the whole traced
function), or runs the program unrecorded where no node is needed, donating the buffers it
replaces, and writes the new state back, bumping versions as the eager call would have.
"""

from __future__ import annotations

import functools
import itertools
import sys
from collections.abc import Callable, Sequence
from typing import NamedTuple

import jax
import numpy as np

from .._pure import executables
from .._pure import memory as _memory
from .._pure.interrupts import call_through_interrupt
from .._pure.op import Op
from .._pure.references import CALL_REFERENCES
from .._pure.sharding import keep_sharding
from .._state import modes as _grad_mode
from .._state import trace_bindings
from .._state.modes import modes
from .._state.random import default_generator
from .._state.tensor import Tensor, program_input
from .._tape.record import apply
from .arguments import Arguments, grads_of, is_tensor
from .bindings import first_rebound, tensor_bindings
from .capture import Capture, GradMemory, Memory

_ONE_LEAF = jax.tree_util.tree_structure(0)  # the output structure of a single tensor


class StaleState(Exception):
    """Raised inside a program's trace when a captured memory's shape or dtype is not the one
    its entry was built for: jax.jit's own signature check is the guard on memories' shapes,
    so a call reads no shape in Python."""


class Retrace(Exception):
    """Raised inside the compiled trace when it reads a memory the discovery trace did not."""

    def __init__(self, tensors: list[Tensor]) -> None:
        super().__init__()
        self.tensors = tensors


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


class Effects:
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
        trace checks them (`StaleState`), and jax.jit traces again only when they change."""
        if not (self.grad_links or self.modules):
            return ()
        return (
            tuple([t._grad is not None for t, _ in self.grad_links]),
            tuple([m.training for m in self.modules]),
        )


class FlatLayout(NamedTuple):
    """Where each group of an entry's program inputs lies in its flat argument list, in this
    order (each a slice of the list)."""

    tensors: slice  # the tensor arguments
    numbers: slice  # the Python numbers made runtime inputs
    memories: slice  # the captured memories' root values
    arg_grads: slice  # the `.grad` values of the tensor arguments that have one
    runtime: slice  # the runtime inputs library code asked for (a learning rate)
    key: slice  # the PRNG key, where the function draws random numbers (else empty)


def _layout(arguments: Arguments, effects: Effects) -> FlatLayout:
    """The `FlatLayout` of an entry's program inputs (its arguments frozen)."""
    sizes = (
        len(arguments.tensor_index),
        len(arguments.number_index),
        len(effects.memories),
        sum(has_grad for _, has_grad in arguments.flags or ()),
        effects.n_runtime,
        1 if effects.uses_rng else 0,
    )
    bounds = list(itertools.accumulate(sizes, initial=0))
    return FlatLayout(*[slice(start, stop) for start, stop in zip(bounds, bounds[1:])])


class Entry:
    """One compiled program of a function, for one guard."""

    def __init__(self, fn: Callable, arguments: Arguments, effects: Effects):
        self.arguments = arguments
        arguments.freeze()
        self.effects = effects
        self.layout = _layout(arguments, effects)
        self.guard = effects.guard()
        self.bindings = tensor_bindings(fn)  # (made right after the discovery trace)
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
            functools.partial(_run_traced, entry=self, fn=fn),
            deferrable=False,  # its trace swaps the captured tensors' values (see `Op`)
        )
        # (input position, memory) of the buffers a call donates, planned before the first
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
        tail = grads_of(tensors) if self.arguments_have_grads else []
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
            program = self._plan_programs(values)
        donating = self.donating
        if donating is not None and all(
            # holders: the memory's own and `values` (`_pure/references`)
            sys.getrefcount(values[position])
            <= CALL_REFERENCES + 1 + memory.holders(values[position])
            for position, memory in self.donated or ()
        ):
            program = donating
        try:  # (the donated inputs are gone once it returns: its results are kept)
            return call_through_interrupt(program, *values)
        except _memory.DISPATCH_ERRORS as failure:  # an allocation that failed at dispatch
            _memory.raise_exhausted(failure)

    def _plan_programs(self, values: list):
        """Before the first unrecorded call: its program, and the inputs to donate, the
        replaced memories whose new value has the old one's shape and dtype (XLA reuses only
        those), with the program that donates them. Planned from the traced output shapes
        (a trace both programs share), so the first call donates already: one whole-step
        compile, not the plain program's and then the donating one's."""
        fn = self.op.fn
        program = executables.jit(fn)
        results = program.trace(*values).out_info
        effects = self.effects
        first = self.layout.memories.start
        result = len(self.out_tensor_index)  # (known once traced)
        donated = []
        for k, (memory, written) in enumerate(zip(effects.memories, effects.written)):
            if not written:
                continue
            old, new = values[first + k], results[result]
            result += 1
            if (old.shape, old.dtype) == (new.shape, new.dtype):
                donated.append((first + k, memory))
        if donated:
            positions = tuple(position for position, _ in donated)
            self.donating = executables.jit(fn, donate_argnums=positions)
        self.donated = donated
        self.program = program  # (last: an interruption before it plans again)
        return program

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


def _run_traced(*arrays, entry: Entry, fn: Callable):
    """The compiled entry's pure function: state in as tracers (bound in this thread only,
    `trace_bindings`), the function run once, outputs and new state out; every swapped value
    is put back afterwards."""
    effects, arguments, layout = entry.effects, entry.arguments, entry.layout
    roots = arrays[layout.memories]
    if [(r.shape, r.dtype) for r in roots] != entry.root_signature:
        raise StaleState
    rebound = first_rebound(entry.bindings)
    if rebound is not None:  # (a call checks this first: here a backward traces the call anew)
        raise RuntimeError(
            f"torch.compile: {getattr(fn, '__name__', 'the function')}() reads {rebound!r}, "
            "which was bound to another tensor after this call's forward; its backward traces "
            "the function again and would read the new tensor. Run the backward before "
            "rebinding it, or pass the tensor as an argument."
        )
    saved_grads = [(t, t._grad) for t, _ in effects.grad_links]
    saved_key = default_generator._key
    capture = Capture(runtime_values=list(arrays[layout.runtime]))
    saved: list = []
    saved_versions: list = []
    modes.hold_traces()  # the memories are bound to tracers until the finally below
    bindings = trace_bindings.Bindings()
    try:
        for memory in effects.memories:  # what the trace writes (its tracers) stays in this
            memory.bind(bindings)  # thread, and is dropped when they are unbound
        for t, _ in effects.grad_links:
            bindings.bind(t, trace_bindings.TENSOR_SLOTS)
        for memory, root in zip(effects.memories, roots):
            if isinstance(memory, GradMemory):
                memory.hold(root)
        saved = [(m, m.get()) for m in effects.memories]
        saved_versions = [(t, t._version_counter[0]) for m in effects.memories for t in m.tensors()]
        old_leaves = [t._value for t in effects.grad_results]  # new grads take their layouts
        for memory, root in zip(effects.memories, roots):
            memory.set(root)
        if effects.uses_rng:
            (default_generator._key,) = arrays[layout.key]
        tensor_values, number_values = arrays[layout.tensors], arrays[layout.numbers]
        args, kwargs = arguments.rebuild(tensor_values, number_values, arrays[layout.arg_grads])
        with capture:
            out = fn(*args, **kwargs)
        if capture.snapshots:
            raise Retrace([s.memory.tensor for s in capture.snapshots.values()])
        leaves, entry.out_treedef = jax.tree_util.tree_flatten(out, is_leaf=is_tensor)
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
        try:
            capture.restore()
            for memory, value in saved:  # (a view the trace made of a memory is no binding)
                memory.set(value)
            for t, grad in saved_grads:
                t._grad = grad
            for t, version in saved_versions:
                t._version_counter[0] = version
            default_generator.restore_key(saved_key)
        finally:  # (the bindings and the hold end with the trace, whatever happens)
            bindings.unbind()
            modes.release_traces()
