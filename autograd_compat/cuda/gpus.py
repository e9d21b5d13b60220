"""The JAX GPUs behind torch.cuda, and the one for a torch.cuda `device` argument."""

from __future__ import annotations

import jax

from .._pure import device as _device
from .._pure import errors as _errors


def gpus() -> tuple:
    """JAX's GPUs (empty without a GPU backend)."""
    return _device._jax_devices("gpu")


def gpu(device=None) -> jax.Device:
    """The JAX GPU for a torch.cuda `device` argument (None: the current one); PyTorch's
    AssertionError without a GPU."""
    if not gpus():
        raise AssertionError(f"{_errors.NO_CUDA} (JAX has no GPU backend here)")
    if device is None:
        return gpus()[0]
    if isinstance(device, int):
        device = _device.device("cuda", device)
    return _device.to_jax(device)
