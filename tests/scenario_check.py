"""Run one scenario (`def scenario(lib): ...`) on this library and on real PyTorch and compare
the outcomes: the same values, dtypes and shapes of every tensor returned, or the same
exception type and text. Shared by the view, in-place and indexing tests."""

from __future__ import annotations

import numpy as np

import autograd_compat as torch


def _plain(obj):
    """A comparable, library-independent form of a scenario's result."""
    if hasattr(obj, "grad_fn") and hasattr(obj, "dtype"):
        return ("tensor", str(obj.dtype), tuple(obj.shape), obj.detach().cpu().numpy())
    if isinstance(obj, (tuple, list)):
        return tuple(_plain(o) for o in obj)
    return obj


def _outcome(lib, scenario):
    try:
        return ("ok", _plain(scenario(lib)))
    except Exception as error:  # the exception type and text are part of the contract
        return ("error", type(error).__name__, str(error))


def _assert_same(ours, theirs, where="result"):
    if isinstance(theirs, tuple) and theirs and theirs[0] == "tensor":
        assert isinstance(ours, tuple) and ours[:3] == theirs[:3], (where, ours, theirs)
        np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-6, atol=1e-6, err_msg=where)
    elif isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs), (where, ours, theirs)
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _assert_same(a, b, f"{where}[{i}]")
    else:
        assert ours == theirs, (where, ours, theirs)


def check(real_torch, scenario):
    """The scenario gives the same outcome on this library and on `real_torch`."""
    _assert_same(_outcome(torch, scenario), _outcome(real_torch, scenario))


def error(f):
    """(type name, text) of what `f()` raises, or None; lets a scenario go on after an error."""
    try:
        f()
    except Exception as exc:
        return (type(exc).__name__, str(exc))
    return None


def name(t):
    return None if t.grad_fn is None else t.grad_fn.name()
