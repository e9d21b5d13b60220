"""Grad mode and inference mode: whether new operations are recorded. Thread-local, as in
PyTorch.

`no_grad`, `enable_grad`, `set_grad_enabled` and `inference_mode` work as context managers
and as decorators. Inference mode turns recording off and marks every tensor created inside
it as an inference tensor (`Tensor.is_inference()`), which autograd later refuses to save for
backward. `Tensor._wrap` looks at the thread's flag only while some thread is in inference mode, so
normal tensor creation pays one counter test for it.

Also here: `modes`, the process-wide autograd switches (anomaly mode, forward AD, saved-tensor
hooks, functional traces) that the op mechanism and the engine read on their slow paths; and
the autocast state (`torch.amp.autocast`), thread-local as in PyTorch: while any thread has
autocast on, `modes.special` sends ops to the slow path, which casts their inputs.
"""

from __future__ import annotations

import functools
import inspect
import threading
import weakref

from .._pure import dtypes as _dtypes

__all__ = [  # the grad-mode switches that both torch and torch.autograd export
    "enable_grad",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "no_grad",
    "set_grad_enabled",
]


class _State(threading.local):
    """Per-thread flags; each new thread starts with grad mode on and autocast off, as in
    PyTorch."""

    def __init__(self) -> None:
        self.enabled = True
        self.inference = False
        self.autocast: dict[str, _dtypes.dtype] = {}  # device type -> dtype, where it is on
        self.autocast_dtypes = dict(_AUTOCAST_DEFAULT_DTYPES)
        self.autocast_cache = True


_AUTOCAST_DEFAULT_DTYPES = {"cpu": _dtypes.bfloat16, "cuda": _dtypes.float16}


_state = _State()


class _Traces(threading.local):
    """Per-thread: the traces in progress in this thread (see `_Modes.traces`)."""

    def __init__(self) -> None:
        self.traces: list = []
        self.captures: list = []


_traces = _Traces()
_trace_lock = threading.RLock()  # held by the thread whose trace binds tracers (`hold_traces`)


class _Modes:
    """Process-wide autograd switches read on slow paths (PyTorch keeps these global too)."""

    __slots__ = (
        "anomaly",
        "check_nan",
        "executing",
        "fw_level",
        "duals",
        "tracing",
        "saved_hooks",
        "inference_users",
        "inference_seen",
        "special",
        "autocast_users",
        "observers",
        "deterministic",
    )

    def __init__(self) -> None:
        self.anomaly = False
        self.check_nan = True
        self.executing: list = []  # nodes whose backward is running (anomaly "parent_")
        self.fw_level: int | None = None  # the forward-AD level while a dual_level is open
        self.duals: weakref.WeakSet = weakref.WeakSet()  # tensors holding a tangent at that level
        self.tracing = 0  # `hold_traces` depth of the thread holding the trace lock
        self.saved_hooks = 0  # saved_tensors_hooks contexts open, in any thread
        self.inference_users = 0  # inference_mode(True) contexts open, in any thread
        self.inference_seen = False  # an inference tensor was ever made: recording checks
        self.special = False  # one of the slow modes below is on: `apply` takes its slow path
        self.autocast_users = 0  # devices with autocast on, summed over threads
        self.observers: list = []  # callables told of every op run (profilers, FLOP counters)
        self.deterministic = False  # every call runs each op's own program, every backward
        # each node's (`torch.use_deterministic_algorithms`): the same bits on every call

    @property
    def traces(self) -> list:
        """The traces in progress in this thread (autograd.functional's and torch.compile's):
        a JAX trace belongs to the thread that runs it, so another thread's ops and writes
        are no part of it."""
        return _traces.traces

    @property
    def captures(self) -> list:
        """The torch.compile traces in progress in this thread (they are in `traces` too)."""
        return _traces.captures

    def enter_trace(self, trace, *, capture: bool = False) -> None:
        """`trace` starts in this thread (a torch.compile trace with `capture`)."""
        self.hold_traces()
        _traces.traces.append(trace)
        if capture:
            _traces.captures.append(trace)

    def leave_trace(self, trace) -> None:
        """`trace`, entered in this thread, has ended."""
        _traces.traces.remove(trace)
        if trace in _traces.captures:
            _traces.captures.remove(trace)
        self.release_traces()

    def hold_traces(self) -> None:
        """A trace in this thread is about to bind tensors' values to its tracers: until
        `release_traces`, another thread's trace waits, and so does another thread's op
        (`special` sends it to the slow path, which calls `wait_for_traces`). Reentrant."""
        _trace_lock.acquire()
        self.tracing += 1
        self.refresh_special()

    def release_traces(self) -> None:
        """Undo one `hold_traces` (the tensors hold their own values again)."""
        self.tracing -= 1
        self.refresh_special()
        _trace_lock.release()

    def wait_for_traces(self) -> None:
        """Wait until no other thread holds its tensors bound to tracers (a no-op in the
        thread that traces)."""
        with _trace_lock:
            pass

    def note_read(self, tensor) -> None:
        """Library code reads `tensor`'s value directly, not as an op input: let a
        torch.compile trace in progress see it (call only when `captures` is not empty)."""
        self.captures[-1].read(tensor)

    def written(self, tensor) -> None:
        """`tensor` is about to be rebound inside a trace: the innermost torch.compile trace
        and every functional trace (which undo such writes) keep its state first."""
        for trace in self.traces:
            if trace not in self.captures:
                trace.written(tensor)
        if self.captures:
            self.captures[-1].written(tensor)

    def runtime_input(self, getter):
        """`getter()`, a value library code reads from Python state (an optimizer's learning
        rate); inside a torch.compile trace, a runtime input of the compiled program."""
        if self.captures:
            return self.captures[-1].runtime(getter)
        return getter()

    def refresh_special(self) -> None:
        """Recompute `special` after a mode was entered or left: forward-mode AD (a dual
        level), anomaly detection, saved-tensor hooks, an autograd.functional trace, autocast
        or an op observer."""
        self.special = bool(
            self.observers
            or self.anomaly
            or self.saved_hooks
            or self.fw_level is not None
            or self.tracing
            or self.autocast_users
        )


modes = _Modes()


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


class _BareDecorator(_GradModeContext):
    """A mode that also decorates without parentheses (`@torch.no_grad`), as PyTorch's do."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_BareDecorator):
    """Disable recording: results of operations do not require grad.

    Example::

        >>> x = torch.ones(2, requires_grad=True)
        >>> with torch.no_grad():
        ...     y = x * 2
        >>> y.requires_grad
        False
    """

    _target = False


class enable_grad(_BareDecorator):
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


def _enter_inference() -> None:
    """Count one more open inference_mode(True) context (any thread): while any is open,
    `Tensor._wrap` marks the tensors it makes in a thread that is in inference mode."""
    with _inference_lock:
        modes.inference_users += 1
        modes.inference_seen = True


def _leave_inference() -> None:
    with _inference_lock:
        modes.inference_users -= 1


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
        self._previous_modes = (_state.enabled, _state.inference)
        if self.mode:
            _enter_inference()
        _state.enabled = not self.mode
        _state.inference = self.mode

    def __exit__(self, *exc_info: object) -> None:
        _state.enabled, _state.inference = self._previous_modes
        if self.mode:
            _leave_inference()

    def clone(self) -> inference_mode:
        return self.__class__(self.mode)


# ----------------------------------------------------------------------------- autocast
_autocast_lock = threading.Lock()


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    """Whether autocast is on for `device_type` in this thread (CUDA when not given)."""
    return device_type in _state.autocast


def set_autocast_enabled(device_type: str, enabled: bool) -> None:
    """Turn autocast on or off for `device_type` in this thread, at its current dtype."""
    was = device_type in _state.autocast
    if enabled:
        _state.autocast[device_type] = get_autocast_dtype(device_type)
    else:
        _state.autocast.pop(device_type, None)
    if was != bool(enabled):
        with _autocast_lock:
            modes.autocast_users += 1 if enabled else -1
            modes.refresh_special()


def get_autocast_dtype(device_type: str) -> _dtypes.dtype:
    """The dtype autocast runs lower-precision ops in on `device_type` (this thread)."""
    return _state.autocast_dtypes.get(device_type, _dtypes.float16)


def set_autocast_dtype(device_type: str, dtype: _dtypes.dtype) -> None:
    """Set the lower-precision dtype of `device_type`'s autocast (this thread)."""
    _state.autocast_dtypes[device_type] = dtype
    if device_type in _state.autocast:
        _state.autocast[device_type] = dtype


def is_autocast_cache_enabled() -> bool:
    """Whether autocast may keep the casts of leaf tensors (accepted; casts are not cached)."""
    return _state.autocast_cache


def set_autocast_cache_enabled(enabled: bool) -> None:
    _state.autocast_cache = bool(enabled)
