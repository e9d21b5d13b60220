"""InstanceNorm1d/2d/3d: per-sample, per-channel normalization over the spatial dims."""

from __future__ import annotations

import warnings

from .. import functional as F
from .normalization import _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class _InstanceNorm(_NormBase):
    """Instance normalization; unlike batch norm, no affine transform and no running
    statistics by default, and the running statistics are used only in eval mode."""

    _spatial_dims: int

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float = 0.1,
        affine: bool = False,
        track_running_stats: bool = False,
        device=None,
        dtype=None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )

    def _check_input_dim(self, input) -> None:
        unbatched = self._spatial_dims + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise ValueError(
                f"expected {unbatched}D or {unbatched + 1}D input (got {input.dim()}D input)"
            )

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - (self._spatial_dims + 1)
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features "
                    f"({self.num_features}), but got: {input.shape[feature_dim]}."
                )
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. You can "
                "silence this warning by not passing in num_features, which is not used "
                "because affine=False",
                stacklevel=2,
            )
        unbatched = input.dim() == self._spatial_dims + 1
        x = input.unsqueeze(0) if unbatched else input
        out = F.instance_norm(
            x,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0,
            self.eps,
        )
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization over (N, C, L) or (C, L) input.

    Example::

        >>> nn.InstanceNorm1d(3, affine=True)(torch.randn(2, 3, 5)).shape
        torch.Size([2, 3, 5])
    """

    _spatial_dims = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization over (N, C, H, W) or (C, H, W) input."""

    _spatial_dims = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization over (N, C, D, H, W) or (C, D, H, W) input."""

    _spatial_dims = 3
