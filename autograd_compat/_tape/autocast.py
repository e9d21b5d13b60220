"""Autocast at op application: PyTorch's per-device op lists, and the input casts they ask for.

While autocast is on (see `_state/modes`), `apply` takes its slow path and asks `cast_inputs`
for the inputs an op runs on: an op on the device's lower-precision list runs in the autocast
dtype, one on its float32 list in float32, every other op on its inputs as given. Only floating
Tensors on that device are cast, never float64 ones, as in PyTorch; the casts are recorded
(ToCopyBackward0), so gradients reach the original tensors in their own dtype. The lists are
PyTorch's (the "Autocast Op Reference" of torch.amp) read as this library's op ids: the CPU
ones are checked against PyTorch 2.13 on CPU; the CUDA ones follow the documentation.
"""

from __future__ import annotations

from .._pure import device as _device
from .._pure import dtypes as _dtypes
from .._pure import float8
from .._pure.op import Op, register
from .._state import modes as _modes
from .._state.tensor import Tensor

CAST = register("to.dtype", float8.convert, node="ToCopyBackward0", saves="none")

_LOWER_BOTH = (
    "addbmm",
    "addmm",
    "baddbmm",
    "bmm",
    "convolution",
    "convolution.transposed",
    "einsum.view",
    "linear.addmm",
    "linear.mm",
    "linear.unsafe_view",
    "linear.view",
    "matmul.batched",
    "matmul.vector_matrix",
    "mm",
    "prelu",
    "scaled_dot_product_attention",
)
_FP32_BOTH = (
    "binary_cross_entropy_with_logits",
    "cross_entropy",
    "cross_entropy.label_smoothing",
    "cross_entropy.probs",
    "kl_div",
    "kl_div.batchmean",
    "kl_div.none",
    "kl_div.sum",
    "l1_loss",
    "mse_loss",
    "nll_loss",
    "prod",
    "prod.dim",
    "smooth_l1_loss",
)
_POLICIES: dict[str, dict[str, str]] = {
    "cpu": {
        **dict.fromkeys(
            _LOWER_BOTH
            + (
                "multi_head_attention_forward",
                "nn.rnn.lstm",
                "nn.rnn.rnn",
                "nn.rnn_cell.rnn",
                "tensordot",
            ),
            "lower",
        ),
        **dict.fromkeys(
            _FP32_BOTH
            + (
                "avg_pool3d",
                "binary_cross_entropy",
                "huber_loss",
                "linalg.inv_ex",
                "linalg.solve_ex",
                "max_pool3d",
                "pad.reflect",
                "pad.replicate",
                "quantile",
                "trace",
            ),
            "fp32",
        ),
    },
    "cuda": {
        **dict.fromkeys(_LOWER_BOTH + ("addmv", "addr", "mv"), "lower"),
        **dict.fromkeys(
            _FP32_BOTH
            + (
                "acos",
                "asin",
                "cosh",
                "cosine_similarity",
                "cumprod",
                "cumsum",
                "erfinv",
                "exp",
                "expm1",
                "group_norm",
                "layer_norm",
                "linalg.vector_norm",
                "log",
                "log10",
                "log1p",
                "log2",
                "log_softmax",
                "normalize",
                "pow",
                "pow.scalar_base",
                "pow.scalar_exponent",
                "reciprocal",
                "rsqrt",
                "sinh",
                "softmax",
                "softmin",
                "softplus",
                "sum",
                "sum.dim",
                "tan",
            ),
            "fp32",
        ),
    },
}


def _eligible(x, device_type: str) -> bool:
    """A floating Tensor, not float64, on a device of `device_type`: what autocast casts."""
    if not isinstance(x, Tensor):
        return False
    dtype = x.dtype
    return (
        dtype.is_floating_point
        and dtype is not _dtypes.float64
        and _device.of_array(x._value).type == device_type
    )


def _target(op_id: str, x, enabled: dict) -> _dtypes.dtype | None:
    """The dtype autocast gives input `x` of op `op_id` (None: `x` is used as it is)."""
    for device_type, lower in enabled.items():
        policy = _POLICIES.get(device_type, {}).get(op_id)
        if policy is not None and _eligible(x, device_type):
            target = lower if policy == "lower" else _dtypes.float32
            return None if x.dtype is target else target
    return None


def cast_targets(op: Op, inputs: tuple) -> tuple | None:
    """The dtype each input is cast to before `op` runs under this thread's autocast (None:
    kept as it is); None when autocast leaves `op` alone."""
    enabled = _modes._state.autocast
    op_id = op.id or ""  # derived ops (vjps) have no id: never cast
    if not any(op_id in _POLICIES.get(device_type, {}) for device_type in enabled):
        return None
    return tuple(_target(op_id, x, enabled) for x in inputs)


def unifies(*tensors: Tensor) -> bool:
    """True while autocast would give all `tensors` one dtype at a lower-precision op: a
    front end's same-dtype check lets them through (PyTorch casts before it checks)."""
    enabled = _modes._state.autocast
    return bool(enabled) and all(
        any(_eligible(t, device_type) for device_type in enabled) for t in tensors
    )
