"""A hashable key of a jaxpr, equal for jaxprs that compute the same thing, made by walking
its top level: printing a traced function's jaxpr (`str(jaxpr)`, the obvious key) takes most
of the time of a torch.func call.

Nested jaxprs (the jitted ops a traced function applies) are keyed by identity: JAX's jit
cache hands the same `ClosedJaxpr` object to every trace that applies the same op to the same
types, and the key holds a reference to it, so no other jaxpr can take its identity while the
key is in use."""

from __future__ import annotations

from typing import Any

from jax.extend.core import ClosedJaxpr, Jaxpr, Literal


def jaxpr_key(jaxpr: Jaxpr) -> tuple:
    """Variables by order of appearance and type, literals by value, equations by primitive
    and parameters (nested jaxprs by identity, the others as printed)."""
    numbers: dict = {}

    def atoms(vs: Any) -> tuple:
        found: list[tuple] = []
        for v in vs:
            aval = v.aval
            kind = (getattr(aval, "shape", None), getattr(aval, "dtype", None), str(type(aval)))
            if isinstance(v, Literal):
                found.append(("literal", repr(v.val), kind))
            else:
                found.append((numbers.setdefault(v, len(numbers)), kind))
        return tuple(found)

    eqns = tuple(
        (
            e.primitive.name,
            atoms(e.invars),
            atoms(e.outvars),
            tuple((name, _param(p)) for name, p in e.params.items()),
        )
        for e in jaxpr.eqns
    )
    return (atoms(jaxpr.constvars), atoms(jaxpr.invars), eqns, atoms(jaxpr.outvars))


def _param(p: Any) -> Any:
    if isinstance(p, (ClosedJaxpr, Jaxpr)):
        return p  # hashed and compared by identity
    if isinstance(p, (tuple, list)):
        return tuple(_param(x) for x in p)
    return str(p)
