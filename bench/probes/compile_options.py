"""Whether some XLA:CPU compile options compile a class of programs cheaper without running
slower or changing bits: every program the first step of the four real models compiles, under
each option set of `VARIANTS`, in CPU time on one CPU.

The probe records each program as XLA receives it (its StableHLO, JAX's compile options, and
the arguments of its first run, copied to the host before the run can donate them), by
wrapping JAX's compile and execute calls while `bench/real_models.py`'s step runs with the
persistent cache off. Then, for each program and option set: compile CPU ms (median of
`COMPILES` fresh compiles, the sets taken in turn), run CPU µs (median of `CALLS` calls taken
in turn) and whether every output has the default options' bits. `--steps 2` adds the second
step's programs (the whole fused backward). The option sets are those of this jaxlib's
XLA:CPU that a program's compile options accept and that could cost less compile time.

Prints a table per class (`classify`): programs, total compile ms and the summed median run
µs per option set (with its ratio to the default), and the programs whose bits differ.
Run: `python bench/probes/compile_options.py [--steps N] [--kind CLASS] [--variants a,b]
[--compiles N] [model ...]`.
"""

from __future__ import annotations

import os

os.sched_setaffinity(0, {0})  # before JAX starts its threads: CPU time on one CPU
os.environ["AUTOGRAD_COMPAT_CACHE_DIR"] = "off"  # every compile is a fresh one

import argparse  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections import defaultdict  # noqa: E402
from typing import NamedTuple  # noqa: E402

import _bench  # noqa: E402, F401  (bench/ on sys.path)
import jax  # noqa: E402
import numpy as np  # noqa: E402
from jax._src import compiler  # noqa: E402
from jax._src.interpreters import pxla  # noqa: E402
from jax._src.lib import xla_client  # noqa: E402

import autograd_compat  # noqa: E402

autograd_compat.alias_torch()

import real_models  # noqa: E402

VARIANTS = {
    "default": {},
    "opt1": {"xla_backend_optimization_level": 1},
    "opt0": {"xla_backend_optimization_level": 0},
    "no_expensive": {"xla_llvm_disable_expensive_passes": True},
    "opt1+no_expensive": {
        "xla_backend_optimization_level": 1,
        "xla_llvm_disable_expensive_passes": True,
    },
    "fast_compile": {"xla_cpu_opt_preset": "CPU_OPT_PRESET_FAST_COMPILE"},
    "low_effort": {"exec_time_optimization_effort": -1.0},
}
# Options JAX sets on the build options rather than passing to XLA by name.
BUILD_OPTIONS = frozenset(("exec_time_optimization_effort",))
COMPILES = 3  # fresh compiles of each program and option set
CALLS = 30  # runs timed of each compiled program


class Program(NamedTuple):
    """One program as XLA received it, and the host copies of its first run's arguments."""

    name: str
    module: str  # its StableHLO text
    devices: object  # the executable's xc.DeviceList
    options: bytes  # JAX's serialized xc.CompileOptions
    args: list  # numpy arrays


class Timing(NamedTuple):
    """One program under one option set."""

    compile_ms: float
    run_us: float
    same_bits: bool


def record(steps: int, model: str) -> list[Program]:
    """The programs the first `steps` steps of `model` compile, in compile order."""
    pending: dict[int, tuple[Program, object]] = {}  # id -> program, executable kept alive
    programs: list[Program] = []
    compile_and_load = compiler.backend_compile_and_load
    execute = pxla.ExecuteReplicated.__call__

    def compiling(backend, module, devices, options, host_callbacks):
        loaded = compile_and_load(backend, module, devices, options, host_callbacks)
        if not host_callbacks:
            text = str(module)
            program = Program(ir_name(text), text, devices, options.SerializeAsString(), [])
            pending[id(loaded)] = (program, loaded)
        return loaded

    def executing(self, *args):
        entry = pending.pop(id(self.xla_executable), None)
        if entry is not None and not (self.ordered_effects or self.has_unordered_effects):
            kept = [x for i, x in enumerate(args) if i in self.kept_var_idx]
            try:
                host = [np.array(buf) for buf in self.in_handler(kept)]
            except (TypeError, ValueError):  # key arrays and other non-numeric inputs
                host = None
            if host is not None:
                programs.append(entry[0]._replace(args=host))
        return execute(self, *args)

    compiler.backend_compile_and_load = compiling
    pxla.ExecuteReplicated.__call__ = executing
    try:
        setup = real_models.build(model)
        for _ in range(steps):
            float(setup.train_step())
    finally:
        compiler.backend_compile_and_load = compile_and_load
        pxla.ExecuteReplicated.__call__ = execute
    return programs


def ir_name(text: str) -> str:
    """The module's name (`jit_<function>`)."""
    found = re.search(r"module @(\S+)", text)
    return found.group(1) if found else "?"


def classify(program: Program) -> str:
    """The class of a program: the optimizer's update, the whole fused backward, else by the
    costliest kind of operation in it."""
    if "update" in program.name:
        return "optimizer update"
    if program.name == "jit_backward":  # `_tape.fused`: a whole backward in one program
        return "whole backward"
    for kind, ops in (
        ("conv", ("stablehlo.convolution",)),
        ("scan/while", ("stablehlo.while", "stablehlo.case")),
        ("gather/scatter", ("stablehlo.gather", "stablehlo.scatter", "dynamic_update_slice")),
        ("dot/matmul", ("stablehlo.dot_general", "stablehlo.dot ")),
        ("reduction", ("stablehlo.reduce", "reduce_window")),
    ):
        if any(op in program.module for op in ops):
            return kind
    return "elementwise"


def options_with(program: Program, extra: dict):
    """JAX's compile options of `program` with `extra` added to its overrides."""
    options = xla_client.CompileOptions.ParseFromString(program.options)
    extra = dict(extra)
    for name in BUILD_OPTIONS & extra.keys():
        setattr(options.executable_build_options, name, extra.pop(name))
    options.env_option_overrides = [*options.env_option_overrides, *extra.items()]
    return options


def compile_once(program: Program, extra: dict) -> tuple[float, object]:
    """One fresh compile: its CPU ms and the loaded executable."""
    backend = jax.devices()[0].client
    options = options_with(program, extra)
    start = time.process_time()
    loaded = backend.compile_and_load(program.module, program.devices, options)
    return (time.process_time() - start) * 1e3, loaded


def run_once(program: Program, loaded, device) -> tuple[float, list]:
    """One run on fresh device copies of the arguments: its CPU µs and its outputs."""
    bufs = [jax.device_put(a, device) for a in program.args]
    jax.block_until_ready(bufs)
    start = time.process_time()
    results = loaded.execute_sharded(bufs)
    outs = [x[0] for x in results.disassemble_into_single_device_arrays()]
    jax.block_until_ready(outs)
    return (time.process_time() - start) * 1e6, outs


def measure(program: Program, variants: dict, compiles: int) -> dict[str, Timing]:
    """Every option set of `variants` on `program`, compiles and runs taken in turn."""
    device = jax.devices()[0]
    compile_ms: dict[str, list[float]] = defaultdict(list)
    loaded = {}
    for _ in range(compiles):
        for name, extra in variants.items():
            ms, loaded[name] = compile_once(program, extra)
            compile_ms[name].append(ms)
    bits = {}
    for name in variants:
        _, outs = run_once(program, loaded[name], device)
        bits[name] = [np.asarray(o).tobytes() for o in outs]
    runs: dict[str, list[float]] = defaultdict(list)
    for _ in range(CALLS):
        for name in variants:
            runs[name].append(run_once(program, loaded[name], device)[0])
    return {
        name: Timing(
            statistics.median(compile_ms[name]),
            statistics.median(runs[name]),
            bits[name] == bits["default"],
        )
        for name in variants
    }


def report(results: list[tuple[str, str, dict[str, Timing]]], variants: dict) -> None:
    """One table per class: programs, compile ms, run µs (ratios to the default), and the
    programs whose bits differ from the default's."""
    by_class: dict[str, list] = defaultdict(list)
    for model, kind, timings in results:
        by_class[kind].append((model, timings))
    for kind in sorted(by_class):
        rows = by_class[kind]
        print(f"\n{kind}: {len(rows)} programs")
        print("| options | compile ms | ratio | run µs | ratio | programs with other bits |")
        print("|---|---:|---:|---:|---:|---:|")
        base_c = sum(t["default"].compile_ms for _, t in rows)
        base_r = sum(t["default"].run_us for _, t in rows)
        for name in variants:
            comp = sum(t[name].compile_ms for _, t in rows)
            run = sum(t[name].run_us for _, t in rows)
            other = sum(not t[name].same_bits for _, t in rows)
            print(
                f"| {name} | {comp:.0f} | {comp / base_c:.2f} | {run:.0f} | "
                f"{run / base_r:.2f} | {other} |"
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=1)
    parser.add_argument("--kind", help="only the programs of this class")
    parser.add_argument("--variants", help="comma-separated option sets (all when unset)")
    parser.add_argument("--compiles", type=int, default=COMPILES)
    parser.add_argument("models", nargs="*", default=list(real_models.MODELS))
    ns = parser.parse_args()
    chosen = {"default", *(ns.variants or ",".join(VARIANTS)).split(",")}
    variants = {name: extra for name, extra in VARIANTS.items() if name in chosen}
    results = []
    for model in ns.models:
        programs = record(ns.steps, model)
        print(f"{model}: {len(programs)} programs", flush=True)
        for program in programs:
            kind = classify(program)
            if ns.kind and kind != ns.kind:
                continue
            timings = measure(program, variants, ns.compiles)
            results.append((model, kind, timings))
            cells = " ".join(
                f"{n}={t.compile_ms:.0f}/{t.run_us:.0f}{'' if t.same_bits else '!'}"
                for n, t in timings.items()
            )
            overrides = options_with(program, {}).env_option_overrides
            print(f"  {program.name} [{kind}] {overrides} {cells}", flush=True)
    report(results, variants)


if __name__ == "__main__":
    main()
