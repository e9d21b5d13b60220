"""A hashable key of a jaxpr, equal for jaxprs that compute the same thing, made by walking
its top level: printing a traced function's jaxpr (`str(jaxpr)`, the obvious key) takes most
of the time of a torch.func call.

Nested jaxprs (the jitted ops a traced function applies) are keyed the same way, their
constants by identity (the key holds a reference to them, so no other array can take their
identity while the key is in use): JAX's trace caches, which would hand the same nested
`ClosedJaxpr` to every trace of an op at the same types, are emptied every few compiles
(`executables.sweep`)."""

from __future__ import annotations

from typing import Any

from .jax_internals import ClosedJaxpr, Jaxpr, Literal


def jaxpr_key(jaxpr: Jaxpr) -> tuple:
    """Variables by order of appearance and type, literals by value, equations by primitive
    and parameters (nested jaxprs keyed alike, the others as printed)."""
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


class _Identity:
    """An object compared and hashed by identity (a constant array), held by the key."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Identity) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)


def _param(p: Any) -> Any:
    if isinstance(p, ClosedJaxpr):
        return ("closed", jaxpr_key(p.jaxpr), tuple(_Identity(c) for c in p.consts))
    if isinstance(p, Jaxpr):
        return jaxpr_key(p)
    if isinstance(p, (tuple, list)):
        return tuple(_param(x) for x in p)
    return str(p)
