"""Switching `__torch_function__` dispatch on: until something can override, the public
functions run as they are, at no cost; from then on, for the rest of the process, each one
checks its arguments and the mode stack first.

The switch changes each public function in place: its code becomes a dispatcher that calls a
copy of the function (`impl`), so every reference to it dispatches (`torch.add`,
`from torch import add`, a set of functions built before the switch, the library's own
calls) and it stays the object handlers compare `func` with. `inspect.signature` reads the
copy (`__wrapped__`).

What switches it on: a Tensor subclass that can override (`Tensor.__init_subclass__`), a mode
entered, and the first instance of a class defining `__torch_function__` outside Tensor and the
modes (its class statement is seen through `builtins.__build_class__`, restored once dispatch
is on). A class made by calling `type(...)` is not seen: its instances dispatch once something
else has switched dispatch on.
"""

from __future__ import annotations

import builtins
import functools
import threading
import types
from collections.abc import Callable
from typing import Any, NamedTuple

from .._state import torch_function as _tf
from .._state.tensor import Tensor
from . import registry

_PLACEHOLDER = 0.25  # the constant of the dispatcher template replaced by its entry
_NOT_PLAIN = 0x20 | 0x80 | 0x100 | 0x200  # generator and coroutine code flags
_MISSING = object()
_lock = threading.Lock()
_templates: dict[int, types.CodeType] = {}


class _Swapped(NamedTuple):
    """What `install` changed on one function, for `uninstall`."""

    function: Any  # a types.FunctionType (see registry.Entry)
    code: types.CodeType
    wrapped: Any
    module: str


_swapped: list[_Swapped] = []
_installed: list[registry.Entry] = []  # the entries switched on (read before any `__module__`
# changes, which the registry reads)
ignored_bases: list[type] = [Tensor]  # classes whose subclasses switch dispatch on elsewhere


def _template(free: int) -> types.CodeType:
    """The dispatcher's code for a function with `free` closure variables (a code object must
    keep its function's count of them)."""
    code = _templates.get(free)
    if code is None:
        params = ", ".join(f"_f{i}" for i in range(free))
        source = (
            f"def outer({params}):\n"
            "    def dispatcher(*args, **kwargs):\n"
            f"        entry = {_PLACEHOLDER}\n"
            "        return entry(args, kwargs)\n"
            f"        ({params}{',' * (free == 1)})  # never runs: makes these the free variables\n"
            "    return dispatcher\n"
        )
        scope: dict = {}
        exec(compile(source, "<torch_function dispatcher>", "exec"), scope)
        code = _templates[free] = scope["outer"](*range(free)).__code__
    return code


def _entry(spec: registry.Entry, impl: Callable) -> Callable[[tuple, dict], Any]:
    """What the dispatcher of `spec.function` calls: the checks, then `impl` or a handler."""
    local, find, handle, never = _tf.local, _tf.overloaded_in_call, _tf.handle, _tf.NEVER
    public, name, python_style = spec.public, spec.name, spec.python_style
    enabled, all_disabled = _tf.ENABLED, _tf.ALL_DISABLED

    def entry(args: tuple, kwargs: dict):
        level = local.level
        if level != all_disabled:
            if not kwargs and not local.modes:  # the common call: plain positional arguments
                for arg in args:
                    if type(arg) not in never:
                        break
                else:
                    return impl(*args)
            found = find(args, kwargs) if level == enabled else []
            if found or local.modes:
                return handle(public, found, args, kwargs, name, python_style)
        return impl(*args, **kwargs)

    if not spec.binary:
        return entry

    def binary_entry(args: tuple, kwargs: dict):
        try:
            return entry(args, kwargs)
        except _tf.NoImplementation:
            return NotImplemented

    return binary_entry


def _copy(function: types.FunctionType) -> types.FunctionType:
    """An undispatched copy of `function`. An `out=` wrapper's copy calls its front end's
    copy (`_ops/out_arg`): the front end is a Tensor method that dispatches too, and one call
    must dispatch once."""
    closure = function.__closure__
    inner = _impls.get(id(function.__dict__.get("_without_out")))
    if inner is not None and closure is not None:
        front = function.__dict__["_without_out"]
        closure = tuple(
            types.CellType(inner) if cell.cell_contents is front else cell for cell in closure
        )
    impl = types.FunctionType(
        function.__code__,
        function.__globals__,
        function.__name__,
        function.__defaults__,
        closure,
    )
    impl.__kwdefaults__ = function.__kwdefaults__
    impl.__dict__.update(function.__dict__)
    impl.__qualname__, impl.__module__ = function.__qualname__, function.__module__
    impl.__doc__ = function.__doc__
    return impl


def _swap(spec: registry.Entry) -> None:
    function = spec.function
    code = function.__code__
    if code.co_flags & _NOT_PLAIN or id(function) in _impls:
        return
    impl = _copy(function)
    dispatcher = _template(len(code.co_freevars))
    consts = tuple(_entry(spec, impl) if c == _PLACEHOLDER else c for c in dispatcher.co_consts)
    _swapped.append(
        _Swapped(
            function, code, function.__dict__.get("__wrapped__", _MISSING), function.__module__
        )
    )
    _impls[id(function)] = impl
    function.__wrapped__ = impl
    if spec.module is not None:
        function.__module__ = spec.module
    function.__code__ = dispatcher.replace(
        co_consts=consts, co_name=code.co_name, co_qualname=code.co_qualname
    )


_impls: dict[int, Callable] = {}  # id of a switched function -> its undispatched copy
_on: list[bool] = [False]  # set once every function is switched: an interrupted install
# (KeyboardInterrupt) is finished by the next call, which skips the functions already switched


def is_installed() -> bool:
    return _on[0]


def install() -> None:
    """Switch dispatch on (once; later calls return at once)."""
    if _on[0]:
        return
    with _lock:
        if _on[0]:
            return
        if not _installed:
            _installed.extend(registry.entries())
        for spec in sorted(_installed, key=_is_out_wrapper):  # front ends first (`_copy`)
            _swap(spec)
        _disarm()
        vars(builtins)["__build_class__"] = _original_build_class
        _on[0] = True


def _is_out_wrapper(spec: registry.Entry) -> bool:
    return "_without_out" in getattr(spec.function, "__dict__", {})


def uninstall() -> None:
    """Switch dispatch off again (the tests' fixture: each test starts as a process does)."""
    with _lock:
        _on[0] = False
        while _swapped:
            done = _swapped[-1]
            done.function.__code__ = done.code
            done.function.__module__ = done.module
            if done.wrapped is _MISSING:
                done.function.__dict__.pop("__wrapped__", None)
            else:
                done.function.__wrapped__ = done.wrapped
            _impls.pop(id(done.function), None)
            _swapped.pop()
        _installed.clear()
        vars(builtins)["__build_class__"] = _build_class


def entries() -> list[registry.Entry]:
    """The dispatching callables (those switched on, once dispatch is on)."""
    return list(_installed) if _installed else registry.entries()


def impl_of(function) -> Callable | None:
    """The undispatched copy of a switched function (None for any other callable)."""
    return _impls.get(id(function))


# ----------------------------------------------------------------------------- class statements
_original_build_class = builtins.__build_class__


def _build_class(func, name, *bases, **kwargs):
    """`builtins.__build_class__` until dispatch is on: a class defining `__torch_function__`
    (not a Tensor or a mode) switches it on, so its instances dispatch from their first op."""
    cls = _original_build_class(func, name, *bases, **kwargs)
    if (
        isinstance(cls, type)
        and "__torch_function__" in vars(cls)
        and not issubclass(cls, tuple(ignored_bases))
        and not cls.__module__.startswith(("torch.", "autograd_compat."))
        and _tf.dispatches(cls)
    ):
        _arm(cls)
    return cls


class _Armed(NamedTuple):
    """A class whose `__init__` switches dispatch on, and its own `__init__` (or None)."""

    cls: type
    init: Any


_armed: list[_Armed] = []


def _arm(cls: type) -> None:
    """Switch dispatch on when the first instance of `cls` is made (a library defining such a
    class, as Lightning does at import, costs nothing until it makes one): `cls.__init__`
    does it, then gives way to the class's own."""
    own = vars(cls).get("__init__")

    def __init__(self, *args, **kwargs):
        install()
        self.__init__(*args, **kwargs)

    try:
        _armed.append(_Armed(cls, own))
        cls.__init__ = functools.wraps(own or cls.__init__)(__init__)  # type: ignore[misc]
    except (TypeError, AttributeError):  # a class that refuses the attribute
        install()


def _disarm() -> None:
    while _armed:
        armed = _armed.pop()
        if armed.init is None:
            del armed.cls.__init__  # type: ignore[misc]
        else:
            armed.cls.__init__ = armed.init  # type: ignore[misc]


vars(builtins)["__build_class__"] = _build_class
_tf.on_override_possible(install)
