"""The `torch.*` spellings of Tensor methods: `torch.abs_(t)` is `t.abs_()`, `torch.detach(t)`
is `t.detach()`, and so on; each name is the table's own method (`_ops/methods.py`), so the
two spellings cannot drift apart. Also `torch.fill`, the out-of-place fill.
"""

from __future__ import annotations

from .._state.tensor import Tensor
from .._tape.args import tensor_arg
from .methods import TensorMethods as _Methods

__all__ = [
    "abs_",
    "acos_",
    "acosh_",
    "addmv_",
    "arccos_",
    "arccosh_",
    "arcsin_",
    "arcsinh_",
    "arctan_",
    "arctanh_",
    "asin_",
    "asinh_",
    "atan_",
    "atanh_",
    "ceil_",
    "clamp_",
    "clamp_max_",
    "clamp_min_",
    "clip_",
    "cos_",
    "cosh_",
    "deg2rad_",
    "detach",
    "detach_",
    "erf_",
    "erfc_",
    "exp2_",
    "exp_",
    "expm1_",
    "fill",
    "fill_",
    "fix_",
    "floor_",
    "frac_",
    "get_device",
    "is_complex",
    "is_distributed",
    "is_inference",
    "log10_",
    "log1p_",
    "log2_",
    "log_",
    "logit_",
    "nan_to_num_",
    "neg_",
    "negative_",
    "rad2deg_",
    "reciprocal_",
    "relu_",
    "round_",
    "rsqrt_",
    "sigmoid_",
    "sin_",
    "sinc_",
    "sinh_",
    "sqrt_",
    "square_",
    "tan_",
    "tanh_",
    "trunc_",
    "xlogy_",
    "zero_",
]

abs_ = _Methods.abs_
acos_ = _Methods.acos_
acosh_ = _Methods.acosh_
addmv_ = _Methods.addmv_
arccos_ = _Methods.arccos_
arccosh_ = _Methods.arccosh_
arcsin_ = _Methods.arcsin_
arcsinh_ = _Methods.arcsinh_
arctan_ = _Methods.arctan_
arctanh_ = _Methods.arctanh_
asin_ = _Methods.asin_
asinh_ = _Methods.asinh_
atan_ = _Methods.atan_
atanh_ = _Methods.atanh_
ceil_ = _Methods.ceil_
clamp_ = _Methods.clamp_
clamp_max_ = _Methods.clamp_max_
clamp_min_ = _Methods.clamp_min_
clip_ = _Methods.clip_
cos_ = _Methods.cos_
cosh_ = _Methods.cosh_
deg2rad_ = _Methods.deg2rad_
erf_ = _Methods.erf_
erfc_ = _Methods.erfc_
exp2_ = _Methods.exp2_
exp_ = _Methods.exp_
expm1_ = _Methods.expm1_
fill_ = _Methods.fill_
fix_ = _Methods.fix_
floor_ = _Methods.floor_
frac_ = _Methods.frac_
log10_ = _Methods.log10_
log1p_ = _Methods.log1p_
log2_ = _Methods.log2_
logit_ = _Methods.logit_
nan_to_num_ = _Methods.nan_to_num_
neg_ = _Methods.neg_
negative_ = _Methods.negative_
rad2deg_ = _Methods.rad2deg_
reciprocal_ = _Methods.reciprocal_
relu_ = _Methods.relu_
round_ = _Methods.round_
rsqrt_ = _Methods.rsqrt_
sigmoid_ = _Methods.sigmoid_
sin_ = _Methods.sin_
sinc_ = _Methods.sinc_
sinh_ = _Methods.sinh_
sqrt_ = _Methods.sqrt_
square_ = _Methods.square_
tan_ = _Methods.tan_
tanh_ = _Methods.tanh_
trunc_ = _Methods.trunc_
xlogy_ = _Methods.xlogy_
zero_ = _Methods.zero_
log_ = _Methods.log_
get_device = _Methods.get_device
is_distributed = _Methods.is_distributed


def detach(input: Tensor) -> Tensor:
    """`input.detach()`: the same memory, cut from the graph."""
    return tensor_arg(input, "detach").detach()


def detach_(input: Tensor) -> Tensor:
    """`input.detach_()`."""
    return tensor_arg(input, "detach_").detach_()


def is_complex(input: Tensor) -> bool:
    """Whether `input` has a complex dtype."""
    return tensor_arg(input, "is_complex").is_complex()


def is_inference(input: Tensor) -> bool:
    """Whether `input` was made in inference mode."""
    return tensor_arg(input, "is_inference").is_inference()


def fill(input: Tensor, value) -> Tensor:
    """A copy of `input` with every element `value` (the out-of-place `fill_`)."""
    return tensor_arg(input, "fill").clone().fill_(value)
