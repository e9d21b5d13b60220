"""Differential harness: run one program against real PyTorch and autograd_compat, compare.

A program is written once against the PyTorch API, `def prog(torch): ...`, and returns a
structure (dicts, lists, tuples) of results: tensors, numbers, strings, dtypes, sizes, nodes,
None. `run_parity(prog)` runs it with both modules, turns each result into a plain record and
compares the records: values (with a tolerance chosen by dtype), shapes, dtypes (by `str`),
`requires_grad`, `is_leaf`, `grad_fn is None`, grad_fn names, `.grad` of leaves (and of
tensors that retain grad), exceptions (type always, text unless told otherwise) and the
warnings raised (category and text).

Results are recorded when the program returns; to record a state in the middle of a
program (`.grad` after each step, which later steps change in place) call `snap(x)` then.
`catch(fn)` runs `fn()` and records the exception it raises, so a program can go on.
`no_names(x)` skips the grad_fn names (graphs recorded by create_graph=True).

A program may carry `requires` (autograd_compat APIs it needs: skipped, with the reason,
while one is missing) and `tolerance` ({dtype: (rtol, atol)}). `Corpus.params(KNOWN)`
turns the programs into pytest params; those named in KNOWN (a discrepancy still present in
the library, with its description) are strict xfails, so a fix shows up as a failure that
asks for the entry to be removed.

Without torch every parity test skips with the reason, or fails when the CI environment
variable is set (`require_torch`).
"""

from __future__ import annotations

import math
import os
import re
import warnings

import numpy as np
import pytest

import autograd_compat

try:  # the oracle; see require_torch()
    import torch as real_torch
except ImportError:  # pragma: no cover - exercised only on machines without torch
    real_torch = None

TORCH_MISSING = (
    "PyTorch (the parity oracle) is not installed: the differential tests cannot run. "
    "Install torch==2.13.0 (`make test` does) to run them."
)


def require_torch():
    """The real torch module; fails under CI (env var CI set) and skips loudly otherwise."""
    if real_torch is None:
        if os.environ.get("CI"):
            pytest.fail(TORCH_MISSING)
        pytest.skip(TORCH_MISSING)
    return real_torch


# ----------------------------------------------------------------------------- records
class Err:
    """A raised exception: its type name and, when `check_message`, its text."""

    def __init__(self, exc: BaseException, check_message: bool = True) -> None:
        self.type = type(exc).__name__
        self.message = str(exc)
        self.check_message = check_message

    def __repr__(self) -> str:
        return f"Err({self.type}: {self.message!r})"


class Ok:
    """The value of a call that was expected to maybe raise (see `catch`)."""

    def __init__(self, value) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"Ok({self.value!r})"


class TensorRecord:
    """Everything compared about one tensor, read at the moment it was recorded."""

    __slots__ = (
        "value",
        "dtype",
        "shape",
        "requires_grad",
        "is_leaf",
        "has_grad_fn",
        "grad_fn",
        "retains_grad",
        "grad",
        "check_name",
    )

    def __repr__(self) -> str:
        return (
            f"Tensor(dtype={self.dtype}, shape={self.shape}, requires_grad={self.requires_grad},"
            f" is_leaf={self.is_leaf}, grad_fn={self.grad_fn}, value={self.value!r},"
            f" grad={self.grad!r})"
        )


class Marked:
    """A wrapper the harness understands: `snap(x, names=False)` and friends."""

    def __init__(self, value, names: bool = True) -> None:
        self.value = value
        self.names = names


def _is_tensor(x) -> bool:
    return isinstance(x, autograd_compat.Tensor) or (
        real_torch is not None and isinstance(x, real_torch.Tensor)
    )


def _is_dtype(x) -> bool:
    return isinstance(x, autograd_compat.dtype) or (
        real_torch is not None and isinstance(x, real_torch.dtype)
    )


def _is_size(x) -> bool:
    return isinstance(x, autograd_compat.Size) or (
        real_torch is not None and isinstance(x, real_torch.Size)
    )


def _values(t) -> np.ndarray:
    """The tensor's elements as numpy (float64 for floating dtypes, which numpy lacks some of)."""
    d = t.detach()
    if d.dtype.is_floating_point:
        d = d.double()
    return np.array(d.numpy(), copy=True)


def _tensor_record(t, names: bool) -> TensorRecord:
    r = TensorRecord()
    r.value = _values(t)
    r.dtype = str(t.dtype)
    r.shape = tuple(t.shape)
    r.requires_grad = bool(t.requires_grad)
    r.is_leaf = bool(t.is_leaf)
    r.has_grad_fn = t.grad_fn is not None
    r.grad_fn = t.grad_fn.name() if t.grad_fn is not None else None
    r.retains_grad = bool(t.retains_grad)
    r.check_name = names
    # Reading .grad of a non-leaf warns (an error under filterwarnings=error): only read it
    # where PyTorch fills it.
    grad = t.grad if (t.is_leaf or t.retains_grad) else None
    r.grad = None if grad is None else _tensor_record(grad, names)
    return r


def snap(x, names: bool = True):
    """Record `x` now (tensors are read at once, so later in-place changes don't show)."""
    if isinstance(x, Marked):
        return snap(x.value, x.names)
    if isinstance(x, (Err, Ok, TensorRecord)):
        return x
    if _is_tensor(x):
        return _tensor_record(x, names)
    if _is_size(x):
        return ("Size", tuple(int(s) for s in x), str(x))
    if _is_dtype(x):
        return ("dtype", str(x))
    if isinstance(x, dict):
        return {k: snap(v, names) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return (
            type(x)(snap(v, names) for v in x)
            if type(x) in (list, tuple)
            else tuple(snap(v, names) for v in x)
        )
    if isinstance(x, (bool, int, float, str, type(None), np.ndarray, np.generic)):
        return x
    if hasattr(x, "name") and hasattr(x, "next_functions"):  # a grad_fn node
        return ("node", x.name())
    raise TypeError(f"a parity program returned an unsupported value: {type(x).__name__}")


def no_names(x):
    """Record `x` without comparing grad_fn names (graphs recorded by create_graph=True, whose
    node names are autograd_compat's derived ones), still comparing `grad_fn is None`."""
    return Marked(x, names=False)


def catch(fn, *, message: bool = True):
    """Run `fn()`; record what it returns (Ok) or the exception it raises (Err)."""
    try:
        return Ok(snap(fn()))
    except Exception as exc:  # noqa: BLE001 - every exception is a result to compare
        return Err(exc, message)


def graph_names(t, depth: int = 8):
    """The grad_fn graph below `t` as nested (name, children) tuples, for comparison."""

    def walk(node, d):
        if node is None:
            return None
        if d == 0:
            return (node.name(), "...")
        return (node.name(), tuple(walk(n, d - 1) for n, _ in node.next_functions))

    return walk(t.grad_fn, depth)


# ----------------------------------------------------------------------------- comparison
TOLERANCES = {  # (rtol, atol): differences of rounding between two correct implementations
    "torch.float64": (1e-9, 1e-11),
    "torch.float32": (2e-5, 1e-6),
    "torch.float16": (2e-3, 1e-4),
    "torch.bfloat16": (1.6e-2, 1e-3),
}


def _close(a: np.ndarray, b: np.ndarray, dtype: str, tolerance=None) -> bool:
    rtol, atol = TOLERANCES.get(dtype, (0.0, 0.0))
    if tolerance is not None and dtype in tolerance:
        rtol, atol = tolerance[dtype]
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "biu" or b.dtype.kind in "biu":
        return np.array_equal(a, b)
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))


def compare(expected, actual, path: str = "result", tolerance=None) -> list[str]:
    """Differences between a PyTorch record and an autograd_compat record (empty: equal).

    `tolerance`: {dtype string: (rtol, atol)} overriding TOLERANCES for some dtypes.
    """
    out: list[str] = []

    def recurse(e, a, p):
        return compare(e, a, p, tolerance)

    if isinstance(expected, TensorRecord) or isinstance(actual, TensorRecord):
        if not (isinstance(expected, TensorRecord) and isinstance(actual, TensorRecord)):
            return [f"{path}: torch gave {_short(expected)}, autograd_compat gave {_short(actual)}"]
        for field in ("dtype", "shape", "requires_grad", "is_leaf", "has_grad_fn", "retains_grad"):
            e, a = getattr(expected, field), getattr(actual, field)
            if e != a:
                out.append(f"{path}.{field}: torch {e!r}, autograd_compat {a!r}")
        if expected.check_name and actual.check_name and expected.grad_fn != actual.grad_fn:
            out.append(
                f"{path}.grad_fn: torch {expected.grad_fn}, autograd_compat {actual.grad_fn}"
            )
        if not _close(expected.value, actual.value, expected.dtype, tolerance):
            out.append(
                f"{path}: values differ ({expected.dtype})\n  torch:           "
                f"{expected.value!r}\n  autograd_compat: {actual.value!r}"
            )
        if (expected.grad is None) != (actual.grad is None):
            out.append(f"{path}.grad: torch {expected.grad!r}, autograd_compat {actual.grad!r}")
        elif expected.grad is not None:
            out.extend(recurse(expected.grad, actual.grad, f"{path}.grad"))
        return out
    if type(expected) is not type(actual):
        return [f"{path}: torch gave {_short(expected)}, autograd_compat gave {_short(actual)}"]
    if isinstance(expected, Err):
        if expected.type != actual.type:
            out.append(f"{path}: torch raised {expected!r}, autograd_compat raised {actual!r}")
        elif expected.check_message and expected.message != actual.message:
            out.append(
                f"{path}: {expected.type} texts differ\n  torch:           "
                f"{expected.message!r}\n  autograd_compat: {actual.message!r}"
            )
        return out
    if isinstance(expected, Ok):
        return recurse(expected.value, actual.value, path)
    if isinstance(expected, dict):
        if expected.keys() != actual.keys():
            return [f"{path}: keys {sorted(expected)} vs {sorted(actual)}"]
        for k in expected:
            out.extend(recurse(expected[k], actual[k], f"{path}[{k!r}]"))
        return out
    if isinstance(expected, (list, tuple)):
        if len(expected) != len(actual):
            return [f"{path}: length {len(expected)} vs {len(actual)}: {expected!r} / {actual!r}"]
        for i, (e, a) in enumerate(zip(expected, actual)):
            out.extend(recurse(e, a, f"{path}[{i}]"))
        return out
    if isinstance(expected, float):
        if not (
            (math.isnan(expected) and math.isnan(actual))
            or math.isclose(expected, actual, rel_tol=2e-5, abs_tol=1e-6)
        ):
            out.append(f"{path}: torch {expected!r}, autograd_compat {actual!r}")
        return out
    if isinstance(expected, np.ndarray):
        if not _close(expected, actual, "torch.float32"):
            out.append(f"{path}: torch {expected!r}, autograd_compat {actual!r}")
        return out
    if expected != actual:
        out.append(f"{path}: torch {expected!r}, autograd_compat {actual!r}")
    return out


# PyTorch warns about this once per process (TORCH_WARN_ONCE): not comparable run to run.
IGNORED_WARNINGS = ("Using backward() with create_graph=True will create a reference cycle",)


def _warning_record(w) -> tuple:
    text = re.sub(r" \(Triggered internally at .*\)$", "", str(w.message), flags=re.S)
    return (w.category.__name__, text)


def run(prog, module):
    """The record of one run of `prog` with `module`: (result, warnings). A raised exception
    becomes an Err; warnings are recorded (category and text), not raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = snap(prog(module))
        except Exception as exc:  # noqa: BLE001 - a raised exception is a result to compare
            result = Err(exc)
    records = [_warning_record(w) for w in caught]
    return result, [r for r in records if not r[1].startswith(IGNORED_WARNINGS)]


def _short(x, limit: int = 400) -> str:
    text = repr(x)
    return text if len(text) <= limit else text[:limit] + "..."


def has_api(path: str) -> bool:
    """Whether autograd_compat has `path` (e.g. "logsumexp", "nn.functional.softmax")."""
    obj = autograd_compat
    for part in path.split("."):
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


def run_parity(prog) -> tuple:
    """Run `prog` with PyTorch and autograd_compat; fail with every difference listed.

    A program with a `requires` attribute (API paths) is skipped, with the reason, while
    autograd_compat lacks one of them (the op is not written yet)."""
    torch = require_torch()
    missing = [p for p in getattr(prog, "requires", ()) if not has_api(p)]
    if missing:
        pytest.skip(f"autograd_compat has no {', '.join(missing)} yet")
    expected = run(prog, torch)
    actual = run(prog, autograd_compat)
    differences = compare(expected[0], actual[0], tolerance=getattr(prog, "tolerance", None))
    if expected[1] != actual[1]:
        differences.append(f"warnings: torch {expected[1]!r}\n  autograd_compat {actual[1]!r}")
    if differences:
        pytest.fail(
            f"{prog.__name__}: autograd_compat differs from PyTorch\n" + "\n".join(differences),
            pytrace=False,
        )
    return expected, actual


class Corpus:
    """A registry of programs: `@corpus` adds one; `corpus.params()` for parametrize."""

    def __init__(self) -> None:
        self.programs: list = []

    def __call__(self, prog):
        self.programs.append(prog)
        return prog

    def add(self, name: str, prog, requires=(), tolerance=None):
        prog.__name__ = name
        prog.requires = tuple(requires)
        if tolerance is not None:
            prog.tolerance = tolerance
        self.programs.append(prog)

    def requiring(self, *paths):
        """Decorator: add a program that needs these autograd_compat APIs."""

        def decorate(prog):
            prog.requires = paths
            self.programs.append(prog)
            return prog

        return decorate

    def params(self, known: dict | None = None):
        """One pytest param per program; those in `known` (name -> precise discrepancy) are
        strict xfails: they fail while the library differs from PyTorch, and the run fails
        once it is fixed, so the entry gets removed."""
        known = known or {}
        names = {p.__name__ for p in self.programs}
        stale = set(known) - names
        if stale:
            raise ValueError(f"known discrepancies for programs that don't exist: {stale}")
        return [
            pytest.param(
                p,
                id=p.__name__,
                marks=[pytest.mark.xfail(strict=True, reason=known[p.__name__])]
                if p.__name__ in known
                else [],
            )
            for p in self.programs
        ]
