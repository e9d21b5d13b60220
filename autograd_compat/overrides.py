"""torch.overrides: `TorchFunctionMode`, the base class of modes that see every torch call.

Subclassing it works; entering such a mode (`with MyMode():`) raises NotImplementedError
naming it: the library's functions do not consult a mode stack, so the mode's
`__torch_function__` would never be called and its effect silently lost.
"""

from __future__ import annotations

import warnings

from ._alias import missing_attribute as _missing_attribute

__all__ = ["TorchFunctionMode"]


class TorchFunctionMode:
    """A mode overriding the torch functions called within its `with` block (subclass it and
    define `__torch_function__`); entering one is not supported here (see the module)."""

    inner: TorchFunctionMode

    def __init__(self) -> None:
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        raise NotImplementedError(
            f"torch.overrides.TorchFunctionMode ({type(self).__name__}): entering a torch "
            "function mode is not supported by autograd_compat; its functions do not dispatch "
            "to __torch_function__ modes, so the mode would have no effect"
        )

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        pass

    @classmethod
    def push(cls, *args, **kwargs):
        warnings.warn(
            "`Mode.push()` is no longer necessary and can be replaced with just `with Mode()`",
            stacklevel=2,
        )
        return cls(*args, **kwargs)


def __getattr__(name: str):
    return _missing_attribute(__name__, name)
