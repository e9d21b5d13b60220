"""torch.masked: reductions and normalizations over the elements a boolean `mask` keeps
(strided tensors). Masked-out elements take the operation's identity (0 for sum and cumsum,
-inf for amax and logaddexp, NaN for median, which ignores NaN, ...) and the result is the
plain operation's, so values and gradients are PyTorch's; mean, var and std divide by the
count of kept elements. MaskedTensor is not provided."""

from .._alias import missing_attribute as _missing_attribute
from ._ops import *  # noqa: F403
from ._ops import __all__ as __all__
from ._ops import _input_mask as _input_mask
from ._ops import _output_mask as _output_mask


def __getattr__(name: str):
    return _missing_attribute(__name__, name)
