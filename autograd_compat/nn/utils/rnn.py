"""torch.nn.utils.rnn: padding and packing variable-length sequences.

A PackedSequence keeps the valid steps of a sorted batch, time step by time step: `data` is
(sum of lengths, *) and `batch_sizes[t]` says how many sequences are still running at step t.
Packing and padding are index gathers (index and cat ops), so gradients flow through them.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..._ops.index import index_select
from ..._ops.nn.padding import pad
from ..._ops.shape import _needs_concrete, cat, stack
from ..._pure import dtypes as _dtypes
from ..._state.tensor import Tensor
from .. import _arrays

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]


def int64_tensor(values) -> Tensor:
    """A host-built int64 tensor (a transfer, no compilation)."""
    return Tensor._wrap(_arrays.place(np.asarray(values, dtype=np.int64)))


def host_ints(values, fname: str) -> np.ndarray:
    """Integer lengths, sizes or indices (a Tensor or a sequence) as a numpy int64 array: they
    fix the shapes of what `fname` builds, so they are read on the host, never traced."""
    if isinstance(values, Tensor):
        _needs_concrete(fname, values)
        return np.asarray(values._value, dtype=np.int64)
    return np.asarray(values, dtype=np.int64)


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The permutation that undoes `permutation` (None stays None)."""
    if permutation is None:
        return None
    order = host_ints(permutation, "invert_permutation")
    inverse = np.empty_like(order)
    inverse[order] = np.arange(order.size)
    return int64_tensor(inverse)


PackedSequence_ = namedtuple("PackedSequence_", "data batch_sizes sorted_indices unsorted_indices")


class PackedSequence(PackedSequence_):
    """Holds the data and list of `batch_sizes` of a packed sequence.

    Made by `pack_padded_sequence` or `pack_sequence`, never by hand; the recurrent layers
    take it as input and return one.
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # PackedSequence(data, batch_sizes) given as one tuple
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs) -> PackedSequence:
        """The same sequence with `data` moved or cast by `Tensor.to` (indices stay int64)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self) -> PackedSequence:
        return self.to("cpu")

    def double(self) -> PackedSequence:
        return self.to(dtype=_dtypes.float64)

    def float(self) -> PackedSequence:
        return self.to(dtype=_dtypes.float32)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda


def pad_sequence(
    sequences, batch_first: bool = False, padding_value: float = 0.0, padding_side: str = "right"
) -> Tensor:
    """Stack tensors of different lengths (dim 0), padded with `padding_value`.

    Args:
        sequences (list[Tensor]): tensors of shape (L_i, *).
        batch_first (bool): the output is (B, T, *) instead of (T, B, *). Default: False.
        padding_value (float): the value of padded elements. Default: 0.
        padding_side (str): pad on the "right" (default) or the "left".

    Example::

        >>> a, b = torch.ones(3, 2), torch.ones(1, 2)
        >>> nn.utils.rnn.pad_sequence([a, b]).shape
        torch.Size([3, 2, 2])
    """
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    sequences = list(sequences.unbind(0)) if isinstance(sequences, Tensor) else list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        missing = longest - s.shape[0]
        sides = (0, missing) if padding_side == "right" else (missing, 0)
        padded.append(pad(s, (0, 0) * (s.ndim - 1) + sides, value=padding_value))
    return stack(padded, 0 if batch_first else 1)


def _batch_sizes(lengths: np.ndarray) -> np.ndarray:
    """How many of the (sorted, decreasing) sequences run at each time step."""
    return np.array([(lengths > t).sum() for t in range(int(lengths.max()))], dtype=np.int64)


def lengths_of(batch_sizes: np.ndarray) -> np.ndarray:
    """Each sorted sequence's length, from the batch sizes."""
    return np.array([(batch_sizes > b).sum() for b in range(int(batch_sizes[0]))], np.int64)


def _packed_rows(batch_sizes: np.ndarray) -> np.ndarray:
    """The rows t * B + b of a (T, B) padded batch that a packed sequence keeps, in order."""
    width = int(batch_sizes[0])
    return np.concatenate([t * width + np.arange(n) for t, n in enumerate(batch_sizes)])


def pack_time_major(padded: Tensor, batch_sizes: np.ndarray) -> Tensor:
    """The packed `data` of a sorted (T, B, *) batch."""
    flat = padded.reshape(padded.shape[0] * padded.shape[1], *padded.shape[2:])
    return flat[int64_tensor(_packed_rows(batch_sizes))]


def pad_time_major(
    data: Tensor, batch_sizes: np.ndarray, padding_value: float = 0.0, total_length=None
) -> Tensor:
    """The sorted (T, B, *) batch of packed `data`, padded with `padding_value`."""
    steps = len(batch_sizes) if total_length is None else int(total_length)
    width = int(batch_sizes[0])
    rows = np.full(steps * width, data.shape[0], dtype=np.int64)  # the padding row by default
    rows[_packed_rows(batch_sizes)] = np.arange(data.shape[0])
    filler = _arrays.filled((1, *data.shape[1:]), padding_value, data.dtype)
    return cat([data, filler])[int64_tensor(rows)].reshape(steps, width, *data.shape[1:])


def pack_padded_sequence(
    input: Tensor, lengths, batch_first: bool = False, enforce_sorted: bool = True
) -> PackedSequence:
    """Pack a padded batch of variable-length sequences.

    Args:
        input (Tensor): (T, B, *), or (B, T, *) with batch_first.
        lengths (Tensor or list[int]): each sequence's length (on the CPU).
        batch_first (bool): the batch is dim 0. Default: False.
        enforce_sorted (bool): the lengths must be in decreasing order; with False they are
            sorted here and the order is kept in `sorted_indices`. Default: True.

    Example::

        >>> x = torch.randn(3, 2, 4)
        >>> nn.utils.rnn.pack_padded_sequence(x, [3, 1]).batch_sizes
        tensor([2, 1, 1])
    """
    lengths_np = host_ints(lengths, "pack_padded_sequence")
    sorted_indices = None
    if enforce_sorted:
        if np.any(np.diff(lengths_np) > 0):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                "exportability."
            )
    else:
        order = np.argsort(-lengths_np, kind="stable")
        lengths_np = lengths_np[order]
        sorted_indices = int64_tensor(order)
        input = index_select(input, 0 if batch_first else 1, sorted_indices)
    if lengths_np.size == 0 or lengths_np.min() <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' "
            "that is <= 0"
        )
    if batch_first:
        input = input.transpose(0, 1)
    batch_sizes = _batch_sizes(lengths_np)
    data = pack_time_major(input, batch_sizes)
    return PackedSequence(data, int64_tensor(batch_sizes), sorted_indices, None)


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple[Tensor, Tensor]:
    """Undo `pack_padded_sequence`: the padded batch (in the original order) and its lengths.

    Args:
        sequence (PackedSequence): the batch to pad.
        batch_first (bool): return (B, T, *) instead of (T, B, *). Default: False.
        padding_value (float): the value of padded elements. Default: 0.
        total_length (int, optional): pad to this many steps instead of the longest length.
    """
    batch_sizes = host_ints(sequence.batch_sizes, "pad_packed_sequence")
    if total_length is not None and total_length < len(batch_sizes):
        raise ValueError(
            "Expected total_length to be at least the length of the longest sequence in input, "
            f"but got total_length={total_length} and max sequence length being "
            f"{len(batch_sizes)}"
        )
    padded = pad_time_major(sequence.data, batch_sizes, padding_value, total_length)
    lengths = lengths_of(batch_sizes)
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        padded = index_select(padded, 0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[host_ints(sequence.unsorted_indices, "pad_packed_sequence")]
    return padded, int64_tensor(lengths)


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of tensors of shape (L_i, *): `pack_padded_sequence` of `pad_sequence`."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences: Tensor, lengths, batch_first: bool = False) -> list:
    """The list of unpadded tensors of a padded batch (the inverse of `pad_sequence`)."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [
        padded_sequences[i, : int(n)] for i, n in enumerate(host_ints(lengths, "unpad_sequence"))
    ]


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """The list of tensors of a PackedSequence (the inverse of `pack_sequence`)."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
