"""torch.autograd.anomaly_mode: detect_anomaly and set_detect_anomaly.

While anomaly mode is on, every node records the user's stack at its creation
(`grad_fn.metadata["traceback_"]`, and `"parent_"`: the node whose backward created it under
create_graph), the engine runs the stepwise executor only, checks each backward result for
NaN (PyTorch's "Function 'XBackward0' returned nan values in its 0th output.") and, when a
node's backward fails, warns the forward traceback of that node before the error propagates.
"""

from __future__ import annotations

import functools
import warnings

from .._state.modes import modes

__all__ = [
    "detect_anomaly",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "set_anomaly_enabled",
    "set_detect_anomaly",
]


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

        >>> with torch.autograd.detect_anomaly():
        ...     out = x.sqrt() * 0          # inf * 0 in the backward at x == 0
        ...     out.sum().backward()        # RuntimeError: Function 'SqrtBackward0' returned
        ...                                 # nan values in its 0th output.
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
        check_nan = self.check_nan

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            previous = (is_anomaly_enabled(), is_anomaly_check_nan_enabled())
            set_anomaly_enabled(True, check_nan)
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
        mode, check_nan = self._arguments

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            previous = (is_anomaly_enabled(), is_anomaly_check_nan_enabled())
            set_anomaly_enabled(mode, check_nan)
            try:
                return func(*args, **kwargs)
            finally:
                set_anomaly_enabled(*previous)

        return wrapper
