"""Transformer, its encoder and decoder stacks and their layers, as PyTorch builds them.

Every layer is composed of MultiheadAttention (one fused op), Linear, Dropout and LayerNorm,
with PyTorch's parameter names, so a state_dict from PyTorch loads unchanged. PyTorch's
inference fast paths (eval mode, no grad) mostly change no numbers. One change is reproduced:
a TransformerEncoder given a left-aligned src_key_padding_mask returns zeros (before its
final norm) at the padded positions, as its nested-tensor path does. One is not: where a
query has every key masked (a fully padded sequence), those fast paths give NaN, and this
module gives zeros, as PyTorch does with grad enabled (scaled_dot_product_attention).
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..._state import modes as _grad_mode
from ..._state.tensor import Tensor
from .. import _arrays
from .. import functional as F
from ..init import xavier_uniform_
from .activation import GELU, ReLU
from .attention import MultiheadAttention
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = [
    "Transformer",
    "TransformerDecoder",
    "TransformerDecoderLayer",
    "TransformerEncoder",
    "TransformerEncoderLayer",
]

Activation = str | Callable[[Tensor], Tensor]


def _generate_square_subsequent_mask(sz: int, device=None, dtype=None) -> Tensor:
    """A float (sz, sz) causal mask: -inf above the diagonal, 0 elsewhere (built on the host)."""
    mask = np.triu(np.full((sz, sz), -np.inf, _arrays.numpy_dtype(dtype)), 1)
    return Tensor._wrap(_arrays.place(mask, device))


def _get_activation_fn(activation: str) -> Callable[[Tensor], Tensor]:
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _get_clones(module: Module, n: int) -> ModuleList:
    """`n` independent deep copies of `module` (the layers of an encoder or decoder stack)."""
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _canonical_masks(
    src: Tensor, mask: Tensor | None, mask_name: str, src_key_padding_mask: Tensor | None
) -> tuple[Tensor | None, Tensor | None]:
    """`mask` (named `mask_name` in errors) and `src_key_padding_mask` as additive float
    masks of `src`'s dtype, as an encoder layer or stack converts them on entry."""
    src_key_padding_mask = F._canonical_mask(
        src_key_padding_mask,
        "src_key_padding_mask",
        F._none_or_dtype(mask),
        mask_name,
        src.dtype,
    )
    mask = F._canonical_mask(mask, mask_name, None, "", src.dtype, False)
    return mask, src_key_padding_mask


def _detect_is_causal_mask(is_causal: bool | None) -> bool:
    """PyTorch's is_causal resolution, less its host read: with is_causal=None PyTorch checks
    whether the mask equals the causal mask, and if so lets attention use the causal mask in
    its place; the numbers are the same either way, so None means False here."""
    return is_causal is True


class _TransformerLayer(Module):
    """What the encoder and decoder layers share: PyTorch's constructor (its signature, its
    submodules in its order), the self-attention block and the feed-forward block.

    A decoder layer (`_cross_attention`) adds `multihead_attn`, a third LayerNorm and Dropout.
    """

    __constants__ = ["norm_first"]
    _cross_attention = False

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: Activation = F.relu,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        attention = {"dropout": dropout, "bias": bias, "batch_first": batch_first, **factory}
        self.self_attn = MultiheadAttention(d_model, nhead, **attention)
        if self._cross_attention:
            self.multihead_attn = MultiheadAttention(d_model, nhead, **attention)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory)
        self.norm_first = norm_first
        blocks = 3 if self._cross_attention else 2
        for index in range(1, blocks + 1):
            setattr(self, f"norm{index}", LayerNorm(d_model, layer_norm_eps, bias=bias, **factory))
        for index in range(1, blocks + 1):
            setattr(self, f"dropout{index}", Dropout(dropout))
        self._set_activation(
            _get_activation_fn(activation) if isinstance(activation, str) else activation
        )

    def _set_activation(self, activation: Callable[[Tensor], Tensor]) -> None:
        self.activation = activation

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal: bool = False) -> Tensor:
        return self._attention_block(
            self.self_attn, self.dropout1, x, x, attn_mask, key_padding_mask, is_causal
        )

    @staticmethod
    def _attention_block(
        attention: Module, dropout: Module, x, mem, attn_mask, key_padding_mask, is_causal: bool
    ) -> Tensor:
        """`attention` of `x` over `mem` (no weights returned), then `dropout`."""
        out = attention(
            x,
            mem,
            mem,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
            need_weights=False,
            is_causal=is_causal,
        )[0]
        return dropout(out)

    def _ff_block(self, x: Tensor) -> Tensor:
        last_dropout = self.dropout3 if self._cross_attention else self.dropout2
        return last_dropout(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerEncoderLayer(_TransformerLayer):
    """Self-attention and a feed-forward network, each with a residual and a LayerNorm.

    Args:
        d_model (int): features of the input. nhead (int): attention heads.
        dim_feedforward (int): width of the feed-forward network (default 2048).
        dropout (float): dropout after attention, inside and after the feed-forward network.
        activation (str or callable): "relu", "gelu" or a unary callable (default F.relu).
        layer_norm_eps (float): LayerNorm eps. batch_first (bool): (N, S, E) inputs.
        norm_first (bool): LayerNorm before each block instead of after.
        bias (bool): additive biases in the Linear and LayerNorm layers.

    Example::

        >>> layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16,
        ...                                    batch_first=True)
        >>> layer(torch.rand(3, 5, 8)).shape
        torch.Size([3, 5, 8])
    """

    def _set_activation(self, activation: Callable[[Tensor], Tensor]) -> None:
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        if not hasattr(self, "activation"):  # PyTorch's default for layers pickled without it
            self.activation = F.relu

    def forward(
        self,
        src: Tensor,
        src_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool = False,
    ) -> Tensor:
        """The layer on `src`; masks as in MultiheadAttention (bool: True is masked)."""
        src_mask, src_key_padding_mask = _canonical_masks(
            src, src_mask, "src_mask", src_key_padding_mask
        )
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))


class TransformerDecoderLayer(_TransformerLayer):
    """Self-attention, attention over the encoder's memory and a feed-forward network.

    Arguments as TransformerEncoderLayer's; the layer has a third LayerNorm and Dropout.

    Example::

        >>> layer = nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16,
        ...                                    batch_first=True)
        >>> layer(torch.rand(3, 4, 8), torch.rand(3, 5, 8)).shape
        torch.Size([3, 4, 8])
    """

    _cross_attention = True

    def __setstate__(self, state) -> None:
        # PyTorch's: a layer unpickled without `activation` gets relu. A Module activation
        # lives in `_modules`, not in the state, so deep copies (the layers of a
        # TransformerDecoder) compute relu while still showing the Module, as in PyTorch.
        if "activation" not in state:
            state["activation"] = F.relu
        super().__setstate__(state)

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool = False,
        memory_is_causal: bool = False,
    ) -> Tensor:
        """The layer on `tgt`, attending to `memory` (the encoder's output)."""
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(
                self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal
            )
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(
            x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal)
        )
        return self.norm3(x + self._ff_block(x))

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal: bool = False) -> Tensor:
        return self._attention_block(
            self.multihead_attn, self.dropout2, x, mem, attn_mask, key_padding_mask, is_causal
        )


def _why_no_nested_tensor(layer: Module) -> str:
    """Why PyTorch's TransformerEncoder cannot use nested tensors with `layer` ("" if it can)."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    if layer.norm_first:
        return f"{name}.norm_first was True"
    if not layer.self_attn.batch_first:
        return (
            f"{name}.self_attn.batch_first was not True"
            "(use batch_first for better inference performance)"
        )
    if not layer.self_attn._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if layer.self_attn.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return f"{name}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if layer.self_attn.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


class TransformerEncoder(Module):
    """A stack of `num_layers` deep copies of `encoder_layer`, then `norm` if given.

    Args:
        encoder_layer (TransformerEncoderLayer): the layer to copy.
        num_layers (int): how many copies. norm (Module, optional): applied to the output.
        enable_nested_tensor (bool): PyTorch's padding fast path; as there, it warns when the
            layer rules it out, and in eval mode without grad the padded positions of the
            output are zeros. mask_check (bool): use it only for left-aligned padding.

    Example::

        >>> layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
        >>> encoder = nn.TransformerEncoder(layer, num_layers=2)
        >>> encoder(torch.rand(3, 5, 8)).shape
        torch.Size([3, 5, 8])
    """

    __constants__ = ["norm"]

    def __init__(
        self,
        encoder_layer: TransformerEncoderLayer,
        num_layers: int,
        norm: Module | None = None,
        enable_nested_tensor: bool = True,
        mask_check: bool = True,
    ) -> None:
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_no_nested_tensor(encoder_layer)
        if enable_nested_tensor and why_not:
            warnings.warn(
                "enable_nested_tensor is True, but self.use_nested_tensor is False because "
                f"{why_not}",
                stacklevel=2,
            )
            self.use_nested_tensor = False

    def forward(
        self,
        src: Tensor,
        mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool | None = None,
    ) -> Tensor:
        """Every layer in turn on `src`; `is_causal` hints that `mask` is the causal mask."""
        mask, src_key_padding_mask = _canonical_masks(src, mask, "mask", src_key_padding_mask)
        padded = self._nested_padding(src, mask, src_key_padding_mask)
        is_causal = _detect_is_causal_mask(is_causal)
        output = src
        for layer in self.layers:
            output = layer(
                output,
                src_mask=mask,
                is_causal=is_causal,
                src_key_padding_mask=src_key_padding_mask,
            )
        if padded is not None:
            output = output.masked_fill(padded[..., None], 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output

    def _nested_padding(self, src: Tensor, mask, src_key_padding_mask) -> Tensor | None:
        """The (N, S) padded positions PyTorch's nested-tensor path zeroes, or None when
        PyTorch would not take that path (its conditions, in its order)."""
        first = self.layers[0]
        if (
            not self.use_nested_tensor
            or first.training
            or src.ndim != 3
            or src_key_padding_mask is None
            or mask is not None
        ):
            return None
        padded = src_key_padding_mask != 0
        if self.mask_check and (_grad_mode.modes.captures or not _left_aligned(padded)):
            return None  # under torch.compile PyTorch skips the check, and so the path
        attn = first.self_attn
        tensors = (
            src,
            attn.in_proj_weight,
            attn.in_proj_bias,
            attn.out_proj.weight,
            attn.out_proj.bias,
            first.norm1.weight,
            first.norm1.bias,
            first.norm2.weight,
            first.norm2.bias,
            first.linear1.weight,
            first.linear1.bias,
            first.linear2.weight,
            first.linear2.bias,
        )
        if _grad_mode.is_grad_enabled() and any(t.requires_grad for t in tensors):
            return None
        return padded


def _left_aligned(padded: Tensor) -> bool:
    """Whether every row of an (N, S) padding mask pads only a suffix (read on the host)."""
    rows = np.asarray(padded.detach().cpu()).astype(np.int8)
    return bool((np.diff(rows, axis=1) >= 0).all())


class TransformerDecoder(Module):
    """A stack of `num_layers` deep copies of `decoder_layer`, then `norm` if given.

    Example::

        >>> layer = nn.TransformerDecoderLayer(8, 2, 16, batch_first=True)
        >>> decoder = nn.TransformerDecoder(layer, num_layers=2)
        >>> decoder(torch.rand(3, 4, 8), torch.rand(3, 5, 8)).shape
        torch.Size([3, 4, 8])
    """

    __constants__ = ["norm"]

    def __init__(
        self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Module | None = None
    ) -> None:
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        """Every layer in turn on `tgt`, each attending to `memory`."""
        tgt_is_causal = _detect_is_causal_mask(tgt_is_causal)
        output = tgt
        for layer in self.layers:
            output = layer(
                output,
                memory,
                tgt_mask=tgt_mask,
                memory_mask=memory_mask,
                tgt_key_padding_mask=tgt_key_padding_mask,
                memory_key_padding_mask=memory_key_padding_mask,
                tgt_is_causal=tgt_is_causal,
                memory_is_causal=memory_is_causal,
            )
        return output if self.norm is None else self.norm(output)


class Transformer(Module):
    """The encoder-decoder Transformer of "Attention Is All You Need".

    Args:
        d_model (int): features (default 512). nhead (int): heads (default 8).
        num_encoder_layers, num_decoder_layers (int): stack depths (default 6 each).
        dim_feedforward (int): feed-forward width (default 2048). dropout (float): 0.1.
        activation (str or callable): "relu", "gelu" or a unary callable (default F.relu).
        custom_encoder, custom_decoder (Module, optional): used instead of the default stacks.
        layer_norm_eps (float), batch_first (bool), norm_first (bool), bias (bool): as in
        TransformerEncoderLayer.

    Example::

        >>> model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1,
        ...                        num_decoder_layers=1, dim_feedforward=16, batch_first=True)
        >>> tgt_mask = nn.Transformer.generate_square_subsequent_mask(4)
        >>> model(torch.rand(3, 5, 8), torch.rand(3, 4, 8), tgt_mask=tgt_mask).shape
        torch.Size([3, 4, 8])
    """

    def __init__(
        self,
        d_model: int = 512,
        nhead: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: Activation = F.relu,
        custom_encoder: Module | None = None,
        custom_decoder: Module | None = None,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        layer_kwargs: dict[str, Any] = {
            "dim_feedforward": dim_feedforward,
            "dropout": dropout,
            "activation": activation,
            "layer_norm_eps": layer_norm_eps,
            "batch_first": batch_first,
            "norm_first": norm_first,
            "bias": bias,
            **factory,
        }

        def stack(custom: Module | None, build: Callable[..., Module], layer, depth) -> Module:
            """`custom`, or `depth` copies of a default `layer` and a final LayerNorm."""
            if custom is not None:
                return custom
            first = layer(d_model, nhead, **layer_kwargs)
            return build(first, depth, LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory))

        self.encoder = stack(
            custom_encoder, TransformerEncoder, TransformerEncoderLayer, num_encoder_layers
        )
        self.decoder = stack(
            custom_decoder, TransformerDecoder, TransformerDecoderLayer, num_decoder_layers
        )
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(
        self,
        src: Tensor,
        tgt: Tensor,
        src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        src_is_causal: bool | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        """Encode `src`, then decode `tgt` attending to the encoding."""
        batched = src.dim() == 3
        batch_axis = 0 if self.batch_first else 1
        if batched and src.size(batch_axis) != tgt.size(batch_axis):
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(
            src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal
        )
        return self.decoder(
            tgt,
            memory,
            tgt_mask=tgt_mask,
            memory_mask=memory_mask,
            tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask,
            tgt_is_causal=tgt_is_causal,
            memory_is_causal=memory_is_causal,
        )

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device=None, dtype=None) -> Tensor:
        """A float (sz, sz) causal mask: -inf above the diagonal, 0.0 elsewhere."""
        return _generate_square_subsequent_mask(sz, device=device, dtype=dtype)

    def _reset_parameters(self) -> None:
        """Xavier-uniform initialization of every matrix parameter, as PyTorch's."""
        for p in self.parameters():
            if p.dim() > 1:
                xavier_uniform_(p)
