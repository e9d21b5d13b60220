"""DataLoader worker processes (num_workers > 0): batches in sampler order, worker_init_fn and
get_worker_info() in each worker, IterableDataset sharding, a worker's exception re-raised with
its traceback, timeout, and no worker left running. Each spawned worker costs an interpreter
start, so the tests share one persistent loader where they can."""

import gc
import json
import math
import multiprocessing
import os
import pickle
import subprocess
import sys
import time

import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat.utils.data import DataLoader, Dataset, IterableDataset, get_worker_info

_init_ran: list[int] = []


def record_init(worker_id: int) -> None:
    _init_ran.append(worker_id)


class Recording(Dataset):
    """Item i: (i as a float tensor, the worker id, the process id, whether worker_init_fn ran
    in this worker, the worker's seed, the JAX platforms it may use); 2 ms each."""

    def __len__(self) -> int:
        return 22

    def __getitem__(self, i):
        time.sleep(0.002)
        info = get_worker_info()
        if info is None:
            return torch.tensor([float(i)]), -1, os.getpid(), False, -1, ""
        ran = _init_ran == [info.id]
        platforms = os.environ["JAX_PLATFORMS"]
        return torch.tensor([float(i)]), info.id, os.getpid(), ran, info.seed, platforms


class Failing(Dataset):
    def __len__(self) -> int:
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise ValueError(f"bad item {i}")
        return np.float32(i)


class Slow(Dataset):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, i):
        time.sleep(2.0)
        return i


class SlowFirst(Dataset):
    """Item 0 waits until item 1 is made (by the other worker), and 0.3 s more."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __len__(self) -> int:
        return 8

    def __getitem__(self, i):
        if i == 1:
            open(self.marker, "w").close()
        if i == 0:
            deadline = time.monotonic() + 60
            while not os.path.exists(self.marker) and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(0.3)
        return i


class Range(IterableDataset):
    """PyTorch's documented example: each worker iterates its share of [start, end)."""

    def __init__(self, start: int, end: int) -> None:
        self.start, self.end = start, end

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.start, self.end))
        per_worker = int(math.ceil((self.end - self.start) / float(info.num_workers)))
        start = self.start + info.id * per_worker
        return iter(range(start, min(start + per_worker, self.end)))


@pytest.fixture(scope="module")
def loader():
    loader = DataLoader(
        Recording(),
        batch_size=4,
        num_workers=2,
        worker_init_fn=record_init,
        persistent_workers=True,
        pin_memory=True,
    )
    platforms = os.environ.get("JAX_PLATFORMS")
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no accel"):
        iter(loader)  # starts the workers
    assert os.environ.get("JAX_PLATFORMS") == platforms  # set for the workers only
    yield loader
    workers = loader._iterator._workers
    loader._iterator._shutdown_workers()  # what deleting the loader does
    assert not any(worker.is_alive() for worker in workers)


def _values(batches) -> list:
    return [batch[0].flatten().tolist() for batch in batches]


def test_batches_come_in_sampler_order_from_two_worker_processes(loader):
    expected = _values(DataLoader(Recording(), batch_size=4))
    batches = list(loader)
    assert _values(batches) == expected
    assert [len(batch[0]) for batch in batches] == [4, 4, 4, 4, 4, 2]
    ids = {i for batch in batches for i in batch[1].tolist()}
    pids = {p for batch in batches for p in batch[2].tolist()}
    assert ids == {0, 1}
    assert len(pids) == 2 and os.getpid() not in pids
    assert all(ran for batch in batches for ran in batch[3].tolist())
    # Batches are dealt round-robin: batch k is built by worker k % 2.
    assert [batch[1].tolist()[0] for batch in batches] == [0, 1, 0, 1, 0, 1]
    seeds = {i: s for batch in batches for i, s in zip(batch[1].tolist(), batch[4].tolist())}
    assert seeds[1] == seeds[0] + 1
    assert {p for batch in batches for p in batch[5]} == {"cpu"}  # no accelerator in workers


_ORACLE = """
import json, math, torch
from torch.utils.data import DataLoader, Dataset, IterableDataset, get_worker_info

class Plain(Dataset):
    def __len__(self):
        return 22

    def __getitem__(self, i):
        return torch.tensor([float(i)]), get_worker_info().id

class Range(IterableDataset):
    def __iter__(self):
        info = get_worker_info()
        per_worker = int(math.ceil(4 / float(info.num_workers)))
        start = 3 + info.id * per_worker
        return iter(range(start, min(start + per_worker, 7)))

batches = list(DataLoader(Plain(), batch_size=4, num_workers=2))
print(json.dumps({
    "values": [b[0].flatten().tolist() for b in batches],
    "workers": [b[1].tolist() for b in batches],
    "iterable": [int(b) for b in DataLoader(Range(), num_workers=2)],
}))
"""


def test_workers_match_real_pytorch(loader, real_torch):
    # Real PyTorch in a fresh process (it forks its workers, which JAX's threads forbid here).
    run = subprocess.run(
        [sys.executable, "-c", _ORACLE], capture_output=True, text=True, timeout=300, check=True
    )
    theirs = json.loads(run.stdout)
    ours = list(loader)
    assert _values(ours) == theirs["values"]
    assert [batch[1].tolist() for batch in ours] == theirs["workers"]
    assert [int(batch) for batch in DataLoader(Range(3, 7), num_workers=2)] == theirs["iterable"]


def test_persistent_workers_start_over_after_an_early_break(loader):
    pids = {p for batch in loader for p in batch[2].tolist()}
    for batch in loader:
        assert batch[0].flatten().tolist() == [0.0, 1.0, 2.0, 3.0]
        break
    assert _values(loader) == _values(DataLoader(Recording(), batch_size=4))
    assert {p for batch in loader for p in batch[2].tolist()} == pids


def _children() -> set[int]:
    return {child.pid for child in multiprocessing.active_children()}


def test_shuffled_batches_are_those_of_num_workers_0():
    def shuffled(num_workers: int) -> list:
        generator = torch.Generator().manual_seed(7)
        loader = DataLoader(
            Recording(), batch_size=4, shuffle=True, generator=generator, num_workers=num_workers
        )
        return _values(loader)

    before = _children()
    batches = shuffled(2)
    assert batches == shuffled(0)
    assert sorted(x for batch in batches for x in batch) == [float(i) for i in range(22)]
    assert _children() <= before  # the pass ended: its workers are gone


def test_breaking_out_of_the_loop_stops_the_workers():
    before = _children()
    for batch in DataLoader(Failing(), batch_size=2, num_workers=1):
        first, workers = batch.tolist(), _children() - before
        break
    assert first == [0.0, 1.0]
    assert len(workers) == 1 and not workers & _children()


def test_out_of_order_batches_come_as_they_arrive(tmp_path):
    dataset = SlowFirst(str(tmp_path / "item-1-made"))
    batches = [int(b) for b in DataLoader(dataset, num_workers=2, in_order=False)]
    assert batches[0] != 0 and sorted(batches) == list(range(8))


def test_iterable_dataset_sharded_by_get_worker_info():
    loader = DataLoader(Range(3, 7), num_workers=2)
    assert [int(batch) for batch in loader] == [3, 5, 4, 6]  # PyTorch's documented output
    assert [int(x) for x in DataLoader(Range(3, 7), batch_size=None)] == [3, 4, 5, 6]


def test_worker_exception_is_reraised_with_its_traceback():
    iterator = iter(DataLoader(Failing(), batch_size=2, num_workers=1))
    workers = iterator._workers
    assert [next(iterator).tolist() for _ in range(2)] == [[0.0, 1.0], [2.0, 3.0]]
    with pytest.raises(ValueError) as caught:
        next(iterator)
    message = str(caught.value)
    assert message.startswith("Caught ValueError in DataLoader worker process 0.\n")
    assert "Original Traceback (most recent call last):" in message
    assert "bad item 5" in message and "in __getitem__" in message
    del iterator, caught  # the traceback holds the iterator too
    gc.collect()
    assert not any(worker.is_alive() for worker in workers)


def test_timeout_raises_and_stops_the_worker():
    loader = DataLoader(Slow(), num_workers=1, timeout=0.5)
    iterator = iter(loader)
    workers = iterator._workers
    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.5 seconds$"):
        next(iterator)
    del iterator
    gc.collect()
    assert not any(worker.is_alive() for worker in workers)


def test_options_checked_as_pytorch_checks_them(real_torch):
    for kwargs in ({"prefetch_factor": 2}, {"persistent_workers": True}):
        with pytest.raises(ValueError) as ours:
            DataLoader(Recording(), **kwargs)
        with pytest.raises(ValueError) as theirs:
            real_torch.utils.data.DataLoader([0], **kwargs)
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(ValueError, match="prefetch_factor option should be non-negative"):
        DataLoader(Recording(), num_workers=1, prefetch_factor=-1)


def test_tensors_cross_processes_as_copies():
    from multiprocessing.reduction import ForkingPickler

    weight = torch.nn.Parameter(torch.arange(3.0))
    for value in (weight, torch.ones(2, dtype=torch.bfloat16), torch.arange(4)):
        back = pickle.loads(ForkingPickler.dumps(value))
        assert type(back) is type(value) and back.dtype == value.dtype
        assert back.tolist() == value.tolist() and back.requires_grad == value.requires_grad
    with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf tensor"):
        ForkingPickler.dumps(weight * 2)
    with pytest.raises(TypeError, match="pickling Tensors is not supported"):
        pickle.dumps(torch.ones(1))


def test_fork_is_refused():
    loader = DataLoader(
        Recording(), num_workers=1, multiprocessing_context=multiprocessing.get_context("fork")
    )
    with pytest.raises(ValueError, match="'fork' start method is not available"):
        iter(loader)


def test_more_workers_than_cpus_warns_as_pytorch_does(real_torch):
    workers = len(os.sched_getaffinity(0)) + 1
    with pytest.warns(UserWarning) as ours:
        DataLoader(Recording(), num_workers=workers)
    with pytest.warns(UserWarning) as theirs:
        real_torch.utils.data.DataLoader([0], num_workers=workers)
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
