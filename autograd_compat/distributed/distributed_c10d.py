"""The default process group and its collectives on tensors (torch.distributed's c10d API).

A world size of 1 (one process, rank 0) needs no communication: the collectives leave their
tensors as they are. A larger world (`torchrun`, `python -m autograd_compat run --nproc N`)
starts `jax.distributed` with the rendezvous address as its coordinator (`env://` reads
`MASTER_ADDR`, `MASTER_PORT`, `RANK` and `WORLD_SIZE`; `tcp://host:port` takes `rank` and
`world_size`), with gloo as JAX's CPU collectives, and each collective is one XLA program
over the processes (`_collectives`). JAX fixes its processes when its backend starts, so
`init_process_group` must come before the first tensor is made (importing the library does
not start it), and the world cannot be started again after `destroy_process_group`.
"""

from __future__ import annotations

import enum
import os
import sys
import warnings
from typing import Any

import jax

from .._pure.jax_internals import backends_are_initialized
from .._state.modes import no_grad
from .._state.tensor import Tensor
from ._collectives import Collectives

__all__ = [
    "GroupMember",
    "ProcessGroup",
    "ReduceOp",
    "Work",
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_single",
    "all_reduce",
    "all_to_all_single",
    "barrier",
    "broadcast",
    "destroy_process_group",
    "get_backend",
    "get_process_group_ranks",
    "get_rank",
    "get_world_size",
    "group",
    "init_process_group",
    "is_available",
    "is_initialized",
    "is_torchelastic_launched",
    "reduce",
]

NO_PROCESS_GROUP = (
    "Default process group has not been initialized, please make sure to call init_process_group."
)
_BACKENDS = ("gloo", "nccl", "mpi", "ucc", "xla", "cpu:gloo,cuda:nccl")

# The default process group: {"backend", "rank", "world_size", "collectives"}, empty before
# init; "collectives" is None for a world of one process.
_group: dict = {}
_STARTED: list = []  # the coordinator this process joined: a process joins one job only


class _RedOpType(enum.IntEnum):
    """The reduction a collective applies (PyTorch's `ReduceOp.RedOpType`)."""

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8

    def __str__(self) -> str:
        return f"RedOpType.{self.name}"


_RedOpType.__name__ = _RedOpType.__qualname__ = "RedOpType"


class _ReduceOpMeta(type):
    """Makes `isinstance(ReduceOp.SUM, ReduceOp)` true, as PyTorch's binding does."""

    def __instancecheck__(cls, instance) -> bool:
        return isinstance(instance, _RedOpType) or type.__instancecheck__(cls, instance)


class ReduceOp(metaclass=_ReduceOpMeta):
    """The reduction names of collective operations: `ReduceOp.SUM` is `RedOpType.SUM`."""

    RedOpType = _RedOpType
    SUM = _RedOpType.SUM
    AVG = _RedOpType.AVG
    PRODUCT = _RedOpType.PRODUCT
    MIN = _RedOpType.MIN
    MAX = _RedOpType.MAX
    BAND = _RedOpType.BAND
    BOR = _RedOpType.BOR
    BXOR = _RedOpType.BXOR
    PREMUL_SUM = _RedOpType.PREMUL_SUM

    def __init__(self, op: _RedOpType = _RedOpType.SUM) -> None:
        self.op = _RedOpType(op)


class ProcessGroup:
    """A group of ranks; the default group (`group.WORLD`) is the one this library forms."""

    def __init__(self, rank: int, size: int, backend: str = "gloo") -> None:
        self._rank, self._size, self._backend = rank, size, backend

    def rank(self) -> int:
        return self._rank

    def size(self) -> int:
        return self._size

    def name(self) -> str:
        return self._backend

    @property
    def group_name(self) -> str:
        return "0"

    def __repr__(self) -> str:
        return f"ProcessGroup(rank={self._rank}, size={self._size}, backend={self._backend!r})"


class _WorldMeta(type):
    """`group.WORLD` and `GroupMember.WORLD` read the default group (None before init)."""

    @property
    def WORLD(cls) -> ProcessGroup | None:  # noqa: N802 -- PyTorch's name
        return _group.get("pg")


class group(metaclass=_WorldMeta):  # noqa: N801 -- PyTorch's name
    """`group.WORLD`: the default process group."""


class GroupMember(metaclass=_WorldMeta):
    """`GroupMember.WORLD` (the default group) and `NON_GROUP_MEMBER`."""

    NON_GROUP_MEMBER = -100


class Work:
    """The handle an `async_op=True` collective returns; the collective has completed."""

    def wait(self, timeout=None) -> bool:
        return True

    def is_completed(self) -> bool:
        return True

    def is_success(self) -> bool:
        return True


def is_available() -> bool:
    """True: torch.distributed's API is here."""
    return True


def is_initialized() -> bool:
    return bool(_group)


def is_torchelastic_launched() -> bool:
    """True in a process that `torchrun` started (it sets TORCHELASTIC_RUN_ID)."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def _rendezvous_error(method: str, message: str) -> ValueError:
    return ValueError(f"Error initializing torch.distributed using {method} rendezvous: {message}")


def _env(name: str) -> str:
    value = os.environ.get(name)
    if value is None:
        raise _rendezvous_error("env://", f"environment variable {name} expected, but not set")
    return value


def _rendezvous(init_method: str | None, world_size: int, rank: int) -> tuple[str, int, int]:
    """The coordinator address ("" for a world of one), world size and rank that
    `init_method` gives, with PyTorch's errors for missing parts."""
    if init_method is None or init_method.startswith("env://"):
        rank = rank if rank >= 0 else int(_env("RANK"))
        world_size = world_size if world_size >= 0 else int(_env("WORLD_SIZE"))
        if world_size <= 1:
            return "", max(world_size, 1), rank
        return f"{_env('MASTER_ADDR')}:{_env('MASTER_PORT')}", world_size, rank
    if init_method.startswith("tcp://"):
        if rank < 0:
            raise _rendezvous_error("tcp://", "rank parameter missing")
        if world_size < 0:
            raise _rendezvous_error("tcp://", "world size parameter missing")
        return init_method[len("tcp://") :].split("?")[0], world_size, rank
    raise NotImplementedError(
        f"init_method={init_method!r}: autograd_compat supports the env:// and "
        "tcp://host:port rendezvous"
    )


def _start_processes(address: str, world_size: int, rank: int, timeout) -> Collectives:
    """Join the `jax.distributed` job of `world_size` processes coordinated at `address`."""
    if jax.distributed.is_initialized() or _STARTED:
        raise RuntimeError(
            "init_process_group: this process already joined a jax.distributed job, which "
            "cannot be started again (destroy_process_group ended it for the process)"
        )
    if backends_are_initialized():
        raise RuntimeError(
            f"init_process_group(world_size={world_size}): JAX's backend has already started "
            "in this process (a tensor was made or a device queried), and jax.distributed must "
            "join the processes before that; call init_process_group first"
        )
    if jax.config.jax_cpu_collectives_implementation in (None, "none"):  # type: ignore[attr-defined]
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
    options: dict[str, Any] = {}
    if timeout is not None:
        options["initialization_timeout"] = int(timeout.total_seconds())
    if address.rsplit(":", 1)[0].strip("[]") in ("localhost", "::1") or address.startswith("127."):
        options["coordinator_bind_address"] = address  # loopback stays loopback (JAX binds [::])
    jax.distributed.initialize(
        coordinator_address=address, num_processes=world_size, process_id=rank, **options
    )
    _STARTED.append(address)
    return Collectives()


def _exit_at_once(report):
    """An excepthook that reports an uncaught exception with `report`, then ends the process
    without jax.distributed's shutdown barrier: that waits (minutes) for ranks that may be
    blocked in a collective with this one, where a failed PyTorch rank simply exits."""

    def hook(exc_type, value, traceback) -> None:
        report(exc_type, value, traceback)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)

    hook.report = report  # restored by destroy_process_group
    return hook


def init_process_group(
    backend: str | None = None,
    init_method: str | None = None,
    timeout=None,
    world_size: int = -1,
    rank: int = -1,
    store=None,
    group_name: str = "",
    pg_options=None,
    device_id=None,
) -> None:
    """Start the default process group (see the module docstring)."""
    if _group:
        raise ValueError("trying to initialize the default process group twice!")
    if backend is not None and str(backend).lower() not in _BACKENDS:
        raise ValueError(f"Invalid backend: '{backend}'")
    if store is not None:
        raise NotImplementedError(
            "init_process_group(store=...): autograd_compat rendezvous through env:// or "
            "tcp://host:port (jax.distributed's coordinator), not a Store"
        )
    address, world_size, rank = _rendezvous(init_method, world_size, rank)
    if not 0 <= rank < world_size:
        raise ValueError(f"Invalid rank {rank}: the world size is {world_size}")
    collectives = None
    if world_size > 1:
        collectives = _start_processes(address, world_size, rank, timeout)
        sys.excepthook = _exit_at_once(sys.excepthook)
    name = str(backend or "gloo").lower()
    _group.update(
        backend=name,
        rank=rank,
        world_size=world_size,
        collectives=collectives,
        pg=ProcessGroup(rank, world_size, name),
    )


def _collectives() -> Collectives | None:
    """The default group's collectives (None for a world of one); PyTorch's error before
    init."""
    if not _group:
        raise ValueError(NO_PROCESS_GROUP)
    return _group["collectives"]


def destroy_process_group(group=None) -> None:
    if _collectives() is not None:
        jax.distributed.shutdown()
        sys.excepthook = getattr(sys.excepthook, "report", sys.excepthook)
    _group.clear()


def get_backend(group=None) -> str:
    _collectives()
    return _group["backend"]


def get_rank(group=None) -> int:
    _collectives()
    return _group["rank"]


def get_world_size(group=None) -> int:
    _collectives()
    return _group["world_size"]


def get_process_group_ranks(group: ProcessGroup | None) -> list[int]:
    """The global ranks in `group` (None: the default group)."""
    _collectives()
    return list(range(_group["world_size"]))


def _done(async_op: bool) -> Work | None:
    return Work() if async_op else None


def _values(name: str, tensors) -> tuple:
    """The arrays of `tensors`, refusing traced ones (a collective across processes is a
    program of its own)."""
    values = tuple(t._value for t in tensors)
    if any(isinstance(v, jax.core.Tracer) for v in values):
        raise RuntimeError(
            f"torch.distributed.{name} across processes cannot run inside torch.compile or "
            "a traced function here: call it outside the compiled step"
        )
    return values


def _write(tensors, values) -> None:
    """Write `values` into `tensors` in place, as the collectives do."""
    with no_grad():
        for tensor, value in zip(tensors, values):
            tensor.copy_(Tensor._wrap(value))


_REDUCTION_NAMES = {
    ReduceOp.SUM: "sum",
    ReduceOp.PRODUCT: "product",
    ReduceOp.MIN: "min",
    ReduceOp.MAX: "max",
    ReduceOp.AVG: "avg",
}


def _reduction(op) -> str:
    """The name of the reduction `op` (a ReduceOp member or instance), checked."""
    op = op.op if type(op) is ReduceOp else op
    if not isinstance(op, _RedOpType):
        raise TypeError(
            f"a collective's op must be a torch.distributed.ReduceOp member, got {op!r}"
        )
    if op not in _REDUCTION_NAMES:
        raise ValueError(f"ReduceOp.{op.name} is not supported by autograd_compat's collectives")
    return _REDUCTION_NAMES[op]


def all_reduce_bucket(tensors: list, op=ReduceOp.SUM) -> None:
    """Reduce each of `tensors` over the ranks in place, all in one program (the bucketed
    all-reduce of DistributedDataParallel)."""
    collectives = _collectives()
    name = _reduction(op)
    if collectives is not None and tensors:
        _write(tensors, collectives.reduce(_values("all_reduce", tensors), name))


def all_reduce(tensor: Tensor, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """Reduce `tensor` over the ranks in place (op: ReduceOp.SUM, AVG, PRODUCT, MIN, MAX)."""
    all_reduce_bucket([tensor], op)
    return _done(async_op)


def reduce(tensor: Tensor, dst: int = 0, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce `tensor` over the ranks into rank `dst`'s `tensor` (the others keep theirs)."""
    collectives = _collectives()
    _check_root(dst, "reduce")
    name = _reduction(op)
    if collectives is not None:
        (value,) = collectives.reduce(_values("reduce", [tensor]), name)
        if _group["rank"] == dst:
            _write([tensor], [value])
    return _done(async_op)


def broadcast_bucket(tensors: list, src: int = 0) -> None:
    """Copy rank `src`'s `tensors` into every rank's, all in one program."""
    collectives = _collectives()
    _check_root(src, "broadcast")
    if collectives is not None and tensors:
        _write(tensors, collectives.broadcast(_values("broadcast", tensors), src))


def broadcast(tensor: Tensor, src: int = 0, group=None, async_op: bool = False):
    """Copy rank `src`'s `tensor` into every rank's `tensor`."""
    broadcast_bucket([tensor], src)
    return _done(async_op)


def _gathered(name: str, tensor: Tensor):
    """Every rank's `tensor` stacked along a new first dimension, as a jax array."""
    collectives = _collectives()
    if collectives is None:
        return tensor._value[None]
    return collectives.gather(_values(name, [tensor])[0])


def all_gather(tensor_list: list, tensor: Tensor, group=None, async_op: bool = False):
    """Fill `tensor_list` (one tensor per rank) with every rank's `tensor`."""
    _collectives()
    world_size = _group["world_size"]
    if len(tensor_list) != world_size:
        raise RuntimeError(
            "ProcessGroupGloo::allgather: invalid output tensor list at index 0 (expected "
            f"length {world_size}, got {len(tensor_list)})"
        )
    rows = _gathered("all_gather", tensor)
    _write(tensor_list, [rows[r] for r in range(world_size)])
    return _done(async_op)


def all_gather_single(
    output_tensor: Tensor, input_tensor: Tensor, group=None, async_op: bool = False
):
    """Every rank's `input_tensor` into `output_tensor`: concatenated along dimension 0
    (world_size * n rows) or stacked ([world_size, *shape]), as PyTorch accepts both."""
    _collectives()
    world_size, shape = _group["world_size"], tuple(input_tensor.shape)
    concatenated = (world_size * shape[0], *shape[1:]) if shape else (world_size,)
    if tuple(output_tensor.shape) not in (concatenated, (world_size, *shape)):
        raise RuntimeError(
            f"all_gather_single: output tensor of shape {list(output_tensor.shape)} for an "
            f"input of shape {list(shape)} and world size {world_size}; expected "
            f"{list(concatenated)} (concatenated) or {[world_size, *shape]} (stacked)"
        )
    rows = _gathered("all_gather_single", input_tensor)
    _write([output_tensor], [rows.reshape(tuple(output_tensor.shape))])
    return _done(async_op)


def all_to_all_single(
    output,
    input,
    output_split_sizes=None,
    input_split_sizes=None,
    group=None,
    async_op: bool = False,
):
    """Split `input` along dim 0 into one chunk per rank, send chunk r to rank r, and write the
    chunks received (in rank order) into `output`. Chunks are equal (split sizes, if given,
    must all be `input.shape[0] // world_size`)."""
    _collectives()
    world_size, rank = _group["world_size"], _group["rank"]
    rows = input.shape[0] if input.dim() else 0
    if tuple(output.shape) != tuple(input.shape) or rows % world_size:
        raise RuntimeError(
            f"all_to_all_single: input of shape {list(input.shape)} and output of shape "
            f"{list(output.shape)}; both must have the same shape, with a first dimension "
            f"divisible by the world size {world_size}"
        )
    chunk = rows // world_size
    for sizes in (output_split_sizes, input_split_sizes):
        if sizes and list(sizes) != [chunk] * world_size:
            raise NotImplementedError(
                f"all_to_all_single: split sizes {list(sizes)}; autograd_compat exchanges "
                f"equal chunks ({[chunk] * world_size} here)"
            )
    gathered = _gathered("all_to_all_single", input)  # [world_size, rows, ...]
    mine = gathered[:, rank * chunk : (rank + 1) * chunk]
    _write([output], [mine.reshape(tuple(output.shape))])
    return _done(async_op)


def all_gather_into_tensor(
    output_tensor: Tensor, input_tensor: Tensor, group=None, async_op: bool = False
):
    """`all_gather_single`, under the name PyTorch 2.13 deprecates (with its warning)."""
    warnings.warn(
        "`torch.distributed.all_gather_into_tensor` is deprecated. Please use "
        "`torch.distributed.all_gather_single` instead.",
        FutureWarning,
        stacklevel=2,
    )
    return all_gather_single(output_tensor, input_tensor, group, async_op)


def barrier(group=None, async_op: bool = False, device_ids=None):
    """Wait for every rank (with one rank, for this process's queued device work)."""
    collectives = _collectives()
    if collectives is None:
        jax.effects_barrier()
    else:
        jax.block_until_ready(collectives.reduce((jax.numpy.zeros((), "int32"),), "sum"))
    return _done(async_op)


def _check_root(rank: int, collective: str) -> None:
    """PyTorch's (gloo's) error for a root rank outside the world."""
    if not 0 <= rank < _group["world_size"]:
        raise RuntimeError(f"ProcessGroupGloo::{collective}: invalid root rank: {rank}")
