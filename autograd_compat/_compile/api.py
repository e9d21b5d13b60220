"""`torch.compile` and `torch.compiler`: PyTorch's signatures over `CompiledFunction`."""

from __future__ import annotations

import functools
from collections.abc import Callable

from .._pure import errors as _errors
from .._state.modes import modes
from ..nn.modules.module import Module
from . import config
from .function import CompiledFunction, counters
from .module import OptimizedModule

# Backends, modes and options are accepted as PyTorch spells them; every backend compiles
# through XLA (jax.jit) here, except "eager", which runs the function as it is.
_EAGER_BACKENDS = frozenset({"eager"})
_compiled: list = []  # every CompiledFunction made, for reset()


def compile(
    model: Callable | None = None,
    *,
    fullgraph: bool = False,
    dynamic: bool | None = None,
    backend: str | Callable = "inductor",
    mode: str | None = None,
    options: dict | None = None,
    disable: bool = False,
):
    """Compile a function or module into one XLA program per call (PyTorch's `torch.compile`).

    Every op the call runs, its backward when the function calls `backward()`, optimizer
    steps and in-place updates become one `jax.jit` program; the tensors the function reads or
    changes (arguments, module parameters and buffers, closures, gradients, optimizer state,
    the random state) are found by tracing it, fed in, and written back after the call, as the
    eager call would have left them. A compiled call is one node of the autograd graph
    (`CompiledFunctionBackward`), whose backward is the vjp of the whole traced function.

    Args:
        model (Callable or Module, optional): what to compile; without it, a decorator.
        fullgraph (bool): raise where the function cannot be traced whole, instead of running
            it eagerly with a warning.
        dynamic (bool, optional): Python numbers among the arguments: True, always runtime
            inputs; False, baked into the program (a new program per value); None, baked
            until a value changes, then runtime inputs.
        backend, mode, options: accepted as PyTorch spells them; "eager" runs uncompiled,
            every other backend compiles through XLA, and mode/options change nothing here.
        disable (bool): return the function itself (no compilation).

    Example::

        >>> w = torch.ones(3, requires_grad=True)
        >>> @torch.compile
        ... def f(x):
        ...     return (w * x).sin().sum()
        >>> f(torch.arange(3.0))  # the first call runs eagerly
        tensor(1.7508, grad_fn=<SumBackward0>)
        >>> f(torch.arange(3.0))  # then one compiled program, one node of the graph
        tensor(1.7508, grad_fn=<CompiledFunctionBackward>)
    """
    if model is None:
        return functools.partial(
            compile,
            fullgraph=fullgraph,
            dynamic=dynamic,
            backend=backend,
            mode=mode,
            options=options,
            disable=disable,
        )
    if disable or (isinstance(backend, str) and backend in _EAGER_BACKENDS):
        return model
    if isinstance(model, Module):
        compiled = CompiledFunction(model.__call__, fullgraph=fullgraph, dynamic=dynamic)
        _compiled.append(compiled)
        return OptimizedModule(model, compiled)
    if not callable(model):
        raise RuntimeError("torch.compile: expected a callable or an nn.Module")
    compiled = CompiledFunction(model, fullgraph=fullgraph, dynamic=dynamic)
    _compiled.append(compiled)
    return compiled


def reset() -> None:
    """Forget every compiled program (`torch.compiler.reset()`); counters are kept."""
    for compiled in _compiled:
        compiled.entries.clear()


def disable(fn: Callable | None = None, recursive: bool = True):
    """Keep `fn` eager (`torch.compiler.disable`): inside a compiled function, a call of it
    runs the whole compiled call eagerly (a graph break)."""
    if fn is None:
        return functools.partial(disable, recursive=recursive)

    @functools.wraps(fn)
    def eager(*args, **kwargs):
        if modes.captures:
            raise _errors.GraphBreak(f"torch.compiler.disable({fn.__name__})")
        return fn(*args, **kwargs)

    return eager


def is_compiling() -> bool:
    """True while a compiled function is being traced (`torch.compiler.is_compiling()`)."""
    return bool(modes.captures)


__all__ = ["compile", "config", "counters", "disable", "is_compiling", "reset"]
