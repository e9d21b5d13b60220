"""torch.fx._symbolic_trace: `wrap`, `Tracer` and `symbolic_trace`."""

from __future__ import annotations

import builtins
import collections
import functools
import inspect
import logging
import math
import sys
from collections.abc import Callable
from typing import Any

from .._state.tensor import Tensor
from ..nn.modules.container import Sequential
from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from .graph import Graph
from .graph_module import GraphModule
from .node import Argument, has_side_effect, map_aggregate
from .proxy import Proxy, TracerBase

__all__ = ["Tracer", "is_fx_symbolic_tracing", "is_fx_tracing", "symbolic_trace", "wrap"]

log = logging.getLogger(__name__)
_is_fx_tracing_flag = False  # set while a Tracer runs a program

# (id of a module's globals, function name) -> those globals: what a trace would keep as calls.
_wrapped_fns_to_patch: dict[tuple[int, str], dict] = {}


def is_fx_tracing() -> bool:
    """Whether a symbolic trace is running (warning, as PyTorch does, that torch.export sets
    it there too)."""
    log.warning(
        "is_fx_tracing will return true for both fx.symbolic_trace and torch.export. Please use "
        "is_fx_tracing_symbolic_tracing() for specifically fx.symbolic_trace or "
        "torch.compiler.is_compiling() for specifically torch.export/compile."
    )
    return _is_fx_tracing_flag


def is_fx_symbolic_tracing() -> bool:
    """Whether a symbolic trace is running."""
    return _is_fx_tracing_flag


def wrap(fn_or_name):
    """Register a module-level function (or its name) as a leaf of symbolic traces, and
    return the argument unchanged. Call it at the top level of the function's module.

    Example::

        >>> def scale(x):
        ...     return x * 2
        >>> torch.fx.wrap(scale) is scale  # doctest: +SKIP (a module's top level only)
        True
    """
    if not (isinstance(fn_or_name, str) or callable(fn_or_name)):
        raise RuntimeError(
            "Unsupported type for global function! Must be either a callable or string name"
        )
    name = fn_or_name if isinstance(fn_or_name, str) else fn_or_name.__name__
    caller = inspect.currentframe()
    caller = caller.f_back if caller is not None else None
    if caller is None or caller.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    _wrapped_fns_to_patch[(id(caller.f_globals), name)] = caller.f_globals
    return fn_or_name


class _Patcher:
    """Attribute and dict-entry replacements for one trace, undone in reverse on exit."""

    def __init__(self) -> None:
        self._undo: list[Callable[[], None]] = []

    def patch_attr(self, owner: Any, name: str, value: Any) -> None:
        original = owner.__dict__[name] if name in owner.__dict__ else None
        setattr(owner, name, value)
        self._undo.append(
            lambda: setattr(owner, name, original) if original is not None else delattr(owner, name)
        )

    def patch_entry(self, table: dict, name: str, value: Any) -> None:
        missing = name not in table
        original = table.get(name)
        table[name] = value
        self._undo.append(lambda: table.pop(name) if missing else table.update({name: original}))

    def __enter__(self) -> _Patcher:
        return self

    def __exit__(self, *exc) -> None:
        while self._undo:
            self._undo.pop()()


def _find_proxy(args: tuple, kwargs: dict) -> Proxy | None:
    """The first Proxy among the (nested) arguments."""
    found: list[Proxy] = []
    map_aggregate((args, kwargs), lambda a: found.append(a) if isinstance(a, Proxy) else None)
    return found[0] if found else None


def _recorded(original: Callable) -> Callable:
    """`original`, recorded as a call_function node when an argument is a Proxy."""

    @functools.wraps(original)
    def wrapped(*args, **kwargs):
        proxy = _find_proxy(args, kwargs)
        if proxy is not None:
            return proxy.tracer.create_proxy("call_function", original, args, kwargs)
        return original(*args, **kwargs)

    wrapped.__fx_original__ = original  # type: ignore[attr-defined]
    return wrapped


@has_side_effect
def _assert_is_none(value: Any, msg: str) -> None:
    """The check of an input that a trace specialized to None."""
    assert value is None, msg


def _is_library_module(m: Module) -> bool:
    """Whether `m` is one of the library's (torch.nn's) own module classes."""
    package = __package__.rpartition(".")[0]
    return any(type(m).__module__.startswith(f"{root}.nn") for root in (package, "torch"))


class Tracer(TracerBase):
    """Builds an fx Graph by running a module's forward (or a function) on Proxies.

    Calls of leaf modules (`is_leaf_module`: the library's own nn modules, Sequential aside)
    become call_module nodes; other modules are traced through. Parameters read become
    get_attr nodes; functions registered with `fx.wrap`, `autowrap_functions` and the
    public functions of `autowrap_modules` become call_function nodes."""

    root: Module

    def __init__(
        self,
        autowrap_modules: tuple = (math,),
        autowrap_functions: tuple = (),
        param_shapes_constant: bool = False,
    ) -> None:
        self._autowrap_function_ids = {
            id(value)
            for module in autowrap_modules
            for name, value in vars(module).items()
            if not name.startswith("_") and callable(value)
        } | {id(fn) for fn in autowrap_functions}
        self._autowrap_search = list(autowrap_modules)
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths: dict[Module, str] | None = None
        self.root_module_name = ""
        self.scope = None
        self.module_stack = collections.OrderedDict()
        self.node_name_to_scope = {}
        self.tensor_attrs: dict[Tensor, str] = {}

    def create_arg(self, a: Any) -> Argument:
        """As TracerBase's, and tensors become get_attr nodes: parameters and buffers of the
        root by their path, other tensors as `_tensor_constantN` attributes of the root."""
        if isinstance(a, Parameter):
            for name, param in self.root.named_parameters():
                if param is a:
                    return self.create_node("get_attr", name, (), {})
            raise NameError("parameter is not a member of this module")
        if isinstance(a, Tensor):
            for name, buffer in self.root.named_buffers():
                if buffer is a:
                    return self.create_node("get_attr", name, (), {})
            if a not in self.tensor_attrs:
                index = 0
                while hasattr(self.root, f"_tensor_constant{index}"):
                    index += 1
                self.tensor_attrs[a] = f"_tensor_constant{index}"
                setattr(self.root, self.tensor_attrs[a], a)
            return self.create_node("get_attr", self.tensor_attrs[a], (), {})
        if isinstance(a, Module):
            return self.create_node("get_attr", self.path_of_module(a), (), {})
        return super().create_arg(a)

    def is_leaf_module(self, m: Module, module_qualified_name: str) -> bool:
        """Whether a call of `m` is recorded as one call_module node (not traced through)."""
        return _is_library_module(m) and not isinstance(m, Sequential)

    def path_of_module(self, mod: Module) -> str:
        """The dotted path of submodule `mod` in the root."""
        if self.submodule_paths is not None and mod in self.submodule_paths:
            return self.submodule_paths[mod]
        for name, module in self.root.named_modules():
            if module is mod:
                return name
        raise NameError("module is not installed as a submodule")

    def call_module(self, m: Module, forward: Callable, args: tuple, kwargs: dict) -> Any:
        """A module called while tracing: a call_module node for leaves, else traced through."""
        path = self.path_of_module(m)
        self.module_stack[path] = (path, type(m))
        try:
            if not self.is_leaf_module(m, path):
                return forward(*args, **kwargs)
            return self.create_proxy("call_module", path, args, kwargs)
        finally:
            self.module_stack.pop(path, None)

    def getattr(self, attr: str, attr_val: Any, parameter_proxy_cache: dict[str, Any]) -> Any:
        """An attribute read from a module while tracing: parameters become get_attr Proxies."""
        if isinstance(attr_val, Parameter) or (
            self.proxy_buffer_attributes and isinstance(attr_val, Tensor)
        ):
            named = (
                self.root.named_parameters()
                if isinstance(attr_val, Parameter)
                else (self.root.named_buffers())
            )
            for name, value in named:
                if value is attr_val:
                    if name not in parameter_proxy_cache:
                        parameter_proxy_cache[name] = self.create_proxy("get_attr", name, (), {})
                    return parameter_proxy_cache[name]
        return attr_val

    def create_args_for_root(
        self, root_fn: Callable, is_module: bool, concrete_args: dict | None = None
    ) -> list[Any]:
        """Placeholders for `root_fn`'s parameters. One given in `concrete_args` is traced as
        its value, its placeholder checked against it by an assert node, as in PyTorch."""
        concrete = concrete_args or {}
        params = list(inspect.signature(root_fn).parameters.values())[1 if is_module else 0 :]
        args: list[Any] = []
        for param in params:
            if param.name in concrete:
                value = concrete[param.name]
                placeholder = self.create_proxy("placeholder", f"{param.name}_1", (), {})
                self._specialize(param.name, placeholder, value)
                args.append(value)
                continue
            star = "*" if param.kind is param.VAR_POSITIONAL else ""
            star = "**" if param.kind is param.VAR_KEYWORD else star
            default = () if param.default is param.empty else (param.default,)
            type_expr = None if param.annotation is param.empty else param.annotation
            args.append(
                self.create_proxy(
                    "placeholder", star + param.name, default, {}, type_expr=type_expr
                )
            )
        return args

    def _specialize(self, name: str, placeholder: Proxy, value: Any) -> None:
        """Record that `placeholder` (input `name`) must equal the concrete `value` the trace
        used."""
        message = f"{name} has been specialized to have value {value} but got another value"
        if value is None:
            self.create_proxy("call_function", _assert_is_none, (placeholder, message), {})
            return
        check = sys.modules[__package__.rpartition(".")[0]]._assert
        has_side_effect(check)
        self.create_proxy("call_function", check, (placeholder == value, message), {})

    def trace(self, root: Module | Callable, concrete_args: dict | None = None) -> Graph:
        """Run `root` (a Module's forward, or a function) on Proxies and return the Graph."""
        is_module = isinstance(root, Module)
        fn: Callable
        if isinstance(root, Module):
            self.root, fn = root, type(root).forward
        else:
            self.root, fn = Module(), root
        self.graph = Graph(tracer_cls=type(self))
        self.tensor_attrs = {}
        self.submodule_paths = {mod: name for name, mod in self.root.named_modules()}
        values = self.create_args_for_root(fn, is_module, concrete_args)
        params = list(inspect.signature(fn).parameters.values())[1 if is_module else 0 :]
        keyword_only = {p.name: v for p, v in zip(params, values) if p.kind is p.KEYWORD_ONLY}
        args = [v for p, v in zip(params, values) if p.kind is not p.KEYWORD_ONLY]
        if is_module:
            args.insert(0, root)
        global _is_fx_tracing_flag
        outer, _is_fx_tracing_flag = _is_fx_tracing_flag, True
        try:
            with _Patcher() as patcher:
                self._patch(patcher, fn)
                result = fn(*args, **keyword_only)
        finally:
            _is_fx_tracing_flag = outer
        self.create_node(
            "output",
            "output",
            (self.create_arg(result),),
            {},
            type_expr=getattr(fn, "__annotations__", {}).get("return"),
        )
        self.submodule_paths = None
        return self.graph

    def _patch(self, patcher: _Patcher, fn: Callable) -> None:
        """Route module calls and parameter reads through the tracer, and wrap the registered
        and autowrapped functions in the globals the traced code reads."""
        cache: dict[str, Any] = {}
        module_call, module_getattr = Module.__call__, Module.__getattr__
        tracer = self

        def call(mod, *args, **kwargs):
            def forward(*args, **kwargs):
                return module_call(mod, *args, **kwargs)

            tracer._autowrap(patcher, getattr(type(mod).forward, "__globals__", {}))
            return tracer.call_module(mod, forward, args, kwargs)

        def getattr_(mod, attr):
            return tracer.getattr(attr, module_getattr(mod, attr), cache)

        patcher.patch_attr(Module, "__call__", call)
        patcher.patch_attr(Module, "__getattr__", getattr_)
        for (_, name), table in _wrapped_fns_to_patch.items():
            original = table[name] if name in table else getattr(builtins, name, None)
            if original is not None:
                patcher.patch_entry(table, name, _recorded(original))
        self._autowrap(patcher, getattr(fn, "__globals__", {}))
        for module in self._autowrap_search:
            self._autowrap(patcher, vars(module))

    def _autowrap(self, patcher: _Patcher, table: dict) -> None:
        for name, value in list(table.items()):
            if not name.startswith("_") and id(value) in self._autowrap_function_ids:
                patcher.patch_entry(table, name, _recorded(value))


def symbolic_trace(root: Module | Callable, concrete_args: dict | None = None) -> GraphModule:
    """Capture `root`'s forward (or the function `root`) as a GraphModule."""
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = type(root).__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)
