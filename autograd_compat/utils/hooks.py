"""torch.utils.hooks: RemovableHandle, the handle returned by every register_*_hook."""

from .._state.node import RemovableHandle as RemovableHandle

__all__ = ["RemovableHandle"]
