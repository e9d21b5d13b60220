"""torch.nn.functional: the public module PyTorch code imports, re-exporting the nn ops.

The maths, registrations and argument checks live in `autograd_compat/_ops/nn/`, one module per
family (activation, loss, conv, pooling, normalization, dropout, ...), each listing its public
names in `__all__`; this module re-exports them all. Like PyTorch's, it has no `__all__`.
"""

from __future__ import annotations

from .._alias import missing_attribute as _missing_attribute
from .._ops.nn.activation import *  # noqa: F403
from .._ops.nn.attention import *  # noqa: F403
from .._ops.nn.attention import _canonical_mask as _canonical_mask
from .._ops.nn.attention import _none_or_dtype as _none_or_dtype
from .._ops.nn.channels import *  # noqa: F403
from .._ops.nn.conv import *  # noqa: F403
from .._ops.nn.ctc import *  # noqa: F403
from .._ops.nn.distance import *  # noqa: F403
from .._ops.nn.dropout import *  # noqa: F403
from .._ops.nn.embedding import *  # noqa: F403
from .._ops.nn.fractional_pool import *  # noqa: F403
from .._ops.nn.grid_sample import *  # noqa: F403
from .._ops.nn.interpolation import *  # noqa: F403
from .._ops.nn.likelihood_losses import *  # noqa: F403
from .._ops.nn.linear import *  # noqa: F403
from .._ops.nn.linear_cross_entropy import *  # noqa: F403
from .._ops.nn.loss import *  # noqa: F403
from .._ops.nn.lp_pool import *  # noqa: F403
from .._ops.nn.margin_losses import *  # noqa: F403
from .._ops.nn.normalization import *  # noqa: F403
from .._ops.nn.padding import *  # noqa: F403
from .._ops.nn.patches import *  # noqa: F403
from .._ops.nn.pooling import *  # noqa: F403
from .._ops.nn.rrelu import *  # noqa: F403
from .._ops.nn.unpooling import *  # noqa: F403
from .._ops.pairwise import pdist as pdist
from .._state.tensor import Tensor as Tensor


def __getattr__(name: str):
    return _missing_attribute(__name__, name)
