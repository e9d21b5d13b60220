"""The operator registry behind torch.library and torch.ops: each op's schema, its kernels by
dispatch key, its fake (shape) function and its derivative, and how a call picks among them.

A call binds its arguments to the op's schema (`schema.bind`) and runs, in PyTorch's
dispatcher order: under autocast, the op's autocast rule or Autocast<Device> kernel; a fake
(or Meta kernel) when an input is on the meta device; a CompositeImplicitAutograd or Autograd
kernel as it is (it is made of differentiable ops); otherwise the kernel for the inputs'
device (or the device-independent CompositeExplicitAutograd one) under no_grad, wrapped in a
generated autograd Function whose backward is the registered one, or raises PyTorch's error
when none was registered.
Registrations for ops nothing defines (torchvision's, whose kernels live in a compiled
extension that cannot load here) are recorded, and calling such an op raises an error naming it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .._state import modes as _modes
from .._state.tensor import Tensor
from ..autograd.function import Function
from . import schema as _schema

_DEVICE_KEYS = {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta", "xpu": "XPU", "mps": "MPS"}
COMPOSITE = "CompositeImplicitAutograd"
DEVICE_INDEPENDENT = "CompositeExplicitAutograd"
_AUTOGRAD_KEYS = ("Autograd", "AutogradCPU", "AutogradCUDA")
_AUTOCAST_KEYS = (("cpu", "AutocastCPU"), ("cuda", "AutocastCUDA"), ("xpu", "AutocastXPU"))


def dispatch_key(name: str) -> str:
    """A device type ("cpu") or dispatch key ("CPU", "Meta") as the dispatch key it names."""
    if name in ("default", "", None):
        return DEVICE_INDEPENDENT
    return _DEVICE_KEYS.get(name, name)


@dataclass
class OpEntry:
    """Everything registered for one operator overload (``ns::name.overload``)."""

    namespace: str
    name: str
    overload: str = "default"
    schema: str | None = None
    kernels: dict[str, Callable] = field(default_factory=dict)
    fake: Callable | None = None
    backward: Callable | None = None
    setup_context: Callable | None = None
    mutates_args: tuple[str, ...] = ()
    autocast: dict[str, Any] = field(default_factory=dict)  # device type -> dtype to cast to

    @property
    def qualname(self) -> str:
        return f"{self.namespace}::{self.name}"

    @property
    def dotted(self) -> str:
        return f"{self.namespace}.{self.name}.{self.overload}"

    def call(self, *args: Any, **kwargs: Any) -> Any:
        """Run the op as PyTorch's dispatcher would (see the module docstring)."""
        if self.schema is None:  # an op nothing defines: it raises when it comes to run
            return self._dispatch(args, kwargs, None)
        bound = _schema.bind(self.qualname, self.schema, args, kwargs)
        return self._dispatch(bound.kernel_args(), bound.kernel_kwargs(), bound)

    def _dispatch(self, args: tuple, kwargs: dict, bound: _schema.Bound | None) -> Any:
        for device, dtype in self.autocast.items():
            if _modes.is_autocast_enabled(device):
                return self._autocast_call(device, dtype, args, kwargs)
        for device, key in _AUTOCAST_KEYS:
            if key in self.kernels and _modes.is_autocast_enabled(device):
                return self.kernels[key](*args, **kwargs)  # it turns autocast off inside
        tensors = [a for a in (*args, *kwargs.values()) if isinstance(a, Tensor)]
        if any(t.device.type == "meta" for t in tensors):
            return self._fake_call(args, kwargs)
        for key in (COMPOSITE, *_AUTOGRAD_KEYS):
            if key in self.kernels:
                return self.kernels[key](*args, **kwargs)
        kernel = self._backend_kernel(tensors)
        grad_needed = _modes.is_grad_enabled() and any(t.requires_grad for t in tensors)
        if not grad_needed:
            with _modes.no_grad():
                return kernel(*args, **kwargs)
        return self._autograd_function(kernel, kwargs, bound).apply(*args)

    def _autocast_call(self, device: str, dtype: Any, args: tuple, kwargs: dict) -> Any:
        """Autocast's rule for this op: floating inputs cast to `dtype`, autocast off inside."""
        args = tuple(_cast(a, dtype) for a in args)
        kwargs = {k: _cast(v, dtype) for k, v in kwargs.items()}
        _modes.set_autocast_enabled(device, False)
        try:
            return self.call(*args, **kwargs)
        finally:
            _modes.set_autocast_enabled(device, True)

    def _fake_call(self, args: tuple, kwargs: dict) -> Any:
        fake = self.kernels.get("Meta", self.fake)
        if fake is None:
            raise RuntimeError(
                f"There was no fake impl registered for <CustomOpDef({self.qualname})>. This is "
                "necessary for torch.compile/export/fx tracing to work. Please use "
                f"`{self.name}.register_fake` to add an fake impl."
            )
        return fake(*args, **kwargs)

    def _backend_kernel(self, tensors: list) -> Callable:
        device = tensors[0].device.type if tensors else "cpu"
        key = dispatch_key(device)
        kernel = self.kernels.get(key, self.kernels.get(DEVICE_INDEPENDENT))
        if kernel is not None:
            return kernel
        if self.schema is None:
            raise NotImplementedError(
                f"Could not run '{self.qualname}': no kernel is registered for it in "
                "autograd_compat. Its kernels come from a compiled PyTorch extension (C++/CUDA), "
                "which cannot load here (there is no libtorch); only its Python registrations "
                f"(fake, autograd) were recorded: {sorted(self._registered())}."
            )
        raise NotImplementedError(
            f"Could not run '{self.qualname}' with arguments from the '{key}' backend. This "
            f"could be because the operator doesn't exist for this backend. "
            f"'{self.qualname}' is only available for these backends: {sorted(self._registered())}."
        )

    def _registered(self) -> set[str]:
        return set(self.kernels) | ({"Meta"} if self.fake is not None else set())

    def _autograd_function(
        self, kernel: Callable, kwargs: dict, bound: _schema.Bound | None
    ) -> type[Function]:
        """The generated Function running `kernel` forward (on its positional arguments and
        `kwargs`) and the registered backward. `setup_context` sees every argument: those
        `bound` holds beyond the ones given, and the keyword-only ones apart where the schema
        has any, as PyTorch passes them."""
        entry = self

        def forward(*args: Any) -> Any:
            return kernel(*args, **kwargs)

        def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
            if entry.setup_context is None:
                return
            if bound is None:
                entry.setup_context(ctx=ctx, inputs=inputs, output=output)
            elif any(a.keyword_only for a in bound.arguments):
                entry.setup_context(
                    ctx=ctx,
                    inputs=(*inputs, *bound.args[len(inputs) :]),
                    keyword_only_inputs=bound.kwargs,
                    output=output,
                )
            else:
                entry.setup_context(
                    ctx=ctx, inputs=(*inputs, *bound.args[len(inputs) :]), output=output
                )

        def backward(ctx: Any, *grads: Any) -> Any:
            if entry.backward is None:
                raise RuntimeError(
                    f"Trying to backward through {entry.dotted} but no autograd formula was "
                    "registered. Please use register_autograd to add one."
                )
            result = entry.backward(ctx, *grads)
            return result if isinstance(result, tuple) else (result,)

        name = f"GeneratedBackwardFor_{self.namespace}_{self.name}_{self.overload}"
        body = {
            "forward": staticmethod(forward),
            "setup_context": staticmethod(setup_context),
            "backward": staticmethod(backward),
        }
        return type(name, (Function,), body)


def _cast(value: Any, dtype: Any) -> Any:
    if isinstance(value, Tensor) and value.is_floating_point():
        return value.to(dtype)
    return value


_OPS: dict[tuple[str, str, str], OpEntry] = {}
_QUALNAME = re.compile(r"^(\w+)::(\w+)(?:\.(\w+))?$")


def parse_qualname(qualname: str) -> tuple[str, str, str]:
    """("ns", "name", "overload") of "ns::name" or "ns::name.overload"."""
    match = _QUALNAME.match(qualname)
    if match is None:
        raise ValueError(
            f"Expected there to be a namespace in {qualname}, i.e. The operator name should "
            "look something like ns::foo"
        )
    namespace, name, overload = match.groups()
    return namespace, name, overload or "default"


def entry(qualname: str) -> OpEntry:
    """The entry of `qualname`, made (undefined) on first use."""
    key = parse_qualname(qualname)
    found = _OPS.get(key)
    if found is None:
        found = _OPS[key] = OpEntry(*key)
    return found


def lookup(namespace: str, name: str) -> dict[str, OpEntry]:
    """The overloads registered under ``namespace::name``, by overload name."""
    return {o: e for (ns, n, o), e in _OPS.items() if ns == namespace and n == name}


def schema_name(schema: str) -> tuple[str, str]:
    """(name, overload) of a schema "name.overload(Tensor x) -> Tensor"."""
    head = schema.split("(", 1)[0].strip()
    name, _, overload = head.partition(".")
    return name, overload or "default"
