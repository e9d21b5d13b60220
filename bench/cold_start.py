"""Cold start: wall time of each script in `examples/`, each run in a fresh process.

Every example is PyTorch code; it runs on this library through `python -m autograd_compat run`
and, when PyTorch is installed, as is with PyTorch. For ours, three runs: with the persistent
compilation cache off, then with it on and emptied first (a first run ever: everything
compiles and is written), then again (everything is read back). The cache used is a temporary
folder (`--cache-dir` to choose one; it is emptied), never the user's own.

Run: `python bench/cold_start.py [--no-torch] [--cache-dir DIR] [example ...]`.
Prints a table of seconds: process start to exit, imports included.
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def fresh_env() -> dict[str, str]:
    """The environment of a fresh run: JAX on the CPU, this checkout importable, and no JAX
    cache setting of the user's (each run says which compilation cache it uses).

    The package's modules are compiled to bytecode first, as an installed package's are (pip
    writes them at install, as it did JAX's and PyTorch's): where `PYTHONDONTWRITEBYTECODE` is
    set and this checkout has none, every fresh process would compile each of its modules
    again, 0.35 s of CPU time that neither JAX's nor PyTorch's import pays."""
    compileall.compile_dir(ROOT / "autograd_compat", quiet=1)
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def timed(args: list[str], env: dict[str, str]) -> float | str:
    """Seconds the process took, or why it failed."""
    start = time.perf_counter()
    proc = subprocess.run(args, env=env, cwd=EXAMPLES, capture_output=True, text=True, timeout=1800)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        return f"failed ({proc.returncode})"
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("examples", nargs="*", help="example names (default: all)")
    parser.add_argument("--no-torch", action="store_true", help="skip the PyTorch runs")
    parser.add_argument("--cache-dir", help="cache folder to use (emptied first)")
    opts = parser.parse_args()

    names = opts.examples or sorted(p.stem for p in EXAMPLES.glob("*.py"))
    with_torch = not opts.no_torch and importlib.util.find_spec("torch") is not None
    scratch = tempfile.mkdtemp(prefix="autograd_compat_cold_")
    cache = pathlib.Path(opts.cache_dir or os.path.join(scratch, "jax"))
    env = fresh_env()

    def fmt(value: float | str) -> str:
        return f"{value:.2f}" if isinstance(value, float) else value

    print(f"seconds per run, fresh process each; cache folder {cache}")
    head = "| example | torch | ours, no cache | ours, cold cache | ours, warm cache | warm/cold |"
    print(head)
    print("|---|---:|---:|---:|---:|---:|")
    try:
        for name in names:
            script = str(EXAMPLES / f"{name}.py")
            ours = [sys.executable, "-m", "autograd_compat", "run", script]
            torch_s = timed([sys.executable, script], env) if with_torch else "-"
            off = timed(ours, dict(env, AUTOGRAD_COMPAT_CACHE_DIR="off"))
            shutil.rmtree(cache, ignore_errors=True)
            cold = timed(ours, dict(env, AUTOGRAD_COMPAT_CACHE_DIR=str(cache)))
            warm = timed(ours, dict(env, AUTOGRAD_COMPAT_CACHE_DIR=str(cache)))
            ratio = (
                f"{warm / cold:.2f}" if isinstance(warm, float) and isinstance(cold, float) else "-"
            )
            row = [name, fmt(torch_s), fmt(off), fmt(cold), fmt(warm), ratio]
            print("| " + " | ".join(row) + " |", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
