"""Four real models' training steps (`real_models.py`: nanoGPT, the MNIST CNN, an LSTM language
model, a small ResNet), written once as PyTorch code, timed on PyTorch and on this library.

Columns, each at 1 thread and at all cores (`--threads` picks one count):
- ours eager: the step under the torch alias (`import torch` is autograd_compat);
- ours compiled: `step = torch.compile(train_step)`, the whole step (zero_grad, forward,
  backward, optimizer update) in the compiled function, as users write it;
- floor: that compiled step's own program (the `jax.jit` of its traced function that
  `torch.compile` built, `_compile/entry.Entry.program`, with donation as the compiled call
  donates) called bare on a list of arrays: its state (parameters, optimizer state, buffers)
  carried from call to call, the loss read with `float()`. No guard, no tensors, no write-back:
  what any call path around that program could reach. Its first three steps are the compiled
  step's (the first runs eagerly by design, the second traces), the floor takes over after;
- torch eager: the same code on real PyTorch (`torch.set_num_threads`);
- torch compiled: `torch.compile(train_step)` on real PyTorch (inductor), FAILED with the
  error where it does not compile here.

Every column runs in its own process (`workers.py`: started once, warmed up, then driven over a
pipe, the columns taking their samples in turn, round by round). XLA:CPU runs on as many CPUs
as the column's thread count (affinity; Eigen's multi-threading off for one). Every step reads
its loss (`loss.item()`). The first five losses of every column, from the same numpy weights
and batch, must be PyTorch's, or the row says MISMATCH. Times are ms per step: the median of
the samples, with their lowest and highest; "/torch" is the ratio to PyTorch eager at the same
thread count, and the last table the geomean of those ratios over the models. Memory is the
process's peak RSS (`resource.getrusage(...).ru_maxrss`) after warm-up, compiles included, and
its growth over the peak before the model was built (imports done); and a step's peak: the
peak RSS over `STEP_PEAK_STEPS` steps after warm-up, measured from the memory the process
holds (Linux's peak reset through `/proc/self/clear_refs`, after a garbage collection and
glibc's `malloc_trim`, in every column alike), so it leaves out what the compiles and the
allocators' free lists took before.

The cold-start table runs each model in fresh processes and times launch to the first and the
second loss: PyTorch; ours eager with an empty compilation cache (`AUTOGRAD_COMPAT_CACHE_DIR`
a fresh folder), then again with that cache warm; ours compiled with an empty cache (its second
loss is the first from the compiled program).

Run: `python bench/models.py [--quick] [--models gpt,lstm] [--threads 1] [--no-cold-start]`.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import importlib
import math
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from typing import NamedTuple

from cold_start import fresh_env
from workers import (
    Worker,
    agree,
    all_cores,
    failure,
    pin,
    sample_rounds,
    say,
    serve,
    warm_up,
    xla_threads,
)

MODELS = ("gpt", "mnist", "lstm", "resnet")
KINDS = ("ours eager", "ours compiled", "floor", "torch eager", "torch compiled")
CHECKED = 5  # losses compared with PyTorch's, from the first step
FLOOR_FROM = 3  # the compiled calls before the floor takes over
WARM_UP = 10  # steps before timing: by then every program a step needs is compiled
STEP_PEAK_STEPS = 3  # steps over which a step's peak memory is read


class Column(NamedTuple):
    """One column of the table: what runs (one of `KINDS`) on how many threads."""

    kind: str
    threads: int

    @property
    def name(self) -> str:
        return f"{self.kind}, {self.threads} thr"


# ------------------------------------------------------------------------------ the worker


def _peak_mib() -> float:
    """This process's peak RSS so far, MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _step_peak_mib(step) -> float | None:
    """The peak RSS over `STEP_PEAK_STEPS` calls of `step`, from the memory the process holds
    once its garbage and its allocator's free memory are gone; None off Linux's glibc."""
    try:
        libc = ctypes.CDLL(None)
        gc.collect()
        libc.malloc_trim(0)
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")  # the peak RSS (VmHWM) starts again from the RSS now
    except (OSError, AttributeError):
        return None
    for _ in range(STEP_PEAK_STEPS):
        step()
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return None


def _bare_floor(compiled):
    """The compiled step's program called bare: state carried as arrays, the loss read."""
    from autograd_compat._compile.capture import GradMemory
    from autograd_compat._compile.entry import Entry

    entries = [e for e in compiled.entries.values() if isinstance(e, Entry)]
    if len(entries) != 1 or entries[0].program is None or entries[0].arguments.tensor_index:
        raise RuntimeError("the compiled step is no single program of no arguments")
    entry = entries[0]
    effects = entry.effects
    program = entry.donating or entry.program
    state = effects.values()
    tail = entry._tail([])  # runtime inputs (a learning rate) and the PRNG key
    n_out = len(entry.out_tensor_index)
    # where each memory's next value comes from among the results: a write, or a new .grad
    source = {}
    written = [k for k, w in enumerate(effects.written) if w]
    for position, k in enumerate(written):
        source[k] = n_out + position
    owners = {id(t): n_out + len(written) + i for i, t in enumerate(effects.grad_results)}
    for k, memory in enumerate(effects.memories):
        if isinstance(memory, GradMemory) and id(memory.owner) in owners:
            source[k] = owners[id(memory.owner)]
    key_at = len(effects.grad_results) + n_out + len(written) + len(effects.arg_grads)

    def step() -> float:
        nonlocal state, tail
        raw = program(*state, *tail)
        state = [raw[source[k]] if k in source else v for k, v in enumerate(state)]
        if effects.uses_rng:
            tail = [*tail[:-1], raw[key_at]]
        return float(raw[0])

    return step


def _column_step(kind: str, torch, train_step):
    """The column's step: a call that trains once and returns the loss as a float."""
    if kind in ("ours eager", "torch eager"):
        return lambda: train_step().item()
    compiled = torch.compile(train_step)
    if kind != "floor":
        return lambda: compiled().item()
    return _Floor(compiled)


class _Floor:
    """The floor column's step: the compiled step for its first `FLOOR_FROM` calls (the first
    runs eagerly, the second traces and compiles), then its program called bare."""

    def __init__(self, compiled) -> None:
        self.compiled = compiled
        self.calls = 0
        self.bare = None

    def __call__(self) -> float:
        if self.bare is not None:
            return self.bare()
        loss = self.compiled().item()
        self.calls += 1
        if self.calls == FLOOR_FROM:
            self.bare = _bare_floor(self.compiled)
        return loss


def _worker(args: argparse.Namespace) -> None:
    """Build the column's step, report its first losses, warm up, then time `number` steps per
    line read from stdin until "quit" (with `--cold`: report each of two losses, then end)."""
    kind = args.worker
    if kind.startswith("ours") or kind == "floor":
        pin(args.threads)
        importlib.import_module("autograd_compat").alias_torch()
    import torch

    torch.set_num_threads(args.threads)
    import real_models

    before = _peak_mib()
    start = time.perf_counter()
    try:
        setup = real_models.build(args.model)
        step = _column_step(kind, torch, setup.train_step)
        if args.cold:
            say(loss=step())
            say(loss=step())
            return
        losses = [step() for _ in range(CHECKED)]
    except Exception as error:  # reported in the table; the other columns still run
        say(failed=failure(error))
        return
    once = warm_up(step, WARM_UP, ours_eager=kind == "ours eager")
    peak = _peak_mib()
    step_peak = _step_peak_mib(step)
    say(
        losses=losses,
        setup_s=time.perf_counter() - start,
        once_s=once,
        peak_mib=peak,
        growth_mib=peak - before,
        step_peak_mib=step_peak,
        optimizer=setup.optimizer,
    )
    serve(step, sys.stdin)


# ------------------------------------------------------------------------------ the driver


def _start(column: Column, model: str, env: dict, cold: bool = False) -> Worker:
    env = dict(env)
    if column.kind.startswith("ours") or column.kind == "floor":
        env["XLA_FLAGS"] = xla_threads(column.threads)
    command = [sys.executable, __file__, "--worker", column.kind, "--model", model]
    command += ["--threads", str(column.threads)]
    command += ["--cold"] * cold
    return Worker(command, env)


def _time_model(model: str, columns: list, repeats: int, target_s: float):
    """(ready messages, samples) of each column of `model`."""
    workers: dict = {}
    ready: dict = {}
    env = fresh_env()
    try:
        for column in columns:  # one at a time: setup (imports, compiles) is timed alone
            workers[column] = _start(column, model, env)
            ready[column] = workers[column].reply()
            print(f"  {model}: {column.name} ready", file=sys.stderr, flush=True)
        samples = sample_rounds(workers, ready, repeats, target_s)
    finally:
        for worker in workers.values():
            worker.close()
    return ready, samples


def _rows(model: str, ready: dict, samples: dict) -> tuple[list[str], dict]:
    """Markdown rows of one model, and each column's ratio to PyTorch eager."""
    rows, ratios = [], {}
    for column, message in ready.items():
        if "failed" in message:
            failed = message["failed"]
            rows.append(f"| {model} | {column.name} | n/a | | | | | | FAILED: {failed} |")
            continue
        reference = ready.get(Column("torch eager", column.threads), {})
        median = statistics.median(samples[column])
        torch_values = samples.get(Column("torch eager", column.threads))
        ratio = median / statistics.median(torch_values) if torch_values else None
        ratios[column] = ratio
        note = f"setup {message['setup_s']:.0f} s"
        step_peak = message["step_peak_mib"]
        step_peak = "n/a" if step_peak is None else f"{step_peak:.0f}"
        if "losses" in reference and not agree(message["losses"], reference["losses"]):
            note = f"MISMATCH with PyTorch's losses ({message['losses']}); {note}"
        rows.append(
            f"| {model} | {column.name} | {median:.2f} | {min(samples[column]):.2f} - "
            f"{max(samples[column]):.2f} | {'n/a' if ratio is None else f'{ratio:.2f}'} "
            f"| {message['peak_mib']:.0f} (+{message['growth_mib']:.0f}) | {step_peak} | {note} |"
        )
    return rows, ratios


def _cold_start(model: str) -> str:
    """One row: launch to the first and second loss of fresh processes (seconds)."""
    scratch = tempfile.mkdtemp(prefix="autograd_compat_models_")
    env = fresh_env()
    runs = [
        ("torch eager", env),
        ("ours eager", dict(env, AUTOGRAD_COMPAT_CACHE_DIR=os.path.join(scratch, "eager"))),
        ("ours eager", dict(env, AUTOGRAD_COMPAT_CACHE_DIR=os.path.join(scratch, "eager"))),
        ("ours compiled", dict(env, AUTOGRAD_COMPAT_CACHE_DIR=os.path.join(scratch, "compiled"))),
    ]
    cells = []
    try:
        for kind, run_env in runs:
            worker = _start(Column(kind, all_cores()), model, run_env, cold=True)
            times = []
            for _ in range(2):
                message = worker.reply()
                if "failed" in message:
                    break
                times.append(time.perf_counter() - worker.started)
            worker.close()
            cells.append(" / ".join(f"{t:.1f}" for t in times) or f"FAILED: {message['failed']}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return f"| {model} | " + " | ".join(cells) + " |"


def _geomean(values: list) -> float | None:
    values = [v for v in values if v is not None]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer, shorter samples")
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated names")
    parser.add_argument("--threads", type=int, help="one thread count (default: 1 and all)")
    parser.add_argument("--no-cold-start", action="store_true", help="skip the cold starts")
    parser.add_argument("--worker", choices=KINDS, help=argparse.SUPPRESS)
    parser.add_argument("--model", choices=MODELS, help=argparse.SUPPRESS)
    parser.add_argument("--cold", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker(args)
        return
    models = [m for m in args.models.split(",") if m]
    unknown = set(models) - set(MODELS)
    if unknown:
        parser.error(f"unknown models {sorted(unknown)}: choose from {', '.join(MODELS)}")
    counts = [args.threads] if args.threads else sorted({1, all_cores()})
    columns = [Column(kind, n) for n in counts for kind in KINDS]
    repeats, target_s = (3, 0.3) if args.quick else (9, 1.5)
    print(
        f"real models, one training step each, loss.item() per step; {repeats} samples per "
        "column; ms per step\n"
    )
    print(
        "| model | column | ms/step (median) | min - max | /torch | peak RSS MiB (+) "
        "| step peak MiB | note |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---|", flush=True)
    ratios: dict = {column: [] for column in columns}
    for model in models:
        ready, samples = _time_model(model, columns, repeats, target_s)
        model_rows, model_ratios = _rows(model, ready, samples)
        print("\n".join(model_rows), flush=True)
        for column, ratio in model_ratios.items():
            ratios[column].append(ratio)
    print(f"\n| column | geomean /torch eager (same threads), {', '.join(models)} |")
    print("|---|---:|")
    for column, values in ratios.items():
        mean = _geomean(values)
        shown = "n/a" if mean is None else f"{mean:.2f}"
        if mean is not None and len(values) < len(models):
            shown += f" ({len(values)} of {len(models)} models)"
        print(f"| {column.name} | {shown} |")
    if args.no_cold_start:
        return
    print(f"\ncold start: seconds from launch to the first / second loss, {all_cores()} thr")
    print(
        "| model | torch eager | ours eager, empty cache | ours eager, warm cache "
        "| ours compiled, empty cache |"
    )
    print("|---|---:|---:|---:|---:|")
    for model in models:
        print(_cold_start(model), flush=True)


if __name__ == "__main__":
    main()
