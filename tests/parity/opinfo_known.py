"""What the database suites know in advance: the one list of skips per database (entry -> why
it cannot be replayed here), the xfails (entry -> what differs from PyTorch) and the entries
autograd_compat does not implement (strict xfails: an entry that starts passing fails the run
until it is taken off its list)."""

from __future__ import annotations

_ATEN = "aten internal: a torch.ops.aten overload, not public API"
_CUDA = "CUDA-only: PyTorch defines it for no CPU dtype"
_JITERATOR = "CUDA-only: torch.cuda.jiterator compiles CUDA kernels"
_SPARSE = "sparse: sparse layouts do not exist here"

OP_SKIPS: dict[str, str] = {
    "_softmax_backward_data": _ATEN,
    "_batch_norm_with_update": _ATEN,
    "_upsample_bilinear2d_aa": _ATEN,
    "torch.ops.aten._safe_softmax.default": _ATEN,
    "torch.ops.aten._flash_attention_forward": _ATEN,
    "torch.ops.aten._efficient_attention_forward": _ATEN,
    "slice": _ATEN,
    "native_dropout_backward": _ATEN,
    "max_pool2d_with_indices_backward": _ATEN,
    "torch._scaled_mm": _CUDA,
    "torch._scaled_mm_v2": _CUDA,
    "nn.functional.batch_norm.without_cudnn": _CUDA,
    "jiterator_unary": _JITERATOR,
    "jiterator_binary": _JITERATOR,
    "jiterator_4inputs_with_extra_args": _JITERATOR,
    "jiterator_binary_return_by_ref": _JITERATOR,
    "jiterator_2inputs_2outputs": _JITERATOR,
    "sparse.sampled_addmm": _SPARSE,
    "sparse.mm.reduce": _SPARSE,
    "to_sparse": _SPARSE,
}

_RANDOM = "random: drawn from a stream of its own, not PyTorch's"
_SIGNS = "singular vectors are unique up to sign, and LAPACK's and XLA's signs differ"
_UNSET = "uninitialized memory: PyTorch leaves the values unspecified"
# Ops whose values cannot be compared: only shapes and dtypes are. Every other random op is
# compared by value: both generators are seeded alike before each call (opinfo_ops.SEED).
OP_UNDEFINED_VALUES: dict[str, str] = {
    **dict.fromkeys(
        [
            "cauchy",
            "geometric",
            "log_normal",
            "nn.functional.alpha_dropout",
            "nn.functional.feature_alpha_dropout.with_train",
            "nn.functional.rrelu",
            "nn.functional.fractional_max_pool2d",
            "nn.functional.fractional_max_pool3d",
        ],
        _RANDOM,
    ),
    **dict.fromkeys(["svd_lowrank", "pca_lowrank"], _SIGNS),
    **dict.fromkeys(
        [
            "empty",
            "empty_like",
            "empty_permuted",
            "empty_strided",
            "new_empty",
            "new_empty_strided",
        ],
        _UNSET,
    ),
}

OP_WRONG: dict[str, str] = {
    "linalg.eigh": (
        "eigenvector signs: XLA's eigh returns some eigenvectors negated against LAPACK's "
        "(the eigenvalues agree)"
    ),
    "linalg.lstsq": "float32 gradient in A differs from PyTorch's by up to 5.1e-3",
    "linalg.lstsq.grad_oriented": "float32 gradient in A differs from PyTorch's by up to 5.1e-3",
    "logcumsumexp": (
        "float32 gradient of the sample whose entries are 1e4 differs by up to 1.8e-3"
    ),
    "matrix_exp": (
        "float32 values of a 5x5 matrix with entries up to 8.5 (results near 6e4) differ "
        "beyond rtol 1e-4"
    ),
}
OP_MISSING: set[str] = {
    "_segment_reduce.lengths",
    "_segment_reduce.offsets",
    "as_strided",
    "as_strided.partial_views",
    "as_strided_copy",
    "as_strided_scatter",
    "cauchy",
    "chalf",
    "geometric",
    "geqrf",
    "grid_sampler_2d",
    "grid_sampler_3d",
    "histogramdd",
    "istft",
    "linalg.eig",
    "linalg.householder_product",
    "linalg.ldl_factor",
    "linalg.ldl_factor_ex",
    "linalg.ldl_solve",
    "linalg.lu",
    "log_normal",
    "nn.functional.fractional_max_pool2d",
    "nn.functional.fractional_max_pool3d",
    "nn.functional.linear_cross_entropy",
    "nn.functional.linear_cross_entropy.chunked",
    "nn.functional.linear_cross_entropy.chunked_none",
    "nn.functional.triplet_margin_with_distance_loss",
    "ormqr",
    "pca_lowrank",
    "stft",
}

MODULE_SKIPS: dict[str, str] = {
    "nn.TransformerEncoder": (
        "its constructor takes a PyTorch TransformerEncoderLayer object, which the harness "
        "cannot turn into autograd_compat's"
    ),
}
MODULE_WRONG: dict[str, str] = {
    "nn.KLDivLoss": (
        "scalar sample (input and target one 0-d tensor, the log of a random value): "
        "PyTorch's input gradient is NaN, here 0.0012"
    ),
}
MODULE_MISSING: set[str] = {
    "nn.FractionalMaxPool2d",
    "nn.FractionalMaxPool3d",
    "nn.LinearCrossEntropyLoss",
}

OPTIM_SKIPS: dict[str, str] = {
    "SparseAdam": "sparse: it steps sparse gradients only, and sparse tensors do not exist here",
}
OPTIM_WRONG: dict[str, str] = {}
OPTIM_MISSING: set[str] = {
    "Muon",
}
