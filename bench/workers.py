"""Columns in worker processes, driven over a pipe: what `transformers_gpt2.py` and
`models.py` share.

A worker builds its column's step, warms it up and says so (one protocol line, `say`), then
times `number` steps for each line it reads until "quit". The driver starts the workers one at
a time (setup timed alone) and asks them for samples in turn, round by round, so a slow minute
of the shared machine slows every column alike (`sample_rounds`). A library that binds `torch`
at import needs a process of its own, as does a peak-memory figure or a thread count.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import tempfile
import threading
import time

# What a sample measures: wall time, or with `BENCH_CLOCK=cpu` the worker's CPU time (every
# thread of it), which a machine shared with other work disturbs much less.
CLOCK = time.process_time if os.environ.get("BENCH_CLOCK") == "cpu" else time.perf_counter

MARK = "@@bench "  # prefix of the protocol's lines on a worker's stdout
SETUP_TIMEOUT_S = 900.0


def xla_threads(threads: int) -> str:
    """XLA_FLAGS for `threads` threads: Eigen's multi-threading off for one. (XLA:CPU sizes
    its intra-op pool by the CPUs the process may run on: see `pin`.)"""
    flags = os.environ.get("XLA_FLAGS", "")
    return f"{flags} --xla_cpu_multi_thread_eigen=false".strip() if threads == 1 else flags


def pin(threads: int) -> None:
    """Let this process run on `threads` CPUs, before JAX starts its CPU backend."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:threads])


def all_cores() -> int:
    """The CPUs this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def say(**message) -> None:
    """One protocol line to the driver."""
    print(MARK + json.dumps(message), flush=True)


def failure(error: BaseException) -> str:
    """The first line of the root cause of `error` (not a wrapper's text), with its type."""
    root = error
    while root.__cause__ or root.__context__:
        root = root.__cause__ or root.__context__  # type: ignore[assignment]
    return f"{type(root).__name__}: {root}".splitlines()[0]


# Ours eager warms up this long: a step's forward and backward become one program once running
# them op by op has taken as long as that program's compile is estimated to (seconds, for a
# step of a real model: docs/design.md, "A big program compiles once it has paid for itself").
EAGER_WARM_UP_S = 30.0


def warm_up(step, steps: int, ours_eager: bool = False) -> float:
    """Run `step` `steps` times, and for `EAGER_WARM_UP_S` at least where it is `ours_eager`
    (by then every program it needs is compiled), then return the seconds of its fastest of
    three more calls (what sets the steps per sample)."""
    end = time.perf_counter() + (EAGER_WARM_UP_S if ours_eager else 0.0)
    for _ in range(steps):
        step()
    while time.perf_counter() < end:
        step()
    fastest = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        step()
        fastest = min(fastest, time.perf_counter() - start)
    return fastest


def serve(step, stdin) -> None:
    """Time `number` calls of `step` per line of `stdin`, until "quit"."""
    for line in stdin:
        if line.strip() == "quit":
            return
        number = int(line)
        begin = CLOCK()
        for _ in range(number):
            step()
        say(ms=(CLOCK() - begin) / number * 1e3)


class Worker:
    """One column's process and the protocol lines it has printed."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
            bufsize=1,
            env=env,
        )
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith(MARK):
                self.lines.put(json.loads(line[len(MARK) :]))
        self.lines.put(None)  # the process ended

    def reply(self, timeout: float = SETUP_TIMEOUT_S) -> dict:
        try:
            message = self.lines.get(timeout=timeout)
        except queue.Empty:
            return {"failed": f"no reply in {timeout:.0f} s"}
        if message is None:
            self.stderr.seek(0)
            last = (self.stderr.read().strip().splitlines() or ["(no output)"])[-1]
            return {"failed": f"the process ended: {last}"}
        return message

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def close(self) -> None:
        if self.process.poll() is None:
            self.send("quit")
            self.process.wait(timeout=60)
        self.stderr.close()


def sample_rounds(workers: dict, ready: dict, repeats: int, target_s: float) -> dict:
    """ms per step of each ready worker (name -> samples): `repeats` rounds, each worker
    timing about `target_s` in turn (its number of steps from the `once_s` it reported)."""
    numbers = {
        name: max(1, int(target_s / max(message["once_s"], 1e-6)))
        for name, message in ready.items()
        if "failed" not in message
    }
    samples: dict = {name: [] for name in numbers}
    for _ in range(repeats):
        for name, number in numbers.items():
            workers[name].send(str(number))
            reply = workers[name].reply()
            if "failed" in reply:
                raise SystemExit(f"{name}: {reply['failed']}")
            samples[name].append(reply["ms"])
    return samples


def agree(losses: list, reference: list) -> bool:
    """Whether two columns' losses are the same numbers (float32 tolerance)."""
    return len(losses) == len(reference) and all(
        abs(a - b) <= 2e-3 * abs(b) + 2e-4 for a, b in zip(losses, reference)
    )
