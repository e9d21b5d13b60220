"""Lazy modules: layers whose input size is inferred at the first forward.

`LazyModuleMixin` (PyTorch's protocol): the layer starts with `UninitializedParameter`s and
`UninitializedBuffer`s; a forward pre-hook calls `initialize_parameters(*args)`, which
materializes them from the input's shape and resets them, then the hook removes itself and
the module becomes its `cls_to_become` (LazyLinear becomes Linear). Loading a state dict into
a lazy module materializes its parameters from the checkpoint's shapes first.
"""

from __future__ import annotations

import itertools
from typing import Any

from ..._ops.factories import zeros
from ..._pure.dtypes import long
from ..._state.modes import no_grad
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .linear import Linear
from .normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, _BatchNorm, _NormBase

__all__ = [
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
    "LazyInstanceNorm1d",
    "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
    "LazyLinear",
    "LazyModuleMixin",
]


class LazyModuleMixin:
    """Infer a module's parameter shapes from its first input (see the module docstring)."""

    cls_to_become: type | None = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        module: Any = self
        self._load_hook = module.register_load_state_dict_pre_hook(type(self)._lazy_load_hook)
        self._initialize_hook = module.register_forward_pre_hook(
            self._infer_parameters, with_kwargs=True
        )

    def _save_to_state_dict(self, destination, prefix, keep_vars) -> None:
        module: Any = self
        for name, param in module._parameters.items():
            if param is not None:
                destination[prefix + name] = (
                    param if is_lazy(param) or keep_vars else param.detach()
                )
        for name, buf in module._buffers.items():
            if buf is not None and name not in module._non_persistent_buffers_set:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars else buf.detach()

    def _lazy_load_hook(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, errors
    ) -> None:
        """Materialize each uninitialized parameter or buffer that the state dict holds."""
        module: Any = self
        for name, param in itertools.chain(module._parameters.items(), module._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None:
                value = state_dict[key]
                if is_lazy(param) and not is_lazy(value):
                    with no_grad():
                        param.materialize(value.shape)

    def initialize_parameters(self, *args, **kwargs) -> None:
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}"
        )

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter or buffer of this module is still uninitialized."""
        module: Any = self
        values = itertools.chain(module._parameters.values(), module._buffers.values())
        return any(is_lazy(value) for value in values)

    def _infer_parameters(self, module, args, kwargs=None) -> None:
        """The forward pre-hook: initialize from the first input, then become the plain
        module class."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear layer whose `in_features` is the last dimension of its first input."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:  # materialized by a loaded state dict
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(
                    f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                    f"in_features from self.weight: {self.weight.shape[-1]}"
                )
            self.in_features = input.shape[-1]


class _LazyConvXdMixin(LazyModuleMixin):
    """`in_channels` from the first input's channel dimension (batched or not)."""

    _nd: int

    def _lazy_init(self, out_channels: int, bias: bool, device, dtype) -> None:
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        module: Any = self
        if not self.has_uninitialized_params() and module.in_channels != 0:
            super().reset_parameters()  # type: ignore[misc]

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        module: Any = self
        if not self.has_uninitialized_params():
            return
        module.in_channels = self._get_in_channels(input)
        if module.in_channels % module.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if module.transposed:
            shape = (module.in_channels, module.out_channels // module.groups)
        else:
            shape = (module.out_channels, module.in_channels // module.groups)
        module.weight.materialize((*shape, *module.kernel_size))
        if module.bias is not None:
            module.bias.materialize((module.out_channels,))
        self.reset_parameters()

    def _get_in_channels(self, input) -> int:
        unbatched = self._nd + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(
                f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input to "
                f"{self.__class__.__name__}, but got input of size: {input.shape}"
            )
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]


def _lazy_conv(plain: type, nd: int) -> type:
    """The lazy form of the convolution class `plain` with `nd` spatial dimensions."""

    def __init__(
        self,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
    ) -> None:
        plain_args = (kernel_size, stride, padding, dilation, groups, False, padding_mode)
        LazyModuleMixin.__init__(self, 0, 0, *plain_args, device=device, dtype=dtype)
        self._lazy_init(out_channels, bias, device, dtype)

    cls = type(
        f"Lazy{plain.__name__}",
        (_LazyConvXdMixin, plain),
        {"cls_to_become": plain, "_nd": nd, "__init__": __init__, "__module__": __name__},
    )
    cls.__doc__ = f"A {plain.__name__} whose `in_channels` is read from its first input."
    return cls


def _lazy_conv_transpose(plain: type, nd: int) -> type:
    """The lazy form of the transposed convolution class `plain`."""

    def __init__(
        self,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups: int = 1,
        bias: bool = True,
        dilation=1,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
    ) -> None:
        plain_args = (kernel_size, stride, padding, output_padding, groups, False, dilation)
        LazyModuleMixin.__init__(self, 0, 0, *plain_args, padding_mode, device=device, dtype=dtype)
        self._lazy_init(out_channels, bias, device, dtype)

    cls = type(
        f"Lazy{plain.__name__}",
        (_LazyConvXdMixin, plain),
        {"cls_to_become": plain, "_nd": nd, "__init__": __init__, "__module__": __name__},
    )
    cls.__doc__ = f"A {plain.__name__} whose `in_channels` is read from its first input."
    return cls


LazyConv1d = _lazy_conv(Conv1d, 1)
LazyConv2d = _lazy_conv(Conv2d, 2)
LazyConv3d = _lazy_conv(Conv3d, 3)
LazyConvTranspose1d = _lazy_conv_transpose(ConvTranspose1d, 1)
LazyConvTranspose2d = _lazy_conv_transpose(ConvTranspose2d, 2)
LazyConvTranspose3d = _lazy_conv_transpose(ConvTranspose3d, 3)


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """`num_features` from the first input's dimension 1."""

    def __init__(
        self,
        eps=1e-5,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        device=None,
        dtype=None,
        *,
        bias=True,
    ) -> None:
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = zeros((), dtype=long, device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if not self.has_uninitialized_params():
            return
        self.num_features = input.shape[1]
        if self.affine:
            self.weight.materialize((self.num_features,))
            if self.bias is not None:
                self.bias.materialize((self.num_features,))
        if self.track_running_stats:
            self.running_mean.materialize((self.num_features,))
            self.running_var.materialize((self.num_features,))
        self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """A BatchNorm1d whose `num_features` is read from its first input."""

    cls_to_become = BatchNorm1d
    _check_input_dim = BatchNorm1d._check_input_dim


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """A BatchNorm2d whose `num_features` is read from its first input."""

    cls_to_become = BatchNorm2d
    _check_input_dim = BatchNorm2d._check_input_dim


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """A BatchNorm3d whose `num_features` is read from its first input."""

    cls_to_become = BatchNorm3d
    _check_input_dim = BatchNorm3d._check_input_dim


def _lazy_instance_norm(plain: type) -> type:
    """The lazy form of the instance norm class `plain` (with _LazyNormBase's defaults,
    affine and running statistics on, as PyTorch's)."""
    cls = type(
        f"Lazy{plain.__name__}",
        (_LazyNormBase, plain),
        {"cls_to_become": plain, "__module__": __name__},
    )
    cls.__doc__ = f"An {plain.__name__} whose `num_features` is read from its first input."
    return cls


LazyInstanceNorm1d = _lazy_instance_norm(InstanceNorm1d)
LazyInstanceNorm2d = _lazy_instance_norm(InstanceNorm2d)
LazyInstanceNorm3d = _lazy_instance_norm(InstanceNorm3d)
