"""Replaying PyTorch's own test databases (OpInfo, ModuleInfo, OptimizerInfo) on
autograd_compat: what the three database suites share.

`translate` turns anything a database entry holds (real tensors, dtypes, modules, the
database's own lambdas, PyTorch functions and classes) into autograd_compat's counterpart with
the same values, so that one sample runs on both libraries. `Outcome` is the verdict of one
entry: "pass", "wrong" (both ran, results differ), "missing" (autograd_compat lacks the name
or says it is not supported) or "error" (autograd_compat raised where PyTorch did not).
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import time
import types
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import numpy as np
import pytest

import autograd_compat
from tests._helpers.torch_compare import compare, real_torch, require_torch, snap, uniform, values

# Rounding differences between two correct float32 implementations (XLA and ATen sum, fuse and
# vectorize differently): relative 1e-4, and 1e-5 near zero.
FORWARD_TOLERANCE = uniform(1e-4, 1e-5)
GRAD_RTOL, GRAD_ATOL = 1e-3, 1e-4

# PyTorch's private extension modules whose functions are public under another path.
_C_MODULES = {
    "torch._C._linalg": ("linalg", "linalg_"),
    "torch._C._special": ("special", "special_"),
    "torch._C._fft": ("fft", "fft_"),
    "torch._C._nn": ("nn.functional", ""),
    "torch._C._VariableFunctions": ("", ""),
    "torch.functional": ("", ""),
    "torch._tensor": ("Tensor", ""),
}


class Missing(Exception):
    """autograd_compat has no counterpart of a PyTorch name."""


class Outcome(NamedTuple):
    """The verdict of replaying one database entry, and what differed."""

    status: str
    detail: str = ""


def is_missing(exc: BaseException) -> bool:
    """Whether `exc` says that autograd_compat lacks something (rather than got it wrong)."""
    if isinstance(exc, Missing):
        return True
    text = str(exc)
    return isinstance(exc, (AttributeError, NotImplementedError, ModuleNotFoundError)) and (
        "not yet supported" in text or "has no attribute" in text or "No module" in text
    )


def attribute_path(root: Any, path: str) -> Any:
    """`root.a.b.c` for path "a.b.c"; Missing if a part is absent."""
    obj = root
    for part in filter(None, path.split(".")):
        try:
            obj = getattr(obj, part)
        except AttributeError as exc:
            raise Missing(f"autograd_compat has no {path}") from exc
    return obj


def our_module(name: str) -> types.ModuleType:
    """autograd_compat's module for PyTorch's module `name` (torch.nn.functional -> ...)."""
    try:
        return importlib.import_module("autograd_compat" + name[len("torch") :])
    except ImportError as exc:
        raise Missing(f"autograd_compat has no module for {name}") from exc


def public(module: str, name: str) -> Any:
    """autograd_compat's `name` from PyTorch's `module` or the nearest package above it that
    has it (torch.optim.adamw.AdamW is public as torch.optim.AdamW), up to torch.X (not
    torch: torch.masked.sum is not torch.sum)."""
    parts = module.split(".")
    for end in range(len(parts), min(len(parts), 2) - 1, -1):
        try:
            return getattr(our_module(".".join(parts[:end])), name)
        except (Missing, AttributeError):
            continue
    raise Missing(f"autograd_compat has no {module}.{name}")


def _our_function(fn: Any) -> Any:
    """autograd_compat's function of the same public name as PyTorch's `fn`."""
    module, name = getattr(fn, "__module__", None) or "", fn.__name__
    if module in _C_MODULES:
        path, prefix = _C_MODULES[module]
        return attribute_path(autograd_compat, f"{path}.{name.removeprefix(prefix)}")
    return public(module if module.startswith("torch.") else "torch", name)


def _rebind(fn: types.FunctionType) -> types.FunctionType:
    """A copy of a database lambda whose globals and closure name autograd_compat's objects."""
    names: set[str] = set()
    stack = [fn.__code__]
    while stack:
        code = stack.pop()
        names.update(code.co_names)
        stack.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    scope = dict(fn.__globals__)
    for name in names & scope.keys():
        scope[name] = translate(scope[name])
    closure = fn.__closure__ and tuple(
        types.CellType(translate(cell.cell_contents)) for cell in fn.__closure__
    )
    copy = types.FunctionType(fn.__code__, scope, fn.__name__, fn.__defaults__, closure)
    copy.__kwdefaults__ = fn.__kwdefaults__ and translate(fn.__kwdefaults__)
    return copy


def _wrapper_set_seed(op, *args, **kwargs):
    """The database's `wrapper_set_seed` on autograd_compat (PyTorch's reads torch internals
    that are test machinery, not API)."""
    autograd_compat.manual_seed(42)
    return op(*args, **kwargs)


def _from_testing(obj: Any) -> bool:
    return (getattr(obj, "__module__", None) or "").startswith("torch.testing")


_KEEP_STORAGE = [False]  # whether to_ours keeps a view's whole memory (see `storage_kept`)


@contextlib.contextmanager
def storage_kept() -> Iterator[None]:
    """to_ours of a view translates the whole memory it lies in and views it alike (for ops
    that read memory outside their input: as_strided of a partial view)."""
    _KEEP_STORAGE[0] = True
    try:
        yield
    finally:
        _KEEP_STORAGE[0] = False


def _with_storage(t: Any) -> Any:
    """autograd_compat's view, as_strided like `t`, of a copy of `t`'s whole memory."""
    numel = t.untyped_storage().nbytes() // t.element_size()
    memory = to_ours(t.detach().as_strided((numel,), (1,), 0).clone())
    view = memory.as_strided(tuple(t.shape), t.stride(), t.storage_offset())
    return view.requires_grad_(t.requires_grad)


def to_ours(t: Any) -> Any:
    """autograd_compat's tensor with `t`'s values, dtype, shape and requires_grad."""
    if _KEEP_STORAGE[0] and t._base is not None:
        return _with_storage(t)
    d = t.detach()
    if d.dtype.is_complex:
        d = d.resolve_conj()
    return autograd_compat.tensor(
        np.array(d.resolve_neg().numpy(), copy=True),
        dtype=translate(t.dtype),
        requires_grad=t.requires_grad,
    )


def _our_module_instance(module: Any) -> Any:
    """autograd_compat's module of `module`'s class with its attributes, parameters, buffers
    and children (a module a sample passes as an argument: a distance function, say)."""
    cls = public(type(module).__module__, type(module).__name__)
    ours = cls.__new__(cls)
    autograd_compat.nn.Module.__init__(ours)
    for name, value in vars(module).items():
        if not name.startswith("_"):
            setattr(ours, name, translate(value))
    for name, child in module.named_children():
        setattr(ours, name, translate(child))
    for name, p in module.named_parameters(recurse=False):
        setattr(ours, name, autograd_compat.nn.Parameter(to_ours(p), p.requires_grad))
    for name, b in module.named_buffers(recurse=False):
        ours.register_buffer(name, to_ours(b))
    return ours


def translate(obj: Any) -> Any:
    """autograd_compat's counterpart of `obj` (see the module docstring); Missing if none."""
    torch = real_torch
    if isinstance(obj, torch.Tensor):
        return to_ours(obj)
    if isinstance(obj, (torch.dtype, torch.layout, torch.memory_format)):
        return attribute_path(autograd_compat, str(obj).removeprefix("torch."))
    if isinstance(obj, torch.device):
        return autograd_compat.device(str(obj))
    if isinstance(obj, torch.Size):
        return autograd_compat.Size(tuple(obj))
    if isinstance(obj, torch.Generator):
        return autograd_compat.Generator().manual_seed(obj.initial_seed())
    if isinstance(obj, (list, tuple)) and type(obj) in (list, tuple):
        return type(obj)(translate(x) for x in obj)
    if isinstance(obj, dict):
        return {k: translate(v) for k, v in obj.items()}
    if isinstance(obj, types.ModuleType):
        return our_module(obj.__name__) if obj.__name__.split(".")[0] == "torch" else obj
    if obj is torch.Tensor:
        return autograd_compat.Tensor
    if isinstance(obj, torch.nn.Module):
        return _our_module_instance(obj)
    if isinstance(obj, type) and (obj.__module__ or "").startswith("torch."):
        return public(obj.__module__, obj.__name__)
    if getattr(obj, "__name__", None) == "wrapper_set_seed" and _from_testing(obj):
        return _wrapper_set_seed
    if isinstance(obj, types.FunctionType) and _from_testing(obj):
        return _rebind(obj)
    if isinstance(obj, (types.MethodDescriptorType, types.WrapperDescriptorType)):
        if issubclass(torch.Tensor, obj.__objclass__):
            return attribute_path(autograd_compat.Tensor, obj.__name__)
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType)):
        module = getattr(obj, "__module__", None) or ""
        if module == "torch" or module.startswith("torch.") or module in _C_MODULES:
            return _our_function(obj)
    return obj


def tensors_of(obj: Any) -> list:
    """The tensors in a nested structure (tensor, list, tuple, dict), in order."""
    if isinstance(obj, (list, tuple)):
        return [t for x in obj for t in tensors_of(x)]
    if isinstance(obj, dict):
        return [t for x in obj.values() for t in tensors_of(x)]
    return [obj] if hasattr(obj, "requires_grad") and hasattr(obj, "grad_fn") else []


def same(theirs: Any, ours: Any, what: str, tolerance=FORWARD_TOLERANCE) -> list[str]:
    """The differences between two results (values, dtypes, shapes, requires_grad...)."""
    return compare(snap(theirs, False), snap(ours, False), what, tolerance)


def cotangents(outputs: list, seed: int = 7) -> list:
    """One fixed random cotangent (numpy, float64) per output that requires grad."""
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(tuple(o.shape)) if o.requires_grad else None for o in outputs]


def gradients(lib: Any, outputs: list, inputs: list, cts: list) -> list:
    """d(sum of outputs * cotangents)/d(inputs) as numpy, zeros for an unused input."""
    pairs = [(o, c) for o, c in zip(outputs, cts) if c is not None]
    if not pairs or not inputs:
        return []
    grads = lib.autograd.grad(
        [o for o, _ in pairs],
        inputs,
        [lib.tensor(c, dtype=o.dtype) for o, c in pairs],
        allow_unused=True,
    )
    return [np.zeros(tuple(t.shape)) if g is None else values(g) for t, g in zip(inputs, grads)]


def same_gradients(theirs: list, ours: list, names: list) -> list[str]:
    """The gradients that differ, by name, with the largest difference."""
    out = []
    for name, g, o in zip(names, theirs, ours):
        if g.shape != o.shape:
            out.append(f"grad {name}: shape torch {g.shape}, autograd_compat {o.shape}")
        elif not np.allclose(o, g, rtol=GRAD_RTOL, atol=GRAD_ATOL, equal_nan=True):
            worst = np.nanmax(np.abs(o - g)) if g.size else 0.0
            out.append(f"grad {name}: max difference {worst:.3g}\n  torch {g}\n  ours {o}")
    return out


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Warnings off: both libraries warn about deprecated ops the database still samples."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


class Known(NamedTuple):
    """What a database suite knows in advance (see opinfo_known)."""

    skips: dict[str, str]
    wrong: dict[str, str]
    missing: set[str]


def params(entries: Callable[[], list], name_of: Callable, known: Known) -> list:
    """One pytest param per database entry (`entries()`, read only where PyTorch is
    installed), id its name: skipped with the reason of `known.skips`, strict xfails for
    `known.missing` and `known.wrong`."""
    if real_torch is None:
        return [pytest.param(None, id="database")]
    out = []
    for entry in entries():
        name = name_of(entry)
        marks = []
        if name in known.skips:
            marks.append(pytest.mark.skip(reason=known.skips[name]))
        elif name in known.missing:
            marks.append(pytest.mark.xfail(strict=True, reason="missing: not implemented here"))
        elif name in known.wrong:
            marks.append(pytest.mark.xfail(strict=True, reason=known.wrong[name]))
        out.append(pytest.param(entry, id=name, marks=marks))
    return out


def check(entry: Any, replay: Callable) -> None:
    """A test body: the database entry replays with no difference."""
    require_torch()
    outcome = replay(entry)
    assert outcome.status == "pass", f"{outcome.status}: {outcome.detail}"


def main(entries: list, name_of: Callable, replay: Callable, known: Known) -> None:
    """Replay a whole database; print each entry that does not pass and the counts."""
    start = time.perf_counter()
    counts: Counter = Counter()
    for entry in entries:
        name = name_of(entry)
        if name in known.skips:
            outcome = Outcome("skipped", known.skips[name])
        else:
            try:
                outcome = replay(entry)
            except Exception as exc:  # noqa: BLE001 - the harness failing on an entry
                outcome = Outcome("error", f"harness: {exc!r}")
        counts[outcome.status] += 1
        if outcome.status != "pass":
            print(f"{outcome.status:8} {name}: {outcome.detail[:800]}", flush=True)
    print(dict(counts), f"{time.perf_counter() - start:.0f} s", file=sys.stderr)
