"""`%load_ext autograd_compat`: alias `torch` in a running IPython shell or notebook.

Loading makes `import torch` (and every `torch.*` submodule) resolve to this library, and
rebinds the shell's names that held modules of the real PyTorch (`torch`, `nn` from
`import torch.nn as nn`) to this library's counterparts; `%unload_ext autograd_compat` puts
those names and the previous `torch` modules back. A name holding a real module this library
does not have keeps it, with a warning; tensors made before loading stay PyTorch's.
"""

from __future__ import annotations

import importlib
import sys
import types
import warnings
from typing import Any, NamedTuple

from ._alias import alias_torch


class _Loaded(NamedTuple):
    alias: alias_torch
    rebound: dict[str, types.ModuleType]  # shell names rebound, with the modules they held


_loaded: dict[int, _Loaded] = {}  # by id of the shell


def _real_torch_modules() -> dict[int, str]:
    """Module names by id for the real PyTorch's modules imported in this process."""
    return {
        id(module): name
        for name, module in sys.modules.items()
        if (name == "torch" or name.startswith("torch.")) and isinstance(module, types.ModuleType)
    }


def load_ipython_extension(shell: Any) -> None:
    """Alias `torch` in `shell` (IPython calls this on `%load_ext autograd_compat`)."""
    if id(shell) in _loaded:
        return
    real = _real_torch_modules()
    alias = alias_torch()
    rebound = {}
    for name, value in list(shell.user_ns.items()):
        if not (isinstance(value, types.ModuleType) and id(value) in real):
            continue
        try:
            shell.user_ns[name] = importlib.import_module(real[id(value)])
        except ImportError:
            warnings.warn(
                f"`{name}` still holds the real PyTorch's module {real[id(value)]}: "
                "autograd_compat does not have it",
                stacklevel=2,
            )
            continue
        rebound[name] = value
    _loaded[id(shell)] = _Loaded(alias, rebound)


def unload_ipython_extension(shell: Any) -> None:
    """Undo `load_ipython_extension` in `shell` (`%unload_ext autograd_compat`)."""
    loaded = _loaded.pop(id(shell), None)
    if loaded is None:
        return
    loaded.alias.restore()
    shell.user_ns.update(loaded.rebound)
