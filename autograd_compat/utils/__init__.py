"""torch.utils: data loading (utils.data) and hook handles (utils.hooks)."""

from . import _pytree, checkpoint, data, hooks


def __getattr__(name: str):
    from .._alias import missing_attribute

    return missing_attribute(__name__, name)
