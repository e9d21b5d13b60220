"""The one harness comparing autograd_compat with real PyTorch (the oracle).

Code under test is written once against the PyTorch API and run with both modules; each
result is turned into a plain record and the records are compared: values (with a tolerance
chosen by dtype), shapes, dtypes (by `str`), `requires_grad`, `is_leaf`, `grad_fn is None`,
grad_fn names, `.grad` of leaves (and of tensors that retain grad), the type name of
structured returns (`torch.return_types.max`), exceptions (type always, text unless told
otherwise) and, for whole programs, the warnings raised (category and text).

Entry points:
- `run_parity(prog)`: a program `def prog(torch): ...` returning a structure (dicts, lists,
  tuples) of tensors, numbers, strings, dtypes, sizes, nodes, None. `Corpus` collects
  programs and turns them into pytest params (known discrepancies are strict xfails).
- `check_case(fn, arrays, real_torch)`: an op `fn(lib, *tensors)` on numpy inputs; besides
  the forward records it compares float64 gradients with PyTorch's, with jax.vjp of the
  traced program and with central finite differences.
- `check_error(fn, real_torch)`: `fn(lib)` raises the same exception in both.
- `assert_same(ours, theirs)`: two results already computed.

Inside a program, `snap(x)` records a state now (`.grad` after each step, which later steps
change in place), `catch(fn)` records what `fn()` returns or raises so the program can go
on, and `no_names(x)` skips the grad_fn names (graphs recorded by create_graph=True).

Without torch every comparison skips with the reason, or fails when the CI environment
variable is set (`require_torch`).
"""

from __future__ import annotations

import math
import os
import re
import warnings
import zlib

import jax
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
    """A raised exception: its type name, its nearest builtin base and its text.

    `check_message`: True compares the whole text, False only the type, a string: both texts
    must contain it.
    """

    def __init__(self, exc: BaseException, check_message: bool | str = True) -> None:
        self.exc = exc
        self.type = type(exc).__name__
        self.builtin = next(c for c in type(exc).__mro__ if c.__module__ == "builtins").__name__
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


def values(t) -> np.ndarray:
    """The tensor's elements as numpy (float64 for floating dtypes, which numpy lacks some of)."""
    d = t.detach()
    if d.dtype.is_floating_point:
        d = d.double()
    if d.dtype.is_complex:
        d = d.resolve_conj()  # PyTorch's ifft and conj results are lazy conjugates
    return np.array(d.numpy(), copy=True)


def grad_fn_name(t) -> str | None:
    """The name of the node that made `t`, or None for a leaf or a tensor without history."""
    return None if t.grad_fn is None else t.grad_fn.name()


def _tensor_record(t, names: bool) -> TensorRecord:
    r = TensorRecord()
    r.value = values(t)
    r.dtype = str(t.dtype)
    r.shape = tuple(t.shape)
    r.requires_grad = bool(t.requires_grad)
    r.is_leaf = bool(t.is_leaf)
    r.has_grad_fn = t.grad_fn is not None
    r.grad_fn = grad_fn_name(t)
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
    if type(x) in (list, tuple):
        return type(x)(snap(v, names) for v in x)
    if isinstance(x, tuple):  # a structured return such as torch.return_types.max
        return ("return_types", type(x).__name__, tuple(snap(v, names) for v in x))
    if isinstance(x, (bool, int, float, str, type(None), np.ndarray, np.generic)):
        return x
    if hasattr(x, "name") and hasattr(x, "next_functions"):  # a grad_fn node
        return ("node", x.name())
    raise TypeError(f"a compared program returned an unsupported value: {type(x).__name__}")


def no_names(x):
    """Record `x` without comparing grad_fn names (graphs recorded by create_graph=True, whose
    node names are autograd_compat's derived ones), still comparing `grad_fn is None`."""
    return Marked(x, names=False)


def catch(fn, *, message: bool | str = True):
    """Run `fn()`; record what it returns (Ok) or the exception it raises (Err)."""
    try:
        value = fn()
    except Exception as exc:  # noqa: BLE001 - every exception is a result to compare
        return Err(exc, message)
    return Ok(snap(value))


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
    "torch.complex128": (1e-9, 1e-11),
    "torch.complex64": (2e-5, 1e-6),
}
INEXACT_DTYPES = tuple(TOLERANCES)


def uniform(rtol: float, atol: float) -> dict:
    """A `tolerance` override giving every floating and complex dtype the same (rtol, atol)."""
    return dict.fromkeys(INEXACT_DTYPES, (rtol, atol))


def _close(a: np.ndarray, b: np.ndarray, dtype: str, tolerance=None) -> bool:
    rtol, atol = (tolerance or {}).get(dtype, TOLERANCES.get(dtype, (0.0, 0.0)))
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "biu" or b.dtype.kind in "biu":
        return np.array_equal(a, b)
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))


def _compare_errors(expected: Err, actual: Err, path: str) -> list[str]:
    if (expected.type, expected.builtin) != (actual.type, actual.builtin):
        return [f"{path}: torch raised {expected!r}, autograd_compat raised {actual!r}"]
    check = expected.check_message
    if check is True and expected.message != actual.message:
        return [
            f"{path}: {expected.type} texts differ\n  torch:           "
            f"{expected.message!r}\n  autograd_compat: {actual.message!r}"
        ]
    if isinstance(check, str) and not (check in expected.message and check in actual.message):
        return [f"{path}: both texts should contain {check!r}: {expected!r} / {actual!r}"]
    return []


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
        return _compare_errors(expected, actual, path)
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


def _short(x, limit: int = 400) -> str:
    text = repr(x)
    return text if len(text) <= limit else text[:limit] + "..."


def assert_same(ours, theirs, what: str = "result", tolerance=None, names: bool = True) -> None:
    """`ours` (autograd_compat) records the same as `theirs` (PyTorch); see `compare`."""
    differences = compare(snap(theirs, names), snap(ours, names), what, tolerance)
    assert not differences, "\n".join(differences)


# ----------------------------------------------------------------------------- programs
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
        result = catch(lambda: prog(module))
    records = [_warning_record(w) for w in caught]
    result = result.value if isinstance(result, Ok) else result
    return result, [r for r in records if not r[1].startswith(IGNORED_WARNINGS)]


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
    """A registry of programs: `@corpus` adds one; `corpus.params()` for parametrize.

    `tolerance` is the default of the programs that don't set their own."""

    def __init__(self, programs=(), tolerance=None) -> None:
        self.programs: list = []
        self.tolerance = tolerance
        for prog in programs:
            self(prog)

    def __call__(self, prog):
        if self.tolerance is not None and not hasattr(prog, "tolerance"):
            prog.tolerance = self.tolerance
        self.programs.append(prog)
        return prog

    def add(self, name: str, prog, requires=(), tolerance=None):
        prog.__name__ = name
        prog.requires = tuple(requires)
        if tolerance is not None:
            prog.tolerance = tolerance
        self(prog)

    def requiring(self, *paths):
        """Decorator: add a program that needs these autograd_compat APIs."""

        def decorate(prog):
            prog.requires = paths
            return self(prog)

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


# ----------------------------------------------------------------------------- shared programs
def cube_function(lib):
    """x**3 as a custom autograd.Function of `lib` whose backward (3 x**2 from the saved x) is
    itself differentiable: the common subject of the custom-Function tests."""

    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x**2

    return Cube


# ----------------------------------------------------------------------------- op checks
def arr(shape, kind: str = "normal", dtype=np.float64, seed: int | None = None) -> np.ndarray:
    """A deterministic input array: "normal", "pos" (in [0.5, 2]), "unit" (in (-0.9, 0.9)),
    "int" (in [-5, 5]), "nat" (in [1, 5]), "bool"."""
    if seed is None:
        seed = zlib.crc32(repr((shape, kind)).encode())
    rng = np.random.default_rng(seed)
    if kind == "normal":
        a = rng.standard_normal(shape)
    elif kind == "pos":
        a = rng.uniform(0.5, 2.0, shape)
    elif kind == "unit":
        a = rng.uniform(-0.9, 0.9, shape)
    elif kind == "int":
        a = rng.integers(-5, 6, shape)
    elif kind == "nat":
        a = rng.integers(1, 6, shape)
    elif kind == "bool":
        a = rng.integers(0, 2, shape).astype(bool)
    else:
        raise ValueError(kind)
    return np.asarray(a).astype(dtype)


def deterministic(lib, module):
    """`module` in float64 with the same parameters in both libraries."""
    module = module.double()
    with lib.no_grad():
        for i, (_, p) in enumerate(sorted(module.named_parameters())):
            p.copy_(lib.tensor(0.5 * arr(tuple(p.shape), seed=i)))
    return module


def _flatten(out):
    """The tensors of an op's result (a tensor, or a (named) tuple / list of tensors)."""
    if isinstance(out, (tuple, list)):
        items = []
        for o in out:
            items.extend(_flatten(o))
        return items
    return [out]


def _is_float(t) -> bool:
    return t.dtype.is_floating_point or t.dtype.is_complex


def _run_op(lib, fn, arrays, requires_grad):
    tensors = [
        lib.tensor(a, requires_grad=bool(r and a.dtype.kind in "fc"))
        for a, r in zip(arrays, requires_grad)
    ]
    return tensors, fn(lib, *tensors)


def _grads(lib, outputs, inputs, cotangents):
    """d(sum of outputs * cotangents)/d(inputs), zeros where an input is unused."""
    pairs = [(o, c) for o, c in zip(outputs, cotangents) if c is not None]
    diff = [t for t in inputs if t.requires_grad]
    if not pairs or not diff:
        return []
    grads = lib.autograd.grad(
        [o for o, _ in pairs],
        diff,
        [lib.tensor(c, dtype=o.dtype) for o, c in pairs],
        allow_unused=True,
    )
    return [np.zeros(t.shape) if g is None else values(g) for t, g in zip(diff, grads)]


def check_case(
    fn,
    arrays,
    real_torch,
    *,
    requires_grad=None,
    grads: bool = True,
    names: bool = True,
    jax_vjp: bool = False,
    finite_differences: bool = True,
    tolerance=None,
    grad_rtol: float = 1e-7,
    grad_atol: float = 1e-8,
    fd_eps: float = 1e-6,
) -> None:
    """Run `fn` on `arrays` with both libraries; compare everything that applies.

    The forward results are compared as records (`names`: with grad_fn names; `tolerance`
    as in `compare`). Gradients are compared when some input is float64 and `grads`;
    `requires_grad` (one bool per input) chooses which inputs are differentiated (default:
    every floating input). `jax_vjp` adds the comparison with jax.vjp of the traced program
    (one more compilation, so the tables ask for it on a sample of their cases).
    """
    if requires_grad is None:
        requires_grad = [a.dtype.kind in "fc" for a in arrays]
    want_grad = grads and any(r and a.dtype == np.float64 for a, r in zip(arrays, requires_grad))
    if not want_grad:
        requires_grad = [False] * len(arrays)
    ours_in, ours = _run_op(autograd_compat, fn, arrays, requires_grad)
    theirs_in, theirs = _run_op(real_torch, fn, arrays, requires_grad)
    assert_same(ours, theirs, "forward", tolerance, names)
    if not want_grad:
        return
    ours_out, theirs_out = _flatten(ours), _flatten(theirs)
    rng = np.random.default_rng(7)
    cotangents = [
        rng.standard_normal(tuple(t.shape)) if t.requires_grad and _is_float(t) else None
        for t in theirs_out
    ]
    g_theirs = _grads(real_torch, theirs_out, theirs_in, cotangents)
    g_ours = _grads(autograd_compat, ours_out, ours_in, cotangents)
    for i, (go, gt) in enumerate(zip(g_ours, g_theirs)):
        np.testing.assert_allclose(
            go, gt, rtol=grad_rtol, atol=grad_atol, equal_nan=True, err_msg=f"grad {i} vs torch"
        )
    diff_index = [i for i, t in enumerate(ours_in) if t.requires_grad]
    if jax_vjp and diff_index:
        g_jax = _jax_vjp(fn, arrays, diff_index, cotangents)
        for i, (go, gj) in enumerate(zip(g_ours, g_jax)):
            np.testing.assert_allclose(
                go, gj, rtol=1e-9, atol=1e-10, equal_nan=True, err_msg=f"grad {i} vs jax.vjp"
            )
    if finite_differences and diff_index:
        _check_finite_differences(fn, arrays, diff_index, cotangents, g_ours, fd_eps)


def _jax_vjp(fn, arrays, diff_index, cotangents):
    """Gradients by jax.vjp of the program run on tracers (Tensors are pytrees)."""
    fixed = list(arrays)

    def program(*diff_values):
        inputs = list(fixed)
        for i, v in zip(diff_index, diff_values):
            inputs[i] = v
        tensors = [autograd_compat.from_jax(v) if hasattr(v, "dtype") else v for v in inputs]
        outs = _flatten(fn(autograd_compat, *tensors))
        return [o.jax() for o, c in zip(outs, cotangents) if c is not None]

    primals = [jax.numpy.asarray(arrays[i]) for i in diff_index]
    cts = [jax.numpy.asarray(c) for c in cotangents if c is not None]

    @jax.jit
    def run(*primals):
        _, vjp = jax.vjp(program, *primals)
        return vjp(cts)

    return [np.asarray(g, np.float64) for g in run(*primals)]


def _inner(output: np.ndarray, cotangent: np.ndarray) -> float:
    """Re <cotangent, output>: the real loss whose gradient autograd gives for this cotangent
    (for a complex output too, in PyTorch's convention)."""
    return float(np.sum(np.real(np.conj(cotangent) * output)))


def _check_finite_differences(
    fn, arrays, diff_index, cotangents, grads, eps, rtol: float = 1e-5, atol: float = 1e-6
):
    """Central differences of <cotangent, f(x + t v)> along a random direction v."""
    rng = np.random.default_rng(11)
    directions = [rng.standard_normal(arrays[i].shape) for i in diff_index]

    def objective(t):
        inputs = list(arrays)
        for i, v in zip(diff_index, directions):
            inputs[i] = arrays[i] + t * v
        with autograd_compat.no_grad():
            outs = _flatten(fn(autograd_compat, *[autograd_compat.tensor(v) for v in inputs]))
        return sum(_inner(values(o), c) for o, c in zip(outs, cotangents) if c is not None)

    numeric = (objective(eps) - objective(-eps)) / (2 * eps)
    analytic = sum(float(np.sum(g * v)) for g, v in zip(grads, directions))
    np.testing.assert_allclose(analytic, numeric, rtol=rtol, atol=atol, err_msg="finite diff")


def check_error(fn, real_torch, *, message: bool | str = True) -> BaseException:
    """`fn(lib)` raises the same exception in both libraries; returns ours.

    `message`: True compares the whole text, False only the type, a string: both texts must
    contain it.
    """
    expected = catch(lambda: fn(real_torch), message=message)
    assert isinstance(expected, Err), "PyTorch did not raise"
    actual = catch(lambda: fn(autograd_compat))
    assert isinstance(actual, Err), f"no error; PyTorch raised {expected!r}"
    differences = compare(expected, actual)
    assert not differences, "\n".join(differences)
    return actual.exc
