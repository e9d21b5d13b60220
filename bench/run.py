"""Time per training step, four ways side by side in one run:

- ours eager: the workload's PyTorch code (`bench/workloads.py`) with `lib = autograd_compat`;
- ours compiled: the same code, its `compute` (forward, backward, optimizer update) wrapped in
  `torch.compile`; "compile ms" is the time of the first two calls of the compiled step (the
  first runs eagerly by design, the second traces and compiles);
- torch eager: the same code with `lib = torch` (CPU, `torch.set_num_threads(1)`);
- jax.jit: `jax.jit(jax.value_and_grad(f))` of the equivalent pure-JAX function (with the SGD
  update inside the jitted function where the workload has an optimizer).

Every step creates its leaves as PyTorch code does and reads its results to host. Times are
microseconds per step, the median of repeated samples after a warm-up; the four columns take
their samples in turn, round by round, so a slow minute of the shared machine slows them all
alike rather than one. The first two steps of every column (from fresh state) must read the
same numbers as PyTorch's (else jax.jit's), or the row says MISMATCH; a compiled workload that
falls back to eager (a graph break warning) or fails says so in its row.
Run: `make bench` or `python bench/run.py [--quick]`.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
import warnings

import numpy as np
from workloads import WORKLOADS

import autograd_compat as ours

try:
    import torch as real_torch

    real_torch.set_num_threads(1)
except ImportError:
    real_torch = None


WARM_UP = 25  # steps run before timing: by then every program a step needs is compiled


def _calibrate(step, target_s: float) -> int:
    """How many calls of `step` take about `target_s`, after `WARM_UP` calls: eager programs
    compile over a step's first few meetings (a run of deferred ops on its third, a backward's
    fused function on its second, the programs joining them after), so a step timed sooner
    may still compile."""
    for _ in range(WARM_UP):
        step()
    once = min(_seconds(step) for _ in range(3))
    return max(1, int(target_s / max(once, 1e-7)))


def _seconds(step) -> float:
    start = time.perf_counter()
    step()
    return time.perf_counter() - start


def _time(steps: dict, repeats: int, target_s: float) -> dict:
    """Median microseconds per call of each of `steps` (name -> step), over `repeats` samples
    of about `target_s` each. The columns' samples are interleaved, round by round, so a slow
    minute of the shared machine slows every column alike rather than one of them."""
    numbers = {name: _calibrate(step, target_s) for name, step in steps.items()}
    samples: dict = {name: [] for name in steps}
    for _ in range(repeats):
        for name, step in steps.items():
            number = numbers[name]
            start = time.perf_counter()
            for _ in range(number):
                step()
            samples[name].append((time.perf_counter() - start) / number * 1e6)
    return {name: statistics.median(values) for name, values in samples.items()}


def _snap(results) -> list:
    """Copies of a step's results (`.numpy()` shares memory that a later step may update)."""
    return [np.array(v, np.float64) for v in results]


def _first_two(step) -> list:
    """The results of the first two calls of `step`, from fresh state."""
    return [_snap(step()), _snap(step())]


def _compiled(workload):
    """(results of the first two calls, the compiled step, compile ms, note) of the compiled
    column; the note names a fallback to eager or a failure (then the step is None)."""
    step, compute = workload.torch_code(ours)
    compiled = ours.compile(compute)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            start = time.perf_counter()
            first_two = [_snap(step(compiled))]  # eager by design
            first_two.append(_snap(step(compiled)))  # traces and compiles
            compile_ms = (time.perf_counter() - start) * 1e3
            step(compiled)  # a fallback's warning comes by the third call
        except Exception as error:  # report it in the row; the other columns still run
            return None, None, None, f"FAILED: {type(error).__name__}: {error}".splitlines()[0]
    fallbacks = [str(w.message) for w in caught if "torch" in str(w.message)]
    note = "EAGER FALLBACK: " + " | ".join(dict.fromkeys(fallbacks)) if fallbacks else ""
    return first_two, lambda: step(compiled), compile_ms, note


def _agree(results, reference) -> bool:
    """Whether two columns' first two steps read the same numbers (float32 tolerance)."""
    pairs = zip((v for r in results for v in r), (v for r in reference for v in r), strict=True)
    return all(np.allclose(a, b, rtol=2e-3, atol=2e-4) for a, b in pairs)


def _ratio(a, b) -> float | None:
    return None if a is None or b is None else a / b


def _geomean(values) -> float | None:
    values = [v for v in values if v is not None]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def _cell(value, digits: int) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def sampling(parser: argparse.ArgumentParser) -> tuple[argparse.Namespace, int, float]:
    """The command line (with `--quick`: fewer, shorter samples), the samples per column and
    the seconds a sample lasts."""
    parser.add_argument("--quick", action="store_true", help="fewer, shorter samples")
    args = parser.parse_args()
    repeats, target_s = (3, 0.05) if args.quick else (9, 0.2)
    return args, repeats, target_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", default="", help="run the workloads whose name has this text")
    args, repeats, target_s = sampling(parser)
    rows, notes = [], []
    for workload in [w for w in WORKLOADS if args.only in w.name]:
        step, compute = workload.torch_code(ours)
        steps = {"eager": lambda: step(compute)}  # noqa: B023
        r_eager = _first_two(steps["eager"])
        r_compiled, steps["compiled"], compile_ms, note = _compiled(workload)
        r_torch = None
        if real_torch is not None:
            step_t, compute_t = workload.torch_code(real_torch)
            steps["torch"] = lambda: step_t(compute_t)  # noqa: B023
            r_torch = _first_two(steps["torch"])
        steps["jit"] = workload.jax_code()
        r_jit = _first_two(steps["jit"])
        times = _time({k: v for k, v in steps.items() if v is not None}, repeats, target_s)
        t_eager, t_compiled = times["eager"], times.get("compiled")
        t_torch, t_jit = times.get("torch"), times["jit"]
        reference = r_torch if r_torch is not None else r_jit
        for column, results in (("ours eager", r_eager), ("ours compiled", r_compiled)):
            if results is not None and not _agree(results, reference):
                note += f" MISMATCH: {column} results differ from the reference"
        if not _agree(r_jit, reference):
            note += " MISMATCH: jax.jit results differ from the reference"
        note = note.strip()
        rows.append((workload, t_eager, t_compiled, t_torch, t_jit, compile_ms, note))
        if note:
            notes.append(f"- {workload.name}: {note}")

    print(
        "| workload | ours eager µs | ours compiled µs | torch eager µs | jax.jit µs "
        "| eager/torch | compiled/jit | compiled/torch | compile ms | note |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for workload, t_eager, t_compiled, t_torch, t_jit, compile_ms, note in rows:
        short = ", ".join(k for k in ("FAILED", "EAGER FALLBACK", "MISMATCH") if k in note)
        print(
            f"| {workload.name} | {_cell(t_eager, 1)} | {_cell(t_compiled, 1)} "
            f"| {_cell(t_torch, 1)} | {_cell(t_jit, 1)} | {_cell(_ratio(t_eager, t_torch), 2)} "
            f"| {_cell(_ratio(t_compiled, t_jit), 2)} "
            f"| {_cell(_ratio(t_compiled, t_torch), 3)} | {_cell(compile_ms, 0)} | {short} |"
        )
    over_jit = _geomean(_ratio(r[2], r[4]) for r in rows if r[0].compile_target)
    eager_over_torch = _geomean(_ratio(r[1], r[3]) for r in rows)
    over_torch = _geomean(_ratio(r[2], r[3]) for r in rows if r[0].torch_target)
    targets = ", ".join(r[0].name for r in rows if r[0].torch_target)
    print(
        f"| **geomean eager/torch**, all (target ≤ 1.0) | | | | "
        f"| {_cell(eager_over_torch, 2)} | | | | |"
    )
    print(
        f"| **geomean compiled/jit**, all but the loop (target ≤ 1.2) | | | | | "
        f"| {_cell(over_jit, 2)} | | | |"
    )
    speedup = None if over_torch is None else 1 / over_torch
    print(
        f"| **geomean compiled/torch**, {targets} (target ≤ 0.25: ≥ 4x faster) | | | | | | "
        f"| {_cell(over_torch, 3)} ({_cell(speedup, 1)}x faster) | | |"
    )
    if notes:
        print("\nCompiled-column fallbacks and failures:")
        print("\n".join(notes))


if __name__ == "__main__":
    main()
