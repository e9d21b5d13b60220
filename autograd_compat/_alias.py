"""Run unchanged PyTorch code on this library: `torch` and `torch.*` resolve to autograd_compat.

`alias_torch()` maps the module names for this process (also when real PyTorch is installed,
and even if it was already imported): the `torch.*` entries of `sys.modules` are set aside and
replaced by this library's modules, and a meta-path finder placed first resolves submodules
imported later (`torch.nn.functional` -> `autograd_compat.nn.functional`). A part this library
does not have fails at import (ModuleNotFoundError) or attribute access (AttributeError) with
a message that names it and says it is not yet supported: never a silent fallback to the real
PyTorch. Used as a context manager, the previous `sys.modules` entries come back on exit.

`python -m autograd_compat run script.py args...` runs a script under the alias.
"""

from __future__ import annotations

import functools
import importlib
import importlib.abc
import importlib.util
import json
import os
import re
import runpy
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypedDict

from . import _distribution

_PACKAGE = "autograd_compat"
_ALIAS = "torch"


def _torch_name(module_name: str) -> str:
    return _ALIAS + module_name[len(_PACKAGE) :]


def _is_alias_name(name: str) -> bool:
    return name == _ALIAS or name.startswith(_ALIAS + ".")


def _unsupported(torch_name: str) -> str:
    if _state["depth"] == 0:
        return f"{torch_name} is not yet supported by autograd_compat"
    return (
        f"{torch_name} is not yet supported by autograd_compat (`torch` is aliased to "
        "autograd_compat in this process; the real PyTorch is not used)"
    )


@functools.cache
def _torch_names() -> dict[str, frozenset[str]]:
    """{PyTorch module: the names it has}, from the file tests/_helpers/torch_names.py generates."""
    table = json.loads((Path(__file__).parent / "_torch_names.json").read_text())
    return {module: frozenset(names) for module, names in table.items()}


def missing_attribute(module_name: str, name: str):
    """Raise the AttributeError for `module.name` that this library does not provide.

    A module's `__getattr__` calls this, so `torch.nn.Transformer` says that it is not yet
    supported rather than just missing; a name PyTorch's module lacks too (`torch.sq`) gets
    PyTorch's own message. Dunder lookups get Python's plain message.
    """
    torch_name = _torch_name(module_name) if module_name.startswith(_PACKAGE) else module_name
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(f"module '{module_name}' has no attribute '{name}'")
    if name not in _torch_names().get(torch_name, frozenset((name,))):
        raise AttributeError(f"module '{torch_name}' has no attribute '{name}'")
    shown = torch_name if _state["depth"] else module_name
    raise AttributeError(
        f"module '{shown}' has no attribute '{name}': {_unsupported(f'{torch_name}.{name}')}"
    )


def _package_getattr(name: str):
    return missing_attribute(_PACKAGE, name)


_package = sys.modules[_PACKAGE]
if "__getattr__" not in vars(_package):
    vars(_package)["__getattr__"] = _package_getattr


class _AliasLoader(importlib.abc.Loader):
    """Loads an alias by handing back the already-imported module of this library."""

    def __init__(self, module: types.ModuleType) -> None:
        self.module = module
        self._spec = module.__spec__

    def create_module(self, spec):
        return self.module

    def exec_module(self, module) -> None:
        # The import system stamped the alias spec on the module; keep the module's own.
        try:
            module.__spec__ = self._spec
        except AttributeError:
            pass


def _resolve(target: str) -> types.ModuleType | None:
    """The module of this library named `target`, or None if it does not exist."""
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as error:
        if error.name is None or not (target == error.name or target.startswith(error.name + ".")):
            raise
    parent_name, _, child = target.rpartition(".")
    parent = sys.modules.get(parent_name)
    if parent is not None:
        value = vars(parent).get(child)
        if isinstance(value, types.ModuleType):
            return value
    return None


class _TorchFinder(importlib.abc.MetaPathFinder):
    """First on sys.meta_path while aliased: `torch.X` is `autograd_compat.X` or an error."""

    def find_spec(self, fullname: str, path=None, target=None):
        if not _is_alias_name(fullname):
            return None
        module = _resolve(_PACKAGE + fullname[len(_ALIAS) :])
        if module is None:
            raise ModuleNotFoundError(
                f"No module named '{fullname}': {_unsupported(fullname)}", name=fullname
            )
        return importlib.util.spec_from_loader(fullname, _AliasLoader(module))

    def find_distributions(self, context=None):
        """`importlib.metadata` sees this library's `torch` distribution first."""
        return _distribution.find_distributions(context)


_IMPORT_NAME = re.compile(r"cannot import name '([^']+)' from '(autograd_compat[\w.]*)'")


def annotate(error: BaseException | None) -> BaseException | None:
    """Add a note to `from torch.x import Missing` errors saying it is not yet supported.

    Python builds that ImportError itself (naming autograd_compat's module), so the message
    of the module's `__getattr__` is lost; the note restores it where the error is shown.
    """
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, ImportError):
            match = _IMPORT_NAME.search(str(error))
            if match and not any("autograd_compat" in n for n in getattr(error, "__notes__", [])):
                name = f"{_torch_name(match.group(2))}.{match.group(1)}"
                error.add_note(_unsupported(name))
        error = error.__cause__ or error.__context__
    return error


def _excepthook(exc_type, value, traceback) -> None:
    annotate(value)
    _state["excepthook"](exc_type, value, traceback)


def _ipython_handler(shell, exc_type, value, traceback, tb_offset=None):
    annotate(value)
    shell.showtraceback((exc_type, value, traceback), tb_offset=tb_offset)


def _ipython():
    ipython = sys.modules.get("IPython")
    try:
        return ipython.get_ipython() if ipython is not None else None
    except Exception:  # noqa: BLE001 -- no shell, no handler
        return None


class _State(TypedDict):
    depth: int  # nesting of active alias_torch objects
    saved: dict[str, types.ModuleType] | None  # the `torch.*` modules set aside
    excepthook: Callable[..., Any]  # sys.excepthook before the alias
    shell: Any  # the IPython shell given a custom exception handler (IPython is optional)


_finder = _TorchFinder()
_state: _State = {"depth": 0, "saved": None, "excepthook": sys.excepthook, "shell": None}


def _install() -> None:
    saved = {name: module for name, module in sys.modules.items() if _is_alias_name(name)}
    for name in saved:
        del sys.modules[name]
    _state["saved"] = saved
    for name, module in list(sys.modules.items()):
        if name == _PACKAGE or name.startswith(_PACKAGE + "."):
            if module is not None and not any(part.startswith("_") for part in name.split(".")):
                sys.modules[_torch_name(name)] = module
    sys.meta_path.insert(0, _finder)
    _state["excepthook"] = sys.excepthook
    sys.excepthook = _excepthook
    shell = _ipython()
    if shell is not None and not getattr(shell, "custom_exceptions", ()):
        shell.set_custom_exc((ImportError,), _ipython_handler)
        _state["shell"] = shell


def _uninstall() -> None:
    while _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    for name in [name for name in sys.modules if _is_alias_name(name)]:
        del sys.modules[name]
    sys.modules.update(_state["saved"] or {})
    _state["saved"] = None
    if sys.excepthook is _excepthook:
        sys.excepthook = _state["excepthook"]
    shell = _state["shell"]
    if shell is not None:
        shell.set_custom_exc((), None)
        _state["shell"] = None


class alias_torch:
    """Make `import torch` (and every `torch.*` submodule) resolve to autograd_compat.

    Call it once at the top of a script or notebook; the alias then holds for the process.
    As a context manager it restores the previous `sys.modules` entries (for instance the
    real PyTorch) on exit. Parts this library does not have fail with an error saying so.

    Example::

        >>> import autograd_compat
        >>> with autograd_compat.alias_torch():
        ...     import torch
        ...     import torch.nn as nn
        ...     torch.__name__
        'autograd_compat'
    """

    def __init__(self) -> None:
        self._active = True
        if _state["depth"] == 0:
            _install()
        _state["depth"] += 1

    def __enter__(self):
        return sys.modules[_PACKAGE]

    def __exit__(self, *exc_info) -> None:
        self.restore()

    def restore(self) -> None:
        """Undo this alias; the last one undone restores the previous `torch` modules."""
        if not self._active:
            return
        self._active = False
        _state["depth"] -= 1
        if _state["depth"] == 0:
            _uninstall()

    def __repr__(self) -> str:
        return f"<alias_torch {'active' if self._active else 'restored'}>"


def is_aliased() -> bool:
    """True while `torch` resolves to autograd_compat in this process."""
    return _state["depth"] > 0


RUN_USAGE = """usage: python -m autograd_compat run script.py [args...]
       python -m autograd_compat run -m module [args...]
       python -m autograd_compat run --nproc N script.py [args...]

Run an unchanged PyTorch script (or module) as __main__ with `import torch` and every
`torch.*` submodule resolved to autograd_compat, even where PyTorch is installed. With
--nproc N, start N local processes as `torchrun --nproc_per_node=N` does."""


def run(argv: list) -> dict:
    """Run `script.py args...` (or `-m module args...`) as __main__ with torch aliased.

    Returns the globals the script ended with (handy for tests). `sys.argv` and `sys.path`
    are set as Python would set them and restored afterwards. `-h`/`--help` prints the usage.
    """
    if not argv:
        raise SystemExit(RUN_USAGE)
    if argv[0] in ("-h", "--help"):
        print(RUN_USAGE)
        return {}
    old_argv, old_path = sys.argv[:], sys.path[:]
    try:
        with alias_torch():
            if argv[0] == "-m":
                if len(argv) < 2:
                    raise SystemExit("usage: python -m autograd_compat run -m module [args...]")
                sys.argv = [argv[1], *argv[2:]]
                sys.path.insert(0, os.getcwd())
                return runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
            script = argv[0]
            if not os.path.exists(script):
                raise SystemExit(f"autograd_compat run: can't open file '{script}'")
            sys.argv = [script, *argv[1:]]
            sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
            return runpy.run_path(script, run_name="__main__")
    except ImportError as error:
        annotate(error)
        raise
    finally:
        sys.argv[:] = old_argv
        sys.path[:] = old_path
