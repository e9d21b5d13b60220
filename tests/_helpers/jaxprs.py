"""Helpers of the tests of jaxprs evaluated on the host: bit patterns, nested equations."""

from __future__ import annotations

import numpy as np


def bits(value) -> np.ndarray:
    """The bytes of `value` as unsigned integers of its width (NaN payloads and -0.0 kept)."""
    value = np.ascontiguousarray(value)
    if value.dtype == np.bool_:
        return value
    return value.view(np.dtype(f"u{value.dtype.itemsize}"))


def inner_eqns(jaxpr):
    """Every equation of `jaxpr` and, after each call, those of its body."""
    for eqn in jaxpr.eqns:
        yield eqn
        for value in eqn.params.values():
            if hasattr(value, "jaxpr"):
                yield from inner_eqns(getattr(value.jaxpr, "jaxpr", value.jaxpr))
