"""DistributedSampler: each rank's share of a dataset, as PyTorch deals it."""

from __future__ import annotations

import math
from typing import TypeVar

from ... import distributed as dist
from ..._state.random import Generator
from .sampler import Sampler, _permutation

__all__ = ["DistributedSampler"]

_T_co = TypeVar("_T_co", covariant=True)


class DistributedSampler(Sampler[_T_co]):
    """The indices of `dataset` that rank `rank` of `num_replicas` visits: every rank
    shuffles the same way (seeded by `seed + epoch`; call `set_epoch` each epoch), the list is
    padded by repeating its start (or cut, with `drop_last`) to a multiple of `num_replicas`,
    and rank r takes every `num_replicas`-th index from r.

    The permutation is the same on every rank for a seed, and PyTorch's (`randperm` of a
    Generator seeded with `seed + epoch`).
    """

    def __init__(
        self,
        dataset,
        num_replicas: int | None = None,
        rank: int | None = None,
        shuffle: bool = True,
        seed: int = 0,
        drop_last: bool = False,
    ) -> None:
        if num_replicas is None:
            num_replicas = dist.get_world_size()
        if rank is None:
            rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(
                f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]"
            )
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if self.drop_last and len(self.dataset) % self.num_replicas != 0:
            self.num_samples = math.ceil(
                (len(self.dataset) - self.num_replicas) / self.num_replicas
            )
        else:
            self.num_samples = math.ceil(len(self.dataset) / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        if self.shuffle:
            generator = Generator().manual_seed(self.seed + self.epoch)
            indices = _permutation(len(self.dataset), generator)
        else:
            indices = list(range(len(self.dataset)))
        if not self.drop_last:
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[: self.total_size]
        return iter(indices[self.rank : self.total_size : self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Shuffle differently in epoch `epoch` (the same on every rank)."""
        self.epoch = epoch
