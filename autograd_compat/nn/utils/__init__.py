"""torch.nn.utils: gradient clipping, parameter/vector conversion, sequence packing,
parametrizations (weight and spectral norm), conv/linear and BatchNorm fusion."""

from ..._alias import missing_attribute as _missing_attribute
from . import fusion, parametrizations, parametrize, rnn
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "get_total_norm",
    "parameters_to_vector",
    "remove_spectral_norm",
    "remove_weight_norm",
    "spectral_norm",
    "vector_to_parameters",
    "weight_norm",
]


def __getattr__(name: str):
    return _missing_attribute(__name__, name)
