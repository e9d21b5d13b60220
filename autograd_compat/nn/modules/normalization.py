"""Normalization layers: BatchNorm1d/2d/3d (running statistics), SyncBatchNorm, LayerNorm,
GroupNorm."""

from __future__ import annotations

import numbers

from ..._pure import dtypes as _dtypes
from ...distributed import distributed_c10d as _c10d
from .. import _arrays, init
from .. import functional as F
from ..parameter import Parameter
from ._weights import add_affine, reset_affine
from .module import Module, store_constants

__all__ = [
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "CrossMapLRN2d",
    "GroupNorm",
    "LayerNorm",
    "LocalResponseNorm",
    "RMSNorm",
    "SyncBatchNorm",
]


class _AffineNorm(Module):
    """A normalization layer whose only parameters are its elementwise weight and bias."""

    _repr_format: str  # PyTorch's extra_repr, over the instance's attributes, before its bias

    def _add_parameters(self, arguments: dict, shape, affine: bool) -> None:
        """Keep the constructor's `__constants__` (from its `locals()`, `arguments`) and add the
        weight and bias of `shape` (see `add_affine`), initialized."""
        store_constants(self, arguments)
        add_affine(self, shape, affine, arguments["bias"], arguments["device"], arguments["dtype"])
        self.reset_parameters()

    def reset_parameters(self) -> None:
        reset_affine(self)

    def extra_repr(self) -> str:
        return self._repr_format.format(**self.__dict__) + f", bias={self.bias is not None}"


class _NormBase(Module):
    __constants__ = ["track_running_stats", "momentum", "eps", "num_features", "affine"]
    _version = 2

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum=0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device=None,
        dtype=None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        store_constants(self, locals())
        add_affine(self, num_features, affine, bias, device, dtype)
        if self.track_running_stats:
            self.register_buffer("running_mean", _arrays.filled(num_features, 0, dtype, device))
            self.register_buffer("running_var", _arrays.filled(num_features, 1, dtype, device))
            self.register_buffer(
                "num_batches_tracked",
                _arrays.filled((), 0, _dtypes.long, device),
            )
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            init.zeros_(self.running_mean)
            init.ones_(self.running_var)
            init.zeros_(self.num_batches_tracked)

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        reset_affine(self)

    def _check_input_dim(self, input) -> None:
        raise NotImplementedError

    def extra_repr(self) -> str:
        return (
            "{num_features}, eps={eps}, momentum={momentum}, affine={affine}, "
            "bias={has_bias}, track_running_stats={track_running_stats}".format(
                **self.__dict__, has_bias=self.bias is not None
            )
        )

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ) -> None:
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (
                    self.num_batches_tracked
                    if self.num_batches_tracked is not None
                    else _arrays.filled((), 0, _dtypes.long)
                )
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )


class _BatchNorm(_NormBase):
    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            counter = self.num_batches_tracked
            counter._set_value(counter._value + 1)
            counter._bump_version()
            if self.momentum is None:
                factor = 1.0 / float(counter.item())
        if self.training:
            bn_training = True
        else:
            bn_training = (self.running_mean is None) and (self.running_var is None)
        use_stats = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if use_stats else None,
            self.running_var if use_stats else None,
            self.weight,
            self.bias,
            bn_training,
            factor,
            self.eps,
        )


class BatchNorm1d(_BatchNorm):
    """Batch normalization over (N, C) or (N, C, L) input.

    In training mode it normalizes with the batch statistics and updates `running_mean` and
    `running_var` (unbiased) with `momentum`; in eval mode it uses the running statistics.
    """

    def _check_input_dim(self, input) -> None:
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalization over (N, C, H, W) input (see BatchNorm1d)."""

    def _check_input_dim(self, input) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    def _check_input_dim(self, input) -> None:
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class LayerNorm(_AffineNorm):
    """Normalize over the trailing `normalized_shape` dims; weight 1 and bias 0 to start."""

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]
    _repr_format = "{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}"

    def __init__(
        self,
        normalized_shape,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        normalized_shape = tuple(normalized_shape)
        self._add_parameters(locals(), normalized_shape, elementwise_affine)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)


class LocalResponseNorm(Module):
    """Normalize each channel by its `size` neighbours' mean square (AlexNet's LRN)."""

    __constants__ = ["size", "alpha", "beta", "k"]

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
        super().__init__()
        store_constants(self, locals())

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)


class CrossMapLRN2d(LocalResponseNorm):
    """PyTorch's legacy cross-channel LRN. Its window and its hand-written backward are
    PyTorch's own (the backward is not the derivative of the forward), which this library
    does not reproduce: construction works, the forward raises (use LocalResponseNorm)."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__(size, alpha, beta, k)

    def forward(self, input):
        raise NotImplementedError(
            "nn.CrossMapLRN2d is not supported by autograd_compat: its legacy window and "
            "backward are PyTorch's own; nn.LocalResponseNorm is the supported layer"
        )


class RMSNorm(Module):
    """Root-mean-square normalization over the trailing `normalized_shape` dims, times a
    weight of ones to start (no bias); `eps` None is the dtype's machine epsilon."""

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(
        self,
        normalized_shape,
        eps: float | None = None,
        elementwise_affine: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(
                _arrays.empty(self.normalized_shape, device=device, dtype=dtype)
            )
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return "{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}".format(
            **self.__dict__
        )


class GroupNorm(_AffineNorm):
    """Normalize over groups of channels; per-channel weight 1 and bias 0 to start."""

    __constants__ = ["num_groups", "num_channels", "eps", "affine"]
    _repr_format = "{num_groups}, {num_channels}, eps={eps}, affine={affine}"

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-5,
        affine: bool = True,
        device=None,
        dtype=None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self._add_parameters(locals(), num_channels, affine)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)


class SyncBatchNorm(_BatchNorm):
    """Batch normalization whose training statistics are those of the whole process group.

    In one process (no process group, or a world of size 1) it is BatchNorm over its input
    (N, C, *); synchronizing statistics across several processes is not yet supported and
    raises when a training forward would need it.
    """

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum=0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        process_group=None,
        device=None,
        dtype=None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )
        self.process_group = process_group

    def _check_input_dim(self, input) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        if self.training and _c10d.is_initialized():
            world_size = _c10d.get_world_size(self.process_group)
            if world_size > 1:
                raise NotImplementedError(
                    f"torch.nn.SyncBatchNorm: synchronizing batch statistics across "
                    f"{world_size} processes is not yet supported by autograd_compat (convert "
                    "the model back to BatchNorm, or train in one process)"
                )
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """`module` with every BatchNorm*D layer replaced by a SyncBatchNorm sharing its
        parameters and running statistics (a BatchNorm `module` itself is returned new)."""
        result = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            result = cls(
                module.num_features,
                module.eps,
                module.momentum,
                module.affine,
                module.track_running_stats,
                process_group,
                bias=module.bias is not None,
            )
            if module.affine:
                result.weight, result.bias = module.weight, module.bias
            result.running_mean = module.running_mean
            result.running_var = module.running_var
            result.num_batches_tracked = module.num_batches_tracked
            result.training = module.training
            if hasattr(module, "qconfig"):
                result.qconfig = module.qconfig
        for name, child in module.named_children():
            result.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return result
