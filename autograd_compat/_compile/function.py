"""`torch.compile` of a function: one XLA program per call, from unchanged PyTorch code.

A call is served by an *entry*, found by guards on what the trace assumed: the structure and
static leaves of the arguments, each tensor argument's shape, dtype and `requires_grad`, grad
mode and the default dtype; then, per entry, the captured memories' shapes and dtypes, which of
their tensors have a `.grad`, the `training` flag of every module the trace called, and the
tensor each global or closed-over variable the function names holds (`bindings`).

Building an entry takes two traces. The first (`jax.make_jaxpr`, nothing compiled) finds what
the function touches besides its arguments (`capture.Capture`) and what it changes
(`entry.Effects`): memories written and their version moves, gradients set, the PRNG key
consumed. Everything it changed is put back. The second is the compiled one, the entry's
program (`entry.Entry`). A call's arguments are split and guarded by `arguments`.

What cannot be traced (a tensor's value read in Python, data-dependent shapes, printing) is a
graph break: the call runs eagerly, with one warning naming the place (an error with
`fullgraph=True`). A function that keeps needing new entries falls back to eager past
`torch._dynamo.config.cache_size_limit`, as PyTorch's does.
"""

from __future__ import annotations

import functools
import traceback
import warnings
import weakref
from collections.abc import Callable

import jax

from .._pure import errors as _errors
from .._state.modes import modes
from .._state.tensor import PLAIN_TYPES, Tensor
from . import config
from .arguments import (
    Arguments,
    grads_of,
    guard_key,
    is_tensor,
    number_array,
    positional_treedef,
)
from .bindings import first_rebound
from .capture import Capture
from .entry import Effects, Entry, Retrace, StaleState


class _Eager:
    """The entry of calls that run the function eagerly (a graph break, or past the limit)."""


_EAGER = _Eager()


class Unsupported(RuntimeError):
    """What `fullgraph=True` raises where the default would break the graph (PyTorch's
    `torch._dynamo.exc.Unsupported`)."""


# what a call's run raises that `CompiledFunction._call` handles (by remaking the entry, or
# running the function eagerly): the flat path leaves these to it
_RUN_AGAIN = (StaleState, Retrace, *_errors.GRAPH_BREAKS)

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


# ----------------------------------------------------------------------------- the function
class CompiledFunction:
    """A function compiled with `torch.compile`: call it as the function itself."""

    def __init__(self, fn: Callable, *, fullgraph: bool = False, dynamic=None) -> None:
        self.fn = fn
        self.fullgraph = fullgraph
        self.dynamic = dynamic
        self.entries: dict[tuple, Entry | _Eager] = {}
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
            key = guard_key(positional_treedef(len(args)), (), args, ())
            entry = self.entries.get(key)
            if type(entry) is Entry and entry.holds():
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
        Arguments(self.is_dynamic, args, kwargs)
        result = self.fn(*args, **kwargs)
        if self.fullgraph:
            arguments = Arguments(self.is_dynamic, args, kwargs)
            key = arguments.key()
            if key not in self.entries:
                self._new_entry(key, arguments, args, kwargs)
        return result

    def _call(self, args: tuple, kwargs: dict):
        """A call of any arguments: its entry found, made or remade, and run."""
        arguments = Arguments(self.is_dynamic, args, kwargs)
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
        except StaleState:  # a captured memory changed shape or dtype since the entry's trace
            _count("stats", "recompiles")
            entry = self._new_entry(key, arguments, args, kwargs)
            if entry is _EAGER:
                return self.fn(*args, **kwargs)
            return self._run(entry, arguments, args, kwargs)

    def _first_with_new_objects(self, arguments: Arguments) -> bool:
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

    def _new_entry(self, key: tuple, arguments: Arguments, args: tuple, kwargs: dict):
        """A new entry for `key` (or `_EAGER` past the cache size limit or at a graph break)."""
        if len(self.entries) >= config.cache_size_limit:
            self._warn_limit()
            self.entries[key] = _EAGER
            return _EAGER
        entry = self._build(arguments, args, kwargs)
        self.entries[key] = entry
        return entry

    def _run(self, entry: Entry, arguments: Arguments, args: tuple, kwargs: dict):
        try:
            return entry.run(arguments.tensors(), arguments.numbers())
        except Retrace:  # the compiled trace read more than the discovery trace saw
            self.entries[arguments.key()] = _EAGER
            return self._break(args, kwargs, "state found only by the second trace", "")
        except _errors.GRAPH_BREAKS as error:
            self.entries[arguments.key()] = _EAGER
            return self._break(args, kwargs, _reason(error), _user_frame(error.__traceback__))

    def _build(self, arguments: Arguments, args: tuple, kwargs: dict):
        """Discover what the function touches (first trace) and make the entry."""
        capture = Capture()
        tensor_values = [arguments.leaves[i]._value for i in arguments.tensor_index]
        number_values = [number_array(arguments.leaves[i]) for i in arguments.number_index]

        def discover(tensor_values, number_values, grad_values):
            call_args, call_kwargs = arguments.rebuild(tensor_values, number_values, grad_values)
            with capture:
                out = self.fn(*call_args, **call_kwargs)
            effects = Effects(capture, arguments.rebuilt, arguments.initial_grads)
            leaves = jax.tree_util.tree_leaves(out, is_leaf=is_tensor)
            return effects, [x._value for x in leaves if isinstance(x, Tensor)]

        found: dict = {}

        def traced(tensor_values, number_values, grad_values):
            effects, outputs = discover(tensor_values, number_values, grad_values)
            found["effects"] = effects
            return outputs

        modes.hold_traces()  # the trace binds what it touches to tracers until restored
        try:
            try:
                grads = grads_of(arguments.tensors())
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
        return Entry(self.fn, arguments, effects)

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
