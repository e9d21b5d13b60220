"""The `__torch_function__` protocol's state and rules: the thread's mode stack, the
enabled/disabled switches, which arguments dispatch, and `handle`, which calls the mode and the
overriding types in PyTorch's order.

A type dispatches when it has a `__torch_function__` other than `_disabled_torch_function_impl`
(Parameter's, Buffer's) and is not one of the library's plain tensor classes. The public
functions consult this only once dispatch is switched on (`autograd_compat/_overrides`): the
first Tensor subclass that can override, the first mode entered or the first instance of a
class defining `__torch_function__` calls `override_possible()`, which runs the installer
registered with `on_override_possible`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from .tensor import PLAIN_TYPES, SUBCLASS_HOOKS, MetaTensor, Tensor

ENABLED, SUBCLASSES_DISABLED, ALL_DISABLED = 0, 1, 2


class _Local(threading.local):
    """Each thread's mode stack (innermost last) and how much dispatch is disabled."""

    def __init__(self) -> None:
        self.modes: list = []
        self.level = ENABLED


local = _Local()


class _DisabledImpl:
    """`torch._C._disabled_torch_function_impl`: as a class's `__torch_function__` it marks the
    class as not dispatching (Parameter, Buffer); called, it runs `func` with subclass dispatch
    off. Not a function, so it does not bind as a method."""

    def __call__(self, func, types, args=(), kwargs=None):
        with DisableTorchFunctionSubclass():
            return func(*args, **(kwargs or {}))

    def __repr__(self) -> str:
        return "<built-in function _disabled_torch_function_impl>"


_disabled_torch_function_impl = _DisabledImpl()


class _Disable:
    """Raise the thread's disable level to `level` within the block."""

    level = ALL_DISABLED

    def __enter__(self):
        self._old = local.level
        local.level = max(self._old, self.level)
        return self

    def __exit__(self, *exc_info) -> None:
        local.level = self._old


class DisableTorchFunctionSubclass(_Disable):
    """Within the block, arguments' `__torch_function__` are not called (modes still are)."""

    level = SUBCLASSES_DISABLED


class DisableTorchFunction(_Disable):
    """Within the block, neither modes nor arguments' `__torch_function__` are called."""


def is_torch_function_enabled() -> bool:
    """`torch._C._is_torch_function_enabled`: neither disable block is open."""
    return local.level == ENABLED


def is_torch_function_mode_enabled() -> bool:
    """`torch._C._is_torch_function_mode_enabled`: a mode is pushed and modes are not off."""
    return bool(local.modes) and local.level != ALL_DISABLED


# ----------------------------------------------------------------------------- which types
_PLAIN = PLAIN_TYPES | {MetaTensor}  # the library's own classes of a plain Tensor
NEVER = _PLAIN | {int, float, bool, complex, str, bytes, type(None), slice, type(...)}


def kind_of(arg) -> type:
    """The type a handler sees for `arg`: Tensor for the library's plain tensor classes."""
    kind = type(arg)
    return Tensor if kind in _PLAIN else kind


def dispatches(kind: type) -> bool:
    """True when arguments of type `kind` have their `__torch_function__` called."""
    if kind in NEVER:
        return False
    method = getattr(kind, "__torch_function__", None)
    return method is not None and method is not _disabled_torch_function_impl


def _insert(found: list, arg) -> None:
    """Add `arg` to the overloaded arguments unless its type is there: before the first of a
    superclass, else last (PyTorch's order: subclasses first, then left to right)."""
    kind = kind_of(arg)
    for i, other in enumerate(found):
        if kind_of(other) is kind:
            return
        if issubclass(kind, kind_of(other)):
            found.insert(i, arg)
            return
    found.append(arg)


def overloaded_args(relevant) -> list:
    """The arguments in `relevant` whose `__torch_function__` is called, in calling order
    (`handle_torch_function`'s: plain Tensors too, as PyTorch's Python version has them)."""
    found: list = []
    if local.level != ENABLED:
        return found
    for arg in relevant:
        if type(arg) in _PLAIN or dispatches(type(arg)):
            _insert(found, arg)
    return found


def overloaded_in_call(args: tuple, kwargs: dict) -> list:
    """The overloaded arguments of a public call: positional and keyword arguments, and the
    items of lists and tuples among them (a function's tensor lists)."""
    found: list = []
    for group in (args, kwargs.values()) if kwargs else (args,):
        for arg in group:
            kind = type(arg)
            if kind in NEVER:  # the common case, without a call
                continue
            if kind is list or kind is tuple:
                for item in arg:
                    if dispatches(type(item)):
                        _insert(found, item)
            elif dispatches(kind):
                _insert(found, arg)
    return found


def has_torch_function(relevant) -> bool:
    """`torch.overrides.has_torch_function`: a mode is on or an argument overrides."""
    if local.level == ALL_DISABLED:
        return False
    if local.modes:
        return True
    return local.level == ENABLED and any(dispatches(type(arg)) for arg in relevant)


# ----------------------------------------------------------------------------- handling
class NoImplementation(TypeError):
    """Every mode and overriding argument returned NotImplemented."""


def _failure(name: str, overloaded: list, mode, python_style: bool) -> NoImplementation:
    kinds = [kind_of(arg) for arg in overloaded]
    if python_style:
        text = (
            f"no implementation found for '{name}' on types that implement "
            f"__torch_function__: {kinds}"
        )
        return NoImplementation(text if mode is None else f"{text} nor in mode {mode!r}")
    lines = [f"  - mode object {mode!r}"] if mode is not None else []
    lines += [f"  - tensor subclass {kind!r}" for kind in kinds]
    return NoImplementation(
        f"Multiple dispatch failed for '{name}'; all __torch_function__ handlers returned "
        "NotImplemented:\n\n" + "\n".join(lines) + "\n\nFor more information, try re-running "
        "with TORCH_LOGS=not_implemented"
    )


def handle(public, overloaded: list, args: tuple, kwargs: dict, name: str, python_style=True):
    """Call the innermost mode (popped while it runs), then each overloaded argument's
    `__torch_function__`, until one returns something other than NotImplemented."""
    types = tuple(kind_of(arg) for arg in overloaded)
    mode = None
    if local.modes and local.level != ALL_DISABLED:
        mode = local.modes.pop()
        try:
            result = mode.__torch_function__(public, types, args, kwargs)
        finally:
            local.modes.append(mode)
        if result is not NotImplemented:
            return result
    for arg in overloaded:
        method = Tensor.__torch_function__ if type(arg) in _PLAIN else arg.__torch_function__
        result = method(public, types, args, kwargs)
        if result is not NotImplemented:
            return result
    raise _failure(name, overloaded, mode, python_style)


# ----------------------------------------------------------------------------- switching on
_installers: list[Callable[[], None]] = []


def on_override_possible(installer: Callable[[], None]) -> None:
    """Register `installer`, run by `override_possible()` (the public layer's switch)."""
    _installers.append(installer)


def override_possible() -> None:
    """Something can override from now on: switch dispatch on (once; cheap when it is on)."""
    for installer in _installers:
        installer()


def subclass_made(cls: type) -> None:
    """`Tensor.__init_subclass__`: a subclass that dispatches switches dispatch on."""
    if _installers and issubclass(cls, Tensor) and dispatches(cls):
        override_possible()


SUBCLASS_HOOKS.append(subclass_made)
