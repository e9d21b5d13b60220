"""The start methods of torch.multiprocessing here: spawn (the default) and forkserver.

JAX runs threads once it has started, and a process forked from a threaded one can hang, so
"fork" is refused with an error that says so. A child started while `torch` is aliased to
autograd_compat runs with the alias too: the process name it is sent is a `str` whose
unpickling turns the alias on (`_AliasedName`), and the child unpickles that name before it
re-runs the parent's main module and before it unpickles the target, so both see `torch` as
this library.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.context as _mp_context
import multiprocessing.process as _mp_process

from .. import _alias

FORK_REFUSED = (
    "torch.multiprocessing: the 'fork' start method is not available in autograd_compat: "
    "JAX runs threads, and forking a threaded process can deadlock the child. Use 'spawn' "
    "(the default here) or 'forkserver'."
)


def _alias_in_child(name: str) -> str:
    """Called in a child while it unpickles its process name: turn the torch alias on."""
    if not _alias.is_aliased():
        _alias.alias_torch()
    return name


class _AliasedName(str):
    """A process name whose unpickling in the child turns the torch alias on."""

    def __reduce__(self):
        return _alias_in_child, (str(self),)


def _carry_alias(process_obj) -> None:
    """Mark `process_obj` so that its child runs aliased when this process is."""
    if _alias.is_aliased() and type(process_obj._name) is str:
        process_obj._name = _AliasedName(process_obj._name)


class SpawnProcess(_mp_context.SpawnProcess):
    """A process started by spawning a fresh interpreter."""

    @staticmethod
    def _Popen(process_obj):  # noqa: N802 -- multiprocessing's name
        _carry_alias(process_obj)
        return _mp_context.SpawnProcess._Popen(process_obj)


class ForkServerProcess(_mp_context.ForkServerProcess):
    """A process forked from the fork server (a fresh interpreter that never ran JAX)."""

    @staticmethod
    def _Popen(process_obj):  # noqa: N802 -- multiprocessing's name
        _carry_alias(process_obj)
        return _mp_context.ForkServerProcess._Popen(process_obj)


class SpawnContext(_mp_context.SpawnContext):
    Process = SpawnProcess


class ForkServerContext(_mp_context.ForkServerContext):
    Process = ForkServerProcess


_CONTEXTS: dict[str, _mp_context.BaseContext] = {
    "spawn": SpawnContext(),
    "forkserver": ForkServerContext(),
}


class Process(_mp_process.BaseProcess):
    """A process started by the current start method (`set_start_method`; spawn by default)."""

    _start_method = None

    @staticmethod
    def _Popen(process_obj):  # noqa: N802 -- multiprocessing's name
        return DEFAULT.get_context().Process._Popen(process_obj)

    @staticmethod
    def _after_fork():
        return DEFAULT.get_context().Process._after_fork()


class DefaultContext(_mp_context.DefaultContext):
    """multiprocessing's default context, with spawn as the default and fork refused."""

    Process = Process  # type: ignore[assignment]  # its own default context

    def get_context(self, method=None):
        if method is None:
            return super().get_context()
        if method == "fork":
            raise ValueError(FORK_REFUSED)
        if method not in _CONTEXTS:
            raise ValueError(f"cannot find context for {method!r}")
        context = _CONTEXTS[method]
        context._check_available()
        return context

    def get_all_start_methods(self) -> list[str]:
        stdlib = multiprocessing.get_all_start_methods()
        return [method for method in ("spawn", "forkserver") if method in stdlib]


DEFAULT = DefaultContext(_CONTEXTS["spawn"])
