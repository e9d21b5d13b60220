"""torch.fx.immutable_collections: the list and dict types of a Node's arguments, which
refuse in-place changes (a Node's users would go stale); assign a changed copy instead."""

from __future__ import annotations

from typing import Any, NoReturn

__all__ = ["immutable_dict", "immutable_list"]

_HELP = """
If you are attempting to modify the kwargs or args of a torch.fx.Node object,
instead create a new copy of it and assign the copy to the node:

    new_args = ...  # copy and mutate args
    node.args = new_args
""".strip()


def _no_mutation(self: Any, *args: Any, **kwargs: Any) -> NoReturn:
    raise TypeError(f"{type(self).__name__!r} object does not support mutation. {_HELP}")


class immutable_list(list):  # noqa: N801 - PyTorch's name
    """A list that cannot be changed in place (hashable)."""

    __delitem__ = __iadd__ = __imul__ = __setitem__ = _no_mutation
    append = clear = extend = insert = pop = remove = reverse = sort = _no_mutation

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(self))

    def __reduce__(self):
        return (type(self), (tuple(self),))


class immutable_dict(dict):  # noqa: N801 - PyTorch's name
    """A dict that cannot be changed in place (hashable)."""

    __delitem__ = __ior__ = __setitem__ = _no_mutation
    clear = pop = popitem = setdefault = update = _no_mutation

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))

    def __reduce__(self):
        return (type(self), (tuple(self.items()),))
