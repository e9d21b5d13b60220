"""A tiny GPT-2 from Hugging Face transformers, one training step, three ways side by side:

- ours eager: the step under the torch alias (`import torch` is autograd_compat);
- ours compiled: the same step (zero_grad, forward, backward, AdamW update) in `torch.compile`;
- torch eager: the same code on real PyTorch (CPU).

`GPT2Config(n_layer=2, n_head=2, n_embd=64, vocab_size=100)` with dropout off, a batch of
`--batch` x `--seq` token ids, AdamW, and `loss.item()` every step (the step reads its result
to host, as a training loop that logs does). Both libraries run on `--threads` threads (one by
default): `torch.set_num_threads` for PyTorch; for XLA:CPU, whose intra-op pool is sized when
its backend starts, our processes run on that many CPUs (affinity) with Eigen's
multi-threading off for one.

Each column runs in its own process (transformers binds `torch` when it is imported, so one
process cannot hold both libraries), started once, warmed up (every program compiled), then
driven over a pipe: the columns take their timed samples in turn, round by round, so a slow
minute of the shared machine slows them all alike. Times are milliseconds per step: the median
of the samples, with their lowest and highest. The first two steps of every column, from the
same numpy weights, must give PyTorch's losses, or the row says MISMATCH; a column that cannot
run says FAILED with its error.
Run: `python bench/transformers_gpt2.py [--quick]`.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

# The ecosystem tests' helpers: numpy weights for both libraries, and the shim that lets real
# PyTorch import this environment's torchvision (which transformers imports).
SCRIPTS = Path(__file__).resolve().parent.parent / "tests" / "ecosystem" / "scripts"

COLUMNS = ("ours eager", "ours compiled", "torch eager")
MARK = "@@bench "  # prefix of the protocol's lines on a worker's stdout
WARM_UP = 10  # steps before timing: by then every program a step needs is compiled
SETUP_TIMEOUT_S = 900.0


def _xla_threads(threads: int) -> str:
    """XLA_FLAGS for `threads` threads: Eigen's multi-threading off for one. (XLA:CPU sizes
    its intra-op pool by the CPUs the process may run on: see `_pin`.)"""
    flags = os.environ.get("XLA_FLAGS", "")
    return f"{flags} --xla_cpu_multi_thread_eigen=false".strip() if threads == 1 else flags


def _pin(threads: int) -> None:
    """Let this process run on `threads` CPUs, before JAX starts its CPU backend."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:threads])


# ------------------------------------------------------------------------------ the worker


def _say(**message) -> None:
    print(MARK + json.dumps(message), flush=True)


def _model_and_batch(torch, batch: int, seq: int):
    """The model with numpy weights (the same in both libraries), AdamW, and the ids."""
    sys.path.insert(0, str(SCRIPTS))
    from common import set_weights
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(
        n_layer=2,
        n_head=2,
        n_embd=64,
        vocab_size=100,
        n_positions=max(64, seq),
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
    )
    model = GPT2LMHeadModel(config)
    set_weights(model)
    model.train()
    ids = torch.from_numpy(np.random.default_rng(1).integers(0, 100, size=(batch, seq)))
    return model, torch.optim.AdamW(model.parameters(), lr=1e-3), ids


def _worker(column: str, batch: int, seq: int, threads: int) -> None:
    """Build the column's step, report its first two losses, warm up, then time `number`
    steps per "sample" line read from stdin until "quit"."""
    if column.startswith("ours"):
        _pin(threads)
        import autograd_compat

        autograd_compat.alias_torch()
    import torch

    torch.set_num_threads(threads)
    start = time.perf_counter()
    try:
        model, optimizer, ids = _model_and_batch(torch, batch, seq)

        def train_step():
            optimizer.zero_grad()
            loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
            optimizer.step()
            return loss

        compute = torch.compile(train_step) if column == "ours compiled" else train_step

        def step() -> float:
            return compute().item()

        first_two = [step(), step()]
    except Exception as error:  # reported in the table; the other columns still run
        root: BaseException = error
        while root.__cause__ or root.__context__:  # the root cause, not a wrapper's text
            root = root.__cause__ or root.__context__  # type: ignore[assignment]
        _say(failed=f"{type(root).__name__}: {root}".splitlines()[0])
        return
    for _ in range(WARM_UP):
        step()
    once = min(_seconds(step) for _ in range(3))
    _say(first_two=first_two, setup_s=time.perf_counter() - start, once_s=once)
    for line in sys.stdin:
        if line.strip() == "quit":
            return
        number = int(line)
        begin = time.perf_counter()
        for _ in range(number):
            step()
        _say(ms=(time.perf_counter() - begin) / number * 1e3)


def _seconds(step) -> float:
    start = time.perf_counter()
    step()
    return time.perf_counter() - start


# ------------------------------------------------------------------------------ the driver


class _Worker:
    """One column's process and the protocol lines it has printed."""

    def __init__(self, column: str, args: argparse.Namespace) -> None:
        env = dict(os.environ)
        if column.startswith("ours"):
            env["XLA_FLAGS"] = _xla_threads(args.threads)
        self.stderr = tempfile.TemporaryFile(mode="w+")
        command = [sys.executable, __file__, "--worker", column]
        command += ["--batch", str(args.batch), "--seq", str(args.seq)]
        self.process = subprocess.Popen(
            [*command, "--threads", str(args.threads)],
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

    def reply(self, timeout: float) -> dict:
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


def _agree(losses: list, reference: list) -> bool:
    return all(abs(a - b) <= 2e-3 * abs(b) + 2e-4 for a, b in zip(losses, reference))


def _table(columns: dict, samples: dict) -> list[str]:
    """Markdown rows: median and range per column, the ratio to PyTorch, and notes."""
    torch_ms = statistics.median(samples["torch eager"]) if samples.get("torch eager") else None
    rows = ["| column | ms/step (median) | min - max | /torch | first two losses | note |"]
    rows.append("|---|---:|---:|---:|---|---|")
    reference = columns["torch eager"].get("first_two")
    for name, ready in columns.items():
        if "failed" in ready:
            rows.append(f"| {name} | n/a | | | | FAILED: {ready['failed']} |")
            continue
        values = samples[name]
        median = statistics.median(values)
        ratio = f"{median / torch_ms:.2f}" if torch_ms else "n/a"
        losses = ", ".join(f"{v:.5f}" for v in ready["first_two"])
        note = f"setup {ready['setup_s']:.0f} s"
        if reference is not None and not _agree(ready["first_two"], reference):
            note = "MISMATCH with PyTorch's losses; " + note
        rows.append(
            f"| {name} | {median:.2f} | {min(values):.2f} - {max(values):.2f} | {ratio} "
            f"| {losses} | {note} |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seq", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--worker", choices=COLUMNS, help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="fewer, shorter samples")
    args = parser.parse_args()
    repeats, target_s = (3, 0.2) if args.quick else (9, 1.0)
    if args.worker:
        _worker(args.worker, args.batch, args.seq, args.threads)
        return
    workers = {}
    columns: dict = {}
    try:
        for name in COLUMNS:  # one at a time: setup (imports, compiles) is timed alone
            workers[name] = _Worker(name, args)
            columns[name] = workers[name].reply(SETUP_TIMEOUT_S)
        numbers = {
            name: max(1, int(target_s / max(ready["once_s"], 1e-6)))
            for name, ready in columns.items()
            if "failed" not in ready
        }
        samples: dict = {name: [] for name in numbers}
        for _ in range(repeats):
            for name, number in numbers.items():
                workers[name].send(str(number))
                reply = workers[name].reply(SETUP_TIMEOUT_S)
                if "failed" in reply:
                    raise SystemExit(f"{name}: {reply['failed']}")
                samples[name].append(reply["ms"])
    finally:
        for worker in workers.values():
            worker.close()
    print(
        f"tiny GPT-2 train step (transformers), batch {args.batch}x{args.seq}, AdamW, "
        f"loss.item() per step, {args.threads} thread(s); {repeats} samples per column"
    )
    print("\n".join(_table(columns, samples)))


if __name__ == "__main__":
    main()
