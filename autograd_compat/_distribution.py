"""The `torch` distribution that `importlib.metadata` finds while `torch` is aliased.

Libraries ask the installed metadata, not the module, which PyTorch they run on
(`importlib.metadata.version("torch")`, transformers' `is_torch_available`). While the alias
holds, `_alias`'s finder answers those questions with this distribution, found before any
installed PyTorch; without the alias, the installed metadata (if any) answers as usual.
"""

from __future__ import annotations

import importlib.metadata
import pathlib
import re

from .version import __version__

_METADATA = f"""\
Metadata-Version: 2.1
Name: torch
Version: {__version__}
Summary: PyTorch's API and autograd semantics on JAX (autograd_compat, aliased as torch)
Requires-Python: >=3.10
"""
_FILES = {"METADATA": _METADATA, "top_level.txt": "torch\n", "INSTALLER": "autograd_compat\n"}


class TorchDistribution(importlib.metadata.Distribution):
    """Metadata of `torch` as this library provides it: PyTorch's release, local label
    `autograd.compat`; no files are listed (the code is autograd_compat's)."""

    def read_text(self, filename: str) -> str | None:
        return _FILES.get(filename)

    def locate_file(self, path) -> pathlib.Path:
        return pathlib.Path(__file__).parent / path


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def find_distributions(context=None) -> list[importlib.metadata.Distribution]:
    """The distributions this library provides that match `context.name`: [torch] or []."""
    name = getattr(context, "name", None)
    if name is not None and _normalized(name) != "torch":
        return []
    return [TorchDistribution()]
