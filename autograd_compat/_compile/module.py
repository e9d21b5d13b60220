"""`torch.compile(module)`: PyTorch's `OptimizedModule`, whose calls are compiled."""

from __future__ import annotations

from ..nn.modules.module import Module
from .function import CompiledFunction


class OptimizedModule(Module):
    """A module whose `__call__` (forward and its hooks) runs as one compiled program.

    The original module is `_orig_mod` (a submodule, so `state_dict()` keys start with
    `_orig_mod.` as PyTorch's do); parameters and buffers are its own, shared. Attributes not
    found here are looked up on it.
    """

    def __init__(self, mod: Module, compiled: CompiledFunction) -> None:
        super().__init__()
        self._orig_mod = mod
        object.__setattr__(self, "_compiled_call", compiled)
        self.training = mod.training

    def forward(self, *args, **kwargs):
        return self._compiled_call(*args, **kwargs)

    def __getattr__(self, name: str):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["_orig_mod"], name)
