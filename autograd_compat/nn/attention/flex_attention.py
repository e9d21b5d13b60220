"""torch.nn.attention.flex_attention: attention with a user score_mod and a block mask, dense.

PyTorch compiles flex_attention into a block-sparse kernel; here it is the dense computation on
this library's ops, so it differentiates like any other code: the scores `q @ k^T * scale`,
`score_mod(score, b, h, q_idx, kv_idx)`, the mask, a softmax and `@ v`. The index arguments are
broadcast index tensors (shapes (B,1,1,1), (1,H,1,1), (1,1,Q,1), (1,1,1,KV)), which is what
PyTorch's vmap over scalars amounts to for elementwise mods and tensor indexing. A `BlockMask`
holds PyTorch's block tables (partial and full blocks of BLOCK_SIZE, in its order), and
attention reads the mask from them: inside a partial block `mask_mod` decides, a full block is
kept whole, and a block not listed is masked out. A query row with nothing to attend to gives
zeros (and a log-sum-exp of -inf), as PyTorch's kernel does.
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable
from typing import NamedTuple

from ..._ops.comparison import where
from ..._ops.factories import arange, full, ones_like, zeros
from ..._ops.reduce import argsort
from ..._pure import dtypes as _dtypes
from ..._state.tensor import Tensor
from ..functional import pad

__all__ = [
    "AuxOutput",
    "AuxRequest",
    "BlockMask",
    "and_masks",
    "create_block_mask",
    "create_mask",
    "flex_attention",
    "noop_mask",
    "or_masks",
]

_DEFAULT_SPARSE_BLOCK_SIZE = 128


class AuxRequest(NamedTuple):
    """Which auxiliary outputs flex_attention returns besides the attention."""

    lse: bool = False
    max_scores: bool = False


class AuxOutput(NamedTuple):
    """The auxiliary outputs of flex_attention (None where not requested)."""

    lse: Tensor | None = None
    max_scores: Tensor | None = None


def noop_mask(batch: Tensor, head: Tensor, token_q: Tensor, token_kv: Tensor) -> Tensor:
    """The mask_mod that keeps every score."""
    return batch.new_ones((), dtype=_dtypes.bool)


def _identity(score: Tensor, batch: Tensor, head: Tensor, q_idx: Tensor, kv_idx: Tensor):
    return score


def or_masks(*mask_mods: Callable) -> Callable:
    """A mask_mod keeping what any of `mask_mods` keeps."""
    if not all(callable(arg) for arg in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def or_mask(b: Tensor, h: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
        result = b.new_zeros((), dtype=_dtypes.bool)
        for mask in mask_mods:
            result = result | mask(b, h, q_idx, kv_idx)
        return result

    return or_mask


def and_masks(*mask_mods: Callable) -> Callable:
    """A mask_mod keeping what all of `mask_mods` keep."""
    if not all(callable(arg) for arg in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def and_mask(b: Tensor, h: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
        result = b.new_ones((), dtype=_dtypes.bool)
        for mask in mask_mods:
            result = result & mask(b, h, q_idx, kv_idx)
        return result

    return and_mask


class _Indices(NamedTuple):
    """The broadcast index tensors a mod is called with."""

    b: Tensor
    h: Tensor
    q: Tensor
    kv: Tensor


def _indices(B: int, H: int, Q: int, KV: int, device) -> _Indices:
    return _Indices(
        arange(B, device=device).view(B, 1, 1, 1),
        arange(H, device=device).view(1, H, 1, 1),
        arange(Q, device=device).view(1, 1, Q, 1),
        arange(KV, device=device).view(1, 1, 1, KV),
    )


def _is_score_mod(fn: Callable) -> bool:
    """PyTorch's rule: a mod with five positional parameters without defaults takes a score."""
    parameters = inspect.signature(fn).parameters.values()
    required = [p for p in parameters if p.default is inspect.Parameter.empty]
    return len(required) == 5


def create_mask(
    mod_fn: Callable, B: int | None, H: int | None, Q_LEN: int, KV_LEN: int, device=None
) -> Tensor:
    """The dense (B, H, Q_LEN, KV_LEN) boolean mask of a mask_mod, or of a score_mod (where
    it leaves the score finite)."""
    B, H = B or 1, H or 1
    idx = _indices(B, H, Q_LEN, KV_LEN, device)
    if _is_score_mod(mod_fn):
        out = mod_fn(zeros(B, H, Q_LEN, KV_LEN, device=device), *idx)
        return (out != -math.inf).expand(B, H, Q_LEN, KV_LEN)
    return mod_fn(*idx).to(_dtypes.bool).expand(B, H, Q_LEN, KV_LEN)


def _dense_to_ordered(dense: Tensor) -> tuple[Tensor, Tensor]:
    """Per row, the count of set blocks and the block columns, set ones first (stable)."""
    dense = dense.to(_dtypes.int32)
    counts = dense.sum(-1).to(_dtypes.int32)
    order = argsort(dense, dim=-1, descending=True, stable=True).to(_dtypes.int32)
    return counts, order


def _ordered_to_dense(counts: Tensor, indices: Tensor, num_cols: int) -> Tensor:
    """The (..., rows, num_cols) 0/1 block matrix that `_dense_to_ordered` describes."""
    listed = arange(indices.shape[-1], device=indices.device) < counts.unsqueeze(-1)
    columns = arange(num_cols, device=indices.device)
    hits = (indices.unsqueeze(-1) == columns) & listed.unsqueeze(-1)
    return hits.any(-2).to(_dtypes.int32)


def _round_up(x: int, multiple: int) -> int:
    return (x + multiple - 1) // multiple * multiple


class BlockMask:
    """PyTorch's block-sparse description of an attention mask.

    `kv_num_blocks[b, h, i]` partial blocks of query block row `i` are listed first in
    `kv_indices[b, h, i]`; `full_kv_*` lists the blocks kept whole; `q_*` are the same tables
    by key block column. `mask_mod` decides inside partial blocks.
    """

    def __init__(
        self,
        seq_lengths: tuple[int, int],
        kv_num_blocks: Tensor,
        kv_indices: Tensor,
        full_kv_num_blocks: Tensor | None,
        full_kv_indices: Tensor | None,
        q_num_blocks: Tensor | None,
        q_indices: Tensor | None,
        full_q_num_blocks: Tensor | None,
        full_q_indices: Tensor | None,
        BLOCK_SIZE: tuple[int, int] = (_DEFAULT_SPARSE_BLOCK_SIZE, _DEFAULT_SPARSE_BLOCK_SIZE),
        mask_mod: Callable = noop_mask,
    ) -> None:
        if kv_indices.dim() < 2:
            raise RuntimeError("BlockMask must have at least 2 dimensions")
        self.seq_lengths = tuple(seq_lengths)
        self.kv_num_blocks = kv_num_blocks
        self.kv_indices = kv_indices
        self.full_kv_num_blocks = full_kv_num_blocks
        self.full_kv_indices = full_kv_indices
        self.q_num_blocks = q_num_blocks
        self.q_indices = q_indices
        self.full_q_num_blocks = full_q_num_blocks
        self.full_q_indices = full_q_indices
        self.BLOCK_SIZE = tuple(BLOCK_SIZE)
        self.mask_mod = mask_mod

    @classmethod
    def from_kv_blocks(
        cls,
        kv_num_blocks: Tensor,
        kv_indices: Tensor,
        full_kv_num_blocks: Tensor | None = None,
        full_kv_indices: Tensor | None = None,
        BLOCK_SIZE: int | tuple[int, int] = _DEFAULT_SPARSE_BLOCK_SIZE,
        mask_mod: Callable | None = None,
        seq_lengths: tuple[int, int] | None = None,
        compute_q_blocks: bool = True,
    ) -> BlockMask:
        """A BlockMask from its key-block tables (the query-block ones are derived)."""
        if kv_indices.dim() < 2:
            raise RuntimeError("BlockMask must have at least 2 dimensions")
        if (full_kv_num_blocks is None) != (full_kv_indices is None):
            raise AssertionError(
                "full_kv_num_blocks and full_kv_indices must be both provided or omitted"
            )
        block_size = (BLOCK_SIZE, BLOCK_SIZE) if isinstance(BLOCK_SIZE, int) else BLOCK_SIZE
        q_tables: tuple[Tensor | None, Tensor | None] = (None, None)
        full_q_tables: tuple[Tensor | None, Tensor | None] = (None, None)
        if compute_q_blocks:
            q_tables = _transpose_ordered(kv_num_blocks, kv_indices)
            if full_kv_num_blocks is not None and full_kv_indices is not None:
                full_q_tables = _transpose_ordered(full_kv_num_blocks, full_kv_indices)
        if seq_lengths is None:
            rows, cols = kv_indices.shape[-2], kv_indices.shape[-1]
            seq_lengths = (rows * block_size[0], cols * block_size[1])
        return cls(
            seq_lengths,
            kv_num_blocks,
            kv_indices,
            full_kv_num_blocks,
            full_kv_indices,
            q_tables[0],
            q_tables[1],
            full_q_tables[0],
            full_q_tables[1],
            BLOCK_SIZE=block_size,
            mask_mod=mask_mod if mask_mod is not None else noop_mask,
        )

    @property
    def shape(self) -> tuple[int, ...]:
        *batch_dims, _, _ = self.kv_indices.shape
        return tuple(batch_dims) + self.seq_lengths

    def numel(self) -> int:
        """The number of mask elements (sparsity not counted)."""
        return math.prod(self.shape)

    def sparsity(self) -> float:
        """The percentage of blocks that are not computed."""
        computed = self.kv_num_blocks.sum()
        if self.full_kv_num_blocks is not None:
            computed = computed + self.full_kv_num_blocks.sum()
        size = computed.item() * self.BLOCK_SIZE[0] * self.BLOCK_SIZE[1]
        return 100 * (1 - size / self.numel())

    def to_dense(self) -> Tensor:
        """The block-level 0/1 matrix of computed blocks (partial or full)."""
        dense = _ordered_to_dense(self.kv_num_blocks, self.kv_indices, self.kv_indices.shape[-1])
        if self.full_kv_num_blocks is not None and self.full_kv_indices is not None:
            cols = self.full_kv_indices.shape[-1]
            dense = dense | _ordered_to_dense(self.full_kv_num_blocks, self.full_kv_indices, cols)
        return dense

    def to(self, device) -> BlockMask:
        """The same mask with its tables on `device`."""
        moved = {
            name: value.to(device) if isinstance(value, Tensor) else value
            for name, value in vars(self).items()
        }
        mask = object.__new__(BlockMask)
        vars(mask).update(moved)
        return mask

    def element_mask(self, device) -> Tensor:
        """The (B, H, Q, KV) boolean mask these tables and `mask_mod` describe."""
        q_len, kv_len = self.seq_lengths
        rows, cols = self.BLOCK_SIZE
        partial = _ordered_to_dense(self.kv_num_blocks, self.kv_indices, self.kv_indices.shape[-1])
        keep = _expand_blocks(partial, rows, cols, q_len, kv_len).to(_dtypes.bool)
        B, H = self.kv_indices.shape[0], self.kv_indices.shape[1]
        keep = keep & self.mask_mod(*_indices(B, H, q_len, kv_len, device)).to(_dtypes.bool)
        if self.full_kv_num_blocks is not None and self.full_kv_indices is not None:
            whole = _ordered_to_dense(
                self.full_kv_num_blocks, self.full_kv_indices, self.full_kv_indices.shape[-1]
            )
            keep = keep | _expand_blocks(whole, rows, cols, q_len, kv_len).to(_dtypes.bool)
        return keep

    def __repr__(self) -> str:
        return f"BlockMask(shape={self.shape}, BLOCK_SIZE={self.BLOCK_SIZE})"


def _expand_blocks(blocks: Tensor, rows: int, cols: int, q_len: int, kv_len: int) -> Tensor:
    """A block-level matrix repeated to elements and cropped to (q_len, kv_len)."""
    dense = blocks.repeat_interleave(rows, dim=-2).repeat_interleave(cols, dim=-1)
    return dense[..., :q_len, :kv_len]


def _transpose_ordered(counts: Tensor, indices: Tensor) -> tuple[Tensor, Tensor]:
    dense = _ordered_to_dense(counts, indices, indices.shape[-1])
    return _dense_to_ordered(dense.transpose(-2, -1))


def create_block_mask(
    mask_mod: Callable,
    B: int | None,
    H: int | None,
    Q_LEN: int,
    KV_LEN: int,
    device=None,
    BLOCK_SIZE: int | tuple[int, int] = _DEFAULT_SPARSE_BLOCK_SIZE,
    _compile=False,
    separate_full_blocks: bool = True,
    compute_dq_write_order: bool = False,
    dq_kv_order: bool = True,
) -> BlockMask:
    """The BlockMask of `mask_mod` over (B, H, Q_LEN, KV_LEN) (None for B or H: broadcast).

    Example::

        >>> fa = torch.nn.attention.flex_attention
        >>> causal = lambda b, h, q, kv: q >= kv
        >>> m = fa.create_block_mask(causal, None, None, 4, 4, device="cpu", BLOCK_SIZE=2)
        >>> m.shape, m.kv_num_blocks.tolist(), m.full_kv_num_blocks.tolist()
        ((1, 1, 4, 4), [[[1, 1]]], [[[0, 1]]])
    """
    rows, cols = (BLOCK_SIZE, BLOCK_SIZE) if isinstance(BLOCK_SIZE, int) else BLOCK_SIZE
    mask = create_mask(mask_mod, B, H, Q_LEN, KV_LEN, device)
    mask = pad(mask, (0, _round_up(KV_LEN, cols) - KV_LEN, 0, _round_up(Q_LEN, rows) - Q_LEN))
    b, h, q, kv = mask.shape
    counts = mask.view(b, h, q // rows, rows, kv // cols, cols).sum((-3, -1))
    full_tables: tuple[Tensor | None, Tensor | None] = (None, None)
    if separate_full_blocks:
        full = counts == rows * cols
        partial = (counts > 0) & ~full
        full_tables = _dense_to_ordered(full)
    else:
        partial = counts > 0
    kv_num_blocks, kv_indices = _dense_to_ordered(partial)
    return BlockMask.from_kv_blocks(
        kv_num_blocks,
        kv_indices,
        full_tables[0],
        full_tables[1],
        BLOCK_SIZE=(rows, cols),
        mask_mod=mask_mod,
        seq_lengths=(Q_LEN, KV_LEN),
    )


def _check_shapes(query: Tensor, key: Tensor, value: Tensor, enable_gqa: bool) -> None:
    if query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        raise NotImplementedError("NYI: query, key, and value must be 4D tensors")
    if query.size(-1) != key.size(-1):
        raise ValueError(
            f"Expect query and key/value to have the same embedding dimension "
            f"but got E={query.size(-1)} and E={key.size(-1)}."
        )
    Hq, Hkv = query.size(1), key.size(1)
    if not enable_gqa and Hq != Hkv:
        raise ValueError(
            f"Expect query and key/value to have the same number of heads "
            f"but got Hq={Hq} and Hkv={Hkv}. "
            f"Try setting enable_gqa=True for GQA."
        )
    if enable_gqa and Hq % Hkv != 0:
        raise ValueError(
            f"Expect number of query heads to be a multiple of kv heads for GQA "
            f"but got Hq={Hq} and Hkv={Hkv}."
        )


def _softmax_and_lse(scores: Tensor) -> tuple[Tensor, Tensor]:
    """The softmax over the last dimension and its log-sum-exp; a row of -inf only gives zero
    weights (and -inf), with finite gradients everywhere."""
    peak = scores.detach().amax(-1, keepdim=True)
    peak = where(peak == -math.inf, zeros((), dtype=peak.dtype), peak)
    exps = (scores - peak).exp()
    total = exps.sum(-1, keepdim=True)
    weights = exps / where(total == 0, ones_like(total), total)
    lse = (total.log() + peak).squeeze(-1)
    return weights, lse


def flex_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    score_mod: Callable | None = None,
    block_mask: BlockMask | None = None,
    scale: float | None = None,
    enable_gqa: bool = False,
    return_lse: bool = False,
    kernel_options: dict | None = None,
    *,
    return_aux: AuxRequest | None = None,
):
    """Attention of `query` (B, Hq, L, E) over `key`/`value` (B, Hkv, S, E/Ev).

    `score_mod(score, b, h, q_idx, kv_idx)` rewrites each scaled score; `block_mask` (from
    `create_block_mask`) removes scores. Scores are computed in float32 (float64 for float64
    queries), the result is in the query's dtype. Returns the (B, Hq, L, Ev) attention, with the
    natural-log log-sum-exp of each row's scores (B, Hq, L) in the working precision when
    `return_lse`, or an `AuxOutput` when `return_aux` asks for it.

    Example::

        >>> fa = torch.nn.attention.flex_attention
        >>> q = torch.ones(1, 1, 3, 2)
        >>> fa.flex_attention(q, q, q, score_mod=lambda s, b, h, i, j: s - (i - j).abs()).shape
        torch.Size([1, 1, 3, 2])
    """
    _check_shapes(query, key, value, enable_gqa)
    if return_lse and return_aux is not None:
        raise ValueError(
            "Cannot specify both return_lse and return_aux. "
            "return_lse is deprecated, please use return_aux=AuxRequest(lse=True) instead."
        )
    if return_lse:
        warnings.warn(
            "return_lse is deprecated and will be removed in v2.10. "
            "Please use return_aux=AuxRequest(lse=True) instead.",
            FutureWarning,
            stacklevel=2,
        )
    B, Hq, L, E = query.shape
    S = key.size(-2)
    if block_mask is not None and block_mask.seq_lengths != (L, S):
        raise ValueError(
            f"block_mask was created for block_mask.shape={block_mask.shape} but got "
            f"q_len={L} and kv_len={S}; create a new block mask with the lengths used"
        )
    if Hq != key.size(1):
        repeats = Hq // key.size(1)
        key = key.repeat_interleave(repeats, dim=1)
        value = value.repeat_interleave(repeats, dim=1)
    scale = 1.0 / math.sqrt(E) if scale is None else scale
    # PyTorch's working precision: float64 for float64 queries, float32 otherwise
    working = _dtypes.float64 if query.dtype is _dtypes.float64 else _dtypes.float32
    scores = query.to(working).matmul(key.to(working).transpose(-2, -1)) * scale
    scores = (score_mod or _identity)(scores, *_indices(B, Hq, L, S, query.device))
    if block_mask is not None:
        keep = block_mask.element_mask(query.device)
        scores = where(keep, scores, full((), -math.inf, dtype=scores.dtype, device=query.device))
    weights, lse = _softmax_and_lse(scores)
    out = weights.to(query.dtype).matmul(value)
    if return_lse:
        return out, lse
    if return_aux is not None:
        max_scores = scores.amax(-1) if return_aux.max_scores else None
        return out, AuxOutput(lse if return_aux.lse else None, max_scores)
    return out
