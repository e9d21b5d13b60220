"""PyTorch devices mapped onto JAX devices: "cpu", "cuda"/"cuda:N" (JAX "gpu") and "tpu"."""

from __future__ import annotations

import functools
import re
import threading
from typing import Any

import jax
import numpy as np
from jax.core import ShapedArray
from jax.sharding import SingleDeviceSharding

from . import errors as _errors
from .jax_internals import (
    COPY_DURING_CALL,
    ZERO_COPY,
    ArrayImpl,
    batched_device_put,
    registered_platforms,
    started_backends,
)

_TORCH_TO_JAX_PLATFORM = {"cpu": "cpu", "cuda": "gpu", "tpu": "tpu"}
META = "meta"  # shapes and dtypes without data (`_state/tensor.MetaTensor`): no JAX device
# PyTorch's device types, in its error's order; those without a JAX platform can be named
# (`device("mps") == t.device` is a question libraries ask) but hold no tensors here
_PYTORCH_TYPES = (
    "cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, "
    "mps, meta, hpu, mtia, privateuseone"
).split(", ")
_NAMED_ONLY = frozenset(_PYTORCH_TYPES) - set(_TORCH_TO_JAX_PLATFORM)
_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::([1-9]\d*|0))?")  # PyTorch's: "cuda", "cuda:1"
_JAX_TO_TORCH_PLATFORM = {"cpu": "cpu", "gpu": "cuda", "cuda": "cuda", "rocm": "cuda", "tpu": "tpu"}


class device:
    """A PyTorch device: `device("cuda:0")`, `device("cuda", 0)`, `device("cpu")`."""

    __slots__ = ("type", "index")
    type: str
    index: int | None

    def __init__(self, type: str | device | int, index: int | None = None) -> None:
        if isinstance(type, device):
            index, type = type.index, type.type
        elif isinstance(type, int):
            index, type = type, "cuda"
        else:
            if not type:
                raise RuntimeError("Device string must not be empty")
            parsed = _DEVICE_STRING.fullmatch(type)
            if parsed is None:
                raise RuntimeError(f"Invalid device string: '{type}'")
            type, text = parsed.groups()
            if text is not None:
                index = int(text)
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        if type not in _TORCH_TO_JAX_PLATFORM and type not in _NAMED_ONLY:
            raise RuntimeError(
                f"Expected one of {', '.join(_PYTORCH_TYPES)} device type at start of device "
                f"string: {type}"
            )
        self.type = type
        self.index = index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            try:
                other = device(other)
            except RuntimeError:  # no device of this library ("npu"): not this one
                return False
        if not isinstance(other, device):
            return NotImplemented
        return (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __enter__(self) -> device:
        """`with torch.device(...)`: factories called without a device make their tensors
        here (on a JAX device through `jax.default_device`; on the meta device without data),
        in this thread, until the block ends."""
        scope = None if self.type == META else jax.default_device(to_jax(self))
        if scope is not None:
            scope.__enter__()
        _context().append((self, scope))
        return self

    def __exit__(self, *exc_info) -> None:
        _, scope = _context().pop()
        if scope is not None:
            scope.__exit__(*exc_info)


_LOCAL = threading.local()  # `_LOCAL.devices`: this thread's `with device` blocks, innermost last


def _context() -> list:
    devices = getattr(_LOCAL, "devices", None)
    if devices is None:
        devices = _LOCAL.devices = []
    return devices


def meta_by_default() -> bool:
    """Whether the innermost `with torch.device(...)` block of this thread is the meta
    device's (a factory given no device then makes a meta tensor)."""
    devices = getattr(_LOCAL, "devices", None)
    if not devices:
        return False
    return devices[-1][0].type == META


@functools.cache
def _jax_devices(platform: str) -> tuple:
    if platform == "gpu" and not {"cuda", "rocm"} & registered_platforms():
        # No GPU plugin: answer without starting JAX's backend, so that `cuda.is_available()`
        # may come before `init_process_group` (which must configure it first).
        return ()
    try:
        return tuple(jax.local_devices(backend=platform))
    except RuntimeError:
        return ()


def to_jax(dev: device | str | int) -> jax.Device:
    """The jax.Device for a PyTorch device; PyTorch's error when the platform is absent."""
    dev = device(dev)
    if dev.type in _NAMED_ONLY:
        what = "holds no data" if dev.type == META else "has no backend in autograd_compat"
        raise RuntimeError(f"device '{dev}': the {dev.type} device {what}: it has no JAX device")
    platform = _TORCH_TO_JAX_PLATFORM[dev.type]
    devices = _jax_devices(platform)
    if not devices:
        if dev.type == "cuda":
            raise AssertionError(
                f"{_errors.NO_CUDA} (JAX has no '{platform}' device here; it has "
                f"{[str(d) for d in jax.devices()]})"
            )
        raise RuntimeError(f"No JAX '{platform}' device is available for device '{dev}'")
    index = dev.index or 0
    if index >= len(devices):
        raise RuntimeError(
            f"CUDA error: invalid device ordinal (device '{dev}' requested, "
            f"{len(devices)} {platform} device(s) present)"
        )
    return devices[index]


@functools.cache
def sole_device() -> jax.Device | None:
    """The process's one JAX device, where its started backends hold one device in all (in
    every process); None where they hold more."""
    devices = []
    for backend in started_backends().values():
        devices.extend(backend.devices())
    return devices[0] if len(devices) == 1 else None


@functools.cache
def _default_placement() -> tuple[jax.Device, SingleDeviceSharding]:
    device = jax.local_devices()[0]
    return device, SingleDeviceSharding(device)


def host_to_device(array: np.ndarray, owned: bool = False) -> jax.Array:
    """`array` copied to JAX's default device, as `jax.device_put(array)` (uncommitted) does.

    device_put spends ~40 us in Python per call, more than a whole small op; this goes
    straight to jaxlib's transfer, which `jax.jit` uses for numpy arguments. The copy is made
    during the call (`IMMUTABLE_ONLY_DURING_CALL`): the result never aliases `array`, so a later
    write to it reaches no tensor, and the array is ready at once (JAX's default, zero-copy or
    a copy in the background, made the next program wait on another thread).

    `owned`: the caller hands `array` over and never writes to it again (a fresh draw); on
    the CPU a C-contiguous array at a 64-byte boundary (`host_buffer`) then becomes the
    device buffer itself, with no copy."""
    default_device = jax.config.jax_default_device  # type: ignore[attr-defined]
    if batched_device_put is None or default_device is not None:
        return jax.device_put(np.array(array, copy=True))
    device, sharding = _default_placement()
    aval = _aval(array.shape, array.dtype)
    zero_copy = owned and device.platform == "cpu" and _aligned(array)
    semantics = ZERO_COPY if zero_copy else COPY_DURING_CALL
    return batched_device_put(aval, sharding, [array], [device], False, False, semantics)


def commit(value, target: jax.Device):
    """`value` placed on `target`, as `jax.device_put(value, target)` places it (a factory
    given `device=`, a loaded tensor): committed there, so that JAX refuses to mix it with
    another device's arrays as PyTorch does. Where `target` is the process's one device, a
    value is left uncommitted (numpy data transferred as `host_to_device` does): there
    commitment says nothing, and an uncommitted array keeps the paths a committed one leaves
    (deferred ops, host items), which a model whose factories name the device (position ids
    made `device=input_ids.device`) would otherwise leave for good, once its parameters
    took a committed gradient. An array on `target` alone is returned or shares its buffer
    with a committed array made by JAX's own constructor, ~1.5 us where device_put spends ~10
    in Python; anything else goes through device_put."""
    sole = target == sole_device()
    if type(value) is ArrayImpl:
        sharding = value.sharding
        if type(sharding) is SingleDeviceSharding and sharding._device == target:
            if value.committed or sole:
                return value
            return ArrayImpl(value.aval, sharding, [value], committed=True, _skip_checks=True)
    elif sole and type(value) is np.ndarray:
        return host_to_device(value)
    return jax.device_put(value, target)


def host_is_default() -> bool:
    """Whether new arrays go to the CPU (JAX's default device, no `jax_default_device` set):
    a small tensor's value may then live in host memory between ops (`_tape/host_items`)."""
    default_device = jax.config.jax_default_device  # type: ignore[attr-defined]
    return default_device is None and _default_placement()[0].platform == "cpu"


_ALIGNMENT = 64  # XLA:CPU takes host memory as a buffer only at this alignment


def host_reshape(x, shape: tuple):
    """`x` reshaped with no program and no copy where `x` is a concrete array on one CPU
    device: the result is a buffer over `x`'s memory on that device, committed as `x` is (an
    XLA dispatch and a copy cost ~20 us on a 512 KiB activation, this ~4). None elsewhere (a
    tracer, a sharded array, another platform), where the caller runs its program.

    Safe because nothing writes a device buffer in place: XLA refuses to donate a buffer whose
    memory another one holds (it computes into a fresh one), and the numpy view the result
    holds keeps `x`'s memory alive however long the result lives."""
    if type(x) is not ArrayImpl or batched_device_put is None:
        return None
    sharding = x.sharding
    if type(sharding) is not SingleDeviceSharding:
        return None
    device: Any = sharding._device  # its one device (`device_set` builds a set)
    if device.platform != "cpu":
        return None
    view = np.asarray(x).reshape(shape)  # (an ndarray over x's buffer: only its layout to check)
    if not view.flags.c_contiguous or x.unsafe_buffer_pointer() % _ALIGNMENT:
        return None
    aval = _aval(view.shape, view.dtype)
    return batched_device_put(aval, sharding, [view], [device], x.committed, False, ZERO_COPY)


def _aligned(array: np.ndarray) -> bool:
    """Whether `array` is an ndarray (not a numpy scalar) XLA:CPU can take as its buffer."""
    return (
        type(array) is np.ndarray
        and array.flags.c_contiguous
        and array.ctypes.data % _ALIGNMENT == 0
    )


def host_buffer(shape, dtype) -> np.ndarray:
    """An empty numpy array at a 64-byte boundary: filled and handed to
    `host_to_device(..., owned=True)`, it becomes a CPU device buffer without a copy."""
    dtype = np.dtype(dtype)
    size = int(np.prod(shape)) * dtype.itemsize
    raw = np.empty(size + _ALIGNMENT, np.uint8)
    start = -raw.ctypes.data % _ALIGNMENT
    return raw[start : start + size].view(dtype).reshape(shape)


@functools.lru_cache(maxsize=512)
def _aval(shape: tuple, dtype: np.dtype):
    return ShapedArray(shape, dtype)


# JAX's refusal of a program's inputs committed to different devices: the first two placements
_JAX_DEVICES = re.compile(
    r"^Received incompatible devices for jitted computation\..*? device ids \[(\d+)[^\]]*\] "
    r"on platform (\w+) .*? device ids \[(\d+)[^\]]*\] on platform (\w+)",
    re.S,
)


def pytorch_device_error(error: BaseException) -> RuntimeError | None:
    """PyTorch's RuntimeError ("Expected all tensors to be on the same device, but found at
    least two devices, cpu:0 and cpu:1!") for an op's inputs that JAX refused as committed to
    different devices, or None where `error` is not that refusal."""
    if not isinstance(error, ValueError):
        return None
    found = _JAX_DEVICES.match(str(error))
    if found is None:
        return None
    first, second = (
        f"{_JAX_TO_TORCH_PLATFORM.get(platform.lower(), platform.lower())}:{index}"
        for index, platform in (found.group(1, 2), found.group(3, 4))
    )
    return RuntimeError(_errors.SAME_DEVICE.format(first=first, second=second))


def from_jax(jax_device: jax.Device) -> device:
    """The PyTorch device naming a jax.Device (index kept for accelerators, none for cpu):
    made once per jax.Device, as `Tensor.device` is read often (PyTorch code moves every new
    tensor `.to(x.device)`)."""
    named = _NAMES.get(jax_device)
    if named is None:
        torch_type = _JAX_TO_TORCH_PLATFORM.get(jax_device.platform, jax_device.platform)
        if torch_type == "cpu":
            named = device("cpu")
        else:
            named = device(torch_type, _jax_devices(jax_device.platform).index(jax_device))
        _NAMES[jax_device] = named
    return named


_NAMES: dict = {}  # jax.Device -> the PyTorch device naming it (a process's devices are fixed)


def default() -> device:
    """The device new tensors are placed on: JAX's default device."""
    chosen = jax.config.jax_default_device  # type: ignore[attr-defined]
    return from_jax(chosen if isinstance(chosen, jax.Device) else jax.local_devices()[0])


def get_default_device() -> device:
    """The device that factories such as `torch.empty` place new tensors on.

    JAX's default device unless `set_default_device` or a `with torch.device(...)` block
    chose another: an accelerator where jaxlib has one, else the CPU.
    """
    if meta_by_default():
        return device(META)
    return default()


def set_default_device(device: device | str | int | None) -> None:
    """Place new tensors on `device` (None: back to JAX's default device).

    Example::

        >>> torch.set_default_device("cpu")
        >>> torch.get_default_device()
        device(type='cpu')
        >>> torch.set_default_device(None)
    """
    jax.config.update("jax_default_device", None if device is None else to_jax(device))


def of_array(value) -> device:
    """Device holding a jax.Array; a traced value reports the default device."""
    if type(value) is ArrayImpl:
        sharding = value.sharding
        if type(sharding) is SingleDeviceSharding:
            return from_jax(sharding._device)
    devices = getattr(value, "devices", None)
    if devices is None:
        return default()
    try:
        found = devices()
    except Exception:  # a tracer has no concrete placement
        return default()
    return from_jax(min(found, key=lambda d: d.id))
