"""torch.backends.cuda: `matmul.allow_tf32` (the float32 matmul precision, as in PyTorch) and
the reduced-precision switches; `is_built()` is False (no CUDA build of PyTorch here)."""

from __future__ import annotations

from ._settings import get_float32_matmul_precision, set_float32_matmul_precision


class _MatmulSettings:
    """`torch.backends.cuda.matmul`: allow_tf32 reads and sets the float32 matmul precision."""

    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True

    @property
    def allow_tf32(self) -> bool:
        return get_float32_matmul_precision() != "highest"

    @allow_tf32.setter
    def allow_tf32(self, value: bool) -> None:
        set_float32_matmul_precision("high" if value else "highest")


matmul = _MatmulSettings()


def is_built() -> bool:
    return False


def is_flash_attention_available() -> bool:
    return False


def flash_sdp_enabled() -> bool:
    return False


def mem_efficient_sdp_enabled() -> bool:
    return False


def math_sdp_enabled() -> bool:
    return True
