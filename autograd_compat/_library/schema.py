"""An operator schema's arguments, and a call's arguments bound to them as PyTorch's dispatcher
binds them: the arguments before ``*`` are passed by position (even when given by keyword),
the keyword-only ones by keyword, numbers converted to the schema's type (an int given for a
float is a float) and a value of the wrong type refused; a kernel gets neither trailing
positional arguments nor keyword-only ones equal to their defaults, while `setup_context`
sees every argument, with defaults filled in.
"""

from __future__ import annotations

import ast
import functools
import numbers
import re
from dataclasses import dataclass
from typing import Any

from .._pure import dtypes as _dtypes
from .._state.tensor import Tensor

_NO_DEFAULT = object()


@dataclass(frozen=True)
class Argument:
    """One argument of a schema: its type ("Tensor", "float?", "int[]"; aliasing marks
    dropped), its name, whether it is keyword-only, its default."""

    kind: str
    name: str
    keyword_only: bool
    default: Any = _NO_DEFAULT

    @property
    def has_default(self) -> bool:
        return self.default is not _NO_DEFAULT

    def is_default(self, value: Any) -> bool:
        """Whether `value` equals the default (a tensor never does)."""
        if not self.has_default or isinstance(value, Tensor):
            return False
        return value is self.default or (self.default is not None and value == self.default)


@dataclass(frozen=True)
class Bound:
    """A call's arguments bound to a schema: `args` by position, `kwargs` keyword-only, both
    with the defaults filled in."""

    arguments: tuple[Argument, ...]
    args: tuple
    kwargs: dict[str, Any]

    def kernel_args(self) -> tuple:
        """The positional arguments less the trailing ones equal to their defaults."""
        positional = [a for a in self.arguments if not a.keyword_only]
        end = len(self.args)
        while end and positional[end - 1].is_default(self.args[end - 1]):
            end -= 1
        return self.args[:end]

    def kernel_kwargs(self) -> dict[str, Any]:
        """The keyword-only arguments that differ from their defaults."""
        given = {a.name: a for a in self.arguments if a.keyword_only}
        return {k: v for k, v in self.kwargs.items() if not given[k].is_default(v)}


@functools.cache
def arguments(schema: str) -> tuple[Argument, ...]:
    """The arguments of a schema "name(Tensor x, float k=1., *, int n=2) -> Tensor"."""
    inside = schema[schema.index("(") + 1 : _closing(schema, schema.index("("))]
    found = []
    keyword_only = False
    for part in _split(inside):
        if part == "*":
            keyword_only = True
            continue
        declaration, equals, default = part.partition("=")
        kind, name = declaration.rsplit(None, 1)
        kind = re.sub(r"\(.*?\)", "", kind)  # Tensor(a!) -> Tensor
        value = _default(kind, default.strip()) if equals else _NO_DEFAULT
        found.append(Argument(kind, name, keyword_only, value))
    return tuple(found)


def bind(qualname: str, schema: str, args: tuple, kwargs: dict[str, Any]) -> Bound:
    """`args` and `kwargs` bound to the schema's arguments, with PyTorch's errors for a call
    that does not fit it."""
    params = arguments(schema)
    declaration = f"{qualname}{schema[schema.index('(') :]}"
    positional = [a for a in params if not a.keyword_only]
    if len(args) > len(positional):
        raise RuntimeError(
            f"{qualname}() takes {len(positional)} positional argument(s) but {len(args)} "
            f"was/were given.  Declaration: {declaration}"
        )
    names = {a.name for a in params}
    for key in kwargs:
        if key not in names:
            raise RuntimeError(
                f"Unknown keyword argument '{key}' for operator '{qualname}'. Schema: {declaration}"
            )
    for argument in positional[: len(args)]:
        if argument.name in kwargs:
            raise RuntimeError(
                f"Argument '{argument.name}' specified both as positional and keyword "
                f"argument. Schema: {declaration}"
            )
    values = {}
    for position, argument in enumerate(params):
        if position < len(args) or argument.name in kwargs:
            given = args[position] if position < len(args) else kwargs[argument.name]
            values[argument.name] = _converted(qualname, declaration, position, argument, given)
        elif argument.has_default:
            values[argument.name] = argument.default
        else:
            raise RuntimeError(
                f"{qualname}() is missing value for argument '{argument.name}'. Declaration: "
                f"{declaration}"
            )
    return Bound(
        params,
        tuple(values[a.name] for a in positional),
        {a.name: values[a.name] for a in params if a.keyword_only},
    )


_SCALARS: dict[str, tuple[type, ...]] = {
    "float": (numbers.Real,),
    "int": (numbers.Integral,),
    "SymInt": (numbers.Integral,),
    "bool": (numbers.Integral,),
    "str": (str,),
}


def _converted(qualname: str, declaration: str, position: int, argument: Argument, value: Any):
    """`value` as the argument's type takes it (numbers converted), or PyTorch's error."""
    kind = argument.kind
    optional = kind.endswith("?")
    base = kind.rstrip("?")
    if (optional and value is None) or (base not in _SCALARS and base != "Tensor"):
        return value
    if base == "Tensor":
        if isinstance(value, Tensor):
            return value
        details = f"Unable to cast {value} to Tensor"
    elif isinstance(value, _SCALARS[base]) and not isinstance(value, Tensor):
        return {"float": float, "bool": bool, "str": str}.get(base, int)(value)
    else:
        found = "torch.Tensor" if isinstance(value, Tensor) else type(value).__qualname__
        details = (
            f"Unable to cast Python instance of type <class '{found}'> to C++ type '?' (#define "
            "PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode for details)"
        )
    expected = f"Optional[{base}]" if optional else base
    raise RuntimeError(
        f"{qualname}() Expected a value of type '{expected}' for argument '{argument.name}' but "
        f"instead found type '{type(value).__name__}'.\nPosition: {position}\nValue: {value!r}\n"
        f"Declaration: {declaration}\nCast error details: {details}"
    )


def _closing(text: str, opening: int) -> int:
    """The index of the bracket closing the one at `opening`."""
    depth = 0
    for index in range(opening, len(text)):
        if text[index] in "([":
            depth += 1
        elif text[index] in ")]":
            depth -= 1
            if depth == 0:
                return index
    raise ValueError(f"unbalanced brackets in schema {text!r}")


def _split(inside: str) -> list[str]:
    """The comma-separated parts of an argument list, brackets and strings kept whole."""
    parts, depth, quote, start = [], 0, "", 0
    for index, char in enumerate(inside):
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(inside[start:index].strip())
            start = index + 1
    last = inside[start:].strip()
    return [*parts, last] if last else parts


def _default(kind: str, text: str) -> Any:
    """The Python value of a default as a schema writes it ("1.", "[1, 2]", "float32")."""
    if kind.startswith("ScalarType") and text != "None":
        return getattr(_dtypes, text, text)
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text  # a name PyTorch's schemas spell bare (a layout, a memory format)
    if "[" in kind and not isinstance(value, list) and value is not None:
        size = kind[kind.index("[") + 1 : kind.index("]")]
        return [value] * int(size) if size else [value]
    return value
