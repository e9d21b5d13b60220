"""torch.utils.checkpoint: activation checkpointing that recomputes the forward in the backward.

Both of PyTorch's variants, with its semantics:
- ``use_reentrant=True``: a custom autograd Function runs the function under ``no_grad`` (no
  graph, nothing saved but the inputs); its backward reruns it with grad on from detached
  inputs and backpropagates through the rerun (``torch.autograd.backward``), so parameters the
  function reads get their ``.grad`` and the inputs' gradients flow on.
- ``use_reentrant=False``: the function runs with grad on under a saved-tensor hook whose pack
  keeps only a handle (the values a node saves are dropped); the first unpack in a backward
  reruns the function under a hook that collects the recomputed values in the same order,
  which the graph's nodes then read, and stops it once all are back (``early_stop``). This
  works with ``torch.autograd.grad`` and kwargs.
The RNG state of the forward is restored for the rerun (dropout draws the same mask) and the
autocast state is the forward's.
"""

from __future__ import annotations

import contextlib
import warnings
import weakref
from collections.abc import Callable
from typing import Any, NamedTuple

from .. import nn
from .._alias import missing_attribute as _missing_attribute
from .._state import modes as _modes
from .._state.random import get_rng_state, set_rng_state
from .._state.tensor import Tensor
from .._tape.backward import backward as _backward
from .._tape.engine import runs_whole_graph
from ..amp.autocast_mode import autocast
from ..autograd import function as _function
from ..autograd.graph import saved_tensors_hooks

__all__ = [
    "DefaultDeviceType",
    "CheckpointError",
    "CheckpointFunction",
    "check_backward_validity",
    "checkpoint",
    "checkpoint_sequential",
    "detach_variable",
    "get_device_states",
    "noop_context_fn",
    "set_checkpoint_debug_enabled",
    "set_checkpoint_early_stop",
    "set_device_states",
]

_DEBUG_TIP = """
Tip: To see a more detailed error message, either pass `debug=True` to
`torch.utils.checkpoint.checkpoint(...)` or wrap the code block
with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to
enable checkpoint‑debug mode globally.
"""


class CheckpointError(RuntimeError):
    """The recomputation saved other tensors than the original forward."""


def noop_context_fn() -> tuple[contextlib.nullcontext, contextlib.nullcontext]:
    """The default ``context_fn``: no context around the forward nor the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


_early_stop: list[bool] = []  # set_checkpoint_early_stop's setting, innermost last


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool):
    """Within the block, whether a non-reentrant recomputation stops once it has recomputed
    every saved tensor (overrides ``checkpoint(early_stop=)``)."""
    _early_stop.append(enable)
    try:
        yield
    finally:
        _early_stop.pop()


class _StopRecomputation(Exception):
    """Raised by the recomputation's pack hook once every saved tensor is recomputed."""


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None):
    """Accepted for PyTorch compatibility: the error messages are the same either way."""
    yield


class DefaultDeviceType:
    """The device type checkpointing assumes when no input is on a non-CPU device."""

    _default_device_type: str | None = None

    @staticmethod
    def set_device_type(device: str = "cuda") -> None:
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type() -> str:
        return DefaultDeviceType._default_device_type or "cpu"


def get_device_states(*args: Any) -> tuple[list[int], list[Tensor]]:
    """Per-device RNG states of the inputs' devices: none, as every device draws from the one
    generator whose (CPU) state the checkpoint saves."""
    return [], []


def set_device_states(devices: list, states: list, *, device_type: str | None = None) -> None:
    """Set per-device RNG states: only the empty lists `get_device_states` gives exist here."""
    if devices or states:
        raise RuntimeError(
            "torch.utils.checkpoint.set_device_states: autograd_compat has one generator for "
            "every device; set it with torch.set_rng_state"
        )


def detach_variable(inputs: tuple) -> tuple:
    """Detach the tensors of a tuple, keeping each one's ``requires_grad``."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(
            "Only tuple of tensors is supported. Got Unsupported input type: "
            f"{type(inputs).__name__}"
        )
    out = []
    for inp in inputs:
        if isinstance(inp, Tensor):
            detached = inp.detach()
            detached.requires_grad = inp.requires_grad
            inp = detached
        out.append(inp)
    return tuple(out)


def check_backward_validity(inputs) -> None:
    """Warn (as PyTorch) when no input requires grad: the reentrant variant gives no grads."""
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, Tensor)):
        warnings.warn(
            "None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2
        )


class _ForwardState(NamedTuple):
    """What the rerun must see as the forward did: the RNG state and CPU autocast."""

    rng: Any
    autocast_enabled: bool
    autocast_dtype: Any

    @staticmethod
    def capture(preserve_rng_state: bool) -> _ForwardState:
        rng = get_rng_state() if preserve_rng_state else None
        cpu = _modes.is_autocast_enabled("cpu"), _modes.get_autocast_dtype("cpu")
        return _ForwardState(rng, *cpu)

    @contextlib.contextmanager
    def restored(self):
        """Run the block with the forward's RNG state and autocast; the RNG is put back after."""
        if self.rng is None:
            with autocast("cpu", enabled=self.autocast_enabled, dtype=self.autocast_dtype):
                yield
            return
        outer = get_rng_state()
        set_rng_state(self.rng)
        try:
            with autocast("cpu", enabled=self.autocast_enabled, dtype=self.autocast_dtype):
                yield
        finally:
            set_rng_state(outer)


class CheckpointFunction(_function.Function):
    """The reentrant variant: forward without a graph, backward by rerunning the function."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.state = _ForwardState.capture(preserve_rng_state)
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*(a for a in args if isinstance(a, Tensor)))
        with _modes.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not runs_whole_graph():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible"
                " with .grad() or passing an `inputs` parameter to .backward()."
                " To resolve this error, you can either set use_reentrant=False,"
                " or call .backward() without passing the `inputs` argument."
            )
        inputs = list(ctx.inputs)
        for index, tensor in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[index] = tensor
        with ctx.state.restored():
            detached = detach_variable(tuple(inputs))
            with _modes.enable_grad():
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [
            (out, grad)
            for out, grad in zip(outputs, grads)
            if isinstance(out, Tensor) and out.requires_grad
        ]
        if not pairs:
            raise RuntimeError(
                "none of output has requires_grad=True, this checkpoint() is not necessary"
            )
        _backward([out for out, _ in pairs], [grad for _, grad in pairs])
        return (None, None) + tuple(
            inp.grad if isinstance(inp, Tensor) else None for inp in detached
        )


class _Metadata(NamedTuple):
    """What the default determinism check compares between a saved and a recomputed tensor."""

    shape: Any
    dtype: Any
    device: Any

    def __str__(self) -> str:
        return f"{{'shape': {self.shape}, 'dtype': {self.dtype}, 'device': {self.device}}}"


def _metadata(x: Tensor) -> _Metadata:
    return _Metadata(x.shape, x.dtype, x.device)


_DETERMINISM_CHECKS: dict[str, Callable[[Tensor], Any] | None] = {
    "default": _metadata,
    "none": None,
}


class _Holder:
    """What the forward's pack hook keeps in place of a saved tensor: its position."""

    __slots__ = ("index", "__weakref__")

    def __init__(self, index: int) -> None:
        self.index = index


class _Frame:
    """One non-reentrant checkpointed call: its handles and, once rerun, the recomputed values."""

    def __init__(self, recompute: Callable[[], Any], metadata_fn, early_stop: bool) -> None:
        self.recompute = recompute
        self.metadata_fn = metadata_fn
        self.early_stop = early_stop
        self.holders: list[weakref.ref] = []
        self.metadata: list[Any] = []
        self.recomputed: dict[int, Tensor] = {}

    def pack(self, x: Tensor) -> _Holder:
        holder = _Holder(len(self.holders))
        self.holders.append(weakref.ref(holder))
        if self.metadata_fn is not None:
            self.metadata.append(self.metadata_fn(x))
        return holder

    def unpack(self, holder: _Holder) -> Tensor:
        if holder.index not in self.recomputed:
            self._rerun()
        return self.recomputed[holder.index]  # kept: a backward may read a value twice

    def _rerun(self) -> None:
        values: list[Tensor] = []

        def keep(x: Tensor) -> None:
            values.append(x.detach() if x.requires_grad else x)
            if self.early_stop and len(values) == len(self.holders):
                raise _StopRecomputation

        try:
            with saved_tensors_hooks(keep, _no_unpack), _modes.enable_grad():
                self.recompute()
        except _StopRecomputation:
            pass
        if len(values) != len(self.holders):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved "
                "during the original forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.holders)}\n"
                f"Number of tensors saved during recomputation: {len(values)}.\n{_DEBUG_TIP}"
            )
        live = [i for i, ref in enumerate(self.holders) if ref() is not None]
        self._check_metadata(live, values)
        self.recomputed = {i: values[i] for i in live}

    def _check_metadata(self, live: list[int], values: list[Tensor]) -> None:
        if self.metadata_fn is None:
            return
        different = ""
        for i in live:
            now = self.metadata_fn(values[i])
            if now != self.metadata[i]:
                different += (
                    f"tensor at position {i}:\nsaved metadata: {self.metadata[i]}\n"
                    f"recomputed metadata: {now}\n"
                )
        if different:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have "
                f"different metadata than during the forward pass.\n{different}.\n{_DEBUG_TIP}"
            )


def _no_unpack(_):
    raise AssertionError("torch.utils.checkpoint: a recomputed value was unpacked")


def _without_reentrant(function, preserve, context_fn, determinism_check, early_stop, args, kwargs):
    if determinism_check not in _DETERMINISM_CHECKS:
        raise ValueError(
            f"determinism_check should be one of {list(_DETERMINISM_CHECKS)}, "
            f"but got {determinism_check}"
        )
    forward_context, recompute_context = context_fn()
    if not _modes.is_grad_enabled():
        with forward_context:
            return function(*args, **kwargs)
    state = _ForwardState.capture(preserve)

    def recompute() -> None:
        with state.restored(), recompute_context:
            function(*args, **kwargs)

    stop = _early_stop[-1] if _early_stop else early_stop
    frame = _Frame(recompute, _DETERMINISM_CHECKS[determinism_check], stop)
    with saved_tensors_hooks(frame.pack, frame.unpack), forward_context:
        return function(*args, **kwargs)


_RECOMMENDATION = (
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants."
)


def _no_other_keywords(kwargs: dict) -> None:
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))


def checkpoint(
    function,
    *args,
    use_reentrant: bool | None = None,
    context_fn: Callable[[], tuple] = noop_context_fn,
    determinism_check: str = "default",
    debug: bool = False,
    early_stop: bool = True,
    **kwargs,
):
    """Checkpoint a model or part of the model: recompute its activations in the backward.

    Args:
        function: what to run on ``*args`` (and ``**kwargs``).
        use_reentrant: which variant (see the module docstring); pass it explicitly (unset, it
            warns and uses ``True``, as PyTorch).
        context_fn: returns two context managers, for the forward and the recomputation
            (``use_reentrant=False`` only).
        determinism_check: ``"default"`` compares shapes, dtypes and devices of recomputed
            tensors with the saved ones; ``"none"`` skips it.
        debug: accepted; the error messages are the same either way.
        early_stop: stop the recomputation once every saved tensor is recomputed
            (``use_reentrant=False``; `set_checkpoint_early_stop` overrides it).
        preserve_rng_state (keyword): restore the forward's RNG state for the rerun
            (default ``True``).

    Returns:
        What ``function(*args, **kwargs)`` returns.

    Example:
        >>> lin = torch.nn.Linear(3, 3)
        >>> x = torch.ones(2, 3, requires_grad=True)
        >>> y = torch.utils.checkpoint.checkpoint(lin, x, use_reentrant=False)
        >>> y.sum().backward()
        >>> x.grad.shape
        torch.Size([2, 3])
    """
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be "
            "passed explicitly. Starting in PyTorch 2.9, calling checkpoint "
            "without use_reentrant will raise an exception. " + _RECOMMENDATION,
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if not use_reentrant:
        return _without_reentrant(
            function, preserve, context_fn, determinism_check, early_stop, args, kwargs
        )
    _no_other_keywords(kwargs)
    if context_fn is not noop_context_fn or debug is not False:
        raise ValueError(
            "Passing `context_fn` or `debug` is only supported when use_reentrant=False."
        )
    return CheckpointFunction.apply(function, preserve, *args)


def _run_segment(functions: list, start: int, end: int) -> Callable[[Any], Any]:
    def forward(input):
        for j in range(start, end + 1):
            input = functions[j](input)
        return input

    return forward


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Checkpoint a sequential model: every segment but the last is rerun in the backward.

    Args:
        functions: an ``nn.Sequential`` or a list of modules/functions run in order.
        segments: how many chunks to split them into.
        input: the Tensor fed to the first function.
        use_reentrant: as in `checkpoint`.
        preserve_rng_state (keyword): as in `checkpoint`.
    """
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant "
            "parameter should be passed explicitly. "
            "In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. " + _RECOMMENDATION,
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    _no_other_keywords(kwargs)
    if isinstance(functions, nn.Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(
            _run_segment(functions, start, end),
            input,
            use_reentrant=use_reentrant,
            preserve_rng_state=preserve,
        )
    return _run_segment(functions, end + 1, len(functions) - 1)(input)


def __getattr__(name: str) -> Any:
    return _missing_attribute(__name__, name)
