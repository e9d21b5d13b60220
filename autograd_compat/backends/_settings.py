"""The process-wide settings behind torch.set_float32_matmul_precision and set_num_threads."""

from __future__ import annotations

import os
import warnings

import jax

__all__ = [
    "get_float32_matmul_precision",
    "get_num_interop_threads",
    "get_num_threads",
    "set_float32_matmul_precision",
    "set_num_interop_threads",
    "set_num_threads",
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
