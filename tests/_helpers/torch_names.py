"""The names real PyTorch's modules have, as checked in at autograd_compat/_torch_names.json.

`autograd_compat._alias.missing_attribute` reads that file to tell a name PyTorch lacks
(`torch.sq`: PyTorch's plain AttributeError) from one this library does not provide yet,
without importing torch. `python -m tests._helpers.torch_names` regenerates it from the
installed PyTorch (the oracle); tests/alias/test_torch_names.py checks that it is current.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys
from pathlib import Path

import autograd_compat

FILE = Path(autograd_compat.__file__).parent / "_torch_names.json"


def modules_with_missing_attribute() -> list[str]:
    """The PyTorch names of this library's modules whose `__getattr__` reports missing names."""
    root = Path(autograd_compat.__file__).parent
    names = ["torch"]
    for path in sorted(root.rglob("*.py")):
        if "missing_attribute(__name__" not in path.read_text():
            continue
        parts = path.relative_to(root).with_suffix("").parts
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        names.append(".".join(("torch",) + parts))
    return names


def torch_names(module_name: str) -> list[str]:
    """Every attribute of real PyTorch's module, its submodules included."""
    module = importlib.import_module(module_name)
    names = set(dir(module)) | set(getattr(module, "__all__", ()))
    if hasattr(module, "__path__"):
        names |= {m.name for m in pkgutil.iter_modules(module.__path__)}
    names.discard("__warningregistry__")  # made by the first warning a module gives
    return sorted(names)


def table() -> dict[str, list[str]]:
    """{PyTorch module: its names} for the modules that report missing names."""
    return {name: torch_names(name) for name in modules_with_missing_attribute()}


def render() -> str:
    return json.dumps(table(), indent=0, sort_keys=True) + "\n"


if __name__ == "__main__":
    FILE.write_text(render())
    print(f"wrote {FILE}", file=sys.stderr)
