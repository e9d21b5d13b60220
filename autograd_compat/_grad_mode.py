"""Grad mode and inference mode: whether new operations are recorded. Thread-local, as in
PyTorch.

`no_grad`, `enable_grad`, `set_grad_enabled` and `inference_mode` work as context managers
and as decorators. Inference mode turns recording off and marks every tensor created inside
it as an inference tensor (`Tensor.is_inference()`), which autograd later refuses to save for
backward. The mark is set by a wrapper around `Tensor._wrap` installed only while some thread
is in inference mode, so normal tensor creation pays nothing for it.
"""

from __future__ import annotations

import functools
import inspect
import threading


class _State(threading.local):
    """Per-thread flag; each new thread starts with grad mode on, as in PyTorch."""

    def __init__(self) -> None:
        self.enabled = True
        self.inference = False


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


# ----------------------------------------------------------------------------- inference mode
_inference_lock = threading.Lock()
_inference_users = [0]  # inference_mode(True) contexts open in any thread
_plain_wrap: list = []  # the original Tensor._wrap while the marking wrapper is installed


def _install_marking() -> None:
    """Make Tensor._wrap mark new tensors while this thread is in inference mode."""
    from . import _ops
    from ._tensor import Tensor

    _ops.mark_inference_seen()
    with _inference_lock:
        _inference_users[0] += 1
        if _plain_wrap:
            return
        original = Tensor.__dict__["_wrap"]
        make = original.__func__

        def _wrap(cls, value, grad_fn=None, output_nr: int = 0):
            tensor = make(cls, value, grad_fn, output_nr)
            if _state.inference:
                tensor._is_inference = True
            return tensor

        _plain_wrap.append(original)
        Tensor._wrap = classmethod(_wrap)


def _uninstall_marking() -> None:
    from ._tensor import Tensor

    with _inference_lock:
        _inference_users[0] -= 1
        if _inference_users[0] == 0 and _plain_wrap:
            Tensor._wrap = _plain_wrap.pop()


def is_inference_mode_enabled() -> bool:
    """Return True if inference mode is currently enabled."""
    return _state.inference


class inference_mode(_GradModeContext):
    """Context manager (and decorator) that turns on inference mode: no recording, and
    tensors created inside are inference tensors, which autograd refuses to save later.

    `inference_mode(False)` turns it off inside an inference block, and turns grad mode on,
    as PyTorch's does.

    Args:
        mode (bool or function): enable (True) or disable (False) inference mode; when given
            a function, decorates it with inference_mode(True).

    Example::

        >>> x = torch.ones(1, 2, 3, requires_grad=True)
        >>> with torch.inference_mode():
        ...     y = x * x
        >>> y.requires_grad, y.is_inference()
        (False, True)
    """

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        self._previous = (_state.enabled, _state.inference)
        if self.mode:
            _install_marking()
        _state.enabled = not self.mode
        _state.inference = self.mode

    def __exit__(self, *exc_info: object) -> None:
        _state.enabled, _state.inference = self._previous
        if self.mode:
            _uninstall_marking()

    def clone(self) -> inference_mode:
        return self.__class__(self.mode)
