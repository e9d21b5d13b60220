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
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from workers import Worker, agree, failure, pin, sample_rounds, say, serve, warm_up, xla_threads

# The ecosystem tests' helpers: numpy weights for both libraries, and the shim that lets real
# PyTorch import this environment's torchvision (which transformers imports).
SCRIPTS = Path(__file__).resolve().parent.parent / "tests" / "ecosystem" / "scripts"

COLUMNS = ("ours eager", "ours compiled", "torch eager")
WARM_UP = 10  # steps before timing: by then every program a step needs is compiled


# ------------------------------------------------------------------------------ the worker


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
        pin(threads)
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
        say(failed=failure(error))
        return
    once = warm_up(step, WARM_UP, ours_eager=column == "ours eager")
    say(first_two=first_two, setup_s=time.perf_counter() - start, once_s=once)
    serve(step, sys.stdin)


# ------------------------------------------------------------------------------ the driver


def _start(column: str, args: argparse.Namespace) -> Worker:
    env = dict(os.environ)
    if column.startswith("ours"):
        env["XLA_FLAGS"] = xla_threads(args.threads)
    command = [sys.executable, __file__, "--worker", column]
    command += ["--batch", str(args.batch), "--seq", str(args.seq)]
    return Worker([*command, "--threads", str(args.threads)], env)


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
        if reference is not None and not agree(ready["first_two"], reference):
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
            workers[name] = _start(name, args)
            columns[name] = workers[name].reply()
        samples = sample_rounds(workers, columns, repeats, target_s)
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
