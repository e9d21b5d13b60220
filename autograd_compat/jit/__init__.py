"""torch.jit: `script` and `trace` return what they are given, which runs eagerly (no
TorchScript compilation: each op is already a jitted XLA computation, and `torch.compile`
compiles whole functions), so no object is a `ScriptModule` or `ScriptFunction`: those classes
exist for isinstance checks. `save`/`load` of TorchScript archives are not supported.

The decorators libraries apply for TorchScript's sake (`_overload_method`, `interface`,
`script_if_tracing`) do what they do in eager PyTorch: return the function or class.
"""

from typing import Final

from ..nn.modules.module import Module
from . import annotations

__all__ = [
    "Final",
    "ScriptFunction",
    "ScriptModule",
    "annotate",
    "export",
    "ignore",
    "interface",
    "is_scripting",
    "is_tracing",
    "load",
    "save",
    "script",
    "script_if_tracing",
    "trace",
    "unused",
]


class ScriptModule(Module):
    """The class of TorchScript modules; `script` returns modules unchanged, so none is one."""


class ScriptFunction:
    """The class of TorchScript functions; `script` returns functions unchanged, so none is."""

    def __init__(self, *args, **kwargs) -> None:
        raise TypeError("torch.jit.ScriptFunction: No constructor defined")


def script(obj, optimize=None, _frames_up: int = 0, _rcb=None, example_inputs=None):
    """Return `obj` (a function or Module) unchanged: it runs as Python, not TorchScript."""
    return obj


def trace(func, example_inputs=None, *args, **kwargs):
    """Return `func` unchanged (no graph is recorded; calls run the Python code each time)."""
    return func


def ignore(drop=False, **kwargs):
    """The decorator TorchScript uses to leave a function in Python: a no-op here."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    return fn


def export(fn):
    return fn


def annotate(the_type, the_value):
    return the_value


def script_if_tracing(fn):
    """Script `fn` when it is called under tracing: no tracing here, so it is `fn`."""
    return fn


_script_if_tracing = script_if_tracing


def _overload(func):
    """A TorchScript overload declaration of a function: the Python definition that follows
    it is the one that runs, as in eager PyTorch."""
    return func


_overload_method = _overload


def interface(obj):
    """Declare a TorchScript interface (a class or module type): used as is in Python."""
    return obj


def is_scripting() -> bool:
    return False


def is_tracing() -> bool:
    return False


def save(m, f, _extra_files=None) -> None:
    raise NotImplementedError(
        "torch.jit.save is not supported by autograd_compat (there is no TorchScript): save "
        "the weights with torch.save(model.state_dict(), f)"
    )


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    raise NotImplementedError(
        "torch.jit.load is not supported by autograd_compat (TorchScript archives cannot be "
        "read): rebuild the model in Python and load a state_dict saved with torch.save"
    )
