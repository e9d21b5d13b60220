"""torch._C: the few names of PyTorch's C++ module that Python libraries use at import time.

Dispatch keys and key sets (torchvision registers autocast kernels with them) and
`_ExcludeDispatchKeyGuard`, which turns autocast off inside its block when it excludes the
autocast keys, as PyTorch's guard does for the kernels it wraps. `_TensorMeta` is the metaclass
of `torch.Tensor`, `_nn._parse_to` parses `.to(...)` arguments as PyTorch does, and
`PyTorchFileReader` reads a checkpoint archive's records. Any other name raises an
AttributeError saying it is not supported.
"""

from __future__ import annotations

import enum
from typing import Any

from .._alias import missing_attribute as _missing_attribute
from .._serialization.file_reader import PyTorchFileReader
from .._state import modes as _modes
from .._state import torch_function as _torch_function
from .._state.tensor import Tensor
from .._state.torch_function import (
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    _disabled_torch_function_impl,
)
from .._tape.engine import current_task_id as _current_graph_task_id  # -1 outside a backward
from . import _nn

__all__ = [
    "DisableTorchFunction",
    "DisableTorchFunctionSubclass",
    "_disabled_torch_function_impl",
    "DispatchKey",
    "DispatchKeySet",
    "PyTorchFileReader",
    "_TensorMeta",
    "_current_graph_task_id",
    "_nn",
]

_TensorMeta = type(Tensor)


class DispatchKey(enum.Enum):
    """PyTorch's dispatch keys (the ones Python code names)."""

    Undefined = 0
    CPU = 1
    CUDA = 2
    XPU = 3
    Meta = 4
    BackendSelect = 5
    Python = 6
    ADInplaceOrView = 7
    AutogradOther = 8
    AutogradCPU = 9
    AutogradCUDA = 10
    AutogradXPU = 11
    AutocastCPU = 12
    AutocastCUDA = 13
    AutocastXPU = 14
    Autograd = 15
    CompositeImplicitAutograd = 16
    CompositeExplicitAutograd = 17
    Functionalize = 18
    FuncTorchDynamicLayerFrontMode = 19


_AUTOCAST_DEVICES = {
    DispatchKey.AutocastCPU: "cpu",
    DispatchKey.AutocastCUDA: "cuda",
    DispatchKey.AutocastXPU: "xpu",
}


class DispatchKeySet:
    """A set of dispatch keys (``|`` joins, ``has`` tests)."""

    def __init__(self, *keys: DispatchKey) -> None:
        self._keys = frozenset(keys)

    def __or__(self, other: DispatchKeySet) -> DispatchKeySet:
        return DispatchKeySet(*self._keys, *other._keys)

    def has(self, key: DispatchKey) -> bool:
        return key in self._keys

    def __repr__(self) -> str:
        return f"DispatchKeySet({', '.join(sorted(k.name for k in self._keys))})"


class _ExcludeDispatchKeyGuard:
    """Within the block, the excluded keys are skipped: for autocast keys, autocast is off
    on their devices (the wrapped kernel runs on the dtypes it was given)."""

    def __init__(self, keyset: DispatchKeySet) -> None:
        self.devices = [d for k, d in _AUTOCAST_DEVICES.items() if keyset.has(k)]
        self._restore: list[tuple[str, bool]] = []

    def __enter__(self) -> _ExcludeDispatchKeyGuard:
        self._restore = [(d, _modes.is_autocast_enabled(d)) for d in self.devices]
        for device, _ in self._restore:
            _modes.set_autocast_enabled(device, False)
        return self

    def __exit__(self, *exc_info: object) -> None:
        for device, enabled in self._restore:
            _modes.set_autocast_enabled(device, enabled)


def _get_tracing_state() -> None:
    """TorchScript's tracer is never active here."""
    return None


def _log_api_usage_once(event: str) -> None:
    """PyTorch's usage logging: nothing is logged here."""


# the __torch_function__ state (`_state/torch_function.py`)
_is_torch_function_enabled = _torch_function.is_torch_function_enabled
_is_torch_function_mode_enabled = _torch_function.is_torch_function_mode_enabled
_has_torch_function = _torch_function.has_torch_function


def _has_torch_function_unary(arg) -> bool:
    return _torch_function.has_torch_function((arg,))


def _has_torch_function_variadic(*args) -> bool:
    return _torch_function.has_torch_function(args)


def _len_torch_function_stack() -> int:
    return len(_torch_function.local.modes)


def _get_function_stack_at(index: int):
    return _torch_function.local.modes[index]


def __getattr__(name: str) -> Any:
    return _missing_attribute(__name__, name)
