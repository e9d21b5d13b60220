"""torch.distributed.device_mesh: a DeviceMesh is a JAX `Mesh` of this process's devices (of
every process's, in rank order, once `jax.distributed` joins several), with PyTorch's names
(`init_device_mesh("cpu", (8,), mesh_dim_names=("dp",))`)."""

from __future__ import annotations

import math

import jax
import numpy as np
from jax.sharding import Mesh

from .._pure import device as _device

__all__ = ["DeviceMesh", "init_device_mesh"]


class DeviceMesh:
    """Devices of one type laid out in a grid with named dimensions; `.jax_mesh` is the
    `jax.sharding.Mesh` that shardings over it use."""

    def __init__(self, device_type: str, mesh, *, mesh_dim_names: tuple[str, ...] | None = None):
        ids = np.asarray(mesh, dtype=np.int64)
        if ids.ndim == 0:
            ids = ids.reshape(1)
        devices = _devices(device_type, int(ids.max()) + 1)
        self._unnamed = not mesh_dim_names
        names = tuple(mesh_dim_names or (f"dim_{i}" for i in range(ids.ndim)))
        if len(names) != ids.ndim:
            raise RuntimeError(
                f"mesh_dim_names {names} has {len(names)} names for a {ids.ndim}-D mesh"
            )
        self.device_type = device_type
        self.mesh = ids
        self.mesh_dim_names = names
        self.jax_mesh = Mesh(np.asarray(devices, dtype=object)[ids], names)
        _MESHES[self.jax_mesh] = self

    @property
    def ndim(self) -> int:
        return self.mesh.ndim

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.mesh.shape)

    def size(self, mesh_dim: int | None = None) -> int:
        return int(self.mesh.size if mesh_dim is None else self.mesh.shape[mesh_dim])

    def get_rank(self) -> int:
        """This process's rank (`jax.process_index()`)."""
        return jax.process_index()

    def get_coordinate(self) -> list[int] | None:
        """This process's position in the mesh: that of the first of its devices the mesh
        holds (one process drives all its devices), or None if the mesh holds none."""
        local = set(jax.local_devices())
        for index in np.ndindex(*self.mesh.shape):
            if self.jax_mesh.devices[index] in local:
                return [int(i) for i in index]
        return None

    def __getitem__(self, mesh_dim_names: str | tuple[str, ...]) -> DeviceMesh:
        """The mesh of the named dimensions through this process's coordinate (the submesh
        PyTorch gives this process's rank)."""
        wanted = (mesh_dim_names,) if isinstance(mesh_dim_names, str) else tuple(mesh_dim_names)
        if self._unnamed:
            raise RuntimeError("Cannot slice a DeviceMesh without mesh_dim_names!")
        if not set(wanted) <= set(self.mesh_dim_names):
            raise KeyError(
                f"Invalid mesh_dim_names {wanted} specified. Valid mesh_dim_names are "
                f"{list(self.mesh_dim_names)}."
            )
        dims = [self.mesh_dim_names.index(name) for name in wanted]
        if dims != sorted(dims):
            raise KeyError(
                f"Invalid mesh_dim_names {wanted} specified. Mesh dim indices should be in "
                "ascending order."
            )
        coordinate = self.get_coordinate() or [0] * self.ndim
        index = tuple(slice(None) if d in dims else coordinate[d] for d in range(self.ndim))
        return DeviceMesh(self.device_type, self.mesh[index], mesh_dim_names=wanted)

    def get_local_rank(self, mesh_dim: int | str | None = None) -> int:
        """This process's index along `mesh_dim` (its coordinate there)."""
        if mesh_dim is None:
            if self.ndim > 1:
                raise RuntimeError(
                    f"Found the DeviceMesh have {self.ndim} dimensions",
                    "Optional kwarg `mesh_dim` needs to be specified when device_mesh.ndim > 1.",
                )
            mesh_dim = 0
        dim = self.mesh_dim_names.index(mesh_dim) if isinstance(mesh_dim, str) else mesh_dim
        return (self.get_coordinate() or [0] * self.ndim)[dim]

    def __eq__(self, other) -> bool:
        return isinstance(other, DeviceMesh) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> tuple:
        return (self.device_type, self.jax_mesh)

    def __repr__(self) -> str:
        names = f", mesh_dim_names={self.mesh_dim_names}"
        return f"DeviceMesh('{self.device_type}', {self.mesh.tolist()}{names})"


_MESHES: dict[Mesh, DeviceMesh] = {}  # each jax Mesh's latest DeviceMesh (`mesh_of`)


def mesh_of(jax_mesh: Mesh) -> DeviceMesh:
    """The DeviceMesh whose `jax_mesh` is `jax_mesh` (a sharded array's), made if none is."""
    found = _MESHES.get(jax_mesh)
    if found is not None:
        return found
    first = jax_mesh.devices.flat[0]
    order = {d: i for i, d in enumerate(_ordered(first.platform))}
    ids = np.vectorize(order.__getitem__, otypes=[np.int64])(jax_mesh.devices)
    kind = _device.from_jax(first).type
    return DeviceMesh(kind, ids, mesh_dim_names=tuple(jax_mesh.axis_names))


def _devices(device_type: str, count: int) -> list[jax.Device]:
    """The first `count` JAX devices of `device_type` (this process's, then those of the
    other processes of a `jax.distributed` job), or PyTorch-style RuntimeError."""
    platform = _device.to_jax(_device.device(device_type)).platform
    devices = _ordered(platform)
    if count > len(devices):
        raise RuntimeError(
            f"a mesh of {count} {device_type} devices needs {count} devices, but there are "
            f"{len(devices)} (on CPU, set XLA_FLAGS=--xla_force_host_platform_device_count"
            f"={count} before JAX starts to simulate them)"
        )
    return devices[:count]


def _ordered(platform: str) -> list[jax.Device]:
    """The devices of `platform` a mesh's ids number: this process's alone, or every process's
    in rank order once `jax.distributed` joins several (rank r's first device is id r)."""
    if jax.process_count() == 1:
        return [d for d in jax.local_devices() if d.platform == platform]
    return sorted(jax.devices(platform), key=lambda d: (d.process_index, d.id))


def init_device_mesh(
    device_type: str, mesh_shape: tuple[int, ...], *, mesh_dim_names: tuple[str, ...] | None = None
) -> DeviceMesh:
    """A DeviceMesh of `mesh_shape` over the first devices of `device_type` (see `_ordered`)."""
    shape = tuple(int(n) for n in mesh_shape)
    ids = np.arange(math.prod(shape)).reshape(shape)
    return DeviceMesh(device_type, ids, mesh_dim_names=mesh_dim_names)
