"""Where the eager forward of the tiny GPT-2 step (`bench/transformers_gpt2.py`) spends its
CPU time, op by op: what to cut to bring the step to PyTorch's.

One process under the alias, pinned to one CPU (XLA:CPU on one thread), runs the step
(zero_grad, forward with the loss, backward, AdamW) until every program is compiled, then
times its parts (CPU ms, medians), and over `--steps` forwards, for each op (its id):
its applications per forward, the CPU µs per forward of its outermost `apply` calls (what
the op costs with its recording, its program call and its deferral) and of its program calls
alone (`Op.compiled`'s function: an XLA call, or a reshape's host view), and what
`_defer/lazy.defer` answered for it (deferred, run now as big, read at once, not deferrable).
A residual-saving forward (layer_norm's) shows under its node's name, its `apply` time under
the op that applied it. The patched functions add a few µs to every op: read the table for
proportions.
Run: `python bench/probes/gpt2_ops.py [--steps 100]`.
"""

from __future__ import annotations

import argparse
import collections
import os
import statistics
import sys
import time

if hasattr(os, "sched_setaffinity"):  # one CPU, before JAX starts its CPU backend
    os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:1])
os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} --xla_cpu_multi_thread_eigen=false"

import _bench  # noqa: E402, F401  (bench/ on sys.path)

import autograd_compat  # noqa: E402

autograd_compat.alias_torch()
import torch  # noqa: E402  (autograd_compat, aliased)
from transformers_gpt2 import _model_and_batch  # noqa: E402

from autograd_compat._defer import lazy  # noqa: E402
from autograd_compat._pure.op import Op  # noqa: E402
from autograd_compat._tape import record  # noqa: E402

WARM_STEPS = 20


class _Counts:
    """Per op id: applications, CPU seconds in outermost `apply` and in program calls, and
    `defer`'s answers, while `on`."""

    def __init__(self) -> None:
        self.on = False
        self.depth = 0
        self.calls: collections.Counter = collections.Counter()
        self.apply_s: collections.Counter = collections.Counter()
        self.program_s: collections.Counter = collections.Counter()
        self.answers: collections.Counter = collections.Counter()


def _patch(counts: _Counts) -> None:
    """Wrap `record.apply` (where modules bound it by name too), `Op.compiled`'s functions
    and `lazy.defer` with counters."""
    apply, compiled, defer = record.apply, Op.compiled, lazy.defer

    def counted_apply(op, *inputs, **static):
        counts.depth += 1
        start = time.process_time()
        try:
            return apply(op, *inputs, **static)
        finally:
            counts.depth -= 1
            if counts.on:
                counts.calls[op.id or op.name] += 1
                if not counts.depth:
                    counts.apply_s[op.id or op.name] += time.process_time() - start

    def counted_compiled(self, static):
        fn = compiled(self, static)

        def call(*args):
            start = time.process_time()
            out = fn(*args)
            if counts.on:
                counts.program_s[self.id or self.name] += time.process_time() - start
            return out

        return call

    def counted_defer(op, static, values):
        answer = defer(op, static, values)
        if counts.on:
            kind = type(answer)
            if answer is lazy.LEARN:
                name = "learn"
            elif kind is lazy.Known:
                name = "read at once" if answer.at_once else "run now (big)"
            else:
                name = "deferred" if kind in (lazy.Pending, tuple) else "not deferrable"
            counts.answers[(op.id or op.name, name)] += 1
        return answer

    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("autograd_compat"):
            if getattr(module, "apply", None) is apply:
                module.apply = counted_apply  # type: ignore[attr-defined]
    Op.compiled = counted_compiled  # type: ignore[method-assign]
    record._lazy.defer = counted_defer  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    torch.set_num_threads(1)
    model, optimizer, ids = _model_and_batch(torch, 8, 64)
    parts: list[tuple[float, ...]] = []
    for step in range(WARM_STEPS + args.steps):
        times = [time.process_time()]
        optimizer.zero_grad()
        loss = model(input_ids=ids, labels=ids).loss
        times.append(time.process_time())
        loss.backward()
        times.append(time.process_time())
        optimizer.step()
        loss.item()
        times.append(time.process_time())
        if step >= WARM_STEPS:
            parts.append(tuple(b - a for a, b in zip(times, times[1:])))
    medians = [statistics.median(column) * 1e3 for column in zip(*parts)]
    forward, backward, update = medians
    print(
        f"step, CPU ms (medians): forward {forward:.2f}, backward {backward:.2f}, "
        f"optimizer {update:.2f}"
    )
    counts = _Counts()
    _patch(counts)
    for _ in range(args.steps):
        optimizer.zero_grad()
        counts.on = True
        loss = model(input_ids=ids, labels=ids).loss
        counts.on = False
        loss.backward()
        optimizer.step()
        loss.item()
    n = args.steps
    print("\n| op | applications | apply µs | program µs | defer's answers |")
    print("|---|---:|---:|---:|---|")
    for name in sorted(counts.calls, key=lambda k: -counts.apply_s[k]):
        answers = ", ".join(
            f"{answer} {count / n:g}"
            for (op, answer), count in sorted(counts.answers.items())
            if op == name
        )
        print(
            f"| {name} | {counts.calls[name] / n:g} | {counts.apply_s[name] / n * 1e6:.0f} "
            f"| {counts.program_s[name] / n * 1e6:.0f} | {answers} |"
        )
    total_apply = sum(counts.apply_s.values()) / n * 1e6
    total_program = sum(counts.program_s.values()) / n * 1e6
    print(f"\nper forward: apply {total_apply:.0f} µs, of which programs {total_program:.0f} µs")


if __name__ == "__main__":
    main()
