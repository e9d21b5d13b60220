"""torch.nn.Module: parameters, buffers, submodules, hooks, train/eval and state dicts.

The bookkeeping follows torch/nn/modules/module.py (same dicts, same traversal order, same
state_dict keys and load errors), so code that walks or checkpoints modules behaves the same.
Parameter values are changed in place (`_set_value`), so a Parameter keeps its identity through
`to()`, `load_state_dict()` and optimizer steps, as in PyTorch.
"""

from __future__ import annotations

import functools
import itertools
from collections import OrderedDict, namedtuple
from collections.abc import Mapping
from typing import Any

import jax.numpy as jnp

from ..._ops.factories import empty_like
from ..._pure import dtypes as _dtypes
from ..._state import modes as _grad_mode
from ..._state.modes import modes
from ..._state.tensor import MetaTensor, MetaValueError, Tensor
from ..._tape.backward import clear_grad
from ...utils.hooks import RemovableHandle
from ..parameter import Buffer, Parameter

__all__ = ["Module"]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict(strict=False) returns."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    first = lines.pop(0)
    return first + "\n" + "\n".join(" " * spaces + line for line in lines)


_global_forward_pre_hooks: OrderedDict = OrderedDict()
_global_forward_hooks: OrderedDict = OrderedDict()


def _add_hook(hooks: OrderedDict, hook, *, prepend: bool = False, marks=()) -> RemovableHandle:
    """Add `hook` to `hooks` (first when `prepend`) and a handle that removes it. `marks` are
    (dict, flag) pairs: the hook's id goes into each dict whose flag is set, and the handle
    removes it from every one."""
    handle = RemovableHandle(hooks, extra_dict=[marked for marked, _ in marks])
    hooks[handle.id] = hook
    for marked, flag in marks:
        if flag:
            marked[handle.id] = True
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_module_forward_pre_hook(hook) -> RemovableHandle:
    """A forward pre-hook run before every module's own pre-hooks."""
    return _add_hook(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook) -> RemovableHandle:
    """A forward hook run before every module's own forward hooks."""
    return _add_hook(_global_forward_hooks, hook)


class Module:
    """Base class for all neural network modules.

    Subclasses assign parameters and submodules as attributes in `__init__` (after
    `super().__init__()`) and define `forward`; calling the module runs hooks and forward.

    Example::

        >>> class Net(nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.fc = nn.Linear(4, 2)
        ...     def forward(self, x):
        ...         return torch.relu(self.fc(x))
        >>> [name for name, _ in Net().named_parameters()]
        ['fc.weight', 'fc.bias']
    """

    dump_patches: bool = False
    _version: int = 1
    training: bool
    _parameters: dict[str, Parameter | None]
    _buffers: dict[str, Tensor | None]
    _non_persistent_buffers_set: set[str]
    _modules: dict[str, Module | None]
    call_super_init: bool = False

    def __init__(self, *args, **kwargs) -> None:
        if self.call_super_init is False and bool(kwargs):
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                f"'{next(iter(kwargs))}'"
            )
        if self.call_super_init is False and bool(args):
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but "
                f"{len(args) + 1} were given"
            )
        setter = super().__setattr__
        setter("training", True)
        setter("_parameters", {})
        setter("_buffers", {})
        setter("_non_persistent_buffers_set", set())
        setter("_backward_pre_hooks", OrderedDict())
        setter("_backward_hooks", OrderedDict())
        setter("_is_full_backward_hook", None)
        setter("_forward_hooks", OrderedDict())
        setter("_forward_hooks_with_kwargs", OrderedDict())
        setter("_forward_hooks_always_called", OrderedDict())
        setter("_forward_pre_hooks", OrderedDict())
        setter("_forward_pre_hooks_with_kwargs", OrderedDict())
        setter("_state_dict_hooks", OrderedDict())
        setter("_state_dict_pre_hooks", OrderedDict())
        setter("_load_state_dict_pre_hooks", OrderedDict())
        setter("_load_state_dict_post_hooks", OrderedDict())
        setter("_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    def forward(self, *input):
        """Define the computation; subclasses override it."""
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    # ------------------------------------------------------------------ registration
    def _check_new_name(self, kind: str, name, registry: str) -> None:
        """PyTorch's checks on the name of a new buffer or parameter (`kind`), which goes into
        the `registry` dict (`_buffers`, `_parameters`)."""
        if registry not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in self.__dict__[registry]:
            raise KeyError(f"attribute '{name}' already exists")

    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        """Add a buffer: state that is not a parameter (e.g. BatchNorm's running_mean).

        Persistent buffers are part of `state_dict()`.
        """
        self._check_new_name("buffer", name, "_buffers")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        if isinstance(tensor, Buffer):
            persistent = tensor.persistent
            tensor = Tensor._wrap(tensor._value)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param) -> None:
        """Add a parameter (or None) under `name`."""
        self._check_new_name("parameter", name, "_parameters")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_type_name(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                "created explicitly. To express '"
                f"{name}' as a function of another Tensor, compute the value in the forward() "
                "method."
            )
        self._parameters[name] = param

    def add_module(self, name: str, module) -> None:
        """Add a child module (or None) under `name`."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_type_name(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {type(name).__name__}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    def register_module(self, name: str, module) -> None:
        """Alias for add_module."""
        self.add_module(name, module)

    def get_submodule(self, target: str) -> Module:
        """The submodule at dotted path `target` ("" is self)."""
        if target == "":
            return self
        module = self
        for item in target.split("."):
            module = _attribute(module, item)
            if not isinstance(module, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return module

    def _attribute_at(self, target: str) -> tuple[Module, str, Any]:
        """The module holding the attribute at dotted path `target`, its name there, its value."""
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        return module, name, _attribute(module, name)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at dotted path `target`."""
        _, name, param = self._attribute_at(target)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at dotted path `target`."""
        module, name, buffer = self._attribute_at(target)
        if name not in module._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return buffer

    def get_extra_state(self):
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called."
        )

    def set_extra_state(self, state) -> None:
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called."
        )

    # ------------------------------------------------------------------ attributes
    def __getattr__(self, name: str):
        if "_parameters" in self.__dict__:
            parameters = self.__dict__["_parameters"]
            if name in parameters:
                return parameters[name]
        if "_buffers" in self.__dict__:
            buffers = self.__dict__["_buffers"]
            if name in buffers:
                return buffers[name]
        if "_modules" in self.__dict__:
            modules = self.__dict__["_modules"]
            if name in modules:
                return modules[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        def claim(store: dict | None) -> None:
            """Remove `name` from the module's stores but `store`, where it is being assigned
            (those that exist: a buffer assigned before `__init__` fails in register_buffer)."""
            stores = [self.__dict__.get(key, {}) for key in ("_parameters", "_buffers", "_modules")]
            for other in (self.__dict__, *stores):
                if other is not store:
                    other.pop(name, None)
            self.__dict__.get("_non_persistent_buffers_set", set()).discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            claim(params)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                claim(modules)
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(
                        f"cannot assign '{_type_name(value)}' as child module '{name}' "
                        "(torch.nn.Module or None expected)"
                    )
                modules[name] = value
            else:
                buffers = self.__dict__.get("_buffers")
                if isinstance(value, Buffer) or (buffers is not None and name in buffers):
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(
                            f"cannot assign '{_type_name(value)}' as buffer '{name}' "
                            "(torch.nn.Buffer, torch.Tensor or None expected)"
                        )
                    persistent = (
                        value.persistent
                        if isinstance(value, Buffer)
                        else name not in self._non_persistent_buffers_set
                    )
                    claim(buffers)
                    self.register_buffer(name, value, persistent)
                else:
                    object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        module_attrs = dir(self.__class__)
        attrs = list(self.__dict__.keys())
        parameters = list(self._parameters.keys())
        modules = list(self._modules.keys())
        buffers = list(self._buffers.keys())
        keys = module_attrs + attrs + parameters + modules + buffers
        keys = [key for key in keys if not key[0].isdigit()]
        return sorted(keys)

    def __setstate__(self, state) -> None:
        self.__dict__.update(state)

    # ------------------------------------------------------------------ calling
    def _call_impl(self, *args, **kwargs):
        if (
            modes.tracing and modes.captures
        ):  # a torch.compile trace assumes this module's `training` flag
            modes.captures[-1].called(self)
        forward_call = self.forward
        if not (
            self._forward_hooks
            or self._forward_pre_hooks
            or _global_forward_hooks
            or _global_forward_pre_hooks
        ):
            return forward_call(*args, **kwargs)
        for hook_id, hook in itertools.chain(
            _global_forward_pre_hooks.items(), self._forward_pre_hooks.items()
        ):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if isinstance(result, tuple) and len(result) == 2:
                        args, kwargs = result
                    else:
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, "
                            f"new_kwargs), but got {result}."
                        )
            else:
                result = hook(self, args)
                if result is not None:
                    if not isinstance(result, tuple):
                        result = (result,)
                    args = result
        result = forward_call(*args, **kwargs)
        for hook_id, hook in itertools.chain(
            _global_forward_hooks.items(), self._forward_hooks.items()
        ):
            if hook_id in self._forward_hooks_with_kwargs:
                hook_result = hook(self, args, kwargs, result)
            else:
                hook_result = hook(self, args, result)
            if hook_result is not None:
                result = hook_result
        return result

    __call__ = _call_impl

    def register_forward_pre_hook(
        self, hook, *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """Run `hook(module, args)` before forward; a non-None result replaces the args.

        With `with_kwargs=True` the hook is `hook(module, args, kwargs)` and may return
        `(args, kwargs)`.
        """
        return _add_hook(
            self._forward_pre_hooks,
            hook,
            prepend=prepend,
            marks=[(self._forward_pre_hooks_with_kwargs, with_kwargs)],
        )

    def register_forward_hook(
        self,
        hook,
        *,
        prepend: bool = False,
        with_kwargs: bool = False,
        always_call: bool = False,
    ) -> RemovableHandle:
        """Run `hook(module, args, output)` after forward; a non-None result replaces output."""
        return _add_hook(
            self._forward_hooks,
            hook,
            prepend=prepend,
            marks=[
                (self._forward_hooks_with_kwargs, with_kwargs),
                (self._forward_hooks_always_called, always_call),
            ],
        )

    def register_full_backward_hook(self, hook, prepend: bool = False):
        raise NotImplementedError(
            "Module.register_full_backward_hook is not yet supported by autograd_compat; "
            "register a hook on the output tensor (tensor.register_hook) instead"
        )

    register_backward_hook = register_full_backward_hook
    register_full_backward_pre_hook = register_full_backward_hook

    def register_state_dict_pre_hook(self, hook) -> RemovableHandle:
        """Run `hook(module, prefix, keep_vars)` before state_dict() collects this module."""
        return _add_hook(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook) -> RemovableHandle:
        """Run `hook(module, state_dict, prefix, local_metadata)` after this module is collected."""
        return _add_hook(self._state_dict_hooks, hook)

    _register_state_dict_hook = register_state_dict_post_hook

    def register_load_state_dict_pre_hook(self, hook) -> RemovableHandle:
        """Run `hook(module, state_dict, prefix, local_metadata, strict, missing, unexpected,
        error_msgs)` before this module loads its entries."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False) -> RemovableHandle:
        """The load pre-hook as libraries register it: without the module as its first
        argument unless `with_module`."""
        called = functools.partial(hook, self) if with_module else hook
        return _add_hook(self._load_state_dict_pre_hooks, called)

    def register_load_state_dict_post_hook(self, hook) -> RemovableHandle:
        """Run `hook(module, incompatible_keys)` after load_state_dict."""
        return _add_hook(self._load_state_dict_post_hooks, hook)

    # ------------------------------------------------------------------ traversal
    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or id(v) in memo:
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                name = module_prefix + ("." if module_prefix else "") + k
                yield name, v

    def parameters(self, recurse: bool = True):
        """Iterate over the parameters (each once), in registration order, depth first."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ):
        """Iterate over (dotted name, parameter) pairs, as PyTorch names them."""
        yield from self._named_members(
            lambda module: module._parameters.items(),
            prefix=prefix,
            recurse=recurse,
            remove_duplicate=remove_duplicate,
        )

    def buffers(self, recurse: bool = True):
        """Iterate over the buffers."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        """Iterate over (dotted name, buffer) pairs."""
        yield from self._named_members(
            lambda module: module._buffers.items(),
            prefix=prefix,
            recurse=recurse,
            remove_duplicate=remove_duplicate,
        )

    def children(self):
        """Iterate over the immediate child modules."""
        for _, module in self.named_children():
            yield module

    def named_children(self):
        """Iterate over (name, child) pairs of the immediate children."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def modules(self):
        """Iterate over all modules in the tree (self first), each once."""
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        """Iterate over (dotted name, module) pairs of the whole tree, self first as ""."""
        if memo is None:
            memo = set()
        if id(self) not in memo:
            if remove_duplicate:
                memo.add(id(self))
            yield prefix, self
            for name, module in self._modules.items():
                if module is None:
                    continue
                submodule_prefix = prefix + ("." if prefix else "") + name
                yield from module.named_modules(memo, submodule_prefix, remove_duplicate)

    # ------------------------------------------------------------------ modes
    def train(self, mode: bool = True) -> Module:
        """Set training mode (dropout active, batch norm uses batch statistics)."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        """Set evaluation mode; equivalent to `train(False)`."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set requires_grad on every parameter."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all parameters (to None by default, as PyTorch 2.x)."""
        for p in self.parameters():
            clear_grad(p, set_to_none)

    def share_memory(self) -> Module:
        """`share_memory_()` on every parameter and buffer: it raises here (see there)."""
        return self._apply(lambda t: t.share_memory_())

    # ------------------------------------------------------------------ conversion
    def _apply(self, fn, recurse: bool = True) -> Module:
        """Apply `fn` to every parameter, gradient and buffer value, keeping their identity."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            with _grad_mode.no_grad():
                new = fn(param)
            if isinstance(new, MetaTensor) is not isinstance(param, MetaTensor):
                # onto or off the meta device: a new parameter, as PyTorch makes one there
                param = Parameter(new, requires_grad=param.requires_grad)
                self._parameters[key] = param
            elif new is not param:
                param._set_value(new._value)
                param._bump_version()
            if param._grad is not None:
                with _grad_mode.no_grad():
                    grad = fn(param._grad)
                if grad is not param._grad:
                    param._grad = Tensor._wrap(grad._value)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to_empty(self, *, device, recurse: bool = True) -> Module:
        """Move the parameters and buffers to `device` without copying their values (new
        memory, uninitialized in PyTorch, zeros here): the way off the meta device."""
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def apply(self, fn) -> Module:
        """Call `fn(module)` on every submodule (children first) and self; e.g. custom init."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs) -> Module:
        """Move and/or cast parameters and buffers: `to(device)`, `to(dtype)`, `to(tensor)`.

        Only floating-point (and complex) tensors are cast to a new dtype, as in PyTorch.
        """
        device, dtype = None, None
        kwargs = dict(kwargs)
        kwargs.pop("non_blocking", None)
        kwargs.pop("memory_format", None)
        device = kwargs.pop("device", None)
        dtype = kwargs.pop("dtype", None)
        if kwargs:
            raise TypeError(f"to() received an invalid combination of arguments: {kwargs}")
        for arg in args:
            if isinstance(arg, Tensor):
                device, dtype = arg.device, arg.dtype
            elif isinstance(arg, _dtypes.dtype):
                dtype = arg
            elif isinstance(arg, bool):
                continue
            elif arg is not None:
                device = arg
        if dtype is not None:
            dtype = _dtypes.as_dtype(dtype)
            if not (dtype.is_floating_point or dtype.is_complex):
                raise TypeError(
                    "nn.Module.to only accepts floating point or complex dtypes, but got "
                    f"desired dtype={dtype}"
                )

        def convert(t: Tensor) -> Tensor:
            target = (
                dtype
                if dtype is not None and (t.dtype.is_floating_point or t.dtype.is_complex)
                else None
            )
            if device is None and (target is None or target is t.dtype):
                return t
            if device is None:
                return t.to(target)
            if target is None:
                return t.to(device)
            return t.to(device, target)

        try:
            return self._apply(convert)
        except MetaValueError as error:
            raise NotImplementedError(
                f"{error} Please use torch.nn.Module.to_empty() instead of torch.nn.Module.to() "
                "when moving module from meta to a different device."
            ) from None

    def _cast(self, dtype) -> Module:
        return self._apply(
            lambda t: t.to(dtype) if t.dtype.is_floating_point and t.dtype is not dtype else t
        )

    def float(self) -> Module:
        return self._cast(_dtypes.float32)

    def double(self) -> Module:
        return self._cast(_dtypes.float64)

    def half(self) -> Module:
        return self._cast(_dtypes.float16)

    def bfloat16(self) -> Module:
        return self._cast(_dtypes.bfloat16)

    def cpu(self) -> Module:
        return self.to("cpu")

    def cuda(self, device=None) -> Module:
        return self.to("cuda" if device is None else device)

    def type(self, dst_type) -> Module:
        return self._apply(lambda t: t.type(dst_type))

    # ------------------------------------------------------------------ state dict
    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        extra_state_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if (
            getattr(self.__class__, "get_extra_state", Module.get_extra_state)
            is not Module.get_extra_state
        ):
            destination[extra_state_key] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """An OrderedDict of parameters and persistent buffers under PyTorch's dotted keys.

        The tensors are detached aliases (unless keep_vars=True): they share values with the
        module until either side is written.
        """
        if args:
            destination = args[0] if len(args) > 0 else destination
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(
                    destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
                )
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if result is not None:
                destination = result
        return destination

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ) -> None:
        for hook in self._load_state_dict_pre_hooks.values():
            hook(
                state_dict,
                prefix,
                local_metadata,
                strict,
                missing_keys,
                unexpected_keys,
                error_msgs,
            )
        persistent_buffers = {
            k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set
        }
        local_state = {
            k: v
            for k, v in itertools.chain(self._parameters.items(), persistent_buffers.items())
            if v is not None
        }
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(input_param)}"
                )
                continue
            if param.ndim == 0 and input_param.ndim == 1 and input_param.shape[0] == 1:
                input_param = input_param[0]
            if input_param.shape != param.shape:
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {input_param.shape} "
                    f"from checkpoint, the shape in current model is {param.shape}."
                )
                continue
            try:
                with _grad_mode.no_grad():
                    if assign:
                        if isinstance(param, Parameter):
                            if not isinstance(input_param, Parameter):
                                input_param = Parameter(
                                    input_param, requires_grad=param.requires_grad
                                )
                            else:
                                input_param.requires_grad_(param.requires_grad)
                        setattr(self, name, input_param)
                    else:
                        _copy_into(param, input_param)
            except Exception as ex:  # noqa: BLE001 -- reported like PyTorch does
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model '
                    f"are {param.size()} and whose dimensions in the checkpoint are "
                    f"{input_param.size()}, an exception occurred : {ex.args}."
                )
        extra_state_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if (
            getattr(self.__class__, "set_extra_state", Module.set_extra_state)
            is not Module.set_extra_state
        ):
            if extra_state_key in state_dict:
                self.set_extra_state(state_dict[extra_state_key])
            elif strict:
                missing_keys.append(extra_state_key)
        elif strict and extra_state_key in state_dict:
            unexpected_keys.append(extra_state_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_state_key:
                    input_name = key[len(prefix) :].split(".", 1)
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy parameters and buffers from `state_dict` into this module and its children.

        With `strict=True` (the default), missing or unexpected keys raise PyTorch's
        RuntimeError listing them; shape mismatches are always errors. Returns
        `_IncompatibleKeys(missing_keys, unexpected_keys)`.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list = []
        unexpected_keys: list = []
        error_msgs: list = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(
                local_state_dict,
                prefix,
                local_metadata,
                True,
                missing_keys,
                unexpected_keys,
                error_msgs,
            )
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state_dict = {
                        k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)
                    }
                    load(child, child_state_dict, child_prefix)
            incompatible_keys = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible_keys) is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                        "expected to return new values, if incompatible_keys need to be "
                        "modified, it should be done inplace."
                    )

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(
                    0,
                    "Unexpected key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in unexpected_keys)
                    ),
                )
            if missing_keys:
                error_msgs.insert(
                    0,
                    "Missing key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in missing_keys)
                    ),
                )
        if error_msgs:
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(
                    self.__class__.__name__, "\n\t".join(error_msgs)
                )
            )
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ------------------------------------------------------------------ repr
    def _get_name(self) -> str:
        return self.__class__.__name__

    def extra_repr(self) -> str:
        """Extra text inside this module's repr; layers override it."""
        return ""

    def __repr__(self) -> str:
        extra_lines = []
        extra_repr = self.extra_repr()
        if extra_repr:
            extra_lines = extra_repr.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines
        main_str = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        main_str += ")"
        return main_str


def _attribute(module: Module, name: str):
    """`getattr(module, name)`, or PyTorch's error naming the module that has no `name`."""
    if not hasattr(module, name):
        raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
    return getattr(module, name)


def _type_name(value) -> str:
    if isinstance(value, Tensor):
        return value.type()
    return type(value).__name__


def _copy_into(target: Tensor, source: Tensor) -> None:
    """Write `source`'s value into `target` in place (cast to its dtype), outside autograd."""
    value = source._value
    if value.dtype != target._stored.dtype:
        value = value.astype(target._stored.dtype)
    if value.shape != target._stored.shape:
        value = jnp.broadcast_to(value, target._stored.shape)
    target._set_value(value)
    target._bump_version()


def store_constants(module: Module, arguments: dict) -> None:
    """Keep the constructor arguments that the class's `__constants__` names (PyTorch's list)
    as attributes of the same names: PyTorch's `self.name = name` lines, written once.

    `arguments` is the constructor's `locals()`, taken after any argument it normalizes.
    """
    for name in module.__constants__:
        setattr(module, name, arguments[name])
