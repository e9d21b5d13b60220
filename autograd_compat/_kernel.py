"""`python -m autograd_compat install-kernel`: a Jupyter kernel whose process starts with
`torch` aliased, so a PyTorch notebook runs on this library with no cell added.

The kernel spec is ipykernel's (same resources, protocol and debugger metadata) with its
argv starting `autograd_compat._kernel_launcher` instead of `ipykernel_launcher`; jupyter_client's
`KernelSpecManager` installs it, system-wide by default as `ipykernel install` does, or for
the user (`--user`), or under a prefix (`--prefix`, `--sys-prefix`). ipykernel and
jupyter_client are optional dependencies, imported when the command runs.
"""

from __future__ import annotations

import argparse
import os
import site
import sys
import tempfile
from pathlib import Path

LAUNCHER = "autograd_compat._kernel_launcher"
KERNEL_NAME = "autograd_compat"
DISPLAY_NAME = f"Python {sys.version_info[0]} (autograd_compat)"


def _kernel_env() -> dict[str, str]:
    """The spec's environment: where this library lies on PYTHONPATH (before the server's,
    which Jupyter substitutes) when it is not installed in site-packages, as in a source
    checkout found through PYTHONPATH or the working folder, which a kernel started by a
    server elsewhere would not see."""
    root = Path(__file__).resolve().parent.parent
    installed = {Path(p).resolve() for p in [*site.getsitepackages(), site.getusersitepackages()]}
    if root in installed:
        return {}
    return {"PYTHONPATH": f"{root}{os.pathsep}${{PYTHONPATH}}"}


def install_kernel(
    user: bool = False,
    prefix: str | None = None,
    name: str = KERNEL_NAME,
    display_name: str = DISPLAY_NAME,
) -> str:
    """Install the kernel spec `name` and return the folder it was written to.

    Its argv runs this Python (`sys.executable`), so the kernel sees the packages, and this
    library, of the environment the command ran in.
    """
    try:
        from ipykernel.kernelspec import make_ipkernel_cmd, write_kernel_spec
        from jupyter_client.kernelspec import KernelSpecManager
    except ImportError as error:
        raise ImportError(
            "autograd_compat install-kernel needs ipykernel and jupyter_client "
            f"({error}); install them with `pip install ipykernel`"
        ) from error
    argv = make_ipkernel_cmd(mod=LAUNCHER, python_arguments=["-Xfrozen_modules=off"])
    with tempfile.TemporaryDirectory(suffix="_kernels") as staging:
        spec = write_kernel_spec(
            Path(staging) / name,
            overrides={"argv": argv, "display_name": display_name, "env": _kernel_env()},
        )
        return KernelSpecManager().install_kernel_spec(
            spec, kernel_name=name, user=user, prefix=prefix
        )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m autograd_compat install-kernel",
        description="Install a Jupyter kernel that runs PyTorch notebooks on autograd_compat "
        "(`import torch` resolves to autograd_compat in the kernel's process).",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="install for the current user")
    where.add_argument("--prefix", help="install under PREFIX/share/jupyter/kernels")
    where.add_argument(
        "--sys-prefix",
        action="store_true",
        help=f"install under this environment's prefix ({sys.prefix})",
    )
    parser.add_argument("--name", default=KERNEL_NAME, help=f"kernel name ({KERNEL_NAME})")
    parser.add_argument(
        "--display-name", default=DISPLAY_NAME, help=f"name shown in Jupyter ({DISPLAY_NAME})"
    )
    return parser


def main(argv: list) -> int:
    """Parse `install-kernel`'s options, install, and say where."""
    options = _parser().parse_args(argv)
    prefix = sys.prefix if options.sys_prefix else options.prefix
    path = install_kernel(options.user, prefix, options.name, options.display_name)
    print(f"Installed kernelspec {options.name} in {path}")
    return 0
