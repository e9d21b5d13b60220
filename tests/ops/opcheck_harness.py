"""Op checks shared by the tests/ops tables: one program, run against both libraries.

A case is `fn(lib, *tensors)` written once against the PyTorch API, plus its inputs as numpy
arrays. `check_case` runs it with autograd_compat and with real PyTorch and compares values,
shapes, dtypes and grad_fn names; for float64 inputs it also compares gradients (for a
random cotangent) with PyTorch's, with jax.vjp of the same program traced through the
library (the pure functions under JAX's own transform), and with central finite differences.
"""

from __future__ import annotations

import zlib

import jax
import numpy as np

import autograd_compat as ac


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


def _flatten(out):
    """The tensors of an op's result (a tensor, or a (named) tuple / list of tensors)."""
    if isinstance(out, (tuple, list)):
        items = []
        for o in out:
            items.extend(_flatten(o))
        return items
    return [out]


def _np(t) -> np.ndarray:
    if hasattr(t, "detach"):
        t = t.detach()
    if hasattr(t, "numpy"):
        try:
            return np.asarray(t.numpy())
        except TypeError:  # bfloat16 in torch
            return np.asarray(t.float().numpy())
    return np.asarray(t)


def _is_float(t) -> bool:
    return t.dtype.is_floating_point or t.dtype.is_complex


def tolerance(dtype_name: str) -> tuple[float, float]:
    return {
        "torch.float64": (1e-9, 1e-10),
        "torch.float32": (2e-5, 1e-5),
        "torch.float16": (2e-3, 2e-3),
        "torch.bfloat16": (2e-2, 2e-2),
    }.get(dtype_name, (0, 0))


def assert_same(ours, theirs, what: str = "value", rtol=None, atol=None) -> None:
    """Same shape, dtype and values (NaN where NaN) for a tensor or a structure of them."""
    ours_list, theirs_list = _flatten(ours), _flatten(theirs)
    assert len(ours_list) == len(theirs_list), f"{what}: {len(ours_list)} vs {len(theirs_list)}"
    if isinstance(theirs, tuple) and hasattr(theirs, "_fields"):
        assert type(ours).__name__ == type(theirs).__name__, what
        assert ours.values is ours[0] and ours.indices is ours[1]
    for o, t in zip(ours_list, theirs_list):
        if t is None or o is None:
            assert o is None and t is None, f"{what}: {o} vs {t}"
            continue
        assert str(o.dtype) == str(t.dtype), f"{what}: dtype {o.dtype} vs {t.dtype}"
        assert tuple(o.shape) == tuple(t.shape), f"{what}: shape {tuple(o.shape)} vs {t.shape}"
        r, a = tolerance(str(t.dtype))
        r = r if rtol is None else rtol
        a = a if atol is None else atol
        np.testing.assert_allclose(
            _np(o).astype(np.float64) if _np(o).dtype.kind == "V" else _np(o),
            _np(t),
            rtol=r,
            atol=a,
            equal_nan=True,
            err_msg=what,
        )


def _run(lib, fn, arrays, requires_grad):
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
    return [
        np.zeros(t.shape) if g is None else _np(g).astype(np.float64) for t, g in zip(diff, grads)
    ]


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
    rtol=None,
    atol=None,
    grad_rtol: float = 1e-7,
    grad_atol: float = 1e-8,
    fd_eps: float = 1e-6,
):
    """Run `fn` on `arrays` with both libraries; compare everything that applies.

    Gradients are compared when some input is float64 and `grads`; `requires_grad` (one bool
    per input) chooses which inputs are differentiated (default: every floating input).
    `jax_vjp` adds the comparison with jax.vjp of the traced program (one more compilation,
    so the tables ask for it on a sample of their cases).
    Returns (ours, theirs).
    """
    if requires_grad is None:
        requires_grad = [a.dtype.kind in "fc" for a in arrays]
    want_grad = grads and any(r and a.dtype == np.float64 for a, r in zip(arrays, requires_grad))
    if not want_grad:
        requires_grad = [False] * len(arrays)
    ours_in, ours = _run(ac, fn, arrays, requires_grad)
    theirs_in, theirs = _run(real_torch, fn, arrays, requires_grad)
    assert_same(ours, theirs, "forward", rtol, atol)
    ours_out, theirs_out = _flatten(ours), _flatten(theirs)
    if names:
        for o, t in zip(ours_out, theirs_out):
            o_name = None if o.grad_fn is None else o.grad_fn.name()
            t_name = None if t.grad_fn is None else t.grad_fn.name()
            assert o_name == t_name, f"grad_fn {o_name} vs {t_name}"
    for o, t in zip(ours_out, theirs_out):
        assert o.requires_grad == t.requires_grad, f"requires_grad {o.requires_grad}"
    if not want_grad:
        return ours, theirs
    rng = np.random.default_rng(7)
    cotangents = [
        rng.standard_normal(tuple(t.shape)) if t.requires_grad and _is_float(t) else None
        for t in theirs_out
    ]
    g_theirs = _grads(real_torch, theirs_out, theirs_in, cotangents)
    g_ours = _grads(ac, ours_out, ours_in, cotangents)
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
    return ours, theirs


def _jax_vjp(fn, arrays, diff_index, cotangents):
    """Gradients by jax.vjp of the program run on tracers (Tensors are pytrees)."""
    fixed = list(arrays)

    def program(*diff_values):
        values = list(fixed)
        for i, v in zip(diff_index, diff_values):
            values[i] = v
        tensors = [ac.from_jax(v) if hasattr(v, "dtype") else v for v in values]
        outs = _flatten(fn(ac, *tensors))
        return [o.jax() for o, c in zip(outs, cotangents) if c is not None]

    primals = [jax.numpy.asarray(arrays[i]) for i in diff_index]
    cts = [jax.numpy.asarray(c) for c in cotangents if c is not None]

    @jax.jit
    def run(*primals):
        _, vjp = jax.vjp(program, *primals)
        return vjp(cts)

    return [np.asarray(g, np.float64) for g in run(*primals)]


def _check_finite_differences(fn, arrays, diff_index, cotangents, grads, eps):
    """Central differences of <cotangent, f(x + t v)> along a random direction v."""
    rng = np.random.default_rng(11)
    directions = [rng.standard_normal(arrays[i].shape) for i in diff_index]

    def objective(t):
        values = list(arrays)
        for i, v in zip(diff_index, directions):
            values[i] = arrays[i] + t * v
        with ac.no_grad():
            outs = _flatten(fn(ac, *[ac.tensor(v) for v in values]))
        return sum(
            float(np.sum(_np(o).astype(np.float64) * c))
            for o, c in zip(outs, cotangents)
            if c is not None
        )

    numeric = (objective(eps) - objective(-eps)) / (2 * eps)
    analytic = sum(float(np.sum(g * v)) for g, v in zip(grads, directions))
    np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-6, err_msg="finite diff")


def check_error(fn, real_torch, *, message: str | bool = True):
    """`fn(lib)` raises the same exception type (and message) in both libraries.

    `message`: True compares the whole text, False only the type, a string: both texts must
    contain it.
    """
    try:
        fn(real_torch)
    except Exception as e:  # noqa: BLE001 - any exception is the oracle's answer
        expected = e
    else:
        raise AssertionError("PyTorch did not raise")
    try:
        fn(ac)
    except Exception as e:  # noqa: BLE001
        actual = e
    else:
        raise AssertionError(f"no error; PyTorch raised {type(expected).__name__}: {expected}")
    builtin = next(c for c in type(expected).__mro__ if c.__module__ == "builtins")
    assert isinstance(actual, builtin), f"{type(actual).__name__} vs {type(expected).__name__}"
    assert type(actual).__name__ == type(expected).__name__, type(actual).__name__
    text_e, text_a = str(expected), str(actual)
    if message is True:
        assert text_a == text_e, f"\nours:  {text_a}\ntorch: {text_e}"
    elif isinstance(message, str):
        assert message in text_e, text_e
        assert message in text_a, text_a
    return actual
