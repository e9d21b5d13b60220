"""How tensors cross a process boundary: multiprocessing's pickler (process arguments, Queue
and Pipe messages) sends a Tensor or Parameter as a numpy copy of its value and rebuilds it on
the other side with the same dtype, shape and `requires_grad`.

The copy is the whole story: the two processes share no memory (see `share_memory_`). The
plain `pickle` module still refuses tensors (`torch.save` is the file format).
"""

from __future__ import annotations

from collections.abc import Iterator
from multiprocessing.reduction import ForkingPickler

import numpy as np

from .._ops.factories import from_numpy
from .._state.tensor import Tensor
from ..nn.parameter import Parameter

__all__ = ["init_reductions", "rebuild_tensor", "reduce_tensor"]

_NON_LEAF = (
    "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does "
    "not support crossing process boundaries.  If you just want to transfer the data, call "
    "detach() on the tensor before serializing (e.g., putting it on the queue)."
)


def rebuild_tensor(cls: type, array: np.ndarray, requires_grad: bool) -> Tensor:
    """The receiving side: a tensor of class `cls` holding `array`."""
    tensor = from_numpy(array)
    if cls is Parameter:
        return Parameter(tensor, requires_grad)
    if requires_grad:
        tensor.requires_grad_(True)
    return tensor


def reduce_tensor(tensor: Tensor):
    """The sending side: Parameter or Tensor, a numpy copy of the value and `requires_grad`."""
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError(_NON_LEAF)
    cls = Parameter if isinstance(tensor, Parameter) else Tensor
    return rebuild_tensor, (cls, tensor.detach().numpy(), tensor.requires_grad)


def _tensor_classes(cls: type) -> Iterator[type]:
    """`cls` and its subclasses (the pickler looks reducers up by exact class; a tensor's
    class can be an internal one, such as a value not yet on the device)."""
    yield cls
    subclasses: list[type] = cls.__subclasses__()
    for subclass in subclasses:
        yield from _tensor_classes(subclass)


def init_reductions() -> None:
    """Register `reduce_tensor` with multiprocessing's pickler for every tensor class
    (PyTorch's entry point)."""
    for cls in _tensor_classes(Tensor):
        ForkingPickler.register(cls, reduce_tensor)
