"""torch.fx._symbolic_trace: `wrap`, `Tracer` and `symbolic_trace`."""

from __future__ import annotations

import inspect

from ._unavailable import Unavailable, unavailable

__all__ = ["Tracer", "symbolic_trace", "wrap"]

# (id of a module's globals, function name) -> those globals: what a trace would keep as calls.
_wrapped_fns_to_patch: dict[tuple[int, str], dict] = {}


def wrap(fn_or_name):
    """Register a module-level function (or its name) as a leaf of symbolic traces, and
    return the argument unchanged. Call it at the top level of the function's module.

    Example::

        >>> def scale(x):
        ...     return x * 2
        >>> torch.fx.wrap(scale) is scale  # doctest: +SKIP (a module's top level only)
        True
    """
    if not (isinstance(fn_or_name, str) or callable(fn_or_name)):
        raise RuntimeError(
            "Unsupported type for global function! Must be either a callable or string name"
        )
    name = fn_or_name if isinstance(fn_or_name, str) else fn_or_name.__name__
    caller = inspect.currentframe()
    caller = caller.f_back if caller is not None else None
    if caller is None or caller.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    _wrapped_fns_to_patch[(id(caller.f_globals), name)] = caller.f_globals
    return fn_or_name


class Tracer(Unavailable):
    """Builds an fx Graph by running a module on Proxies: constructing one raises (fx
    program capture is not available yet); subclasses can be defined."""


def symbolic_trace(root, concrete_args=None):
    """Capture `root`'s forward as a GraphModule: raises (not available yet)."""
    raise unavailable("symbolic_trace")
