"""torch.utils.hooks: RemovableHandle, the handle returned by every register_*_hook."""

from __future__ import annotations

import itertools
import weakref


class RemovableHandle:
    """A handle that removes a hook from the dict(s) it was registered in.

    Example::

        >>> module = torch.nn.Linear(2, 1)
        >>> def hook(module, args, output):
        ...     print("forward:", tuple(output.shape))
        >>> handle = module.register_forward_hook(hook)
        >>> _ = module(torch.ones(3, 2))
        forward: (3, 1)
        >>> handle.remove()
        >>> _ = module(torch.ones(3, 2))  # the hook no longer runs
    """

    _next_id = itertools.count()

    def __init__(self, hooks_dict, *, extra_dict=None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle._next_id)
        if extra_dict is None:
            extra_dict = []
        elif isinstance(extra_dict, dict):
            extra_dict = [extra_dict]
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self) -> None:
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]
        for ref in self.extra_dict_ref:
            extra = ref()
            if extra is not None and self.id in extra:
                del extra[self.id]

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *args) -> None:
        self.remove()
