"""torch.ao.quantization: `QuantStub` and `DeQuantStub` (identity modules in float mode, as in
PyTorch). Quantizing a model (`prepare`, `convert`, `fuse_modules`, qconfigs and observers)
is not available: those names import and raise when used."""

from __future__ import annotations

from ..._alias import missing_attribute as _missing_attribute
from ..._stand_ins import raising
from .stubs import DeQuantStub, QuantStub

__all__ = ["DeQuantStub", "QuantStub"]

_QUANTIZATION_ONLY = frozenset(
    {
        "QConfig",
        "convert",
        "default_observer",
        "default_per_channel_weight_observer",
        "default_weight_observer",
        "fuse_modules",
        "fuse_modules_qat",
        "get_default_qat_qconfig",
        "get_default_qconfig",
        "prepare",
        "prepare_qat",
        "quantize",
        "quantize_dynamic",
    }
)


def __getattr__(name: str):
    if name in _QUANTIZATION_ONLY:
        return raising(
            f"torch.ao.quantization.{name}",
            "quantization is not available in autograd_compat (models run in floating point; "
            "QuantStub and DeQuantStub are identities)",
        )

    return _missing_attribute(__name__, name)
