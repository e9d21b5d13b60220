"""What a traced call touches: the tensors it reads and writes that it did not create.

A compiled function is one pure JAX function of every tensor it depends on. The tensors passed
as arguments are easy; the others (parameters and buffers of a module, closures, globals,
gradients, optimizer state, the PRNG key) are found by watching a trace: `Capture` sits in
`modes.traces`, so every op input passes through `visit`, and in `modes.captures`, so every
write (`Tensor._set_value`), every module call and every value library code marks as a runtime
input reaches it. A tensor is captured by its *memory*: the tensor itself, or for tensors that
share memory (views, `.data`, parameters) their buffer, so a write through any of them is seen.
A captured memory is bound in the tracing thread (`Memory.bind`, `_state/trace_bindings`): the
trace's writes to it (tracers) stay in that thread, and other threads read its real values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax

from .._state import trace_bindings
from .._state.modes import modes
from .._state.random import default_generator
from .._state.tensor import Tensor
from .._tape.views import record_of, view_member


def is_traced(value) -> bool:
    """True for a JAX tracer (a value of the trace in progress)."""
    return isinstance(value, jax.core.Tracer)


class Memory:
    """One captured memory: a plain tensor, or the buffer a group of tensors share."""

    __slots__ = ("tensor", "buffer")

    def __init__(self, tensor: Tensor) -> None:
        self.tensor = tensor
        self.buffer = None if tensor._storage is None else record_of(tensor).buffer

    @staticmethod
    def key(tensor: Tensor) -> int:
        """The identity of `tensor`'s memory."""
        rec = tensor._storage
        return id(tensor) if rec is None else id(rec.buffer)

    def get(self):
        """The root value (the whole buffer for shared memory)."""
        return self.tensor._value if self.buffer is None else self.buffer.value

    def set(self, value) -> None:
        """Rebind the root value; every tensor over the memory sees it (no version bump)."""
        if self.buffer is None:
            self.tensor._value = value
            return
        self.buffer.value = value
        for member in self.buffer.members:
            spec = member._storage.spec
            member._value = value if not spec else view_member(value, spec)

    def tensors(self) -> list[Tensor]:
        """The live tensors over this memory."""
        return [self.tensor] if self.buffer is None else list(self.buffer.members)

    def bind(self, bindings: trace_bindings.Bindings) -> None:
        """Bind the memory's values and its tensors' `.grad` in this thread
        (`trace_bindings`): what a trace writes there (its tracers) stays in this thread."""
        bindings.bind_memory(self.tensor)

    def holders(self, value) -> int:
        """How many references to its root `value` the memory itself keeps (the buffer and
        the members that show the whole of it): any more, and something else holds it."""
        return 1 if self.buffer is None else self.buffer.holders(value)


class GradMemory:
    """The `.grad` of a captured tensor as a memory: whatever gradient object the tensor holds
    when a call starts is read, and updated in place (as accumulation does)."""

    __slots__ = ("owner",)

    def __init__(self, owner: Tensor) -> None:
        self.owner = owner

    @property
    def tensor(self) -> Tensor:
        grad = self.owner._grad
        if grad is None:  # the entry's guard (which .grad exists) is checked before a call
            raise RuntimeError("torch.compile: a captured .grad is gone")
        return grad

    def hold(self, value) -> None:
        """Give the owner a `.grad` of `value` if it has none: a backward re-traces the call
        after `zero_grad()` may have set it to None (the caller restores it afterwards)."""
        if self.owner._grad is None:
            self.owner._grad = Tensor._wrap(value)

    def get(self):
        grad = self.tensor
        rec = grad._storage  # Memory(grad).get(), without making one on every call
        return grad._value if rec is None else record_of(grad).buffer.value

    def set(self, value) -> None:
        Memory(self.tensor).set(value)

    def holders(self, value) -> int:
        return Memory(self.tensor).holders(value)

    def bind(self, bindings: trace_bindings.Bindings) -> None:
        """Bind the owner (its `.grad` slot: `hold` may write it) and its `.grad`'s memory,
        where it has one."""
        bindings.bind(self.owner, trace_bindings.TENSOR_SLOTS)
        if self.owner._grad is not None:
            bindings.bind_memory(self.owner._grad)

    def tensors(self) -> list[Tensor]:
        return [self.tensor]


class Snapshot:
    """A memory's state before a trace touched it: root value, versions, gradients."""

    __slots__ = ("memory", "value", "versions", "grads", "grad_of")

    def __init__(self, memory: Memory, grad_of: Tensor | None = None) -> None:
        self.memory = memory
        self.grad_of = grad_of  # the tensor whose .grad this memory is, if it is one
        self.value = memory.get()
        tensors = memory.tensors()
        self.versions = [(t, t._version_counter[0]) for t in tensors]
        self.grads = [(t, t._grad) for t in tensors]

    def restore(self) -> None:
        self.memory.set(self.value)
        for t, version in self.versions:
            t._version_counter[0] = version
        for t, grad in self.grads:
            t._grad = grad


class Capture:
    """Records, during one trace, the memories read or written that the trace did not make,
    the modules called, and the runtime inputs library code asked for."""

    def __init__(self, runtime_values: list | None = None) -> None:
        self.created: set[int] = set()  # ids of the tensors made during the trace
        self.snapshots: dict[object, Snapshot] = {}  # memory key -> state before the trace
        self.grads_linked: set[int] = set()  # memories captured as a tensor's .grad
        self.modules: dict[int, Any] = {}  # id -> nn.Module
        self.getters: list[Callable[[], object]] = []
        self.deferred: list[Callable[[], None]] = []  # Python-only updates, run after a call
        self.read_after_deferred = False  # a runtime input read after such an update
        self.runtime_values = runtime_values  # the tracers to hand out, when compiling
        self.rng_key = default_generator._key
        self.custom_functions: list[str] = []  # custom autograd.Functions the trace applied
        self.bindings = trace_bindings.Bindings()  # the memories it touched, bound

    # ---------------------------------------------------------------- watched events
    def visit(self, value, live: bool, tensor):
        """An op input (the `modes.traces` protocol): note tensors the trace did not make."""
        if isinstance(tensor, Tensor):
            self.read(tensor)
        return value

    def read(self, tensor: Tensor) -> None:
        """`tensor`'s value is read: keep its memory's state if it is the caller's (not a
        value of the trace, nor a tensor the trace made)."""
        if not is_traced(tensor._value) and self.external(tensor):
            self.touch(tensor)

    def external(self, tensor: Tensor) -> bool:
        """Whether `tensor`'s memory is the caller's: not made during the trace (a view the
        trace made of an outside tensor shares that tensor's memory)."""
        rec = tensor._storage
        if rec is None:
            return id(tensor) not in self.created
        return any(id(member) not in self.created for member in rec.buffer.members)

    def touch(self, tensor: Tensor) -> None:
        """`tensor`'s memory is read or about to be written: keep its state once."""
        key = Memory.key(tensor)
        if key in self.grads_linked:  # already captured as some tensor's .grad
            return
        if key not in self.snapshots:
            snapshot = self.snapshots[key] = Snapshot(Memory(tensor))
            snapshot.memory.bind(self.bindings)
            for owner, grad in snapshot.grads:  # an existing .grad is state too (accumulated
                if grad is not None and not is_traced(grad._value):  # into in place)
                    grad_snapshot = Snapshot(Memory(grad), grad_of=owner)
                    self.snapshots[("grad", id(owner))] = grad_snapshot
                    self.grads_linked.add(Memory.key(grad))
                    grad_snapshot.memory.bind(self.bindings)

    def written(self, tensor: Tensor) -> None:
        """`Tensor._set_value` is about to rebind `tensor` (a write is a read of what is
        overwritten: a tensor the trace made may still view an outside one)."""
        self.read(tensor)

    def made(self, tensor: Tensor) -> None:
        """`tensor` was made during the trace: its value is no state of the caller's."""
        self.created.add(id(tensor))

    def called(self, module) -> None:
        """A module's `__call__`: its `training` flag is part of what the trace assumed."""
        self.modules[id(module)] = module

    def custom_function(self, name: str) -> None:
        """A custom `autograd.Function` was applied: its Python backward runs in the trace
        only where the traced call runs backward itself."""
        self.custom_functions.append(name)

    def runtime(self, getter: Callable[[], object]):
        """A value library code reads from Python state each call (an optimizer's learning
        rate): a runtime input of the compiled function, never a constant of it."""
        index = len(self.getters)
        self.getters.append(getter)
        self.read_after_deferred = self.read_after_deferred or bool(self.deferred)
        if self.runtime_values is not None:
            return self.runtime_values[index]
        return getter()

    def defer(self, update: Callable[[], None]) -> None:
        """A Python-only state update (an LR scheduler's step): not traced, but run after
        each compiled call, where the function's own order puts it (at its end)."""
        self.deferred.append(update)

    # ---------------------------------------------------------------- lifetime
    def __enter__(self) -> Capture:
        modes.enter_trace(self, capture=True)
        return self

    def __exit__(self, *exc_info: object) -> None:
        modes.leave_trace(self)

    def restore(self) -> None:
        """Put back every touched memory, version counter and gradient, and the PRNG key."""
        try:
            for snapshot in reversed(list(self.snapshots.values())):
                snapshot.restore()
        finally:  # (the bindings end with the trace, whatever happens)
            self.bindings.unbind()
        default_generator.restore_key(self.rng_key)
