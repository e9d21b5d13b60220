"""utils.data: datasets, samplers, DataLoader batching/shuffling and default_collate."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat.utils.data import (
    BatchSampler,
    ConcatDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    TensorDataset,
    default_collate,
    random_split,
)
from tests._helpers.torch_compare import check_error

X = torch.arange(20).reshape(10, 2).float()
Y = torch.arange(10)


def test_tensor_dataset_and_size_mismatch():
    ds = TensorDataset(X, Y)
    assert len(ds) == 10
    x, y = ds[3]
    assert x.tolist() == [6.0, 7.0] and y.item() == 3
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(X, torch.arange(9))


def test_dataloader_batches_in_order_and_drop_last():
    loader = DataLoader(TensorDataset(X, Y), batch_size=4)
    batches = list(loader)
    assert len(loader) == 3 and [b[1].tolist() for b in batches] == [
        [0, 1, 2, 3],
        [4, 5, 6, 7],
        [8, 9],
    ]
    assert isinstance(batches[0], list) and batches[0][0].shape == torch.Size([4, 2])
    dropped = DataLoader(TensorDataset(X, Y), batch_size=4, drop_last=True)
    assert len(dropped) == 2 and [len(b[1]) for b in dropped] == [4, 4]


def test_shuffle_is_a_permutation_reproducible_with_a_seeded_generator():
    def epoch(seed):
        loader = DataLoader(
            TensorDataset(X, Y), batch_size=3, shuffle=True,
            generator=torch.Generator().manual_seed(seed),
        )  # fmt: skip
        return [i for _, y in loader for i in y.tolist()]

    first = epoch(0)
    assert sorted(first) == list(range(10)) and first != list(range(10))
    assert epoch(0) == first and epoch(1) != first
    loader = DataLoader(TensorDataset(X, Y), batch_size=10, shuffle=True)
    a, b = (next(iter(loader))[1].tolist() for _ in range(2))
    assert a != b  # a new order every epoch


def test_default_collate_numbers_tuples_dicts_and_namedtuples():
    Point = collections.namedtuple("Point", "x y")
    batch = [
        {"a": 1, "b": 0.5, "t": torch.ones(2), "s": "u", "p": Point(1, 2.0), "n": np.ones(2)},
        {"a": 2, "b": 1.5, "t": torch.zeros(2), "s": "v", "p": Point(3, 4.0), "n": np.zeros(2)},
    ]
    out = default_collate(batch)
    assert out["a"].dtype is torch.int64 and out["a"].tolist() == [1, 2]
    assert out["b"].dtype is torch.float64
    assert out["t"].shape == torch.Size([2, 2]) and out["s"] == ["u", "v"]
    assert isinstance(out["p"], Point) and out["p"].y.tolist() == [2.0, 4.0]
    assert out["n"].dtype is torch.float64
    pairs = default_collate([(torch.ones(3), 1), (torch.zeros(3), 0)])
    assert isinstance(pairs, list) and pairs[1].tolist() == [1, 0]
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal"):
        default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors"):
        default_collate([object()])


class Squares(Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"x": torch.tensor([float(i)]), "y": i * i}


class Stream(IterableDataset):
    def __iter__(self):
        return iter(range(7))


def test_custom_and_iterable_datasets():
    batches = list(DataLoader(Squares(), batch_size=2))
    assert [b["y"].tolist() for b in batches] == [[0, 1], [4, 9], [16]]
    assert batches[0]["x"].shape == torch.Size([2, 1])
    assert [b.tolist() for b in DataLoader(Stream(), batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    unbatched = list(DataLoader(Squares(), batch_size=None))
    assert unbatched[2]["y"] == 4
    both = ConcatDataset([Squares(), Squares()])
    assert len(both) == 10 and both[7]["y"] == 4
    assert len(Squares() + Squares()) == 10


def test_random_split_and_samplers():
    generator = torch.Generator().manual_seed(42)
    train, val = random_split(TensorDataset(X, Y), [0.7, 0.3], generator=generator)
    assert isinstance(train, Subset) and (len(train), len(val)) == (7, 3)
    seen = sorted(train.indices + val.indices)
    assert seen == list(range(10))
    again = random_split(range(10), [7, 3], generator=torch.Generator().manual_seed(42))
    assert again[0].indices == train.indices
    with pytest.raises(ValueError, match="Sum of input lengths does not equal"):
        random_split(range(10), [5, 4])
    assert list(SequentialSampler(range(3))) == [0, 1, 2]
    assert sorted(RandomSampler(range(5))) == list(range(5))
    drawn = list(RandomSampler(range(3), replacement=True, num_samples=20))
    assert len(drawn) == 20 and set(drawn) <= {0, 1, 2}
    assert list(BatchSampler(range(5), 2, drop_last=False)) == [[0, 1], [2, 3], [4]]
    loader = DataLoader(train, batch_size=3)
    assert sum(len(b[0]) for b in loader) == 7


def test_dataloader_argument_errors():
    ds = TensorDataset(X, Y)
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        DataLoader(ds, sampler=SequentialSampler(ds), shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        DataLoader(ds, batch_sampler=BatchSampler(range(10), 2, False), batch_size=2)
    with pytest.raises(ValueError, match="batch_size should be a positive integer value"):
        DataLoader(ds, batch_size=0)


def test_samplers_are_lazy_iterators():
    """RandomSampler draws indices as they are taken (PyTorch: chunks of 32), so a huge
    num_samples neither allocates nor takes time; BatchSampler and DataLoader stay lazy."""
    import itertools

    data = torch.utils.data.TensorDataset(torch.arange(10.0))
    sampler = torch.utils.data.RandomSampler(data, replacement=True, num_samples=10**10)
    assert len(sampler) == 10**10
    taken = list(itertools.islice(iter(sampler), 70))
    assert len(taken) == 70 and all(0 <= i < 10 for i in taken)
    torch.manual_seed(1)
    first = list(itertools.islice(iter(sampler), 40))
    torch.manual_seed(1)
    assert list(itertools.islice(iter(sampler), 40)) == first
    short = torch.utils.data.RandomSampler(data, replacement=True, num_samples=45)
    assert len(list(short)) == 45
    batches = torch.utils.data.BatchSampler(sampler, batch_size=4, drop_last=False)
    assert [len(b) for b in itertools.islice(iter(batches), 3)] == [4, 4, 4]
    loader = torch.utils.data.DataLoader(data, batch_size=4, sampler=sampler)
    assert len(loader) == 10**10 // 4
    (xb,) = next(iter(loader))
    assert xb.shape == (4,)


def test_weighted_random_sampler(real_torch):
    sampler = torch.utils.data.WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 2000)
    counts = np.bincount(list(sampler), minlength=4)
    assert counts[0] == counts[2] == 0 and 400 < counts[1] < 600
    assert sorted(torch.utils.data.WeightedRandomSampler([1.0, 2.0, 3.0], 3, False)) == [0, 1, 2]
    for args in (([1.0], 0), ([1.0], 2, 1), ([[1.0]], 1)):
        check_error(lambda t, args=args: t.utils.data.WeightedRandomSampler(*args), real_torch)
