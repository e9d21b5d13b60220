"""torch.overrides: the `__torch_function__` protocol, as PyTorch defines it.

Tensor subclasses and other classes defining `__torch_function__`, and `TorchFunctionMode`s
entered with `with`, intercept the public functions (`torch.*`, `torch.nn.functional.*`,
`torch.linalg/fft/special`, four `torch.nn.init` initializers) and every Tensor method,
property and operator. The rules (the mode first, then subclasses before superclasses, then
left to right; NotImplemented passes on) live in `_state/torch_function.py`; which functions
dispatch, and how they are switched on at no cost until something can override, in
`_overrides/`. `get_testing_overrides` is not provided.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import warnings
from collections.abc import Callable, Iterable

from ._alias import missing_attribute as _missing_attribute
from ._overrides import install as _install
from ._overrides import registry as _registry
from ._state import torch_function as _tf
from ._state.tensor import Tensor

__all__ = [
    "get_ignored_functions",
    "get_overridable_functions",
    "handle_torch_function",
    "has_torch_function",
    "resolve_name",
    "is_tensor_like",
    "is_tensor_method_or_property",
    "wrap_torch_function",
    "enable_reentrant_dispatch",
]


def has_torch_function(relevant_args: Iterable) -> bool:
    """True when a mode is on or an element of `relevant_args` overrides (exact Tensors and
    Parameters do not)."""
    return _tf.has_torch_function(relevant_args)


def has_torch_function_unary(arg) -> bool:
    """`has_torch_function((arg,))`."""
    return _tf.has_torch_function((arg,))


def has_torch_function_variadic(*args) -> bool:
    """`has_torch_function(args)`."""
    return _tf.has_torch_function(args)


def handle_torch_function(public_api: Callable, relevant_args: Iterable, *args, **kwargs):
    """Call the mode, then the overriding arguments of `relevant_args`, with `public_api`
    as `func`; TypeError when all return NotImplemented.

    Example::

        >>> def func(a):
        ...     if has_torch_function_unary(a):
        ...         return handle_torch_function(func, (a,), a)
        ...     return a + 0
    """
    found = _tf.overloaded_args(relevant_args)
    name = f"{public_api.__module__}.{public_api.__name__}"
    return _tf.handle(public_api, found, args, kwargs, name)


def wrap_torch_function(dispatcher: Callable):
    """Decorate a function so it dispatches on the Tensor-likes `dispatcher` returns."""

    def inner(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant_args = dispatcher(*args, **kwargs)
            if has_torch_function(relevant_args):
                return handle_torch_function(wrapped, relevant_args, *args, **kwargs)
            return func(*args, **kwargs)

        return wrapped

    return inner


def is_tensor_like(inp) -> bool:
    """True for a Tensor and for anything whose type has `__torch_function__`."""
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


def _tensor_overridable() -> list:
    """Tensor's dispatching methods and property accessors (a method that is also a torch
    function, `Tensor.add` being `torch.add`, included)."""
    members = {id(value) for value in vars(Tensor).values()}
    found = []
    for entry in _install.entries():
        if entry.name.endswith((".__get__", ".__set__")):  # a property's accessor
            found.append(entry.public)
        elif id(entry.function) in members:
            found.append(entry.function)
    return found


def get_overridable_functions() -> dict:
    """The functions `__torch_function__` overrides, by namespace (module or `Tensor`)."""
    found: dict = {}
    for space in _registry.namespaces():
        found[space.owner] = [getattr(space.owner, name) for name in space.names]
    found[Tensor] = _tensor_overridable()
    return found


def get_ignored_functions() -> set:
    """The public functions `__torch_function__` does not override."""
    package = sys.modules["autograd_compat"]
    dispatching = {id(e.function) for e in _install.entries()}
    ignored = {
        value
        for name, value in vars(package).items()
        if callable(value)
        and not isinstance(value, type)
        and not name.startswith("_")
        and id(value) not in dispatching
    }
    return ignored | {getattr(Tensor, name) for name in _registry._TENSOR_SKIPPED}


def resolve_name(f) -> str | None:
    """The PyTorch name of a function passed to `__torch_function__` ("torch.add")."""
    try:
        return _names().get(f)
    except TypeError:  # an unhashable callable
        return None


def _names() -> dict:
    _install.install()  # the names of switched functions: read once, kept
    if not _NAMES:
        _NAMES.update((entry.public, entry.name) for entry in reversed(_install.entries()))
    return _NAMES


_NAMES: dict = {}


def is_tensor_method_or_property(func: Callable) -> bool:
    """True for a Tensor method or a property accessor (`Tensor.shape.__get__`)."""
    return func in _tensor_overridable() or getattr(func, "__name__", None) == "__get__"


class TorchFunctionMode:
    """A mode overriding every torch function called within its `with` block: subclass it and
    define `__torch_function__(self, func, types, args=(), kwargs=None)`. The mode is off while
    its own `__torch_function__` runs, so calling `func(*args, **kwargs)` there goes on to the
    next mode (or runs the function).

    Example (not run here: entering a mode switches dispatch on for the process)::

        class Count(TorchFunctionMode):
            def __init__(self):
                super().__init__()
                self.calls = 0

            def __torch_function__(self, func, types, args=(), kwargs=None):
                self.calls += 1
                return func(*args, **(kwargs or {}))

        with Count() as mode:
            torch.ones(2) + 1
        mode.calls  # 2: torch.ones and Tensor.add
    """

    inner: TorchFunctionMode

    def __init__(self) -> None:
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        _pop_mode()

    @classmethod
    def push(cls, *args, **kwargs):
        warnings.warn(
            "`Mode.push()` is no longer necessary and can be replaced with just `with Mode()`",
            stacklevel=2,
        )
        return cls(*args, **kwargs)


_install.ignored_bases.append(TorchFunctionMode)


class BaseTorchFunctionMode(TorchFunctionMode):
    """A mode that runs every function as it is (a base for modes overriding a few)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def _push_mode(mode) -> None:
    _install.install()
    _tf.local.modes.append(mode)


def _pop_mode():
    return _tf.local.modes.pop()


@contextlib.contextmanager
def _pop_mode_temporarily():
    old = _pop_mode()
    try:
        yield old
    finally:
        _push_mode(old)


def _get_current_function_mode():
    modes = _tf.local.modes
    return modes[-1] if modes else None


def _get_current_function_mode_stack() -> list:
    return list(_tf.local.modes)


def _is_torch_function_mode_enabled() -> bool:
    return _tf.is_torch_function_mode_enabled()


@contextlib.contextmanager
def enable_reentrant_dispatch():
    """PyTorch restores its `__torch_dispatch__` state here; this library has none to restore."""
    yield


def redispatch_function(func, types, args, kwargs):
    """Call `func` skipping one level of `__torch_function__` dispatch: its own."""
    impl = _install.impl_of(func)
    if impl is None and getattr(func, "__name__", None) in ("__get__", "__set__"):
        accessor = getattr(func.__self__, "fget" if func.__name__ == "__get__" else "fset")
        impl = _install.impl_of(accessor)
    if impl is None:
        raise TypeError(
            f"torch.overrides.redispatch_function: {func!r} is not a torch function this "
            "library dispatches"
        )
    return impl(*args, **(kwargs or {}))


def __getattr__(name: str):
    return _missing_attribute(__name__, name)
