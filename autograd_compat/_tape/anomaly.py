"""Anomaly mode: its switches (`torch.autograd.detect_anomaly`) and what the engine reports.

While anomaly mode is on, every node records the user's stack at its creation
(`grad_fn.metadata["traceback_"]`, and `"parent_"`: the node whose backward created it under
create_graph), the engine runs the stepwise executor only and calls each node through
`call_node`: it checks the results for NaN (PyTorch's "Function 'XBackward0' returned nan
values in its 0th output.") and, when a node's backward fails, warns the forward traceback of
that node before the error propagates. `autograd.anomaly_mode` re-exports the public names.
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from types import FrameType

import jax.numpy as jnp

from .._state.modes import modes

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on."""
    return modes.anomaly


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection checks backward results for NaN."""
    return modes.check_nan


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turn anomaly detection on or off (process-wide, as in PyTorch)."""
    if not isinstance(enabled, bool):
        raise TypeError(
            "set_anomaly_enabled(): argument 'enabled' (position 1) must be bool, not "
            f"{type(enabled).__name__}"
        )
    modes.anomaly = enabled
    modes.check_nan = bool(check_nan)
    modes.refresh_special()


class detect_anomaly:
    """Context manager (and decorator) that enables anomaly detection for the autograd engine.

    Args:
        check_nan (bool): raise when a backward produces NaN. Default: True.

    Example::

        >>> x = torch.zeros(2, requires_grad=True)
        >>> with torch.autograd.detect_anomaly():
        ...     out = x.sqrt() * 0  # inf * 0 in the backward at x == 0
        ...     out.sum().backward()
        Traceback (most recent call last):
            ...
        RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should "
            "only be enabled for debugging.",
            UserWarning,
            stacklevel=2,
        )

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args: object) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)

    def __call__(self, func):
        return _with_anomaly(func, True, self.check_nan)


def _with_anomaly(func, mode: bool, check_nan: bool):
    """`func` run with anomaly detection set to (mode, check_nan), restored afterwards (the
    decorator form of detect_anomaly and set_detect_anomaly)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        previous = (is_anomaly_enabled(), is_anomaly_check_nan_enabled())
        set_anomaly_enabled(mode, check_nan)
        try:
            return func(*args, **kwargs)
        finally:
            set_anomaly_enabled(*previous)

    return wrapper


class set_detect_anomaly:
    """Set anomaly detection on or off, at once; restored on exit when used as a context.

    Args:
        mode (bool): enable (True) or disable (False) anomaly detection.
        check_nan (bool): raise when a backward produces NaN. Default: True.
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        self._arguments = (mode, check_nan)
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args: object) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)

    def __call__(self, func):
        set_anomaly_enabled(self.prev, self.prev_check_nan)
        return _with_anomaly(func, *self._arguments)


# ----------------------------------------------------------------------------- engine side
def call_node(call, node, cts: list, create_graph: bool) -> list:
    """`call(node, cts, create_graph)`, a node's backward, in anomaly mode: the node is the
    "parent_" of nodes recorded meanwhile, its results are checked for NaN, and on any error
    the forward traceback of the node (and of its parents) is warned, as PyTorch does."""
    modes.executing.append(node)
    try:
        grads = call(node, cts, create_graph)
        if modes.check_nan:
            for i, grad in enumerate(grads):
                if grad is not None and bool(jnp.isnan(grad._value).any()):
                    raise RuntimeError(
                        f"Function '{node.name()}' returned nan values in its {i}th output."
                    )
        return grads
    except Exception:
        warn_forward_traceback(node)
        raise
    finally:
        modes.executing.pop()


def _user_stacklevel() -> int:
    """The warnings stacklevel of the first caller outside this package (the user's
    `.backward()` line), as PyTorch's warning points at the call into the engine."""
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    return level


def warn_forward_traceback(node) -> None:
    """PyTorch's anomaly-mode warning: the forward stack that created `node` (and parents)."""
    stacklevel = _user_stacklevel() + 1
    stack = node.metadata.get("traceback_")
    if stack is None:
        warnings.warn(
            f"Error detected in {node.name()}. No forward pass information available. Enable "
            "detect anomaly during forward pass for more information.",
            UserWarning,
            stacklevel=stacklevel,
        )
        return
    warnings.warn(
        f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n"
        + "".join(stack),
        UserWarning,
        stacklevel=stacklevel,
    )
    parent = node.metadata.get("parent_")
    while parent is not None:
        stack = parent.metadata.get("traceback_")
        if stack is None:
            break
        warnings.warn(
            f"\n\nPrevious calculation was induced by {parent.name()}. Traceback of forward call "
            "that induced the previous calculation:\n" + "".join(stack),
            UserWarning,
            stacklevel=stacklevel,
        )
        parent = parent.metadata.get("parent_")
