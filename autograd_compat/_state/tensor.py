"""Tensor: a jax.Array plus PyTorch's autograd state (requires_grad, grad, grad_fn, version).

The value is immutable, as JAX's arrays are; in-place methods compute a new value and rebind
it. Tensors that alias memory (views, `detach()`, `.data`) carry an `_views.Alias` record in
`_storage` (None for the common plain tensor), so a write through one is seen by all. The
value may be a JAX tracer, so code written against this class also runs inside `jax.jit`,
`jax.vmap` and `jax.grad`.
"""

from __future__ import annotations

import warnings
import weakref
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np

from .._pure import device as _device
from .._pure import dtypes as _dtypes
from .._pure import errors as _errors
from .._pure.jax_internals import ArrayImpl
from .._pure.shapes import Size, normalize_dim
from .._pure.sharding import keep_sharding
from . import modes as _grad_mode
from .modes import modes
from .tensor_str import tensor_repr

if TYPE_CHECKING:  # the methods bound by `_ops/methods.py`, for the type checker
    from .._ops.methods import TensorMethods
    from .._tape.views import Alias
else:
    TensorMethods = object

_DETACH_VIEW = (
    "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
    "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
    "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
    "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
)


SUBCLASS_HOOKS: list = []  # called with each Tensor subclass made


class Tensor(TensorMethods):
    """A multi-dimensional array with PyTorch's autograd semantics, backed by a jax.Array.

    Example::

        >>> x = torch.ones(2, 2, requires_grad=True)
        >>> (x * 3).sum().backward()
        >>> x.grad
        tensor([[3., 3.],
                [3., 3.]])
    """

    __slots__ = (
        "_value",
        "_requires_grad",
        "_grad",
        "_grad_fn",
        "output_nr",
        "_retains_grad",
        "_accumulator",
        "_version_counter",
        "_storage",
        "_hooks_leaf",
        "_post_accumulate_hooks",
        "_fw_grad",
        "_is_inference",
        "__weakref__",
    )
    _storage: Alias | None  # declared for the type checker (layer 2's record); a slot above
    _stored: Any  # the `_value` slot read as stored (set below the class: see `_VALUE`)
    _grad: Tensor | None

    _wrapped_number = False  # True for torch.compile's Python-number arguments (promotion)
    __array_priority__ = 1000  # numpy defers `ndarray + tensor` to Tensor.__radd__

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        for hook in SUBCLASS_HOOKS:  # `_state/torch_function`: a subclass may override ops
            hook(cls)

    def _init_fields(self, value, grad_fn=None, output_nr: int = 0) -> None:
        """Set every field: the value, and the autograd state of a fresh tensor."""
        self._value = value
        self._requires_grad = grad_fn is not None
        self._grad = None
        self._grad_fn = grad_fn
        self.output_nr = output_nr
        self._retains_grad = False
        self._accumulator = None
        self._version_counter = [0]
        self._storage = None  # an `Alias` record when the tensor shares memory (views, .data)
        self._hooks_leaf = None  # a leaf's tensor hooks: {handle id: hook}
        self._post_accumulate_hooks = None  # a leaf's post-accumulate hooks: {handle id: hook}
        self._fw_grad = None  # the forward-AD tangent at the open dual level
        self._is_inference = modes.inference_users > 0 and _grad_mode._state.inference
        if (
            modes.tracing and modes.captures
        ):  # a torch.compile trace: this tensor is no state of the caller's
            for capture in modes.captures:
                capture.made(self)

    @classmethod
    def _wrap(cls, value, grad_fn=None, output_nr: int = 0) -> Tensor:
        """Internal constructor: no checks, no copies."""
        t = object.__new__(cls)
        t._init_fields(value, grad_fn, output_nr)
        return t

    # ----------------------------------------------------------------- autograd state
    @property
    def grad_fn(self):
        """The Node that produced this tensor (None for leaves); regenerated over the base
        for a view whose memory was changed in place since (PyTorch's AsStridedBackward0)."""
        rec = self._storage
        if rec is None or rec.base is None:
            return self._grad_fn
        return self._view_grad_fn()

    @grad_fn.setter
    def grad_fn(self, node) -> None:
        self._grad_fn = node

    @property
    def requires_grad(self) -> bool:
        if self._requires_grad:
            return True
        rec = self._storage
        return rec is not None and rec.base is not None and rec.base._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if self.grad_fn is not None:
            message = _errors.SET_REQUIRES_GRAD_NON_LEAF
            raise RuntimeError(message if value else _errors.NON_LEAF_REQUIRES_GRAD)
        self._set_requires_grad(value, _errors.FLOAT_REQUIRES_GRAD_SET)

    def _set_requires_grad(
        self, value: bool, refusal: str = _errors.FLOAT_REQUIRES_GRAD_INPLACE
    ) -> None:
        """Set the flag; `refusal`: PyTorch's text for an integral dtype, which differs by
        the call (`requires_grad_()`, `t.requires_grad = True`, `Parameter(t)`)."""
        if value and not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise RuntimeError(refusal)
        if value and self._is_inference and not _grad_mode._state.inference:
            raise RuntimeError(_errors.INFERENCE_REQUIRES_GRAD)
        self._requires_grad = bool(value)
        rec = self._storage
        if rec is not None:
            if rec.base is not None:
                rec.leaf = bool(value)  # a view made a leaf accumulates its own .grad
            elif value:
                self._mark_views_require_grad()

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set requires_grad in place (leaves only, as in PyTorch) and return self."""
        if self.grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError(_errors.NON_LEAF_REQUIRES_GRAD)
        self._set_requires_grad(requires_grad)
        return self

    @property
    def is_leaf(self) -> bool:
        """True for tensors not produced by a recorded op (all tensors that don't require grad)."""
        return self.grad_fn is None

    @property
    def grad(self) -> Tensor | None:
        """The accumulated gradient; None on non-leaves unless retain_grad() (with a warning)."""
        if self.grad_fn is not None and not self._retains_grad:
            warnings.warn(_errors.NON_LEAF_GRAD_ACCESS, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if (
            modes.tracing and modes.captures
        ):  # a torch.compile trace: the .grad about to change is the caller's
            modes.note_read(self)
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(_errors.GRAD_ASSIGN_TYPE.format(type_name=type(value).__name__))
            if value.shape != self.shape:
                raise RuntimeError(
                    _errors.GRAD_ASSIGN_SIZE.format(
                        grad_shape=list(value.shape), shape=list(self.shape)
                    )
                )
            if value.dtype is not self.dtype:
                raise RuntimeError(
                    _errors.GRAD_ASSIGN_DTYPE.format(
                        grad_dtype=_errors.CPP_TYPE_NAMES.get(value.dtype.name, value.dtype.name),
                        dtype=_dtypes.LEGACY_TYPE_NAMES[self.dtype].removesuffix("Tensor"),
                    )
                )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        if modes.tracing and modes.captures:
            modes.note_read(self)
        self._grad = None

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def retain_grad(self) -> None:
        """Keep `.grad` for this non-leaf during backward (a no-op on leaves)."""
        if not self._requires_grad:
            raise RuntimeError(_errors.RETAIN_GRAD_NO_GRAD)
        if self.grad_fn is None or self._retains_grad:
            return
        node = self.grad_fn
        if node.retained is None:
            node.retained = {}
            node.hot = None  # (see `_state/node`)
        node.retained[self.output_nr] = weakref.ref(self)
        self._retains_grad = True

    def is_inference(self) -> bool:
        """True if this tensor was created in inference mode (`torch.inference_mode()`)."""
        return self._is_inference

    @property
    def _version(self) -> int:
        """How many in-place changes this tensor (and its aliases) has seen."""
        return self._version_counter[0]

    # ----------------------------------------------------------------- aliasing
    def _set_value(self, value) -> None:
        """Rebind the value of this tensor and of every tensor sharing its memory (a write).

        Always write values through here (never assign `_value`): views of this tensor and
        the tensors it views are recomputed from the new value.
        """
        if (
            modes.tracing and modes.traces
        ):  # a trace in progress (torch.compile's, torch.func's): the caller's
            modes.written(self)  # state may change
        if self._storage is None:
            self._value = keep_sharding(value, self._value)
        else:
            self._write_shared(value)

    def _bump_version(self) -> None:
        self._version_counter[0] += 1

    def detach(self) -> Tensor:
        """A tensor over the same memory, cut from the graph (shares the version counter)."""
        return self._alias(share_version=True)

    def detach_(self) -> Tensor:
        """Cut this tensor from the graph in place, making it a leaf that does not require grad."""
        if self._storage is not None and self._storage.base is not None:
            raise RuntimeError(_DETACH_VIEW)
        self._grad_fn = None
        self.output_nr = 0
        self._requires_grad = False
        return self

    @property
    def data(self) -> Tensor:
        """An alias that does not require grad, with its own version counter (PyTorch's .data)."""
        return self._alias(share_version=False)

    @data.setter
    def data(self, other: Tensor) -> None:
        if not isinstance(other, Tensor):
            raise TypeError(f"data must be a Tensor, got {type(other).__name__}")
        self._join(other)

    @property
    def _base(self) -> Tensor | None:
        """The tensor this one is a view of (None when it is not a view)."""
        rec = self._storage
        return None if rec is None else rec.base

    def _is_view(self) -> bool:
        rec = self._storage
        return rec is not None and rec.base is not None

    # ----------------------------------------------------------------- metadata
    @property
    def shape(self) -> Size:
        return Size(self._stored.shape)

    def size(self, dim: int | None = None):
        """The shape as torch.Size, or the size of one dimension."""
        shape = self._stored.shape
        if dim is None:
            return Size(shape)
        return shape[normalize_dim(dim, len(shape))]

    def dim(self) -> int:
        return self._stored.ndim

    ndimension = dim

    @property
    def ndim(self) -> int:
        return self._stored.ndim

    def numel(self) -> int:
        return int(self._stored.size)

    nelement = numel

    @property
    def dtype(self) -> _dtypes.dtype:
        return _dtypes.from_jax(self._stored.dtype)

    @property
    def device(self) -> _device.device:
        return _device.of_array(self._value)

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def is_complex(self) -> bool:
        return self.dtype.is_complex

    def element_size(self) -> int:
        return self.dtype.itemsize

    def type(self, dtype=None):
        """The legacy type name ("torch.FloatTensor"), or a cast when a dtype, a legacy type
        name or a legacy tensor class (`torch.DoubleTensor`) is given."""
        if dtype is None:
            prefix = "torch.cuda." if self.is_cuda else "torch."
            return prefix + _dtypes.LEGACY_TYPE_NAMES[self.dtype]
        if isinstance(dtype, str):
            name, cuda = dtype.removeprefix("torch."), False
            if name.startswith("cuda."):
                name, cuda = name.removeprefix("cuda."), True
            for d, legacy in _dtypes.LEGACY_TYPE_NAMES.items():
                if legacy == name:
                    return self.to("cuda", d) if cuda else self.to(d)
            raise ValueError(f"invalid type: '{dtype}'")
        return self.to(getattr(dtype, "dtype", dtype))

    # ----------------------------------------------------------------- conversion
    def jax(self) -> jax.Array:
        """The underlying jax.Array (or tracer), without the autograd state."""
        return self._value

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """A numpy copy of the value; PyTorch's error if it requires grad (in grad mode)."""
        if self.requires_grad and not force and _grad_mode._state.enabled:
            raise RuntimeError(_errors.NUMPY_REQUIRES_GRAD)
        if (
            modes.tracing and modes.captures
        ):  # a host read: a compiled trace must not bake this value in
            modes.note_read(self)
        stored = self._stored  # a host copy is read as it is, no device array made
        return np.array(stored if type(stored) is np.ndarray else self._value)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    def item(self):
        """The single element as a Python number."""
        if self._stored.size != 1:
            raise RuntimeError(_errors.SCALAR_CONVERSION.format(numel=self._stored.size))
        if (
            modes.tracing and modes.captures
        ):  # a host read: a compiled trace must not bake this value in
            modes.note_read(self)
        stored = self._stored  # a HostTensor's host copy is read as it is, no device array made
        if type(stored) is np.ndarray:
            return stored.item()
        rec = self._storage
        if rec is not None and rec.base is not None and type(self) is LazyTensor:
            # a deferred view (`x[i]`) of computed memory: its element read there, at once
            root = rec.buffer.value
            if type(root) is ArrayImpl and root.dtype == stored.dtype:
                return np.asarray(root).reshape(-1)[rec.layout[2]].item()
        return np.asarray(self._value).item()

    def tolist(self):
        if (
            modes.tracing and modes.captures
        ):  # a host read: a compiled trace must not bake this value in
            modes.note_read(self)
        value = self._stored  # a host copy is read as it is, no device array made
        if type(value) is not np.ndarray:
            value = self._value
        if value.dtype in (jnp.bfloat16, jnp.float16):
            value = value.astype(jnp.float32)
        return np.asarray(value).tolist()

    def __bool__(self) -> bool:
        if self._stored.size != 1:
            raise RuntimeError(_errors.AMBIGUOUS_BOOL)
        return bool(self.item())

    def __float__(self) -> float:
        if self._requires_grad and _grad_mode._state.enabled:  # PyTorch: not under no_grad
            warnings.warn(_errors.SCALAR_OF_REQUIRES_GRAD, UserWarning, stacklevel=2)
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self.dtype.is_floating_point or self.dtype.is_complex or self._stored.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __complex__(self) -> complex:
        return complex(self.item())

    def __len__(self) -> int:
        if self._stored.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._stored.shape[0]

    def __iter__(self):
        if self._stored.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return tensor_repr(self)

    def __format__(self, spec: str) -> str:
        """A 0-d tensor formats as its number (f"{loss}" gives "0.5"), as in PyTorch."""
        if self._stored.ndim == 0:
            return format(self.item(), spec)
        return repr(self)

    def __reduce__(self):
        raise TypeError("pickling Tensors is not supported; use autograd_compat.save")

    def __deepcopy__(self, memo):
        if self.grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment.  If you were attempting to deepcopy a module, "
                "this may be because of a torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001"
            )
        # (the value first: reading a deferred or host value makes `self` a plain Tensor)
        value = self._stored if isinstance(self, MetaTensor) else self._value
        copy = type(self)._wrap(value)
        copy._requires_grad = self._requires_grad
        if self._grad is not None:
            copy._grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = copy
        return copy


def is_tensor(obj) -> bool:
    """True if `obj` is a Tensor of this library."""
    return isinstance(obj, Tensor)


# ----------------------------------------------------------------------------- host leaves
_VALUE = Tensor.__dict__["_value"]  # the slot itself, read without HostTensor's property
# `t._stored`: the value as stored (a jax.Array, a HostTensor's numpy copy or a LazyTensor's
# Pending), read without computing or transferring anything: what metadata reads use.
Tensor._stored = _VALUE


class _ComputedOnRead(Tensor):
    """A tensor whose stored value is not a device array yet: the first read of `_value`
    makes it one (`_device_value`) and the tensor a plain `Tensor`; so does a write."""

    __slots__ = ()

    @property
    def _value(self):
        value = self._device_value(self._stored)
        _VALUE.__set__(self, value)
        self.__class__ = Tensor
        return value

    @_value.setter
    def _value(self, value) -> None:
        _VALUE.__set__(self, value)
        self.__class__ = Tensor

    @staticmethod
    def _device_value(stored):
        raise NotImplementedError


class HostTensor(_ComputedOnRead):
    """A small leaf made from host data (`torch.tensor(numpy_array)`, a comparison read on the
    host) that no op has read yet.

    Its value is a numpy array nothing writes: a private copy, or one of the read-only bools
    shared by host comparisons; `item()` reads it where it is. The first read of `_value` (any
    op or print; `shape` and `dtype` read `_stored`) makes it a device array and the tensor a
    plain `Tensor`; until then a compiled call hands the host copy straight to its program,
    where jax.jit transfers it as it calls: cheaper than a device array of our own (which costs
    ~3 us to make and ~2 us more in the program that reads it).
    """

    __slots__ = ()

    @staticmethod
    def _device_value(stored):
        return _device.host_to_device(stored) if type(stored) is np.ndarray else stored

    def program_input(self) -> np.ndarray:
        """The value a compiled call passes: the host copy, once. A tensor passed again becomes
        a device array, which costs nothing to pass (a host copy is transferred every call)."""
        self.__class__ = _PassedHostTensor
        return self._stored


class _PassedHostTensor(HostTensor):
    """A HostTensor a compiled call has taken once: the next one makes it a device array."""

    __slots__ = ()

    def program_input(self):
        return self._value


class HostArrayTensor(_ComputedOnRead):
    """A small CPU tensor that item assignments write on the host (`x[i] = v`, `N[i, j] += 1`
    in a loop; `_tape/host_items`): its value is a private numpy copy, written in place.

    The first read of `_value` makes it a device array (the tensor a plain `Tensor`), and
    its buffer's root value too; its views by int indices (`HostView`) are numpy views of the
    copy, so they see every write. A compiled call reads `_value`: a program never takes the
    copy, which a later write would change under it."""

    __slots__ = ()

    def _to_device(self):
        stored = self._stored
        value = _device.host_to_device(stored) if type(stored) is np.ndarray else stored
        self.__class__ = Tensor
        self._value = value  # (the slot: two stores, no call between them)
        rec = self._storage
        if rec is not None:
            rec.buffer.value = value  # (a host buffer's setter makes it a plain one)
        return value

    _value = property(_to_device, _ComputedOnRead._value.fset)


class HostView(_ComputedOnRead):
    """A view by int indices (`x[i]`, `N[i, j]`) of a `HostArrayTensor`: its value is a numpy
    view of that host copy, so it sees the host writes and `item()` reads it where it is. It
    stays one when its base becomes a device array (the memory it shows is unchanged until a
    write, which rebinds it or points it at the next host copy). The first read of its
    `_value` makes the base a device array (a HostArrayTensor's) and this view one."""

    __slots__ = ()

    def _to_device(self):
        base = self._storage.base
        if type(base) is HostArrayTensor:
            base._to_device()
        value = _device.host_to_device(np.array(self._stored, order="C"))
        self.__class__ = Tensor
        self._value = value
        return value

    _value = property(_to_device, _ComputedOnRead._value.fset)


class LazyTensor(_ComputedOnRead):
    """A tensor whose value is a deferred op's output (`_defer/lazy.Pending`): its shape and
    dtype are known, its value is computed, with the rest of its segment, at the first read of
    `_value`, which makes it a plain `Tensor`. Metadata reads (`_stored`) do not compute it."""

    __slots__ = ()

    @staticmethod
    def _device_value(stored):
        return stored.result()

    @property
    def device(self) -> _device.device:
        """Read without computing the value where the process has one device, on which every
        deferred value lies (`x.to(y.device)` leaves `y`'s run of ops open)."""
        sole = _device.sole_device()
        if sole is not None:
            return _device.from_jax(sole)
        return _device.of_array(self._value)

    @classmethod
    def _wrap(cls, value, grad_fn=None, output_nr: int = 0) -> Tensor:
        """A LazyTensor of `value`, a Pending: made a plain Tensor first, since `_init_fields`
        writes `_value` (which makes a LazyTensor a plain Tensor)."""
        t = object.__new__(Tensor)
        t._init_fields(value, grad_fn, output_nr)
        t.__class__ = LazyTensor
        return t


def peeked_value(tensor: Tensor):
    """`tensor`'s value, read without ending the run of deferred ops it comes from
    (`_defer/lazy.Pending.peek`): for a check that must see values at the call that takes
    them (class indices in range) in the middle of a step's forward."""
    if type(tensor) is LazyTensor:
        return tensor._stored.peek()
    return tensor._value


class MetaValueError(NotImplementedError):
    """A meta tensor's values were read: it has none (PyTorch's NotImplementedError)."""


META_NO_DATA = "Cannot copy out of meta tensor; no data!"


class MetaTensor(Tensor):
    """A tensor on the `meta` device: a shape and a dtype (its stored value is a
    `jax.ShapeDtypeStruct`) and no data. Ops on it compute only their result's shape and dtype
    (`record.apply`, with `jax.eval_shape`); reading its values raises PyTorch's error."""

    __slots__ = ()

    @property
    def _value(self):
        raise MetaValueError(META_NO_DATA)

    @_value.setter
    def _value(self, value) -> None:
        _VALUE.__set__(self, value)

    @property
    def device(self) -> _device.device:
        return _device.device(_device.META)

    def item(self):
        if self._stored.size != 1:
            raise RuntimeError(_errors.SCALAR_CONVERSION.format(numel=self._stored.size))
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")

    def numpy(self, *, force: bool = False) -> np.ndarray:
        raise TypeError(
            "can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the "
            "tensor to host memory first."
        )

    @classmethod
    def _wrap(cls, value, grad_fn=None, output_nr: int = 0) -> Tensor:
        """A meta tensor of `value`, a `jax.ShapeDtypeStruct` (or anything with its shape and
        dtype)."""
        t = object.__new__(cls)
        t._init_fields(jax.ShapeDtypeStruct(value.shape, value.dtype), grad_fn, output_nr)
        return t


_META_CLASSES: dict = {}  # a Tensor subclass -> its meta-device variant (`meta_class`)


def meta_class(cls: type[Tensor]) -> type[Tensor]:
    """`cls` (a Tensor subclass: Parameter, Buffer, a user's) on the meta device: a subclass of
    both, so `isinstance` answers for either and reading its values raises."""
    if issubclass(cls, MetaTensor):
        return cls
    made = _META_CLASSES.get(cls)
    if made is None:
        made = _META_CLASSES[cls] = type(cls.__name__, (MetaTensor, cls), {"__slots__": ()})
        made.__qualname__, made.__module__ = cls.__qualname__, cls.__module__
    return made


PLAIN_TYPES = frozenset(  # no user subclass
    {Tensor, HostTensor, _PassedHostTensor, LazyTensor, HostArrayTensor, HostView}
)
# error messages name the type Tensor, as PyTorch's do
for _plain_class in (
    HostTensor,
    _PassedHostTensor,
    LazyTensor,
    HostArrayTensor,
    HostView,
    MetaTensor,
):
    _plain_class.__name__ = _plain_class.__qualname__ = "Tensor"
del _plain_class


def hold_on_host(tensor: Tensor) -> Tensor:
    """Make `tensor`, a new leaf whose value is a numpy array nothing may write (a private copy,
    or a read-only array), a HostTensor: a device array on first use."""
    tensor.__class__ = HostTensor
    return tensor


def hold_deferred(tensor: Tensor, pending) -> None:
    """Make `tensor` (of one of `PLAIN_TYPES`) hold `pending`, a deferred op's output, as its
    value: an in-place op's result written without computing it."""
    _VALUE.__set__(tensor, pending)
    tensor.__class__ = LazyTensor


def program_input(tensor: Tensor):
    """What a compiled program takes for `tensor`: its value (a HostTensor's host copy once)."""
    if isinstance(tensor, HostTensor):
        return tensor.program_input()
    return tensor._value
