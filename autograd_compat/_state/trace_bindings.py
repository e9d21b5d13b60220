"""The values a trace binds objects to, seen only by the thread that traces.

A torch.compile trace runs the user's code on JAX tracers: the tensors it captures (a module's
parameters, optimizer state, gradients) read and write its tracers until it ends. Stored in
those tensors, the tracers would reach any other thread reading them meanwhile (an eager call
of the same model). So a trace *binds* what it captures: the object's class becomes a variant
of it (`bound_class`) whose slots (a tensor's value, `.grad` and version counter, a shared
memory's root value) read and write this thread's bindings, and the slots themselves (the
real state) in every other thread. Unbinding gives the object its class back and drops its
bindings: what the trace wrote never reached the slots. An object no trace binds keeps its
class, whose slots are read at no cost.

Each trace keeps what it binds (`Bindings`) and unbinds it when it ends; an object traces
nested in one thread both bind stays bound until the last of them ends. One thread binds at a
time (`modes.hold_traces`).
"""

from __future__ import annotations

import threading
from types import MemberDescriptorType
from typing import Any

from .tensor import PLAIN_TYPES, Tensor
from .torch_function import _disabled_torch_function_impl

# the slots bound, each as the names it is read under (the slot's own first)
TENSOR_SLOTS = (("_value", "_stored"), ("_grad",), ("_version_counter",))
BUFFER_SLOTS = (("value",),)  # a shared memory's root value (`_tape/views.Buffer`)
# slots holding a list that aliases share and writes change in place (a version counter): a
# thread binds them to its own copy of the list, one copy for each list
_COPIED = frozenset({"_version_counter"})


class _Bound(threading.local):
    """This thread's bindings: object id -> {slot name: its value here}, object id -> how many
    traces bind it, and the copies of shared lists (id of the list -> its copy)."""

    def __init__(self) -> None:
        self.values: dict[int, dict[str, object]] = {}
        self.counts: dict[int, int] = {}
        self.copies: dict[int, list] = {}


_bound = _Bound()
_VARIANTS: dict[type, type] = {}  # a class -> its bound variant
_BASES: dict[type, type] = {}  # a bound variant -> its class


def _slot_property(name: str, slot: MemberDescriptorType) -> property:
    """A bound variant's slot `name`: this thread's binding of the object, else the slot."""

    def get(self):
        own = _bound.values.get(id(self))
        return slot.__get__(self) if own is None else own[name]

    def set_(self, value) -> None:
        own = _bound.values.get(id(self))
        if own is None:
            slot.__set__(self, value)
        else:
            own[name] = value

    return property(get, set_)


def bound_class(cls: type[Any], slots: tuple[tuple[str, ...], ...]) -> type | None:
    """The variant of `cls` whose `slots` (each under all its names) read the bindings of the
    thread that reads them; None where one is no plain slot (a class that computes its value
    on read: read it once first)."""
    variant = _VARIANTS.get(cls)
    if variant is not None:
        return variant
    namespace: dict = {"__slots__": (), "__module__": cls.__module__}
    for names in slots:
        slot = getattr(cls, names[0])
        if type(slot) is not MemberDescriptorType:
            return None
        namespace.update(dict.fromkeys(names, _slot_property(names[0], slot)))
    if issubclass(cls, Tensor):
        namespace["_wrap"] = cls._wrap  # a tensor made like a bound one is of the plain class
        if cls in PLAIN_TYPES:  # dispatches as the plain Tensor does (never)
            namespace["__torch_function__"] = _disabled_torch_function_impl
    variant = _VARIANTS[cls] = type(cls.__name__, (cls,), namespace)
    variant.__qualname__ = cls.__qualname__
    _BASES[variant] = cls
    return variant


class Bindings:
    """What one trace binds in its thread, until `unbind` at its end. Traces nested in one
    thread may bind the same object: it stays bound until the last of them unbinds it."""

    __slots__ = ("objects",)

    def __init__(self) -> None:
        self.objects: list[object] = []

    def bind(self, obj, slots: tuple[tuple[str, ...], ...]) -> None:
        """Bind `obj`'s `slots` (`TENSOR_SLOTS` or `BUFFER_SLOTS`): its writes in this thread
        stay here."""
        counts = _bound.counts
        if id(obj) not in counts:
            own = {names[0]: getattr(obj, names[0]) for names in slots}  # (computed on read)
            variant = bound_class(type(obj), slots)
            if variant is None:
                return
            for name in _COPIED.intersection(own):  # (a bound object holds the list: its
                shared = own[name]  # id stays)
                own[name] = _bound.copies.setdefault(id(shared), list(shared))
            _bound.values[id(obj)] = own
            counts[id(obj)] = 0
            obj.__class__ = variant
        counts[id(obj)] += 1
        self.objects.append(obj)

    def bind_memory(self, tensor) -> None:
        """Bind `tensor` and, where it shares memory, the buffer and every tensor over it."""
        rec = tensor._storage
        if rec is None:
            self.bind(tensor, TENSOR_SLOTS)
            return
        self.bind(rec.buffer, BUFFER_SLOTS)
        for member in rec.buffer.members:
            self.bind(member, TENSOR_SLOTS)

    def unbind(self) -> None:
        """End what this trace bound: an object no other trace here binds shows its slots
        (its real state) in this thread too."""
        counts, values = _bound.counts, _bound.values
        while self.objects:
            obj = self.objects.pop()
            counts[id(obj)] -= 1
            if counts[id(obj)]:
                continue
            base = _BASES.get(type(obj))
            if base is not None:  # (None: its class was set since, to one of its own)
                obj.__class__ = base
            del values[id(obj)], counts[id(obj)]
        if not counts:
            _bound.copies.clear()
