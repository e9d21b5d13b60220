"""The in-place comparisons (`eq_`, `lt_`...): self becomes 1/0 in its own dtype.

On a tensor in the graph PyTorch records them (EqBackward0 for a number, EqBackward1 for a
tensor) with a zero gradient: the old value no longer reaches the result. The recorded op
here is the cast of the comparison's result, whose pure function ignores its other inputs,
so jax.vjp gives them exactly that zero gradient.
"""

from __future__ import annotations

from .._pure.op import register
from .._state import modes
from .._state.tensor import Tensor
from .._tape.args import check_inplace, commit_inplace
from .._tape.record import apply
from . import comparison as _comparison


def _as_dtype_of_first(x, *rest):
    """The comparison result (last input) in x's dtype; nothing flows back to the inputs."""
    return rest[-1].astype(x.dtype)


def _recorded(name: str, node: str, shown: tuple):
    return register(name, _as_dtype_of_first, node=node, shown_inputs=shown, saves="none")


_NAMES = {"eq": "Eq", "ne": "Ne", "lt": "Lt", "le": "Le", "gt": "Gt", "ge": "Ge"}
_BY_NUMBER = {n: _recorded(f"{n}_", f"{c}Backward0", (0,)) for n, c in _NAMES.items()}
_BY_TENSOR = {n: _recorded(f"{n}_.tensor", f"{c}Backward1", (0, 1)) for n, c in _NAMES.items()}


def _inplace_comparison(name: str):
    compare = getattr(_comparison, name)

    def method(self: Tensor, other) -> Tensor:
        check_inplace(self, (other,))
        result = compare(self, other)
        by_tensor = isinstance(other, Tensor)
        recorded = modes.is_grad_enabled() and (
            self.requires_grad or (by_tensor and other.requires_grad)
        )
        if recorded:
            if by_tensor:
                result = apply(_BY_TENSOR[name], self, other, result)
            else:
                result = apply(_BY_NUMBER[name], self, result)
        return commit_inplace(self, result)

    method.__name__ = f"{name}_"
    method.__doc__ = f"In-place `{name}`: self becomes 1 where it holds, else 0 (its dtype)."
    return method


eq_, ne_, lt_, le_, gt_, ge_ = (_inplace_comparison(n) for n in _NAMES)
