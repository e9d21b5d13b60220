"""Whether an optimizer's update compiles sooner over one flat array per kind of value than
over each parameter: the library's per-tensor program beside three others, in CPU time.

For each param group of the four real models (`bench/real_models.py`: nanoGPT's AdamW, the
MNIST CNN's Adadelta, the LSTM's SGD, the ResNet's SGD with momentum), at its parameters'
shapes and the state a step leaves:
- `per tensor`: `Optimizer._update` (undonated), the rule applied to each parameter in one
  program;
- `per tensor, shared scalars`: the same reading every parameter's step count from the first
  one's, so the step's scalar maths is computed once;
- `flat, split`: the parameters, gradients and each state concatenated into one 1-D array per
  kind, the rule applied once, the results sliced back into the parameters' shapes in the same
  program (the layout that gives every tensor its own buffer on any device);
- `flat, host split`: parameters and states kept flat between steps (each segment at a 64-byte
  boundary), only the gradients concatenated in the program, the results left flat and cut on
  the host into per-parameter device arrays that alias the flat buffer (XLA:CPU only).
The flat programs read the scalar states of the group's first parameter, so they hold only
where every parameter of the group has taken the same number of steps.

Prints per model: compile CPU ms (median of fresh compiles, the variants taken in turn), run
CPU µs of a step (the program and any split; medians of calls taken in turn), and the variants
that give the per-tensor program's bits over three steps in float32 and in float64.
Run: `python bench/probes/optimizer_compile.py [model ...]`.
"""

from __future__ import annotations

import os

os.sched_setaffinity(0, {0})  # before JAX starts its threads: CPU time on one CPU
os.environ["AUTOGRAD_COMPAT_CACHE_DIR"] = "off"  # every compile is a fresh one

import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import NamedTuple  # noqa: E402

import _bench  # noqa: E402, F401  (bench/ on sys.path)
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import autograd_compat  # noqa: E402
from autograd_compat._pure.device import host_to_device  # noqa: E402

autograd_compat.alias_torch()

import real_models  # noqa: E402

from autograd_compat.optim.adadelta import adadelta_rule  # noqa: E402
from autograd_compat.optim.adam import adam_rule  # noqa: E402
from autograd_compat.optim.sgd import sgd_rule  # noqa: E402

VARIANTS = ("per tensor", "per tensor, shared scalars", "flat, split", "flat, host split")
RULES = {"AdamW": adam_rule, "Adadelta": adadelta_rule, "SGD": sgd_rule}
COMPILES = 5  # fresh compiles of each variant and group
CALLS = 200  # calls timed of each compiled program
STEPS = 3  # steps compared bit for bit


class Variant(NamedTuple):
    """One way to run a group's update: its jitted program, the parameters and states of a
    step in its layout, and `split`, which makes its results the per-parameter arrays the
    optimizer writes (counted in its run time)."""

    program: Callable
    start: tuple
    split: Callable


class Group(NamedTuple):
    """One param group's update, ready to compile: its variants, its gradients, `hyper` and
    the static flags."""

    variants: dict
    grads: tuple
    hyper: np.ndarray
    flags: tuple


def _shared_scalars(update):
    """The per-tensor program reading every parameter's scalar states from the first one's."""

    def shared(params, grads, states, hyper, *, flags):
        first = states[0]
        states = tuple(
            tuple(f if f is None or f.ndim == 0 else v for f, v in zip(first, state))
            for state in states
        )
        return update(params, grads, states, hyper, flags=flags)

    return jax.jit(shared, static_argnames=("flags",))


def _flat_update(rule, shapes, layout: str):
    """The rule applied once over the group's values concatenated per kind (scalar states from
    the first parameter). `layout`: "split" takes and gives per-parameter arrays (concatenated
    and sliced in the program); "flat" takes the parameters and states as flat arrays whose
    segments start at 64-byte boundaries, concatenates only the gradients, and gives flat
    results."""
    sizes = [int(np.prod(shape)) for shape in shapes]
    ends = np.cumsum(sizes)

    def join(values):
        if values[0] is None or values[0].ndim == 0:
            return values[0]
        if layout == "split":
            return jnp.concatenate([v.reshape(-1) for v in values])
        pieces = []
        for v in values:
            pieces += [v.reshape(-1), jnp.zeros(_padding(v.size, v.dtype), v.dtype)]
        return jnp.concatenate(pieces)

    def cut(flat):
        if flat is None or flat.ndim == 0:
            return (flat,) * len(shapes)
        return tuple(flat[e - s : e].reshape(sh) for e, s, sh in zip(ends, sizes, shapes))

    def update(params, grads, states, hyper, *, flags):
        maximize, switches = flags
        grad = join(grads)
        if layout == "split":
            params = join(params)
            states = tuple(join([state[k] for state in states]) for k in range(len(states[0])))
        param, state = rule(params, -grad if maximize else grad, states, hyper, switches)
        if layout == "flat":
            return param, state
        return cut(param), tuple(zip(*(cut(value) for value in state)))

    return jax.jit(update, static_argnames=("flags",))


def _padding(size: int, dtype) -> int:
    """Elements after a segment of `size` that bring the next one to a 64-byte boundary."""
    per_line = 64 // np.dtype(dtype).itemsize
    return -size % per_line


def _flat(values: tuple):
    """Per-parameter arrays laid out as `_flat_update`'s "flat" layout takes them."""
    if values[0] is None or values[0].ndim == 0:
        return values[0]
    pieces = []
    for v in values:
        pieces += [np.asarray(v).reshape(-1), np.zeros(_padding(v.size, v.dtype), v.dtype)]
    return jnp.asarray(np.concatenate(pieces))


def _host_split(shapes):
    """Flat results cut into per-parameter arrays on the host with no copy: each a device
    array over its segment of the flat buffer (XLA:CPU only)."""
    sizes = [int(np.prod(shape)) for shape in shapes]

    def cut(flat):
        if flat is None or flat.ndim == 0:
            return (flat,) * len(shapes)
        host, start, arrays = np.asarray(flat), 0, []
        for size, shape in zip(sizes, shapes):
            view = host[start : start + size].reshape(shape)
            arrays.append(host_to_device(view, owned=True))
            start += size + _padding(size, host.dtype)
        return tuple(arrays)

    def split(result):
        param, state = result
        return cut(param), tuple(zip(*(cut(value) for value in state)))

    return split


def _unchanged(result):
    """The results of a program that gives per-parameter arrays itself."""
    return result


def _state_value(tensor, dtype):
    """A state tensor's array: buffers in `dtype`, scalar states (step counts) as they are."""
    if tensor is None:
        return None
    return tensor._value.astype(dtype) if tensor.dim() else tensor._value


def _group(opt, group: dict, dtype, rng: np.random.Generator) -> Group:
    """A param group's variants, at the state its per-tensor update leaves after one step."""
    params = group["params"]
    shapes = [tuple(p.shape) for p in params]
    values = tuple(jnp.asarray(rng.standard_normal(s), dtype) for s in shapes)
    grads = tuple(jnp.asarray(rng.standard_normal(s), dtype) for s in shapes)
    states = []
    for p in params:
        state: dict = {}
        if opt._has_state(group):
            opt._init_state(p, group, state)
        states.append(tuple(_state_value(state.get(k), dtype) for k in opt._state_keys))
    flags = (bool(group.get("maximize", False)), opt._flags(group))
    hyper = opt._hyper(group)
    update = type(opt)._update.plain
    values, new_states = update(values, grads, tuple(states), hyper, flags=flags)
    start = (values, new_states)
    kinds = tuple(_flat([s[k] for s in new_states]) for k in range(len(new_states[0])))
    rule = RULES[type(opt).__name__]
    flat_start = (_flat(values), kinds)
    programs = (
        Variant(update, start, _unchanged),
        Variant(_shared_scalars(update), start, _unchanged),
        Variant(_flat_update(rule, shapes, "split"), start, _unchanged),
        Variant(_flat_update(rule, shapes, "flat"), flat_start, _host_split(shapes)),
    )
    return Group(dict(zip(VARIANTS, programs, strict=True)), grads, hyper, flags)


def _groups(name: str, dtype) -> list:
    """The model's param groups (its optimizer's, from its training step), values in `dtype`."""
    setup = real_models.build(name)
    cells = setup.train_step.__closure__ or ()
    opt = next(c.cell_contents for c in cells if hasattr(c.cell_contents, "param_groups"))
    rng = np.random.default_rng(0)
    return [_group(opt, group, dtype, rng) for group in opt.param_groups]


def _step(variant: Variant, group: Group, start: tuple):
    """The variant's program called on `start` (parameters, states) and the group's
    gradients."""
    return variant.program(start[0], group.grads, start[1], group.hyper, flags=group.flags)


def _compile_ms(groups: list) -> dict:
    """Median fresh-compile CPU ms of each variant, summed over the groups."""
    samples: dict = {}
    for _ in range(COMPILES):
        for g in groups:
            for label, v in g.variants.items():
                jax.clear_caches()  # (jax keeps the programs it compiled per lowering)
                lowered = v.program.lower(v.start[0], g.grads, v.start[1], g.hyper, flags=g.flags)
                start = time.process_time()
                lowered.compile()
                samples.setdefault((label, id(g)), []).append(time.process_time() - start)
    totals: dict = {}
    for (label, _), times in samples.items():
        totals[label] = totals.get(label, 0.0) + statistics.median(times) * 1e3
    return totals


def _run_us(groups: list) -> dict:
    """Median CPU µs of a step of each variant (its program and its split), summed over the
    groups."""
    totals: dict = {}
    for g in groups:
        samples: dict = {label: [] for label in g.variants}
        for _ in range(CALLS):
            for label, v in g.variants.items():
                start = time.process_time()
                jax.block_until_ready(v.split(_step(v, g, v.start)))
                samples[label].append(time.process_time() - start)
        for label, times in samples.items():
            totals[label] = totals.get(label, 0.0) + statistics.median(times) * 1e6
    return totals


def _same_bits(groups: list) -> str:
    """The variants that give the per-tensor program's arrays over `STEPS` steps."""
    same = set(groups[0].variants)
    for g in groups:
        runs = {label: v.start for label, v in g.variants.items()}
        for _ in range(STEPS):
            results = {}
            for label, v in g.variants.items():
                runs[label] = _step(v, g, runs[label])
                results[label] = jax.tree.leaves(v.split(runs[label]))
            for label, leaves in results.items():
                pairs = zip(results[VARIANTS[0]], leaves, strict=True)
                if not all(np.array_equal(a, b) for a, b in pairs):
                    same.discard(label)
    return " / ".join("yes" if label in same else "no" for label in groups[0].variants)


def main(models: list) -> None:
    print(f"model | compile ms: {' / '.join(VARIANTS)} | run µs: the same | per tensor's bits")
    for name in models:
        groups = _groups(name, jnp.float32)
        compiled, run = _compile_ms(groups), _run_us(groups)
        same = f"f32: {_same_bits(groups)}; f64: {_same_bits(_groups(name, jnp.float64))}"
        print(
            f"{name} | {' / '.join(f'{v:.0f}' for v in compiled.values())} | "
            f"{' / '.join(f'{v:.0f}' for v in run.values())} | {same}"
        )


if __name__ == "__main__":
    main(sys.argv[1:] or list(real_models.MODELS))
