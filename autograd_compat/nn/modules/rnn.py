"""Recurrent layers: RNN, LSTM, GRU (multi-layer, bidirectional) and their cells.

A whole recurrent module is one registered op: its pure function runs every layer and
direction with `lax.scan`, so the forward is one XLA call and the backward (jax.vjp of the
scan) is another, however long the sequence.
"""

from __future__ import annotations

import math
import warnings

from ..._ops.nn.rnn import CELL_OPS, RNN_OPS
from ..._state import modes as _grad_mode
from ..._state import random as _random
from ..._state.tensor import Tensor
from ..._tape.record import apply
from .. import _arrays, init
from ..parameter import Parameter
from ..utils import rnn as packing
from ..utils.rnn import PackedSequence
from .module import Module, store_constants

__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell"]


def _swap01(t: Tensor) -> Tensor:
    return t.transpose(0, 1)


def _reset_uniform(module: Module) -> None:
    """Every parameter of a recurrent layer or cell U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
    stdv = 1.0 / math.sqrt(module.hidden_size) if module.hidden_size > 0 else 0
    for weight in module.parameters():
        init.uniform_(weight, -stdv, stdv)


class RNNBase(Module):
    """Shared parameters and forward of RNN, LSTM and GRU (PyTorch's parameter names)."""

    __constants__ = [
        "mode",
        "input_size",
        "hidden_size",
        "num_layers",
        "bias",
        "batch_first",
        "dropout",
        "bidirectional",
        "proj_size",
    ]

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        store_constants(self, locals())
        self.dropout = float(dropout)
        num_directions = 2 if bidirectional else 1
        if (
            not isinstance(dropout, (int, float))
            or not 0 <= dropout <= 1
            or isinstance(dropout, bool)
        ):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an "
                "element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                "dropout expects num_layers greater than 1, but got "
                f"dropout={dropout} and num_layers={num_layers}",
                UserWarning,
                stacklevel=3,
            )
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size != 0 and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections"
            )
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        gate_size = {"LSTM": 4, "GRU": 3}.get(mode, 1) * hidden_size
        real_hidden_size = proj_size or hidden_size  # the size of h (the projection's)
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                w_ih = Parameter(
                    _arrays.empty((gate_size, layer_input_size), device=device, dtype=dtype)
                )
                w_hh = Parameter(
                    _arrays.empty((gate_size, real_hidden_size), device=device, dtype=dtype)
                )
                b_ih = Parameter(_arrays.empty(gate_size, device=device, dtype=dtype))
                b_hh = Parameter(_arrays.empty(gate_size, device=device, dtype=dtype))
                layer_params: tuple = (w_ih, w_hh, b_ih, b_hh) if bias else (w_ih, w_hh)
                suffix = "_reverse" if direction == 1 else ""
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size:
                    w_hr = Parameter(
                        _arrays.empty((proj_size, hidden_size), device=device, dtype=dtype)
                    )
                    layer_params += (w_hr,)
                    names.append("weight_hr_l{}{}")
                names = [n.format(layer, suffix) for n in names]
                for name, param in zip(names, layer_params):
                    setattr(self, name, param)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, name) for name in self._flat_weights_names]

    def __getstate__(self) -> dict:
        """The state `torch.save(module)` pickles: PyTorch's module keeps `_flat_weights` as
        an attribute and its forward reads it, so a whole model saved here carries it."""
        return {**self.__dict__, "_flat_weights": self._flat_weights}

    def __setstate__(self, state: dict) -> None:
        state = {k: v for k, v in state.items() if k not in ("_flat_weights", "_flat_weight_refs")}
        super().__setstate__(state)

    @property
    def all_weights(self) -> list:
        return [[getattr(self, weight) for weight in weights] for weights in self._all_weights]

    def flatten_parameters(self) -> None:
        """A no-op: there is no cuDNN weight buffer to compact."""

    def reset_parameters(self) -> None:
        _reset_uniform(self)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _nonlinearity(self) -> str:
        return "tanh"

    def _check_dtype(self, input: Tensor) -> None:
        """PyTorch's ValueError for an input whose dtype is not the weights' (autocast off)."""
        weight = self._flat_weights[0].dtype
        if input.dtype is not weight and not _grad_mode._state.autocast:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight}). "
                f"Convert input: input.to({weight}), or convert model: model.to({input.dtype})"
            )

    def forward(self, input, hx=None):
        if isinstance(input, PackedSequence):
            self._check_dtype(input.data)
            return self._forward_packed(input, hx)
        if not isinstance(input, Tensor):
            raise NotImplementedError(
                f"{type(self).__name__} input of type {type(input).__name__} is not supported "
                "by autograd_compat (pass a Tensor or a PackedSequence)"
            )
        self._check_dtype(input)
        if input.dim() not in (2, 3):
            raise ValueError(
                f"{self.mode}: Expected input to be 2D or 3D, got {input.dim()}D tensor instead"
            )
        batched = input.dim() == 3
        if not batched:
            input = input.reshape(input.shape[0], 1, input.shape[1])
        elif self.batch_first:
            input = _swap01(input)
        output, hidden = self._recur(input, hx, batched)
        if not batched:
            output = output.reshape(output.shape[0], output.shape[2])
            hidden = [h.reshape(h.shape[0], h.shape[2]) for h in hidden]
        elif self.batch_first:
            output = _swap01(output)
        return output, (tuple(hidden) if self.mode == "LSTM" else hidden[0])

    def _forward_packed(self, input: PackedSequence, hx):
        """Run the padded batch in sorted order with its lengths; pack the output, and give
        the final states back in the caller's order."""
        if input.data.dim() != 2:
            raise RuntimeError(f"input must have 2 dimensions, got {input.data.dim()}")
        batch_sizes = packing.host_ints(input.batch_sizes, self.mode)
        padded = packing.pad_time_major(input.data, batch_sizes)
        if hx is not None and input.sorted_indices is not None:
            order = input.sorted_indices
            hx = (
                tuple(h.index_select(1, order) for h in hx)
                if self.mode == "LSTM"
                else (hx.index_select(1, order))
            )
        lengths = packing.int64_tensor(packing.lengths_of(batch_sizes))
        output, hidden = self._recur(padded, hx, True, lengths)
        data = packing.pack_time_major(output, batch_sizes)
        output = PackedSequence(data, *input[1:])
        if input.unsorted_indices is not None:
            hidden = [h.index_select(1, input.unsorted_indices) for h in hidden]
        return output, (tuple(hidden) if self.mode == "LSTM" else hidden[0])

    def _recur(self, input, hx, batched: bool, lengths=None):
        """The recurrence over time-major (L, N, H_in) input: (output, final states).

        `lengths` (int64, one per batch element) marks steps past a sequence's end."""
        directions = 2 if self.bidirectional else 1
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                f"{input.shape[-1]}"
            )
        batch = input.shape[1]
        expected = (self.num_layers * directions, batch, self.hidden_size)
        h_size = (self.num_layers * directions, batch, self.proj_size or self.hidden_size)
        is_lstm = self.mode == "LSTM"
        sizes = [h_size, expected] if is_lstm else [expected]
        labels = ["hidden[0]", "hidden[1]"] if self.proj_size else ["hidden", "cell"]
        if hx is None:
            states = [_arrays.filled(size, 0, input.dtype) for size in sizes]
        else:
            states = list(hx) if is_lstm else [hx]
            if not batched:
                for s in states:
                    if s.dim() != 2:
                        raise RuntimeError(
                            f"For unbatched 2-D input, hx should also be 2-D but got {s.dim()}-D "
                            "tensor"
                        )
                states = [s.reshape(s.shape[0], 1, s.shape[1]) for s in states]
            elif any(s.dim() != 3 for s in states):
                raise RuntimeError(
                    f"For batched 3-D input, hx should also be 3-D but got "
                    f"{states[0].dim()}-D tensor"
                )
            for s, size, label in zip(states, sizes, labels):
                if tuple(s.shape) != size:
                    raise RuntimeError(f"Expected {label} size {size}, got {list(s.shape)}")
        extra = list(self._flat_weights)
        dropout_p = self.dropout if self.training and self.num_layers > 1 else 0.0
        if dropout_p > 0:
            extra.append(_random.default_generator.next_key())
        packed = {} if lengths is None else {"packed": True}
        results = apply(
            RNN_OPS[self.mode],
            input,
            *states,
            *([] if lengths is None else [lengths]),
            *extra,
            mode=self.mode,
            nonlinearity=self._nonlinearity(),
            num_layers=self.num_layers,
            directions=directions,
            has_bias=bool(self.bias),
            dropout_p=float(dropout_p),
            projected=bool(self.proj_size),
            **packed,
        )
        output, *hidden = results
        return output, hidden


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu).

    Args:
        input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True,
        batch_first=False, dropout=0.0, bidirectional=False.
    """

    def __init__(self, *args, **kwargs) -> None:
        names = [
            "input_size",
            "hidden_size",
            "num_layers",
            "nonlinearity",
            "bias",
            "batch_first",
            "dropout",
            "bidirectional",
        ]
        values = dict(zip(names, args))
        values.update(kwargs)
        self.nonlinearity = values.pop("nonlinearity", "tanh")
        if self.nonlinearity not in ("tanh", "relu"):
            raise ValueError(
                f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__("RNN", **values)

    def _nonlinearity(self) -> str:
        return self.nonlinearity


class LSTM(RNNBase):
    """Long short-term memory; returns (output, (h_n, c_n)). Gates are ordered i, f, g, o.

    Example::

        >>> lstm = nn.LSTM(10, 20, num_layers=2, batch_first=True)
        >>> out, (h, c) = lstm(torch.randn(3, 5, 10))
        >>> out.shape, h.shape
        (torch.Size([3, 5, 20]), torch.Size([2, 3, 20]))
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """Gated recurrent unit; gates are ordered r, z, n as in PyTorch."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("GRU", *args, **kwargs)


class RNNCellBase(Module):
    _mode = "RNN"

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device, dtype
    ) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(
            _arrays.empty((num_chunks * hidden_size, input_size), device=device, dtype=dtype)
        )
        self.weight_hh = Parameter(
            _arrays.empty((num_chunks * hidden_size, hidden_size), device=device, dtype=dtype)
        )
        if bias:
            self.bias_ih = Parameter(
                _arrays.empty(num_chunks * hidden_size, device=device, dtype=dtype)
            )
            self.bias_hh = Parameter(
                _arrays.empty(num_chunks * hidden_size, device=device, dtype=dtype)
            )
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_uniform(self)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def _run(self, input, states, nonlinearity="tanh"):
        if input.dim() not in (1, 2):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead"
            )
        batched = input.dim() == 2
        if not batched:
            input = input.reshape(1, -1)
        if states is None:
            zeros = _arrays.filled((input.shape[0], self.hidden_size), 0, input.dtype)
            states = [zeros] * (2 if self._mode == "LSTM" else 1)
        else:
            states = [s if batched else s.reshape(1, -1) for s in states]
        weights = [self.weight_ih, self.weight_hh]
        if self.bias:
            weights += [self.bias_ih, self.bias_hh]
        result = apply(
            CELL_OPS[self._mode],
            input,
            *states,
            *weights,
            mode=self._mode,
            nonlinearity=nonlinearity,
            has_bias=bool(self.bias),
        )
        if self._mode == "LSTM":
            h, c = result
            return (h, c) if batched else (h.reshape(-1), c.reshape(-1))
        return result if batched else result.reshape(-1)


class RNNCell(RNNCellBase):
    """One Elman RNN step: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)."""

    def __init__(
        self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None
    ):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        return self._run(input, None if hx is None else [hx], self.nonlinearity)


class LSTMCell(RNNCellBase):
    """One LSTM step; returns (h', c')."""

    _mode = "LSTM"

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        return self._run(input, None if hx is None else list(hx))


class GRUCell(RNNCellBase):
    """One GRU step."""

    _mode = "GRU"

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        return self._run(input, None if hx is None else [hx])
