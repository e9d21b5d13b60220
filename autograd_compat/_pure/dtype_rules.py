"""PyTorch's dtype refusals: one table of rules keyed by op id, checked where an op is applied.

JAX promotes mixed dtypes (`float32 @ float64` is float64) and computes most functions of
integer, bool or complex arrays, where PyTorch refuses them with a RuntimeError or a
NotImplementedError naming the kernel and the dtype. A silent result of another dtype is
worse than an error, so each op PyTorch refuses for some dtypes has its rules here, under its
op id (an `Op` takes them from `CHECKS` by its id); `_tape/record.apply` checks them on the
dtypes of the op's tensor inputs before it runs, after autocast's casts, whichever front end
(`torch.X`, `Tensor.X`, `F.X`, a module) applied the op. Ops without rules pay one attribute
test.

Every message is PyTorch's text, with its dtype names: `scalar_name` ("Float", "Long") or
`cpp_name` ("float", "long int", "c10::Half").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

from . import dtypes as _dtypes

_F = (np.float16, jnp.bfloat16, np.float32, np.float64)
_C = (np.complex64, np.complex128)
_I = (np.uint8, np.int8, np.int16, np.int32, np.int64)
FLOATING = frozenset(np.dtype(d) for d in _F)
INEXACT = FLOATING | frozenset(np.dtype(d) for d in _C)
NOT_BOOL = INEXACT | frozenset(np.dtype(d) for d in _I)
NOT_COMPLEX = FLOATING | frozenset(np.dtype(d) for d in (*_I, np.bool_))
REAL_NOT_BOOL = NOT_BOOL - INEXACT | FLOATING
ALL = frozenset(np.dtype(d) for d in (*_F, *_C, *_I, np.bool_))
INDEX = frozenset(np.dtype(d) for d in (np.int32, np.int64))
# Kernels dispatched on float and double alone: integer and bool inputs compute in float.
REAL_NOT_HALF = (
    NOT_COMPLEX - frozenset(np.dtype(d) for d in (np.float16, jnp.bfloat16))
) | frozenset(np.dtype(d) for d in (np.uint16, np.uint32, np.uint64))
_BOOL = frozenset((np.dtype(np.bool_),))

# The names C++'s typeid gives PyTorch's element types, which some of its messages print.
_CPP_NAMES = {
    "float16": "c10::Half",
    "bfloat16": "c10::BFloat16",
    "float32": "float",
    "float64": "double",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
    "uint8": "unsigned char",
    "int8": "signed char",
    "int16": "short int",
    "int32": "int",
    "int64": "long int",
    "bool": "bool",
}


def scalar_name(dtype) -> str:
    """PyTorch's ScalarType name of a numpy dtype ("Float", "Long", "ComplexFloat")."""
    return _dtypes.scalar_type_name(_dtypes.from_jax(dtype))


def cpp_name(dtype) -> str:
    """The C++ type name PyTorch prints for a numpy dtype ("float", "long int")."""
    return _CPP_NAMES.get(np.dtype(dtype).name, np.dtype(dtype).name)


class Refuse(NamedTuple):
    """PyTorch's `error(message)` when the dtype at `position` (an input, or the static
    argument of that name) is not one of `accepts`. The message is formatted with the refused
    dtype's ScalarType name as `{0}` and the static arguments by name; a callable `message`
    is given the arrays and static arguments and returns that template."""

    accepts: frozenset
    message: str | Callable
    error: type = NotImplementedError
    position: int | str = 0

    def uniform(self) -> frozenset:
        """The dtypes that pass when every tensor input has that one dtype (none is known
        to for a static dtype argument)."""
        return self.accepts if isinstance(self.position, int) else frozenset()

    def check(self, arrays: list, static: dict) -> None:
        position = self.position
        if isinstance(position, str):  # a static argument naming a dtype (softmax's `dtype`)
            found = static.get(position)
            if found is None:
                return
            dtype = np.dtype(found)
        elif position < len(arrays) and arrays[position] is not None:
            dtype = arrays[position].dtype
        else:  # a missing optional input, a Python scalar
            return
        if dtype in self.accepts:
            return
        message = self.message if isinstance(self.message, str) else self.message(arrays, static)
        raise self.error(message.format(scalar_name(dtype), **static))


def _kernel_text(name: str) -> str:
    return f'"{name}" not implemented for ' + "'{0}'"


def kernel(name: str, accepts: frozenset = FLOATING, position: int | str = 0) -> Refuse:
    """PyTorch's `"<kernel>" not implemented for '<dtype>'` (NotImplementedError) for a dtype
    outside `accepts` at `position`; `name` may use the static arguments (`{rounding_mode}`)."""
    return Refuse(accepts, _kernel_text(name), NotImplementedError, position)


def require_kernel(name: str, dtype, accepts: frozenset = INEXACT) -> None:
    """`kernel(name, accepts)`'s error for a call that applies no op: a factory making `dtype`
    (a numpy dtype), which PyTorch's kernel `name` fills."""
    if np.dtype(dtype) not in accepts:
        raise NotImplementedError(_kernel_text(name).format(scalar_name(dtype)))


class Same(NamedTuple):
    """PyTorch's RuntimeError(message) unless the inputs at `compared` (default: `positions`)
    share one dtype; `{0}`, `{1}`... in the message name the dtypes at `positions` (`cpp`:
    C++ names). Skipped when an input it compares is absent (an optional bias).

    Every rule's `check(arrays, static)` raises PyTorch's error or returns; `arrays` holds each
    input's array (anything with `.dtype` and `.ndim`) or None for a non-tensor input."""

    message: str | Callable
    positions: tuple = (0, 1)
    cpp: bool = False
    compared: tuple | None = None

    def uniform(self) -> frozenset:
        return ALL

    def check(self, arrays: list, static: dict) -> None:
        first = None
        count = len(arrays)
        for position in self.compared or self.positions:
            if position >= count or arrays[position] is None:
                return
            dtype = arrays[position].dtype
            if first is None:
                first = dtype
            elif dtype != first:
                break
        else:
            return
        name = cpp_name if self.cpp else scalar_name
        names = [name(arrays[p].dtype) for p in self.positions]
        message = self.message if isinstance(self.message, str) else self.message(arrays, static)
        raise RuntimeError(message.format(*names))


_AVERAGED = FLOATING | {np.dtype(np.int64)}  # avg_pool's kernels: no other integer type
_NO_MEAN = Refuse(
    INEXACT,
    "mean(): could not infer output dtype. Input dtype must be either a floating point or "
    "complex dtype. Got: {0}",
    RuntimeError,
)
_VECTOR_NORM = Refuse(
    INEXACT,
    "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {0}",
    RuntimeError,
)
_KL_DIV = tuple(
    Refuse(accepts, f"kl_div: {kind} inputs not supported.", RuntimeError, position)
    for accepts, kind in ((INEXACT, "Integral"), (NOT_COMPLEX, "Complex"))
    for position in (0, 1)
)
_IMAGES = FLOATING | {np.dtype(np.uint8)}  # the resize kernels that take uint8 images
_MIXED_INPUTS = frozenset(np.dtype(d) for d in (np.float32, np.float16, jnp.bfloat16))


class Normalization(NamedTuple):
    """A normalization's checks on CPU: a floating input (else `kernel`'s error), then its
    parameters (the weight and bias present from position `affine`, then the running
    statistics at `statistics`): all of the input's dtype, or, where the first differs
    ("mixed"), a float32, float16 or bfloat16 input with float32 parameters."""

    kernel: str
    affine: int
    statistics: tuple = ()

    def uniform(self) -> frozenset:
        return FLOATING

    def check(self, arrays: list, static: dict) -> None:
        x = arrays[0].dtype
        kernel(self.kernel).check(arrays, static)
        count = int(static["has_weight"]) + int(static["has_bias"])
        positions = (*range(self.affine, self.affine + count), *self.statistics)
        params = [arrays[p].dtype for p in positions]
        if not params or params[0] == x:
            for p in params:
                if p != x:
                    raise RuntimeError(_SCALAR_TYPE.format(scalar_name(x), scalar_name(p)))
        elif x not in _MIXED_INPUTS:
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
        elif any(p != np.float32 for p in params):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")


class _SubtractBool(NamedTuple):
    """PyTorch refuses `-` with a bool tensor (`~` or `^` is meant): its texts for one or two."""

    def uniform(self) -> frozenset:
        return NOT_BOOL

    def check(self, arrays: list, static: dict) -> None:
        bools = [a is not None and a.dtype == np.bool_ for a in arrays[:2]]
        if bools == [True, True]:
            raise RuntimeError(_SUB_BOOL)
        if True in bools:
            raise RuntimeError(
                "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                "trying to invert a mask, use the `~` or `logical_not()` operator instead."
            )


class _AdaptiveAverage(NamedTuple):
    """adaptive_avg_pool1d/2d's kernel refuses integers; 3d is composed from mean()."""

    def uniform(self) -> frozenset:
        return FLOATING

    def check(self, arrays: list, static: dict) -> None:
        if len(static["axes"]) < 3:
            kernel("adaptive_avg_pool2d").check(arrays, static)
        else:
            _NO_MEAN.check(arrays, static)


# ----------------------------------------------------------------------------- the rules
_M1_M2 = "expected m1 and m2 to have the same dtype, but got: {0} != {1}"
_SCALAR_TYPE = "expected scalar type {0} but found {1}"
_ADDMV = "addmv input tensors must have the same dtype, but got {0}, {1}, and {2}"
_SELF_MAT2 = "self and mat2 must have the same dtype, but got {0} and {1}"
_MAT1_MAT2 = "mat1 and mat2 must have the same dtype, but got {0} and {1}"
_BIAS = "Input type ({0}) and bias type ({1}) should be the same"
_MM = Same(_M1_M2, cpp=True)
_MV = Same(_ADDMV, (1, 0, 1))
_BMM = Same(_SCALAR_TYPE)
_DOT = Same("dot : expected both vectors to have same dtype, but found {0} and {1}")
_ADDMM_KERNEL = kernel("addmm_impl_cpu_", NOT_BOOL)
_COMPLEX_CLAMP = Refuse(NOT_COMPLEX, "clamp is not supported for complex types")
_COMPLEX_SORT = Refuse(NOT_COMPLEX, " Sort does not support complex dtypes on CPU", RuntimeError)


class _BatchedMatmul:
    """matmul of a batch: PyTorch folds it into mv, mm or bmm, whose texts differ."""

    __slots__ = ()

    def uniform(self) -> frozenset:
        return _passing(RULES["mv"] + RULES["mm"] + RULES["bmm"])

    def check(self, arrays: list, static: dict) -> None:
        for rule in RULES[_FOLDED[min(arrays[1].ndim, 3)]]:
            rule.check(arrays, static)


_FOLDED = {1: "mv", 2: "mm", 3: "bmm"}


def _by_spatial_dims(*names: str) -> Callable:
    """A convolution kernel's refusal, named by its spatial dims (1, 2, 3): the weight's
    ndim less 2."""

    def message(arrays: list, static: dict) -> str:
        return _kernel_text(names[arrays[1].ndim - 3])

    return message


def _softmax_kernel(name: str) -> Callable:
    """softmax's kernel name: PyTorch's "lastdim" kernel runs along the last dim only."""

    def message(arrays: list, static: dict) -> str:
        dim = static.get("dim")
        last = dim is None or dim == arrays[0].ndim - 1
        return _kernel_text(f"{name}_lastdim_kernel_impl" if last else f"{name}_kernel_impl")

    return message


def _class_log_softmax(arrays: list, static: dict) -> str:
    """cross_entropy's log_softmax runs along dim 1: the last one of a 1-D or 2-D input."""
    last = "_lastdim" if arrays[0].ndim <= 2 else ""
    return _kernel_text(f"log_softmax{last}_kernel_impl")


_SUB_BOOL = (
    "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
    "`logical_xor()` operator instead."
)

RULES: dict[str, tuple] = {
    # matrix products: PyTorch never promotes their operands
    "mm": (_MM, _ADDMM_KERNEL),
    "matmul.vector_matrix": (_MM, _ADDMM_KERNEL),
    "matmul.batched": (_BatchedMatmul(),),
    "dot": (_DOT, kernel("dot", NOT_BOOL)),
    "vdot": (_DOT, kernel("dot", NOT_BOOL)),
    "mv": (_MV, kernel("addmv_impl_cpu", NOT_BOOL)),
    "bmm": (_BMM, kernel("bmm", NOT_BOOL)),
    "einsum.view": (_BMM, kernel("bmm", NOT_BOOL)),  # a contraction: PyTorch's einsum runs bmm
    "tensordot": (_ADDMM_KERNEL,),
    "addmm": (Same(_SELF_MAT2, (0, 2)), Same(_MAT1_MAT2, (1, 2)), _ADDMM_KERNEL),
    "addbmm": (Same(_SELF_MAT2, (0, 2)), Same(_MAT1_MAT2, (1, 2)), _ADDMM_KERNEL),
    "addmv": (Same(_ADDMV, (0, 1, 2)), kernel("addmv_impl_cpu", NOT_BOOL)),
    "baddbmm": (
        Same(
            "Input dtypes must be the same, got: input {0}, batch1: {1}, batch2: {2}",
            (0, 1, 2),
            cpp=True,
            compared=(0, 1),
        ),
        Same(_SCALAR_TYPE, (1, 2)),
        kernel("baddbmm", NOT_BOOL),
    ),
    "linear.mm": (_MM, _ADDMM_KERNEL),
    "linear.unsafe_view": (_MM, _ADDMM_KERNEL),
    "linear.addmm": (Same(_SELF_MAT2, (2, 1)), Same(_MAT1_MAT2), _ADDMM_KERNEL),
    "linear.view": (Same(_SELF_MAT2, (2, 1)), Same(_MAT1_MAT2), _ADDMM_KERNEL),
    "nn.rnn_cell.rnn": (Same(_MAT1_MAT2, (0, 2)),),  # (x, h, w_ih, ...): F.linear(x, w_ih)
    "nn.rnn_cell.gru": (Same(_MAT1_MAT2, (0, 2)),),
    "nn.rnn_cell.lstm": (Same(_MAT1_MAT2, (0, 3)),),  # (x, h, c, w_ih, ...)
    "convolution": (
        Same(_BIAS, (0, 2), cpp=True),
        Same(_SCALAR_TYPE),
        Refuse(
            NOT_BOOL, _by_spatial_dims("slow_conv2d_cpu", "slow_conv2d_cpu", "compute_columns3d")
        ),
    ),
    "convolution.transposed": (
        Same(_SCALAR_TYPE),
        Refuse(
            NOT_BOOL,
            _by_spatial_dims(
                "slow_conv_transpose2d_out_cpu",
                "slow_conv_transpose2d_out_cpu",
                "slow_conv_transpose3d_out_cpu",
            ),
        ),
    ),
    "scaled_dot_product_attention": (
        Same(
            "Expected query, key, and value to have the same dtype, but got query.dtype: {0} "
            "key.dtype: {1} and value.dtype: {2} instead.",
            (0, 1, 2),
            cpp=True,
        ),
        Refuse(INEXACT, _SCALAR_TYPE.replace("{0}", "Float").replace("{1}", "{0}"), RuntimeError),
        kernel("softmax_lastdim_kernel_impl", NOT_COMPLEX),
    ),
    "bilinear": (
        Same(
            "All tensors must have the same dtype, got input1: {0}, input2: {1}, weight: {2}, "
            "bias: {3}",
            (0, 1, 2, 3),
            cpp=True,
        ),
        kernel("bmm", NOT_BOOL),
    ),
    "bilinear.no_bias": (
        Same(
            "All tensors must have the same dtype, got input1: {0}, input2: {1}, weight: {2}",
            (0, 1, 2),
            cpp=True,
        ),
        kernel("bmm", NOT_BOOL),
    ),
    "linalg.cross": (Same(_SCALAR_TYPE), kernel("cross", NOT_BOOL)),
    "prelu": (Same("prelu: Type promoting not supported. Got {0} and {1}"), kernel("prelu_cpu")),
    # linear algebra
    "linalg.eigh": (kernel("linalg_eigh_cpu", INEXACT),),
    "linalg.eigvalsh": (kernel("linalg_eigh_cpu", INEXACT),),
    "linalg.solve_triangular": (kernel("triangular_solve_cpu", INEXACT),),
    "linalg.lu_factor_ex": (kernel("lu_cpu", INEXACT),),
    "linalg.lu_solve": (kernel("lu_cpu", INEXACT),),
    "linalg.lstsq": (
        Refuse(
            INEXACT, "This function doesn't handle types other than float and double", RuntimeError
        ),
        Same(
            "torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
            "input's dtype {0} and other's dtype {1}"
        ),
    ),
    "dist": (
        _SubtractBool(),
        Refuse(
            INEXACT,
            "norm(): input dtype should be either floating point or complex. Got {0} instead.",
            RuntimeError,
        ),
    ),
    "renorm": (_VECTOR_NORM,),
    "normalize": (_VECTOR_NORM,),
    "cosine_similarity": (
        Refuse(
            FLOATING,
            "expected common dtype to be floating point, yet common dtype is {0}",
            RuntimeError,
        ),
    ),
    "unfold": (kernel("im2col_out_cpu", INEXACT | _BOOL),),
    "fold": (kernel("col2im_out_cpu", INEXACT | _BOOL),),
    "grid_sampler_2d": (kernel("grid_sampler_2d_cpu_kernel_impl"),),
    "grid_sampler_3d": (kernel("grid_sampler3d_cpu"),),
    "interpolate.nearest1d": (kernel("compute_indices_weights_nearest", _IMAGES),),
    "interpolate.nearest2d": (kernel("upsample_nearest2d_channels_last", _IMAGES),),
    "interpolate.nearest3d": (kernel("compute_indices_weights_nearest", _IMAGES),),
    "interpolate.linear": (kernel("compute_indices_weights_linear"),),
    "interpolate.bilinear": (kernel("upsample_bilinear2d_channels_last", _IMAGES),),
    "interpolate.trilinear": (kernel("compute_indices_weights_linear"),),
    "kl_div": _KL_DIV,
    "kl_div.sum": _KL_DIV,
    "kl_div.batchmean": _KL_DIV,
    "kl_div.none": _KL_DIV,
    # floating kernels
    "softmax": (Refuse(FLOATING, _softmax_kernel("softmax"), position="dtype"),),
    "softmin": (
        Refuse(
            NOT_BOOL,
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead.",
            RuntimeError,
        ),
        Refuse(FLOATING, _softmax_kernel("softmax"), position="dtype"),
    ),
    "log_softmax": (Refuse(FLOATING, _softmax_kernel("log_softmax"), position="dtype"),),
    "gelu": (kernel("GeluKernelImpl"),),
    "silu": (kernel("silu_cpu", INEXACT),),
    "mish": (kernel("mish_cpu"),),
    "elu": (kernel("elu_cpu"),),
    "softplus": (kernel("softplus_cpu"),),
    "leaky_relu": (kernel("leaky_relu_cpu"),),
    "hardsigmoid": (kernel("hardsigmoid_cpu"),),
    "hardswish": (kernel("hardswish_cpu"),),
    "logsigmoid": (kernel("log_sigmoid_cpu"),),
    "binary_cross_entropy_with_logits": (kernel("log_sigmoid_cpu"),),
    "glu": (kernel("glu_cpu"),),
    "hardshrink": (kernel("hardshrink_cpu"),),
    "lerp": (kernel("lerp_kernel_tensor", INEXACT),),
    "lerp.scalar": (kernel("lerp_kernel_scalar", INEXACT),),
    "hardtanh": (
        Refuse(NOT_BOOL, "Bool inputs not supported for hardtanh", RuntimeError),
        _COMPLEX_CLAMP,
    ),
    "threshold": (kernel("threshold_cpu", REAL_NOT_BOOL),),
    "layer_norm": (Normalization("LayerNormKernelImpl", 2),),
    "group_norm": (Normalization("GroupNormKernelImpl", 2),),
    "batch_norm": (Normalization("batch_norm", 2),),
    "batch_norm.eval": (Normalization("batch_norm", 4, (1, 2)),),
    "dropout": (
        Refuse(
            INEXACT, "result type Float can't be cast to the desired output type {0}", RuntimeError
        ),
        kernel("bernoulli_scalar_cpu_", NOT_COMPLEX),
    ),
    "max_pool1d": (kernel("max_pool1d_impl"),),
    "max_pool2d": (kernel("max_pool2d", REAL_NOT_BOOL),),
    "max_pool3d": (kernel("max_pool3d", REAL_NOT_BOOL),),
    "round": (kernel("round_vml_cpu", REAL_NOT_BOOL),),
    "round.decimals": (kernel("round_cpu"),),
    "sub": (_SubtractBool(),),
    "sub.alpha": (_SubtractBool(),),
    "rsub": (_SubtractBool(),),
    "rsub.scalar": (_SubtractBool(),),
    "mse_loss": (kernel("mse_cpu"),),
    "l1_loss": (Refuse(NOT_BOOL, _SUB_BOOL, RuntimeError), _NO_MEAN),
    "cross_entropy": (Refuse(FLOATING, _class_log_softmax), Same(_SCALAR_TYPE, (0, 2))),
    "cross_entropy.label_smoothing": (
        Refuse(FLOATING, _class_log_softmax),
        Same(_SCALAR_TYPE, (0, 2)),
    ),
    "nll_loss": (Same(_SCALAR_TYPE, (0, 2)),),
    "avg_pool1d": (kernel("avg_pool2d", _AVERAGED),),
    "avg_pool2d": (kernel("avg_pool2d", _AVERAGED),),
    "avg_pool3d": (kernel("avg_pool3d_out_frame", _AVERAGED),),
    "adaptive_avg_pool": (_AdaptiveAverage(),),
    "addcmul": (kernel("addcmul_cpu_out", NOT_BOOL),),
    "searchsorted": (kernel("searchsorted_out_cpu", NOT_BOOL),),
    "smooth_l1_loss": (kernel("smooth_l1_cpu"),),
    "huber_loss": (kernel("huber_cpu"),),
    "binary_cross_entropy": (
        kernel("binary_cross_entropy"),
        Same("Found dtype {1} but expected {0}"),
    ),
    "cdist": (
        kernel("cdist", frozenset(np.dtype(d) for d in (np.float32, np.float64))),
        Same(_SCALAR_TYPE),
    ),
    # ops without a complex (or a bool) kernel
    "relu": (
        Refuse(NOT_BOOL, "Boolean inputs not supported for relu", RuntimeError),
        _COMPLEX_CLAMP,
    ),
    "clamp": (_COMPLEX_CLAMP,),
    "clamp_min": (_COMPLEX_CLAMP,),
    "clamp_max": (_COMPLEX_CLAMP,),
    "clamp.tensor": (_COMPLEX_CLAMP,),
    "lt": (kernel("lt_cpu", NOT_COMPLEX),),
    "le": (kernel("le_cpu", NOT_COMPLEX),),
    "gt": (kernel("gt_cpu", NOT_COMPLEX),),
    "ge": (kernel("ge_cpu", NOT_COMPLEX),),
    "max": (kernel("max_all", NOT_COMPLEX),),
    "min": (kernel("min_all", NOT_COMPLEX),),
    "amax": (kernel("max_values_cpu", NOT_COMPLEX),),
    "amin": (kernel("min_values_cpu", NOT_COMPLEX),),
    "max.dim": (Refuse(NOT_COMPLEX, "max(): does not support complex input", RuntimeError),),
    "min.dim": (Refuse(NOT_COMPLEX, "min(): does not support complex input", RuntimeError),),
    "argmax": (Refuse(NOT_COMPLEX, "argmax(): does not support complex input", RuntimeError),),
    "maximum": (Refuse(NOT_COMPLEX, "maximum not implemented for complex tensors.", RuntimeError),),
    "minimum": (Refuse(NOT_COMPLEX, "minimum not implemented for complex tensors.", RuntimeError),),
    "sort": (_COMPLEX_SORT,),
    "sort.stable": (_COMPLEX_SORT,),
    "topk": (Refuse(NOT_COMPLEX, " topk does not support complex dtypes on CPU", RuntimeError),),
    "div.rounding_mode": (kernel("div_{rounding_mode}_cpu", REAL_NOT_BOOL),),
    "kthvalue": (kernel("kthvalue_cpu", REAL_NOT_BOOL),),
    "median": (kernel("median_cpu", REAL_NOT_BOOL),),
    "median.dim": (kernel("median_out", REAL_NOT_BOOL),),
    "cummax": (kernel("cummax_cpu", NOT_COMPLEX),),
    "cummin": (kernel("cummin_cpu", NOT_COMPLEX),),
    "remainder": (kernel("remainder_cpu", NOT_COMPLEX),),
    "remainder.scalar": (kernel("remainder_cpu", NOT_COMPLEX),),
    "fmod": (kernel("fmod_cpu", NOT_COMPLEX),),
    "fmod.scalar": (kernel("fmod_cpu", NOT_COMPLEX),),
    "atan2": (kernel("atan2_cpu", NOT_COMPLEX),),
    "hypot.tensor": (kernel("hypot_cpu", NOT_COMPLEX),),
    "erf": (kernel("erf_vml_cpu", NOT_COMPLEX),),
    "floor": (Refuse(NOT_COMPLEX, "floor is not supported for complex inputs"),),
    "sign": (
        Refuse(
            NOT_COMPLEX,
            "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use "
            "torch.sgn instead.",
        ),
    ),
    "ceil": (Refuse(NOT_COMPLEX, "ceil is not supported for complex inputs"),),
    "trunc": (Refuse(NOT_COMPLEX, "trunc is not supported for complex inputs"),),
    "fmax": (Refuse(NOT_COMPLEX, "fmax not implemented for complex tensors.", RuntimeError),),
    "fmin": (Refuse(NOT_COMPLEX, "fmin not implemented for complex tensors.", RuntimeError),),
    "floor_divide": (kernel("div_floor_cpu", NOT_COMPLEX),),
    "remainder.scalar_self": (kernel("remainder_cpu", NOT_COMPLEX),),
    "clamp_min.tensor": (kernel("maximum_cpu", NOT_COMPLEX),),
    "clamp_max.tensor": (kernel("minimum_cpu", NOT_COMPLEX),),
    "erfc": (kernel("erfc_vml_cpu", NOT_COMPLEX),),
    "erfinv": (kernel("erfinv_vml_cpu", NOT_COMPLEX),),
    "lgamma": (kernel("lgamma_vml_cpu", NOT_COMPLEX),),
    "digamma": (kernel("digamma", NOT_COMPLEX),),
    "deg2rad": (
        Refuse(NOT_COMPLEX, "deg2rad is not supported for complex tensors.", RuntimeError),
    ),
    "rad2deg": (
        Refuse(NOT_COMPLEX, "rad2deg is not supported for complex tensors.", RuntimeError),
    ),
    "logit": (kernel("logit_cpu", NOT_COMPLEX),),
    "xlogy.tensor": (kernel("xlogy_cpu", NOT_COMPLEX),),
    "xlogy.scalar_self": (kernel("xlogy_cpu", NOT_COMPLEX, 1),),
    "xlogy.scalar_other": (kernel("xlogy_cpu", NOT_COMPLEX),),
    "logaddexp2.tensor": (kernel("logaddexp2_cpu", NOT_COMPLEX),),
    "copysign.tensor": (kernel("copysign_cpu", NOT_COMPLEX),),
    "copysign.scalar_other": (kernel("copysign_cpu", NOT_COMPLEX),),
    "argsort": (_COMPLEX_SORT,),
    "nansum": (Refuse(NOT_COMPLEX, "nansum on CPU does not support complex inputs", RuntimeError),),
    "mode": (kernel("mode_cpu", NOT_COMPLEX),),
    "nanmedian": (kernel("median_cpu", NOT_COMPLEX),),
    "nanmedian.dim": (kernel("median_out", NOT_COMPLEX),),
    "signbit": (Refuse(NOT_COMPLEX, "signbit is not implemented for complex tensors."),),
    "nextafter": (kernel("nextafter_cpu", NOT_COMPLEX),),
    "i0": (kernel("i0_vml_cpu", NOT_COMPLEX),),
    "igamma": (kernel("igamma_cpu", NOT_COMPLEX),),
    "igammac": (kernel("igammac_cpu", NOT_COMPLEX),),
    "special.ndtr": (kernel("erf_vml_cpu", NOT_COMPLEX),),
    "special.ndtri": (kernel("ndtri_cpu", NOT_COMPLEX),),
    "special.log_ndtr": (kernel("log_ndtr_cpu", NOT_COMPLEX),),
    "special.i0e": (kernel("i0e_cpu", NOT_COMPLEX),),
    "special.i1": (kernel("i1_cpu", NOT_COMPLEX),),
    "special.i1e": (kernel("i1e_cpu", NOT_COMPLEX),),
    "special.erfcx": (kernel("erfcx_cpu", NOT_COMPLEX),),
    "special.entr": (kernel("entr_cpu", NOT_COMPLEX),),
    "special.xlog1py": (kernel("xlog1py_cpu", NOT_COMPLEX),),
    "special.zeta": (kernel("zeta_cpu", NOT_COMPLEX),),
    "hash_tensor": (kernel("xor_sum_cpu", NOT_COMPLEX),),
    "special.airy_ai": (kernel("airy_ai_cpu", REAL_NOT_HALF),),
    "special.bessel_j0": (kernel("bessel_j0_cpu", REAL_NOT_HALF),),
    "special.bessel_j1": (kernel("bessel_j1_cpu", REAL_NOT_HALF),),
    "special.bessel_y0": (kernel("bessel_y0_cpu", REAL_NOT_HALF),),
    "special.bessel_y1": (kernel("bessel_y1_cpu", REAL_NOT_HALF),),
    "special.modified_bessel_i0": (kernel("modified_bessel_i0_cpu", REAL_NOT_HALF),),
    "special.modified_bessel_i1": (kernel("modified_bessel_i1_cpu", REAL_NOT_HALF),),
    "special.modified_bessel_k0": (kernel("modified_bessel_k0_cpu", REAL_NOT_HALF),),
    "special.modified_bessel_k1": (kernel("modified_bessel_k1_cpu", REAL_NOT_HALF),),
    "special.scaled_modified_bessel_k0": (kernel("scaled_modified_bessel_k0_cpu", REAL_NOT_HALF),),
    "special.scaled_modified_bessel_k1": (kernel("scaled_modified_bessel_k1_cpu", REAL_NOT_HALF),),
    "special.spherical_bessel_j0": (kernel("spherical_bessel_j0_cpu", REAL_NOT_HALF),),
    "heaviside": (
        Refuse(NOT_COMPLEX, "heaviside is not yet implemented for complex tensors.", RuntimeError),
    ),
}


def _passing(rules: tuple) -> frozenset:
    """The dtypes that pass all of `rules` when every tensor input has that one dtype."""
    passing = ALL
    for rule in rules:
        passing = passing & rule.uniform()
    return passing


class Checks(NamedTuple):
    """An op's rules, and the dtypes that pass them all when every tensor input has that one
    dtype (`uniform`): the common call (float32 throughout) is answered by one set lookup
    before any rule runs."""

    rules: tuple
    uniform: frozenset


CHECKS = {op_id: Checks(rules, _passing(rules)) for op_id, rules in RULES.items()}
