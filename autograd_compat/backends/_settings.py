"""The process-wide settings behind torch.set_float32_matmul_precision, set_num_threads and
use_deterministic_algorithms."""

from __future__ import annotations

import os
import warnings

import jax

from .._defer import lazy as _lazy
from .._state.modes import modes

__all__ = [
    "are_deterministic_algorithms_enabled",
    "get_deterministic_debug_mode",
    "get_float32_matmul_precision",
    "get_num_interop_threads",
    "get_num_threads",
    "is_deterministic_algorithms_warn_only_enabled",
    "set_deterministic_debug_mode",
    "set_float32_matmul_precision",
    "set_num_interop_threads",
    "set_num_threads",
    "use_deterministic_algorithms",
]

# PyTorch's float32 matmul precision -> jax_default_matmul_precision. The library's own
# matmuls and convolutions always ask for HIGHEST (PyTorch's default "highest": exact float32
# products), so the setting reaches only JAX code that leaves the precision unset (user code
# through `to_jax`, say); on CPU every level computes in float32.
_JAX_PRECISION = {"highest": "highest", "high": "high", "medium": "default"}
_settings: dict = {
    "precision": "highest",
    "threads": os.cpu_count() or 1,
    "interop": os.cpu_count() or 1,
    "warn_only": False,
    "deferring": _lazy.ENABLED,  # whether ops defer outside the deterministic mode
}


def set_float32_matmul_precision(precision: str) -> None:
    """Set the float32 matmul precision: "highest" (default), "high" or "medium".

    Mapped onto `jax_default_matmul_precision` ("highest", "high", "default"); see the module
    docstring for what it reaches. Another value warns and changes nothing, as in PyTorch.
    """
    if precision not in _JAX_PRECISION:
        warnings.warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
            "setFloat32MatmulPrecision call has no effect.",
            UserWarning,
            stacklevel=2,
        )
        return
    _settings["precision"] = precision
    jax.config.update("jax_default_matmul_precision", _JAX_PRECISION[precision])


def get_float32_matmul_precision() -> str:
    """The current float32 matmul precision ("highest" unless set)."""
    return _settings["precision"]


def set_num_threads(num: int) -> None:
    """Record the intra-op thread count PyTorch scripts set. XLA sizes its CPU thread pool
    when its backend starts (XLA_FLAGS), so this does not resize it."""
    if not isinstance(num, int) or num <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _settings["threads"] = num


def get_num_threads() -> int:
    """The thread count last set (default: the number of CPUs)."""
    return _settings["threads"]


def set_num_interop_threads(num: int) -> None:
    """Record the inter-op thread count (see `set_num_threads`)."""
    if not isinstance(num, int) or num <= 0:
        raise RuntimeError("Expected positive number of threads")
    _settings["interop"] = num


def get_num_interop_threads() -> int:
    return _settings["interop"]


def _bool_arg(value, name: str) -> bool:
    """PyTorch's TypeError for a deterministic-mode flag that is not a bool."""
    if not isinstance(value, bool):
        where = "'mode' (position 1)" if name == "mode" else f"'{name}'"
        raise TypeError(
            f"_set_deterministic_algorithms(): argument {where} must be bool, not "
            f"{type(value).__name__}"
        )
    return value


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """PyTorch's deterministic-algorithms switch: on, the same code on the same values gives
    the same bits on every call.

    Off, a first call and later ones run different programs: small ops are deferred and run
    as one program from their third meeting, and a backward met again runs as one fused
    program. Those may round differently from the ops' own programs in the last bit, so
    training twice from one seed in one process can differ by an ulp. On, every op runs its
    own program at its call and every backward runs node by node: slower, the same bits each
    time. No op here is nondeterministic, so none raises or warns (`warn_only` is recorded)."""
    mode = _bool_arg(mode, "mode")
    _settings["warn_only"] = _bool_arg(warn_only, "warn_only")
    if mode and not modes.deterministic:
        _settings["deferring"] = _lazy.ENABLED
        _lazy.flush_current()
        _lazy.ENABLED = False
    elif modes.deterministic and not mode:
        _lazy.ENABLED = _settings["deferring"]
    modes.deterministic = mode


def are_deterministic_algorithms_enabled() -> bool:
    """Whether `use_deterministic_algorithms(True)` is in force."""
    return modes.deterministic


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether the deterministic mode was set with `warn_only=True`."""
    return _settings["warn_only"]


_DEBUG_MODES = ("default", "warn", "error")


def set_deterministic_debug_mode(debug_mode: int | str) -> None:
    """The same switch by level: 0/"default" off, 1/"warn" warn-only, 2/"error" on."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`, but "
                f"got {debug_mode}"
            )
        debug_mode = _DEBUG_MODES.index(debug_mode)
    elif not isinstance(debug_mode, int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(
            f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}"
        )
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """0 when the deterministic mode is off, 1 when warn-only, 2 when on."""
    if not modes.deterministic:
        return 0
    return 1 if _settings["warn_only"] else 2
