"""torch.distributed.fsdp on JAX's SPMD sharding, in one process.

`fully_shard(module)` (FSDP2) and `FullyShardedDataParallel(module)` (FSDP1) split each
parameter along its first dimension over the devices of a mesh (all local devices unless a
DeviceMesh is given; with a 2-D mesh, over its last dimension and replicated over the first,
as FSDP2's hybrid sharding). A parameter whose first dimension does not divide evenly over
the devices (a bias of 10 on 8 devices, a scalar) stays whole on every device, since XLA's
layouts are even. Buffers are replicated. Each tensor input of the outermost sharded module is
split along dim 0 over all the mesh's devices, as DistributedDataParallel's are.

Nothing is gathered by hand: each op (or a whole `torch.compile`d step) is one program that XLA
partitions, communicating as its partitioner decides (it may all-gather parameters, or keep them
split and gather activations instead; bench/devices.py shows the collectives). `.grad` keeps its
parameter's layout, and so does the optimizer state, which the optimizer's update computes from
it. Tensors always hold the global (full) values. `fully_shard` makes each parameter a DTensor
in place, as FSDP2's (`Shard(0)`, or `Replicate()` where it stays whole), so its
`state_dict()` gives DTensors (`.full_tensor()`: the full values); FSDP1's gives full tensors,
as its default FULL_STATE_DICT. `load_state_dict` of a full state dict writes into each
parameter keeping its layout. With one device the module runs as it is.

FSDP1 always behaves as `use_orig_params=True`: `named_parameters()` lists the original
parameters under `_fsdp_wrapped_module.`, and `state_dict()` keys are the wrapped module's own
(as PyTorch's FULL_STATE_DICT; `FSDP.state_dict_type` is not provided). Its other options
(`auto_wrap_policy`, `backward_prefetch`, `forward_prefetch`, `sync_module_states`,
`limit_all_gathers`) are accepted and change nothing here: the layout is per
parameter whatever the wrapping. Mixed precision and CPU offload (both APIs: a
MixedPrecisionPolicy naming a dtype, a CPUOffloadPolicy) raise NotImplementedError.
"""

from __future__ import annotations

import enum

import jax
import numpy as np
from jax.sharding import Mesh

from ..._alias import missing_attribute as _missing_attribute
from ...nn.modules.module import Module
from ...nn.parallel import lay_out, split_inputs
from ..device_mesh import DeviceMesh
from ..distributed_c10d import NO_PROCESS_GROUP, is_initialized
from ..tensor._api import make_parameter_dtensor
from ._policies import CPUOffloadPolicy, MixedPrecisionPolicy, OffloadPolicy, changes_anything

__all__ = [
    "CPUOffloadPolicy",
    "FSDPModule",
    "FullyShardedDataParallel",
    "MixedPrecisionPolicy",
    "OffloadPolicy",
    "ShardingStrategy",
    "fully_shard",
]

_AXIS = "fsdp"
_WRAPPED = "_fsdp_wrapped_module"
_NO_MIXED_PRECISION = MixedPrecisionPolicy()  # fully_shard's defaults, as PyTorch's
_NO_OFFLOAD = OffloadPolicy()
# How many sharded modules' forwards are running: inputs are split by the outermost only.
_DEPTH = [0]


class ShardingStrategy(enum.Enum):
    """FSDP1's strategies: NO_SHARD replicates the parameters (DDP's layout), the others
    shard them (XLA, not the strategy, decides when gathered parameters are freed)."""

    FULL_SHARD = 1
    SHARD_GRAD_OP = 2
    NO_SHARD = 3
    HYBRID_SHARD = 4
    _HYBRID_SHARD_ZERO2 = 5


def _jax_mesh(mesh: DeviceMesh | Mesh | None) -> Mesh:
    """The mesh to shard over: `mesh`'s, or one axis of all local devices."""
    if isinstance(mesh, DeviceMesh):
        return mesh.jax_mesh
    if mesh is not None:
        return mesh
    return Mesh(np.asarray(jax.local_devices(), dtype=object), (_AXIS,))


def _run_outermost(mesh: Mesh, owner: str, call, args: tuple, kwargs: dict):
    """`call(*args, **kwargs)`, with its tensor inputs split along dim 0 over `mesh` unless a
    sharded module around this one already split them."""
    if not _DEPTH[0] and mesh.size > 1:
        args, kwargs = split_inputs((args, kwargs), mesh, 0, owner)
    _DEPTH[0] += 1
    try:
        return call(*args, **kwargs)
    finally:
        _DEPTH[0] -= 1


def _refuse_precision_and_offload(mp, offload) -> None:
    """Mixed precision and CPU offload would change the numbers or the memory silently if
    ignored: refused by name until they are supported."""
    for name, given in (("mixed precision", mp), ("CPU offload", offload)):
        if changes_anything(given):
            raise NotImplementedError(
                f"FSDP {name} ({given!r}) is not supported by autograd_compat; cast the model "
                "(model.to(torch.bfloat16)) or use torch.autocast for lower precision"
            )


class FSDPModule:
    """What `fully_shard` makes a module: an instance of `FSDP<its class>`, which derives from
    this and from the module's class (as in PyTorch)."""

    _fsdp_mesh: Mesh

    def forward(self, *args, **kwargs):
        forward = super().forward  # the module class after FSDPModule in FSDP<class>
        return _run_outermost(self._fsdp_mesh, type(self).__name__, forward, args, kwargs)

    def unshard(self, async_op: bool = False) -> None:
        """Gathering is XLA's, inside each program: nothing to do."""

    def reshard(self) -> None:
        """Parameters are never held gathered between programs: nothing to do."""

    def set_reshard_after_forward(self, reshard_after_forward: bool, recurse: bool = True) -> None:
        """Accepted: when gathered parameters are freed is XLA's choice."""

    def set_requires_gradient_sync(self, requires_gradient_sync: bool, recurse=True) -> None:
        """Accepted: gradients are always those of the whole batch (one SPMD program)."""


_CLASSES: dict[type, type] = {}


def _fsdp_class(cls: type) -> type:
    """`FSDP<cls>`, deriving from FSDPModule and `cls`, made once per class."""
    if issubclass(cls, FSDPModule):
        return cls
    if cls not in _CLASSES:
        _CLASSES[cls] = type(f"FSDP{cls.__name__}", (FSDPModule, cls), {})
    return _CLASSES[cls]


def fully_shard(
    module: Module,
    *,
    mesh: DeviceMesh | None = None,
    reshard_after_forward: bool | int | None = None,
    shard_placement_fn=None,
    mp_policy: MixedPrecisionPolicy = _NO_MIXED_PRECISION,
    offload_policy: OffloadPolicy = _NO_OFFLOAD,
    ignored_params=None,
):
    """Shard `module`'s parameters along dim 0 over `mesh` (default: all local devices) and
    make it an `FSDPModule` whose forward splits its inputs along dim 0; returns `module`.

    Call it on each layer and then on the root, as with PyTorch's FSDP2: the layout is the
    same either way. `ignored_params` stay where they are; the other options are accepted
    (see the module docstring).
    """
    _refuse_precision_and_offload(mp=mp_policy, offload=offload_policy)
    jax_mesh = _jax_mesh(mesh)
    ignored = ignored_params or ()
    lay_out(module, jax_mesh, shard=True, ignored=ignored)
    skip = set(map(id, ignored))
    for param in module.parameters():
        if id(param) not in skip:
            make_parameter_dtensor(param, jax_mesh)
    module.__class__ = _fsdp_class(type(module))
    module._fsdp_mesh = jax_mesh
    return module


class FullyShardedDataParallel(Module):
    """FSDP1: wrap `module` (kept as `_fsdp_wrapped_module`) with its parameters sharded along
    dim 0 over the local devices or `device_mesh`; PyTorch's ValueError before
    `init_process_group`. See the module docstring for the options."""

    def __init__(
        self,
        module: Module,
        process_group=None,
        sharding_strategy: ShardingStrategy | None = None,
        *,
        device_mesh: DeviceMesh | None = None,
        use_orig_params: bool = False,
        **options,
    ) -> None:
        if not is_initialized():
            raise ValueError(NO_PROCESS_GROUP)
        _refuse_precision_and_offload(
            mp=options.get("mixed_precision"), offload=options.get("cpu_offload")
        )
        super().__init__()
        setattr(self, _WRAPPED, module)
        self.sharding_strategy = sharding_strategy or ShardingStrategy.FULL_SHARD
        self._fsdp_mesh = _jax_mesh(device_mesh)
        lay_out(module, self._fsdp_mesh, self.sharding_strategy is not ShardingStrategy.NO_SHARD)
        self.register_state_dict_post_hook(_drop_wrapped_prefix)
        self.register_load_state_dict_pre_hook(_add_wrapped_prefix)

    @property
    def module(self) -> Module:
        """The wrapped module."""
        return getattr(self, _WRAPPED)

    def forward(self, *args, **kwargs):
        return _run_outermost(self._fsdp_mesh, type(self).__name__, self.module, args, kwargs)


def _drop_wrapped_prefix(module, state_dict, prefix: str, local_metadata) -> None:
    """State dict keys as the wrapped module's (PyTorch's FULL_STATE_DICT), order kept."""
    inner = f"{prefix}{_WRAPPED}."
    for key in [k for k in state_dict if k.startswith(inner)]:
        state_dict[prefix + key[len(inner) :]] = state_dict.pop(key)


def _add_wrapped_prefix(module, state_dict, prefix: str, *args) -> None:
    """Load a state dict keyed as the wrapped module's into the wrapper."""
    inner = f"{prefix}{_WRAPPED}."
    for key in [k for k in state_dict if k.startswith(prefix) and not k.startswith(inner)]:
        state_dict[inner + key[len(prefix) :]] = state_dict.pop(key)


def __getattr__(name: str):
    return _missing_attribute(__name__, name)
