"""torch.nn.functional: the public module PyTorch code imports, re-exporting the nn ops.

The maths, registrations and argument checks live in `autograd_compat/_ops/nn/`, one module per
family (activation, loss, conv, pooling, normalization, dropout, ...); this module only names
them as PyTorch does.
"""

from __future__ import annotations

from .._alias import missing_attribute as _missing_attribute
from .._ops.nn.activation import celu as celu
from .._ops.nn.activation import elu as elu
from .._ops.nn.activation import gelu as gelu
from .._ops.nn.activation import glu as glu
from .._ops.nn.activation import hardsigmoid as hardsigmoid
from .._ops.nn.activation import hardswish as hardswish
from .._ops.nn.activation import hardtanh as hardtanh
from .._ops.nn.activation import leaky_relu as leaky_relu
from .._ops.nn.activation import log_softmax as log_softmax
from .._ops.nn.activation import logsigmoid as logsigmoid
from .._ops.nn.activation import mish as mish
from .._ops.nn.activation import prelu as prelu
from .._ops.nn.activation import relu as relu
from .._ops.nn.activation import relu6 as relu6
from .._ops.nn.activation import selu as selu
from .._ops.nn.activation import sigmoid as sigmoid
from .._ops.nn.activation import silu as silu
from .._ops.nn.activation import softmax as softmax
from .._ops.nn.activation import softmin as softmin
from .._ops.nn.activation import softplus as softplus
from .._ops.nn.activation import softsign as softsign
from .._ops.nn.activation import tanh as tanh
from .._ops.nn.activation import tanhshrink as tanhshrink
from .._ops.nn.activation import tensor_log_softmax as tensor_log_softmax
from .._ops.nn.activation import tensor_softmax as tensor_softmax
from .._ops.nn.activation import threshold as threshold
from .._ops.nn.attention import _canonical_mask as _canonical_mask
from .._ops.nn.attention import _none_or_dtype as _none_or_dtype
from .._ops.nn.attention import multi_head_attention_forward as multi_head_attention_forward
from .._ops.nn.attention import scaled_dot_product_attention as scaled_dot_product_attention
from .._ops.nn.conv import conv1d as conv1d
from .._ops.nn.conv import conv2d as conv2d
from .._ops.nn.conv import conv3d as conv3d
from .._ops.nn.conv import conv_transpose1d as conv_transpose1d
from .._ops.nn.conv import conv_transpose2d as conv_transpose2d
from .._ops.nn.distance import cosine_similarity as cosine_similarity
from .._ops.nn.distance import normalize as normalize
from .._ops.nn.distance import pairwise_distance as pairwise_distance
from .._ops.nn.dropout import dropout as dropout
from .._ops.nn.dropout import dropout1d as dropout1d
from .._ops.nn.dropout import dropout2d as dropout2d
from .._ops.nn.embedding import embedding as embedding
from .._ops.nn.embedding import one_hot as one_hot
from .._ops.nn.interpolation import interpolate as interpolate
from .._ops.nn.interpolation import upsample as upsample
from .._ops.nn.linear import bilinear as bilinear
from .._ops.nn.linear import linear as linear
from .._ops.nn.loss import binary_cross_entropy as binary_cross_entropy
from .._ops.nn.loss import binary_cross_entropy_with_logits as binary_cross_entropy_with_logits
from .._ops.nn.loss import cross_entropy as cross_entropy
from .._ops.nn.loss import huber_loss as huber_loss
from .._ops.nn.loss import kl_div as kl_div
from .._ops.nn.loss import l1_loss as l1_loss
from .._ops.nn.loss import mse_loss as mse_loss
from .._ops.nn.loss import nll_loss as nll_loss
from .._ops.nn.loss import smooth_l1_loss as smooth_l1_loss
from .._ops.nn.normalization import batch_norm as batch_norm
from .._ops.nn.normalization import group_norm as group_norm
from .._ops.nn.normalization import layer_norm as layer_norm
from .._ops.nn.padding import pad as pad
from .._ops.nn.pooling import adaptive_avg_pool1d as adaptive_avg_pool1d
from .._ops.nn.pooling import adaptive_avg_pool2d as adaptive_avg_pool2d
from .._ops.nn.pooling import avg_pool1d as avg_pool1d
from .._ops.nn.pooling import avg_pool2d as avg_pool2d
from .._ops.nn.pooling import avg_pool3d as avg_pool3d
from .._ops.nn.pooling import max_pool1d as max_pool1d
from .._ops.nn.pooling import max_pool2d as max_pool2d
from .._ops.nn.pooling import max_pool3d as max_pool3d
from .._state.tensor import Tensor as Tensor

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "batch_norm",
    "bilinear",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "celu",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "cosine_similarity",
    "cross_entropy",
    "dropout",
    "dropout1d",
    "dropout2d",
    "elu",
    "embedding",
    "gelu",
    "glu",
    "group_norm",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "huber_loss",
    "interpolate",
    "kl_div",
    "l1_loss",
    "layer_norm",
    "leaky_relu",
    "linear",
    "log_softmax",
    "logsigmoid",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "mish",
    "mse_loss",
    "multi_head_attention_forward",
    "nll_loss",
    "normalize",
    "one_hot",
    "pad",
    "pairwise_distance",
    "prelu",
    "relu",
    "relu6",
    "scaled_dot_product_attention",
    "selu",
    "sigmoid",
    "silu",
    "smooth_l1_loss",
    "softmax",
    "softmin",
    "softplus",
    "softsign",
    "tanh",
    "tanhshrink",
    "threshold",
    "upsample",
]


def __getattr__(name: str):
    return _missing_attribute(__name__, name)
