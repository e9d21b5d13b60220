"""torch.nn.modules.utils: the argument normalizers layers share (`_pair` and kin), and
`consume_prefix_in_state_dict_if_present` for loading a wrapped model's state_dict."""

from __future__ import annotations

import collections.abc
import itertools
from typing import Any

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n: int, name: str = "parse"):
    """A function making a tuple of `n` copies of a value, or a tuple of an iterable."""

    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(itertools.repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n: int) -> tuple:
    """`t` reversed, each element repeated `n` times: a layer's padding as `F.pad` takes it."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size, defaults):
    """`out_size` with each None replaced by the matching trailing entry of `defaults`."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size) :])]


def consume_prefix_in_state_dict_if_present(state_dict: dict[str, Any], prefix: str) -> None:
    """Strip `prefix` from the keys of `state_dict` (and of its `_metadata`) in place.

    Args:
        state_dict: a state dict, such as one saved from a DataParallel or DDP model.
        prefix: the prefix, such as "module.".

    Example::

        >>> from collections import OrderedDict
        >>> state = OrderedDict({"module.weight": 1})
        >>> nn.modules.utils.consume_prefix_in_state_dict_if_present(state, "module.")
        >>> list(state)
        ['weight']
    """
    for key in list(state_dict):
        if key.startswith(prefix):
            state_dict[key[len(prefix) :]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is None:
        return
    for key in list(metadata):
        if key and (key == prefix.replace(".", "") or key.startswith(prefix)):
            metadata[key[len(prefix) :]] = metadata.pop(key)
