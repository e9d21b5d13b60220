"""The process of the `install-kernel` kernel: ipykernel's kernel with `torch` aliased.

`python -m autograd_compat._kernel_launcher -f CONNECTION_FILE` runs `IPKernelApp` as
`ipykernel_launcher` does. The alias is made once the shell exists and before extensions and
startup code run, so every cell, startup file and extension imports this library as `torch`,
and the shell shows the alias's note on unsupported `from torch... import` errors.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ipykernel.kernelapp import IPKernelApp

from ._alias import alias_torch


class AliasedKernelApp(IPKernelApp):
    """IPKernelApp whose shell runs with `torch` resolved to autograd_compat."""

    def init_extensions(self) -> None:
        alias_torch()
        super().init_extensions()


def main() -> None:
    """Start the kernel; the working folder is left off sys.path while ipykernel loads, as
    `ipykernel_launcher` does (the shell puts it back)."""
    if sys.path and (sys.path[0] == "" or Path(sys.path[0]) == Path.cwd()):
        del sys.path[0]
    AliasedKernelApp.launch_instance()


if __name__ == "__main__":
    main()
