"""torch.ao.quantization.stubs: the modules marking where a model is quantized and
dequantized; in float mode (before `prepare`/`convert`) each returns its input."""

from __future__ import annotations

from ...nn.modules.module import Module

__all__ = ["DeQuantStub", "QuantStub"]


class QuantStub(Module):
    """Where a quantized model quantizes its input: the identity in float mode.

    Args:
        qconfig: the quantization configuration, kept as the `qconfig` attribute.
    """

    def __init__(self, qconfig=None) -> None:
        super().__init__()
        if qconfig:
            self.qconfig = qconfig

    def forward(self, x):
        return x


class DeQuantStub(Module):
    """Where a quantized model dequantizes its output: the identity in float mode.

    Args:
        qconfig: the quantization configuration, kept as the `qconfig` attribute.
    """

    def __init__(self, qconfig=None) -> None:
        super().__init__()
        if qconfig:
            self.qconfig = qconfig

    def forward(self, x):
        return x
