"""torch.distributed.algorithms.join: `Join`, the context manager that lets ranks with fewer
inputs than others finish, and the `Joinable`/`JoinHook` protocol it drives.

In a world of one process the rank is the only one and the last to join: the block runs as
it is, each joinable's `post_hook(True)` runs at its end, and `notify_join_context` returns the
finished all-reduce handle. Across several processes, the shadow collectives that keep a
finished rank in step with the others are not provided: entering the block raises
NotImplementedError naming it.
"""

from __future__ import annotations

import abc
from typing import NamedTuple

from ..._ops.factories import ones
from .. import distributed_c10d as _c10d

__all__ = ["Join", "JoinHook", "Joinable"]


class JoinHook:
    """What a joinable does once its rank has joined: `main_hook` (each iteration the others
    still run) and `post_hook` (when all have joined)."""

    def main_hook(self) -> None:
        """Shadow one iteration's collectives while other ranks still have inputs."""

    def post_hook(self, is_last_joiner: bool) -> None:
        """Clean up once every rank has joined."""


class _JoinConfig(NamedTuple):
    """What a joinable learns from the Join it takes part in."""

    enable: bool
    throw_on_early_termination: bool
    is_first_joinable: bool

    @staticmethod
    def construct_disabled_join_config() -> _JoinConfig:
        return _JoinConfig(enable=False, throw_on_early_termination=False, is_first_joinable=False)


class Joinable(abc.ABC):
    """A class (such as DistributedDataParallel) whose per-iteration collectives `Join`
    shadows; call `Joinable.__init__` in the constructor."""

    @abc.abstractmethod
    def __init__(self) -> None:
        super().__init__()
        self._join_config = _JoinConfig.construct_disabled_join_config()

    @abc.abstractmethod
    def join_hook(self, **kwargs) -> JoinHook:
        """The hook that shadows this joinable's collectives."""

    @property
    @abc.abstractmethod
    def join_device(self):
        """The device of the join context's collectives."""

    @property
    @abc.abstractmethod
    def join_process_group(self):
        """The process group of the join context's collectives."""


class Join:
    """Run a training loop whose ranks may have different numbers of inputs.

    Args:
        joinables (list[Joinable]): the joinables taking part (at least one).
        enable (bool): whether uneven inputs are handled. Default: True.
        throw_on_early_termination (bool): raise on every rank once one has run out of inputs,
            instead of shadowing. Default: False.
        **kwargs: passed to each joinable's `join_hook`.
    """

    def __init__(
        self,
        joinables: list[Joinable],
        enable: bool = True,
        throw_on_early_termination: bool = False,
        **kwargs,
    ) -> None:
        if len(joinables) == 0:
            raise ValueError("The join context manager requires at least one joinable")
        self._joinables = joinables
        self._join_hooks = [joinable.join_hook(**kwargs) for joinable in joinables]
        self._enable = enable
        self._throw_on_early_termination = throw_on_early_termination
        self._world_size = _c10d.get_world_size()  # PyTorch's error before init_process_group
        for index, joinable in enumerate(joinables):
            joinable._join_config = _JoinConfig(enable, throw_on_early_termination, index == 0)

    def __enter__(self) -> Join:
        if self._enable and self._world_size > 1:
            raise NotImplementedError(
                "torch.distributed.algorithms.join.Join: uneven inputs across several "
                "processes are not supported by autograd_compat (the shadow collectives of "
                "ranks that have joined are not provided); give every rank the same number of "
                "batches (DistributedSampler with drop_last=True)"
            )
        return self

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        if not self._enable or exc_type is not None:
            return
        for hook in self._join_hooks:
            hook.post_hook(True)

    @staticmethod
    def notify_join_context(joinable: Joinable):
        """Tell the Join that this rank has not joined yet; returns the all-reduce handle for
        the first joinable of an enabled Join, None otherwise."""
        if not hasattr(joinable, "_join_config"):
            raise AssertionError(
                f"Check that the {type(joinable)} constructor calls the ``Joinable`` constructor"
            )
        config = joinable._join_config
        if not config.is_first_joinable or not config.enable:
            return None
        return _c10d.all_reduce(ones(1, device=joinable.join_device), async_op=True)
