"""torch.autocast: run the ops on PyTorch's autocast lists in lower precision (or float32).

The context manager sets this thread's autocast state (`_state/modes`); the casts happen where
ops are applied (`_tape/autocast`), so every op front end, module and Tensor method is covered.
"""

from __future__ import annotations

import functools
import warnings

from .._pure import device as _device
from .._pure import dtypes as _dtypes
from .._state import modes as _modes

__all__ = ["autocast", "is_autocast_available"]

_DEVICE_TYPES = ("cpu", "cuda")
_SUPPORTED_DTYPES = (_dtypes.bfloat16, _dtypes.float16)


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast supports `device_type` here ("cpu" and "cuda")."""
    return device_type in _DEVICE_TYPES


class autocast:
    """Context manager (and decorator) for mixed precision, as `torch.autocast`.

    Inside, ops on PyTorch's lower-precision list for `device_type` (matmul, linear, conv,
    bmm, addmm, baddbmm, scaled_dot_product_attention...) run in `dtype`, and ops on its
    float32 list (losses, and on CUDA softmax, log, exp, sum, norms...) in float32; only
    floating tensors other than float64 are cast, and the casts are differentiable, so
    gradients keep the dtype of the tensors they flow to. Nesting, `enabled=False` regions and
    the decorator form work as in PyTorch; the state is thread-local.

    Args:
        device_type (str): "cpu" or "cuda".
        dtype (torch.dtype, optional): the lower-precision dtype: bfloat16 or float16.
            Defaults to `torch.get_autocast_dtype(device_type)` (bfloat16 on CPU, float16 on
            CUDA).
        enabled (bool, optional): whether autocast is on in the region. Defaults to True.
        cache_enabled (bool, optional): accepted for PyTorch's signature; this library does
            not cache the casts of weights (the values are the same). Defaults to None.

    Example::

        >>> linear = nn.Linear(4, 3)
        >>> with torch.autocast("cpu"):
        ...     y = linear(torch.ones(2, 4))
        ...     loss = F.mse_loss(y, torch.zeros(2, 3))
        >>> y.dtype, loss.dtype
        (torch.bfloat16, torch.float32)
    """

    def __init__(
        self,
        device_type: str,
        dtype: _dtypes.dtype | None = None,
        enabled: bool = True,
        cache_enabled: bool | None = None,
    ) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = _modes.get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(device_type):
            raise RuntimeError(
                f"User specified an unsupported autocast device_type '{device_type}'"
            )
        self._cache_enabled = (
            _modes.is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        )
        if enabled and device_type == "cuda" and not _device._jax_devices("gpu"):
            warnings.warn(
                "CUDA is not available or torch_xla is imported. Disabling autocast.",
                stacklevel=2,
            )
            enabled = False
        elif enabled and self.fast_dtype not in _SUPPORTED_DTYPES:
            name = device_type.upper()
            warnings.warn(
                f"In {name} autocast, but the target dtype is not supported. Disabling "
                f"autocast.\n{name} Autocast only supports dtypes of torch.bfloat16, "
                "torch.float16 currently.",
                stacklevel=2,
            )
            enabled = False
        self._enabled = enabled

    def __enter__(self) -> autocast:
        self.prev_cache_enabled = _modes.is_autocast_cache_enabled()
        self.prev = _modes.is_autocast_enabled(self.device)
        self.prev_fastdtype = _modes.get_autocast_dtype(self.device)
        _modes.set_autocast_dtype(self.device, self.fast_dtype)
        _modes.set_autocast_enabled(self.device, self._enabled)
        _modes.set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        _modes.set_autocast_dtype(self.device, self.prev_fastdtype)
        _modes.set_autocast_enabled(self.device, self.prev)
        _modes.set_autocast_cache_enabled(self.prev_cache_enabled)

    def __call__(self, func):
        """Use as a decorator: run `func` inside this autocast region."""
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                "Did you mean to use autocast as a context manager? For example:\n"
                "    with torch.autocast(device_type=...):\n"
                "        output = model(input)"
            )

        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return decorate_autocast
