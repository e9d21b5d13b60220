"""`python -m autograd_compat run --nproc N script.py args...`: N local processes, as
`torchrun --nproc_per_node=N` starts them.

Each process runs the script under the torch alias with torchrun's variables (MASTER_ADDR
127.0.0.1, a free MASTER_PORT, RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK),
so `init_process_group()` joins them over loopback. Their output goes straight to this
process's stdout and stderr; if one fails, the others are stopped and its exit code returned.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

USAGE = "usage: python -m autograd_compat run --nproc N script.py [args...]"


def split_nproc(argv: list) -> tuple[int | None, list]:
    """(N, the rest) for `--nproc N ...` / `--nproc=N ...` (also --nproc_per_node);
    (None, argv) without the option."""
    if not argv or not argv[0].startswith(("--nproc", "--nproc_per_node")):
        return None, argv
    option, _, value = argv[0].partition("=")
    rest = argv[1:]
    if option not in ("--nproc", "--nproc_per_node", "--nproc-per-node"):
        raise SystemExit(f"autograd_compat run: unknown option {option}\n{USAGE}")
    if not value:
        if not rest:
            raise SystemExit(f"autograd_compat run: {option} needs a number\n{USAGE}")
        value, rest = rest[0], rest[1:]
    if not value.isdigit() or int(value) < 1:
        raise SystemExit(f"autograd_compat run: {option} {value!r} is not a positive number")
    if not rest:
        raise SystemExit(USAGE)
    return int(value), rest


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def launch(nproc: int, argv: list) -> int:
    """Run `argv` (script and arguments) in `nproc` processes; 0 if all succeed, else the
    exit code of the first that failed."""
    shared = dict(
        os.environ,
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(_free_port()),
        WORLD_SIZE=str(nproc),
        LOCAL_WORLD_SIZE=str(nproc),
        GROUP_RANK="0",
    )
    command = [sys.executable, "-m", "autograd_compat", "run", *argv]
    processes = [
        subprocess.Popen(command, env=dict(shared, RANK=str(r), LOCAL_RANK=str(r)))
        for r in range(nproc)
    ]
    try:
        while True:
            codes = [p.poll() for p in processes]
            failed = [c for c in codes if c not in (None, 0)]
            if failed:
                return failed[0]
            if all(c == 0 for c in codes):
                return 0
            time.sleep(0.05)
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
        for process in processes:
            process.wait()
