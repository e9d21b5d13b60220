"""A PyTorch-style function of pytrees of Tensors, lowered for one JAX transform.

`Lowered` runs the function once on Tensors holding JAX tracers (autograd.functional's trace):
the result is a jaxpr of the Tensor leaves of the arguments. Each transform of this package
builds its JAX transform of that jaxpr (`functional_op`, compiled once per jaxpr) and applies
it as one op of this library, so its result is recorded for torch.autograd like any op's, and
a transform called inside another one's trace is one more JAX transform of it.

The default generator's key is one more input and output of the jaxpr: random draws inside
the function are values of the trace, and applying the transform advances the generator.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from .._pure import errors as _errors
from .._state.random import default_generator
from .._state.tensor import Tensor
from .._tape.record import apply
from ..autograd.functional import functional_op, trace_values
from ._pytree import flatten, is_tensor, unflatten

# A builder makes the JAX transform: (f, xs, extra) -> outputs, where f(*xs) evaluates the
# traced function on flat arrays (its last input and output are the generator's key).
Builder = Callable[[Callable[..., tuple], Sequence[Any], Sequence[Any]], Sequence[Any]]


def is_traced(value: Any) -> bool:
    """True for a value of a JAX trace in progress (an outer transform's)."""
    return isinstance(value, jax.core.Tracer)


def aval(x: Any) -> jax.ShapeDtypeStruct:
    return jax.ShapeDtypeStruct(x.shape, x.dtype)


UNTRACEABLE = (
    "autograd_compat runs torch.func transforms as JAX transforms of one trace of the "
    "function, and this function cannot be traced ({reason}). Inside a transform, Python "
    "control flow on a tensor's value, .item(), .tolist(), .numpy(), custom "
    "autograd.Functions and in-place writes to tensors the function did not make (a module's "
    "buffers in training mode) are not supported: use torch.where, or compute such values "
    "outside the transform"
)


class Untraceable(RuntimeError):
    """The function of a transform cannot be traced (see UNTRACEABLE)."""


class Lowered:
    """`func(*args, **kwargs)` traced once. `check(output)` returns the output as
    (primary, aux), raising PyTorch's error for an output the transform cannot take; the
    Tensor leaves of `primary` are the first `n_primary` outputs of the jaxpr.

    `avals` are the shapes the function's Tensors have (vmap's are unbatched); by default the
    arguments' own. In the function, the Tensors at `differentiated` (positions among the
    Tensor leaves) require grad, the others as the arguments do: what does not is constant
    for this transform and for torch.autograd through it."""

    def __init__(
        self,
        api: str,
        func: Callable,
        args: tuple,
        kwargs: dict,
        check: Callable[[Any], tuple[Any, Any]],
        avals: Sequence[jax.ShapeDtypeStruct] | None = None,
        differentiated: Sequence[int] = (),
    ) -> None:
        leaves, in_tree = flatten((args, kwargs))
        positions = [i for i, x in enumerate(leaves) if isinstance(x, Tensor)]
        self.tensors: list[Tensor] = [leaves[i] for i in positions]
        self.key = default_generator._key
        if avals is None:
            avals = [aval(t._value) for t in self.tensors]
        requires = [t.requires_grad for t in self.tensors] + [False]
        for i in differentiated:
            requires[i] = True
        out: dict = {}

        def flat_func(*tensors: Tensor) -> tuple[Tensor, ...]:
            full = list(leaves)
            for position, tensor in zip(positions, tensors[:-1]):
                full[position] = tensor
            call_args, call_kwargs = unflatten(in_tree, full)
            default_generator._key = tensors[-1]._value
            primary, aux = check(func(*call_args, **call_kwargs))
            primary_leaves, out["primary_tree"] = flatten(primary)
            n_primary = sum(map(is_tensor, primary_leaves))
            out_leaves, out["tree"] = flatten((primary, aux))
            out["leaves"], out["n_primary"] = out_leaves, n_primary
            results = [_cut(x) for x in out_leaves if isinstance(x, Tensor)]
            return (*results, Tensor._wrap(default_generator._key))

        try:
            self.traced = trace_values(flat_func, [*avals, aval(self.key)], _name(func), requires)
        except _errors.TRACE_ERRORS as error:
            reason = _first_line(error)
            raise Untraceable(f"{api}: {UNTRACEABLE.format(reason=reason)}") from error
        finally:
            default_generator.restore_key(self.key)
        self.out_tree = out["tree"]
        self.primary_tree = out["primary_tree"]
        self.out_leaves: list = out["leaves"]
        self.n_primary: int = out["n_primary"]
        jaxpr = self.traced.jaxpr
        self.uses_random = jaxpr.outvars[-1] is not jaxpr.invars[-1]

    @property
    def n_outputs(self) -> int:
        """How many Tensors the function returns (primary and aux)."""
        return len(self.traced.out_avals) - 1

    def run(self, kind: str, build: Builder, extra: Sequence = (), advance: bool = True):
        """Apply the transform `build` makes (cached per `kind` and jaxpr) to the arguments'
        Tensors and `extra`; its last output, the generator's next key, is dropped (and set
        with `advance`). A function that draws nothing leaves the key out of the op, so the
        op of an inner transform is no random draw of an outer one's trace."""
        traced, random = self.traced, self.uses_random

        def transform(f, xs, rest):
            outs = tuple(build(f, xs, rest))
            return outs if random else outs[:-1]

        op = functional_op(kind, traced, len(self.tensors) + 1, transform)
        consts = [t if t is not None else c for t, c in zip(traced.const_tensors, traced.consts)]
        results = list(apply(op, *self.tensors, self.key, *consts, *extra))
        if random:
            key = results.pop()
            if advance:
                default_generator._key = key._value
        return results

    def rebuild(self, tensors: Sequence[Any]) -> tuple[Any, Any]:
        """(primary, aux) with the function's Tensor outputs replaced by `tensors`."""
        found = iter(tensors)
        leaves = [next(found) if isinstance(x, Tensor) else x for x in self.out_leaves]
        return unflatten(self.out_tree, leaves)


def _cut(tensor: Tensor) -> Tensor:
    """An output PyTorch would not differentiate through (detached, made under no_grad) is
    cut from the trace's derivatives, as op inputs are."""
    value = tensor._value
    if tensor.requires_grad or not jnp.issubdtype(value.dtype, jnp.inexact):
        return tensor
    return Tensor._wrap(lax.stop_gradient(value))


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return f"{type(error).__name__}: {text.splitlines()[0] if text else ''}"


def _name(func: Callable) -> str:
    return getattr(func, "__name__", repr(func))
