"""What a compiled LSTM step gains from reading the layers' saved gates in its backward.

The LSTM language model's step (`bench/real_models.lstm`) under `torch.compile`, its program
called bare (`models._bare_floor`) in two variants traced in one process: "residual node" (the
library's nodes: the LSTM op's node saves its pullback's residuals, the gates) and "primal
node" (the LSTM op's residuals switched off while the step traces, so the backward is the
layer's `jax.vjp` from its inputs, which runs the forward recurrence again), beside the eager
step. For each variant: the first five losses, the while loops in the optimized program, and
the CPU time per step, the process pinned to one CPU, the variants sampled in turn.
Run: `python bench/probes/compiled_lstm_residuals.py [--quick]`.
"""

from __future__ import annotations

import os

os.sched_setaffinity(0, {0})  # one CPU, before JAX starts its CPU backend
os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} --xla_cpu_multi_thread_eigen=false"

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import _bench  # noqa: E402,F401  (bench/ on sys.path)

import autograd_compat  # noqa: E402

autograd_compat.alias_torch()

import models  # noqa: E402
import real_models  # noqa: E402
import torch  # noqa: E402  (autograd_compat)

from autograd_compat._compile.entry import Entry  # noqa: E402
from autograd_compat._ops.nn.rnn import RNN_OPS  # noqa: E402

LOSSES = 5


def _while_loops(compiled) -> int:
    """The while loops in the optimized program of the compiled step's one entry."""
    (entry,) = [e for e in compiled.entries.values() if isinstance(e, Entry)]
    args = (*entry.effects.values(), *entry._tail([]))
    return entry.program.lower(*args).compile().as_text().count(" while(")


def _compiled_step(residuals: bool):
    """(the bare program's step, its first losses, its while loops), traced with the LSTM
    op's residuals on or off."""
    op = RNN_OPS["LSTM"]
    kept = op.residuals
    compiled = torch.compile(real_models.build("lstm").train_step)
    op.residuals = kept if residuals else None
    try:
        losses = [compiled().item() for _ in range(models.FLOOR_FROM)]  # eager, traced, run
    finally:
        op.residuals = kept
    step = models._bare_floor(compiled)
    losses += [step() for _ in range(LOSSES - len(losses))]
    return step, losses, _while_loops(compiled)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer samples")
    rounds = 5 if parser.parse_args().quick else 15
    eager_step = real_models.build("lstm").train_step
    steps, loops, losses = {}, {}, {}
    for name, residuals in (("residual node", True), ("primal node", False)):
        steps[name], losses[name], loops[name] = _compiled_step(residuals)
    steps["eager"] = lambda: eager_step().item()
    losses["eager"] = [steps["eager"]() for _ in range(LOSSES)]
    samples: dict = {name: [] for name in steps}
    for _ in range(rounds):
        for name, step in steps.items():
            start = time.process_time()
            for _ in range(5):
                step()
            samples[name].append((time.process_time() - start) / 5 * 1e3)
    print("| variant | CPU ms/step (median) | min - max | while loops | first losses |")
    print("|---|---:|---:|---:|---|")
    for name, values in samples.items():
        shown = ", ".join(f"{loss:.6f}" for loss in losses[name])
        print(
            f"| {name} | {statistics.median(values):.2f} | {min(values):.2f} - "
            f"{max(values):.2f} | {loops.get(name, 'n/a')} | {shown} |"
        )


if __name__ == "__main__":
    main()
