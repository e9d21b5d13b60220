"""torch.library: define operators in Python with their kernels, fake (shape) functions and
derivatives; `torch.ops.<ns>.<name>` runs them (see `_library/registry.py` for the dispatch).

`custom_op` makes a `CustomOpDef`: calling it runs its kernel (under no_grad, as an opaque op),
`register_autograd` gives it a derivative (a generated autograd Function), `register_fake`
gives the output's shape for meta inputs, `register_kernel` a per-device kernel. `Library`,
`define` and `impl` are the schema-string API. What needs PyTorch's C++ dispatcher
(`fallback`, `register_torch_dispatch`, `register_vmap`) raises an error naming itself.
"""

from __future__ import annotations

import contextlib
import inspect
import types
import typing
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ._alias import missing_attribute as _missing_attribute
from ._library import registry
from ._library import schema as _schema
from ._library.ops import OpOverload, OpOverloadPacket, ops
from ._pure.dtypes import dtype as _dtype
from ._state import modes as _modes
from ._state.tensor import Tensor

__all__ = [
    "Library",
    "impl",
    "define",
    "fallthrough_kernel",
    "impl_abstract",
    "register_autocast",
    "register_fake",
    "register_torch_dispatch",
    "register_vmap",
    "get_ctx",
    "get_kernel",
    "custom_op",
    "triton_op",
    "wrap_triton",
    "infer_schema",
    "opcheck",
    "register_autograd",
    "register_kernel",
]

_KINDS = ("DEF", "IMPL", "FRAGMENT")


def _unavailable(name: str, why: str) -> NotImplementedError:
    return NotImplementedError(f"torch.library.{name}: {why}; autograd_compat has no such layer.")


class Library:
    """A set of registrations in namespace ``ns``: ``kind`` is "DEF" (defines ops), "IMPL"
    (adds kernels to ops defined elsewhere) or "FRAGMENT" (both); ``dispatch_key`` is where
    `impl` registers by default."""

    def __init__(self, ns: str, kind: str, dispatch_key: str = "") -> None:
        if kind not in _KINDS:
            raise ValueError(f"Unsupported kind: {kind}")
        self.ns = ns
        self.kind = kind
        self.dispatch_key = dispatch_key
        self._registrations: list[tuple[registry.OpEntry, str, str | None]] = []

    def __repr__(self) -> str:
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def _qualname(self, op_name: str | OpOverload) -> str:
        if isinstance(op_name, OpOverload):
            return op_name.name()
        return op_name if "::" in op_name else f"{self.ns}::{op_name}"

    def define(self, schema: str, alias_analysis: str = "", *, tags: Any = ()) -> str:
        """Define an op from a schema "name(Tensor x, float y) -> Tensor"; returns its name."""
        if self.kind == "IMPL":
            raise RuntimeError(f"Cannot define an operator inside of a IMPL block: {schema}")
        name, overload = registry.schema_name(schema)
        entry = registry.entry(f"{self.ns}::{name}.{overload}")
        entry.schema = schema
        self._registrations.append((entry, "schema", None))
        return name

    def impl(
        self,
        op_name: str | OpOverload,
        fn: Callable,
        dispatch_key: str = "",
        *,
        with_keyset: bool = False,
        allow_override: bool = False,
    ) -> None:
        """Register ``fn`` as the op's kernel for ``dispatch_key`` (the library's by default,
        else CompositeImplicitAutograd: differentiable through the ops it calls)."""
        key = registry.dispatch_key(dispatch_key or self.dispatch_key or registry.COMPOSITE)
        entry = registry.entry(self._qualname(op_name))
        entry.kernels[key] = _without_keyset(fn) if with_keyset else fn
        self._registrations.append((entry, "kernels", key))

    def _register_fake(self, op_name: str, fn: Callable, _stacklevel: int = 1, **_: Any) -> None:
        entry = registry.entry(self._qualname(op_name))
        entry.fake = fn
        self._registrations.append((entry, "fake", None))

    def fallback(self, fn: Callable, dispatch_key: str = "", *, with_keyset: bool = False):
        raise _unavailable("Library.fallback", "a fallback kernel lives in PyTorch's dispatcher")

    def _destroy(self) -> None:
        """Undo this library's registrations."""
        for entry, kind, key in reversed(self._registrations):
            if kind == "kernels":
                entry.kernels.pop(key or "", None)
            elif kind == "fake":
                entry.fake = None
            else:
                entry.schema = None
        self._registrations.clear()


def _without_keyset(fn: Callable) -> Callable:
    return lambda *args, **kwargs: fn(None, *args, **kwargs)


def fallthrough_kernel():
    """A placeholder kernel: registering it for a key makes calls skip that key."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


def _entry(op: str | OpOverload | OpOverloadPacket | CustomOpDef) -> registry.OpEntry:
    if isinstance(op, CustomOpDef):
        return op._entry
    if isinstance(op, (OpOverload, OpOverloadPacket)):
        name = op.name() if isinstance(op, OpOverload) else op._qualified_op_name
        return registry.entry(name)
    if not isinstance(op, str):
        raise ValueError(f"register(op): got unexpected type for op: {type(op)}")
    return registry.entry(op)


def define(qualname: str, schema: str, *, lib: Library | None = None, tags: Any = ()) -> None:
    """Define an op ``ns::name`` with schema "(Tensor x) -> Tensor".

    Example:
        >>> torch.library.define("doc_lib::twice", "(Tensor x) -> Tensor")
        >>> torch.library.impl("doc_lib::twice", "cpu", lambda x: x * 2)
        >>> torch.ops.doc_lib.twice(torch.ones(2))
        tensor([2., 2.])
    """
    namespace, name, overload = registry.parse_qualname(qualname)
    head = name if overload == "default" else f"{name}.{overload}"
    (lib or Library(namespace, "FRAGMENT")).define(head + schema, tags=tags)


def impl(
    qualname: str | OpOverload | CustomOpDef,
    types: str | Sequence[str],
    func: Callable | None = None,
    *,
    lib: Library | None = None,
) -> Any:
    """Register a kernel of ``qualname`` for device types / dispatch keys ``types``."""

    def register(fn: Callable) -> Callable:
        for key in [types] if isinstance(types, str) else types:
            entry = _entry(qualname)
            entry.kernels[registry.dispatch_key(key)] = fn
        return fn

    if func is None:
        return register
    register(func)
    return None


def register_kernel(
    op: str | OpOverload | CustomOpDef,
    device_types: str | Sequence[str] | None,
    func: Callable | None = None,
    /,
    *,
    lib: Library | None = None,
) -> Any:
    """Register ``func`` as the op's kernel for ``device_types`` (None: every device)."""
    return impl(op, "default" if device_types is None else device_types, func, lib=lib)


def register_fake(
    op: str | OpOverload | CustomOpDef,
    func: Callable | None = None,
    /,
    *,
    lib: Library | None = None,
    _stacklevel: int = 1,
    allow_override: bool = True,
) -> Any:
    """Register the op's fake function: its outputs' shapes and dtypes from the inputs', run
    in place of the kernel for inputs on the meta device. An op nothing defines yet (whose
    kernels would come from a compiled extension) is recorded all the same."""

    def register(fn: Callable) -> Callable:
        _entry(op).fake = fn
        return fn

    return register if func is None else register(func)


def impl_abstract(qualname: str, func: Callable | None = None, *, lib=None, _stacklevel=1):
    """Deprecated name of `register_fake`."""
    warnings.warn(
        "torch.library.impl_abstract was renamed to torch.library.register_fake. Please use "
        "that instead; we will remove torch.library.impl_abstract in a future version of "
        "PyTorch.",
        DeprecationWarning,
        stacklevel=2,
    )
    return register_fake(qualname, func, lib=lib)


def register_autograd(
    op: str | OpOverload | CustomOpDef,
    backward: Callable,
    /,
    *,
    setup_context: Callable | None = None,
    lib: Library | None = None,
) -> None:
    """Give the op a derivative: ``backward(ctx, *grads)`` returns one gradient per input,
    ``setup_context(ctx, inputs, output)`` saves what it needs."""
    entry = _entry(op)
    entry.backward = backward
    entry.setup_context = setup_context


def register_autocast(
    op: str | OpOverload | CustomOpDef,
    device_type: str,
    cast_inputs: _dtype,
    /,
    *,
    lib: Library | None = None,
) -> None:
    """Under autocast on ``device_type``, run the op with its floating inputs cast to
    ``cast_inputs`` (and autocast off inside)."""
    _entry(op).autocast[device_type] = cast_inputs


def register_torch_dispatch(op, torch_dispatch_class, func=None, /, *, lib=None):
    raise _unavailable(
        "register_torch_dispatch", "__torch_dispatch__ subclasses need PyTorch's C++ dispatcher"
    )


def register_vmap(op, func=None, /, *, lib=None):
    raise _unavailable("register_vmap", "vmap rules plug into functorch's C++ batching layer")


def get_kernel(op, dispatch_key: str):
    """The kernel registered for ``dispatch_key`` (a callable), or an error naming the key."""
    entry = _entry(op)
    key = registry.dispatch_key(dispatch_key)
    if key not in entry.kernels:
        raise RuntimeError(f"{entry.qualname} has no kernel registered for {key}")
    return entry.kernels[key]


class FakeImplCtx:
    """What a fake function gets from `get_ctx()`."""

    def new_dynamic_size(self, *, min: int = 0, max: int | None = None):
        raise RuntimeError(
            "torch.library.get_ctx().new_dynamic_size: an output size that depends on the "
            "data needs symbolic shapes, which autograd_compat does not have; run the op on "
            "real (non-meta) tensors."
        )

    new_data_dependent_symint = new_dynamic_size


def get_ctx() -> FakeImplCtx:
    """The context of the fake function being run."""
    return FakeImplCtx()


class CustomOpDef:
    """An op made by `custom_op`: call it like its function; register its fake, derivative,
    per-device kernels and autocast on it."""

    def __init__(self, namespace: str, name: str, schema: str, fn: Callable) -> None:
        self._namespace = namespace
        self._name = name
        self._schema = schema
        self._init_fn = fn
        self._entry = registry.entry(f"{namespace}::{name}")
        self._entry.schema = schema
        self._entry.kernels[registry.DEVICE_INDEPENDENT] = fn
        self.__doc__ = fn.__doc__
        self.__name__ = name

    @property
    def _qualname(self) -> str:
        return f"{self._namespace}::{self._name}"

    @property
    def _opoverload(self) -> OpOverload:
        return getattr(getattr(ops, self._namespace), self._name).default

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._qualname})>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._entry.call(*args, **kwargs)

    def register_kernel(self, device_types: str | Sequence[str] | None, fn: Callable | None = None):
        return register_kernel(self, device_types, fn)

    def register_fake(self, fn: Callable) -> Callable:
        return register_fake(self, fn)

    def register_autograd(self, backward: Callable, /, *, setup_context: Callable | None = None):
        register_autograd(self, backward, setup_context=setup_context)

    def register_autocast(self, device_type: str, cast_inputs: _dtype) -> None:
        register_autocast(self, device_type, cast_inputs)

    @contextlib.contextmanager
    def set_kernel_enabled(self, device_type: str, enabled: bool = True):
        """Within the block, the kernel for ``device_type`` is used (or not, when disabled)."""
        key = registry.dispatch_key(device_type)
        saved = self._entry.kernels.pop(key, None) if not enabled else None
        try:
            yield
        finally:
            if saved is not None:
                self._entry.kernels[key] = saved


def custom_op(
    name: str,
    fn: Callable | None = None,
    /,
    *,
    mutates_args: str | Iterable[str],
    device_types: str | Sequence[str] | None = None,
    schema: str | None = None,
    tags: Any = None,
) -> Any:
    """Make ``fn`` an op ``ns::name``: an opaque kernel to autograd until `register_autograd`.

    Example:
        >>> @torch.library.custom_op("doc_lib::scale", mutates_args=())
        ... def scale(x: torch.Tensor, k: float) -> torch.Tensor:
        ...     return x * k
        >>> scale.register_autograd(
        ...     lambda ctx, g: (g * ctx.k, None),
        ...     setup_context=lambda ctx, inputs, output: setattr(ctx, "k", inputs[1]),
        ... )
        >>> x = torch.ones(2, requires_grad=True)
        >>> scale(x, 3.0).sum().backward()
        >>> x.grad
        tensor([3., 3.])
    """

    def inner(fn: Callable) -> CustomOpDef:
        namespace, opname, _ = registry.parse_qualname(name)
        if mutates_args != "unknown" and isinstance(mutates_args, str):
            raise ValueError(
                "mutates_args must be a sequence of the names of inputs the op mutates, or "
                f"'unknown'; got {mutates_args!r}"
            )
        text = schema or infer_schema(fn, mutates_args=mutates_args)
        if any(a.keyword_only and a.kind.startswith("Tensor") for a in _schema.arguments(text)):
            raise NotImplementedError(
                "custom_op with kwarg-only Tensor args. Please make your tensors not "
                f"kwarg-only. Got: {opname}{text}"
            )
        op = CustomOpDef(namespace, opname, text, fn)
        if device_types is not None:
            op._entry.kernels.pop(registry.DEVICE_INDEPENDENT)
            register_kernel(op, device_types, fn)
        if not isinstance(mutates_args, str):
            op._entry.mutates_args = tuple(mutates_args)
        return op

    return inner if fn is None else inner(fn)


def triton_op(name: str, fn: Callable | None = None, /, *, mutates_args, schema=None):
    raise _unavailable("triton_op", "Triton kernels need a GPU build of PyTorch")


def wrap_triton(triton_kernel: Callable, /) -> Any:
    raise _unavailable("wrap_triton", "Triton kernels need a GPU build of PyTorch")


_SCALARS = {int: "SymInt", float: "float", bool: "bool", str: "str", _dtype: "ScalarType"}


def _schema_type(annotation: Any) -> str:
    """PyTorch's schema type of a Python annotation (Tensor, int, list[Tensor], ...)."""
    if annotation is Tensor or getattr(annotation, "__name__", None) == "Tensor":
        return "Tensor"
    if annotation in _SCALARS:
        return _SCALARS[annotation]
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType) and type(None) in args:
        (inner,) = [a for a in args if a is not type(None)]
        return _schema_type(inner) + "?"
    if origin in (list, Sequence) and args:
        return _schema_type(args[0]) + "[]"
    raise ValueError(f"infer_schema(func): Parameter has unsupported type {annotation}.")


def _default(value: Any) -> str:
    """A default as a schema writes it: strings quoted, dtypes by name ("float32")."""
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, _dtype):
        return str(value).removeprefix("torch.")
    return str(value)


def _returns(annotation: Any) -> str:
    if annotation is None or annotation is type(None):
        return "()"
    if typing.get_origin(annotation) is tuple:
        return "(" + ", ".join(_schema_type(a) for a in typing.get_args(annotation)) + ")"
    return _schema_type(annotation)


def infer_schema(
    prototype_function: Callable,
    /,
    *,
    mutates_args: str | Iterable[str],
    op_name: str | None = None,
    tags: Any = (),
) -> str:
    """The schema string of a type-annotated function, as PyTorch writes it.

    Example:
        >>> def f(x: torch.Tensor, n: int = 2) -> torch.Tensor: ...
        >>> torch.library.infer_schema(f, mutates_args=())
        '(Tensor x, SymInt n=2) -> Tensor'
    """
    hints = typing.get_type_hints(prototype_function)
    mutated = set() if isinstance(mutates_args, str) else set(mutates_args)
    params = []
    for index, (name, param) in enumerate(inspect.signature(prototype_function).parameters.items()):
        if name not in hints:
            raise ValueError(f"infer_schema(func): Parameter {name} must have a type annotation.")
        text = _schema_type(hints[name])
        if name in mutated:
            text = text.replace("Tensor", f"Tensor(a{index}!)", 1)
        if param.kind is inspect.Parameter.KEYWORD_ONLY and "*" not in params:
            params.append("*")
        default = "" if param.default is inspect.Parameter.empty else f"={_default(param.default)}"
        params.append(f"{text} {name}{default}")
    head = op_name or ""
    return f"{head}({', '.join(params)}) -> {_returns(hints.get('return'))}"


def opcheck(
    op: Any,
    args: tuple,
    kwargs: dict | None = None,
    *,
    test_utils: str | Sequence[str] = (
        "test_schema",
        "test_autograd_registration",
        "test_faketensor",
    ),
    raise_exception: bool = True,
    atol=None,
    rtol=None,
) -> dict[str, str]:
    """Check an op's registrations on sample inputs: it runs (test_schema), it has a
    derivative when an input requires grad (test_autograd_registration), and its fake
    function gives the kernel's shapes and dtypes (test_faketensor)."""
    entry = _entry(op)
    kwargs = kwargs or {}
    tests = [test_utils] if isinstance(test_utils, str) else list(test_utils)
    results: dict[str, str] = {}
    for test in tests:
        check = _OPCHECKS.get(test)
        try:
            if check is None:
                raise _unavailable(f"opcheck({test})", "this test runs PyTorch's AOTAutograd")
            check(entry, args, kwargs)
            results[test] = "SUCCESS"
        except Exception as error:
            if raise_exception:
                raise
            results[test] = str(error)
    return results


def _check_runs(entry: registry.OpEntry, args: tuple, kwargs: dict) -> None:
    entry.call(*args, **kwargs)


def _check_autograd(entry: registry.OpEntry, args: tuple, kwargs: dict) -> None:
    grads = any(isinstance(a, Tensor) and a.requires_grad for a in (*args, *kwargs.values()))
    opaque = registry.COMPOSITE not in entry.kernels
    if grads and opaque and entry.backward is None:
        raise AssertionError(
            f"{entry.qualname}: an input requires grad but the op has no autograd formula; "
            "use register_autograd to add one."
        )


def _check_fake(entry: registry.OpEntry, args: tuple, kwargs: dict) -> None:
    if entry.fake is None:
        return
    with _modes.no_grad():
        real, fake = entry.call(*args, **kwargs), entry.fake(*args, **kwargs)
    for r, f in zip(*(x if isinstance(x, tuple) else (x,) for x in (real, fake))):
        if (r.shape, r.dtype) != (f.shape, f.dtype):
            raise AssertionError(
                f"{entry.qualname}: the fake gives {tuple(f.shape)} {f.dtype}, the kernel "
                f"{tuple(r.shape)} {r.dtype}"
            )


_OPCHECKS = {
    "test_schema": _check_runs,
    "test_autograd_registration": _check_autograd,
    "test_faketensor": _check_fake,
}


def __getattr__(name: str):
    return _missing_attribute(__name__, name)
