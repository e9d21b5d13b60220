"""torch.utils: data loading (utils.data) and hook handles (utils.hooks)."""

from .._alias import missing_attribute as _missing_attribute
from . import _pytree, checkpoint, data, hooks


def __getattr__(name: str):
    return _missing_attribute(__name__, name)
