"""Grad mode: whether new operations are recorded. Thread-local, as in PyTorch.

`no_grad`, `enable_grad` and `set_grad_enabled` work as context managers and as decorators.
"""

from __future__ import annotations

import functools
import inspect
import threading


class _State(threading.local):
    """Per-thread flag; each new thread starts with grad mode on, as in PyTorch."""

    def __init__(self) -> None:
        self.enabled = True


_state = _State()


def is_grad_enabled() -> bool:
    """Return True if operations are currently recorded for autograd."""
    return _state.enabled


class _GradModeContext:
    """Base for the grad-mode context managers: sets the flag on enter, restores it on exit."""

    _target: bool

    def __enter__(self) -> None:
        self._previous = _state.enabled
        _state.enabled = self._target

    def __exit__(self, *exc_info: object) -> None:
        _state.enabled = self._previous

    def __call__(self, func):
        """Use as a decorator: run `func` (or each step of a generator) in this mode."""
        if inspect.isgeneratorfunction(func):

            @functools.wraps(func)
            def generator_wrapper(*args, **kwargs):
                generator = func(*args, **kwargs)
                with self.clone():
                    response = generator.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        generator.close()
                        raise
                    try:
                        with self.clone():
                            response = generator.send(request)
                    except StopIteration as stop:
                        return stop.value

            return generator_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)

        return wrapper

    def clone(self) -> _GradModeContext:
        return self.__class__()


class no_grad(_GradModeContext):
    """Disable recording: results of operations do not require grad.

    Example::

        >>> x = torch.ones(2, requires_grad=True)
        >>> with torch.no_grad():
        ...     y = x * 2
        >>> y.requires_grad
        False
    """

    _target = False


class enable_grad(_GradModeContext):
    """Enable recording inside a `no_grad` block."""

    _target = True


class set_grad_enabled(_GradModeContext):
    """Set grad mode to `mode`: at once when called, restored on exit when used as a context."""

    def __init__(self, mode: bool) -> None:
        self._previous = _state.enabled
        self._target = bool(mode)
        _state.enabled = self._target

    def __enter__(self) -> None:
        pass

    def clone(self) -> _GradModeContext:
        return enable_grad() if self._target else no_grad()

    def __call__(self, func):
        _state.enabled = self._previous
        return super().__call__(func)
