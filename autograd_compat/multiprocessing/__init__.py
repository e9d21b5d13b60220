"""torch.multiprocessing: Python's multiprocessing API with spawn as the default start method,
`spawn`/`start_processes` to run a function in N processes, and PyTorch's sharing-strategy
settings.

"fork" is refused (JAX's threads make a forked child unsafe); "spawn" and "forkserver" start
fresh interpreters. A child of a process where `torch` is aliased to autograd_compat runs with
the alias on (see `_context`), so it runs PyTorch code as its parent does; autograd_compat must
be importable there, as it is when installed or on PYTHONPATH. Tensors sent to a child are
pickled (copied), not shared.
"""

from __future__ import annotations

from ._context import DEFAULT as _DEFAULT
from ._context import Process as Process
from .spawn import (
    ProcessContext,
    ProcessExitedException,
    ProcessRaisedException,
    spawn,
    start_processes,
)

_CONTEXT_NAMES = [name for name in dir(_DEFAULT) if not name.startswith("_")]
globals().update((name, getattr(_DEFAULT, name)) for name in _CONTEXT_NAMES if name != "Process")

__all__ = [
    *_CONTEXT_NAMES,
    "ProcessContext",
    "ProcessExitedException",
    "ProcessRaisedException",
    "get_all_sharing_strategies",
    "get_sharing_strategy",
    "set_sharing_strategy",
    "spawn",
    "start_processes",
]

_SHARING_STRATEGIES = {"file_descriptor", "file_system"}
_sharing_strategy = ["file_descriptor"]


def set_sharing_strategy(new_strategy: str) -> None:
    """Set how CPU tensors would be shared ("file_descriptor" or "file_system"); tensors are
    copied to children here whatever the setting."""
    if new_strategy not in _SHARING_STRATEGIES:
        raise AssertionError(
            f"invalid sharing strategy {new_strategy!r}, expected one of {_SHARING_STRATEGIES}"
        )
    _sharing_strategy[0] = new_strategy


def get_sharing_strategy() -> str:
    return _sharing_strategy[0]


def get_all_sharing_strategies() -> set[str]:
    return set(_SHARING_STRATEGIES)
