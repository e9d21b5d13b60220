"""PyTorch's tensor printing: `tensor([[4.5000, 4.5000], ...], grad_fn=<MeanBackward0>)`.

Follows torch/_tensor_str.py's rules: precision 4, integer mode for whole-number floats,
scientific notation for wide ranges, 80-column wrapping and summarisation past 1000 elements
(3 edge items); `set_printoptions` changes them, as PyTorch's does.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from .._pure import dtypes as _dtypes
from .._pure import errors as _errors
from . import node as _graph
from .modes import modes

__all__ = ["set_printoptions"]


@dataclasses.dataclass
class PrintOptions:
    """The process-wide print settings (torch/_tensor_str.py's PRINT_OPTS); `sci_mode` None
    chooses scientific notation from the values."""

    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


OPTIONS = PrintOptions()
# profile -> (precision, threshold, edgeitems, linewidth)
_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}


def set_printoptions(
    precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None
) -> None:
    """Set how tensors print: digits after the point (`precision`), the element count past
    which a print is summarised (`threshold`), the items kept at each edge then
    (`edgeitems`), the line width, a `profile` ("default", "short", "full") setting the
    first four, and `sci_mode` (True/False forces scientific notation on or off; None, also
    whenever it is not passed, chooses from the values).

    Example::

        >>> torch.set_printoptions(precision=2)
        >>> torch.tensor([1.12345])
        tensor([1.12])
        >>> torch.set_printoptions(profile="default")
    """
    if profile in _PROFILES:
        values = _PROFILES[profile]
        OPTIONS.precision, OPTIONS.threshold, OPTIONS.edgeitems, OPTIONS.linewidth = values
    if precision is not None:
        OPTIONS.precision = precision
    if threshold is not None:
        OPTIONS.threshold = threshold
    if edgeitems is not None:
        OPTIONS.edgeitems = edgeitems
    if linewidth is not None:
        OPTIONS.linewidth = linewidth
    OPTIONS.sci_mode = sci_mode


class _Formatter:
    """Chooses one width and notation for every element, from the finite nonzero values."""

    def __init__(self, values: np.ndarray, floating: bool) -> None:
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not floating:
            for value in flat:
                self.max_width = max(self.max_width, len(self._plain(value)))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            return
        magnitudes = np.abs(finite).astype(np.float64)
        low, high = magnitudes.min(), magnitudes.max()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        automatic = high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4
        self.sci_mode = bool(automatic if OPTIONS.sci_mode is None else OPTIONS.sci_mode)
        precision = OPTIONS.precision
        if self.int_mode and not self.sci_mode:
            widths = [len(f"{v:.0f}") + 1 for v in finite.astype(np.float64)]
        else:
            spec = "e" if self.sci_mode else "f"
            widths = [len(f"{v:.{precision}{spec}}") for v in finite.astype(np.float64)]
        self.max_width = max([self.max_width, *widths])

    @staticmethod
    def _plain(value) -> str:
        if isinstance(value, (bool, np.bool_)):
            return str(bool(value))
        return str(value.item() if hasattr(value, "item") else value)

    def format(self, value) -> str:
        if self.floating:
            value = float(value)
            if self.sci_mode:
                text = f"{value:{self.max_width}.{OPTIONS.precision}e}"
            elif self.int_mode:
                text = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    text += "."
            else:
                text = f"{value:.{OPTIONS.precision}f}"
        else:
            text = self._plain(value)
        return (self.max_width - len(text)) * " " + text


class _ComplexFormatter:
    """PyTorch's complex elements: the real part, then the imaginary part with its sign and a
    j, each part with one formatter for all elements (torch/_tensor_str.py's two formatters)."""

    def __init__(self, values: np.ndarray) -> None:
        self.real = _Formatter(values.real, True)
        self.imag = _Formatter(values.imag, True)
        self.max_width = self.real.max_width + self.imag.max_width + 1

    def format(self, value) -> str:
        real = self.real.format(value.real)
        imag = (self.imag.format(value.imag) + "j").lstrip()
        return real + imag if imag[0] in "+-" else f"{real}+{imag}"


def _summarized(values: np.ndarray) -> np.ndarray:
    """The elements that a summarised print shows (edge items of every dimension; with no
    edge items, the whole of a 1-D array and nothing of a wider one, as PyTorch's slicing
    gives)."""
    edge = OPTIONS.edgeitems
    if values.ndim == 0:
        return values
    if values.ndim > 1 and not edge:
        return values[:0]
    if values.shape[0] > 2 * edge:
        parts = [values[:edge], values[-edge:]]
    else:
        parts = [values]
    return np.concatenate(
        [np.stack([_summarized(row) for row in part]) if part.ndim > 1 else part for part in parts]
    )


def _format_nd(values: np.ndarray, formatter, indent: int, summarize: bool) -> str:
    if values.ndim == 0:
        return formatter.format(values[()])
    edge = OPTIONS.edgeitems
    if values.ndim == 1:
        element_length = formatter.max_width + 2
        per_line = max(1, int(math.floor((OPTIONS.linewidth - indent) / element_length)))
        if summarize and not edge:
            items = ["..."]
        elif summarize and values.shape[0] > 2 * edge:
            items = (
                [formatter.format(v) for v in values[:edge]]
                + [" ..."]
                + [formatter.format(v) for v in values[-edge:]]
            )
        else:
            items = [formatter.format(v) for v in values]
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    if summarize and values.shape[0] > 2 * edge:
        rows = (
            [_format_nd(v, formatter, indent + 1, summarize) for v in values[:edge]]
            + ["..."]
            + [
                _format_nd(v, formatter, indent + 1, summarize)
                for v in values[len(values) - edge :]
            ]
        )
    else:
        rows = [_format_nd(v, formatter, indent + 1, summarize) for v in values]
    separator = "," + "\n" * (values.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(rows) + "]"


def _values(tensor) -> np.ndarray:
    value = tensor._value
    if tensor.dtype in (_dtypes.bfloat16, _dtypes.float16):
        return np.asarray(value.astype(np.float32))
    return np.asarray(value)


def tensor_repr(tensor, prefix: str = "tensor(") -> str:
    """PyTorch's repr of `tensor`, with its dtype, grad_fn and requires_grad suffixes."""
    if modes.captures:  # printing inside torch.compile shows values: run the call eagerly
        raise _errors.GraphBreak("a tensor printed or formatted")
    suffixes = []
    dtype = tensor.dtype
    device = tensor.device
    if device.type != "cpu":
        suffixes.append(f"device='{device}'")
    if device.type == "meta":  # no values: the size, and the dtype unless the default
        suffixes.append(f"size={tuple(tensor.shape)}")
        if dtype is not _dtypes.get_default_dtype():
            suffixes.append(f"dtype={dtype}")
        suffixes += _grad_suffix(tensor)
        return _add_suffixes(f"{prefix}...", suffixes, len(prefix))
    try:
        values = _values(tensor)
    except Exception:  # a traced value has no concrete elements to print
        return f"{prefix}<traced {list(tensor.shape)} {dtype}>)"
    indent = len(prefix)
    if values.size == 0:
        body = "[]"
        if values.ndim != 1:
            suffixes.append(f"size={tuple(values.shape)}")
    else:
        summarize = values.size > OPTIONS.threshold
        if not OPTIONS.edgeitems:  # PyTorch then shows the size, summarised or not
            suffixes.append(f"size={tuple(values.shape)}")
        shown = _summarized(values) if summarize else values
        formatter: _Formatter | _ComplexFormatter
        if dtype.is_complex:
            formatter = _ComplexFormatter(shown)
        else:
            formatter = _Formatter(shown, dtype.is_floating_point)
        body = _format_nd(values, formatter, indent, summarize)
    default = _dtypes.get_default_dtype()
    default_dtypes = (default, default.to_complex(), _dtypes.int64, _dtypes.bool)
    if dtype not in default_dtypes or (values.size == 0 and dtype is not default):
        suffixes.append(f"dtype={dtype}")
    suffixes += _grad_suffix(tensor)
    tangent = tensor._fw_grad
    if tangent is not None:  # forward AD; PyTorch shows a 0-dim tangent as a Python number
        suffixes.append(f"tangent={tangent.item() if tangent.ndim == 0 else tensor_repr(tangent)}")
    return _add_suffixes(prefix + body, suffixes, indent)


def _grad_suffix(tensor) -> list:
    """The grad_fn suffix, or requires_grad's for a leaf that requires grad."""
    if tensor.grad_fn is not None:
        return [f"grad_fn=<{_graph.type_name(tensor.grad_fn)}>"]
    return ["requires_grad=True"] if tensor.requires_grad else []


def _add_suffixes(text: str, suffixes: list, indent: int) -> str:
    """Append the suffixes, each on a new indented line where it would pass the line width
    (torch/_tensor_str.py's _add_suffixes, its arithmetic included)."""
    parts = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > OPTIONS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    return "".join(parts) + ")"
