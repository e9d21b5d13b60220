"""torch.onnx.errors: the exporter's error types."""

__all__ = ["OnnxExporterError"]


class OnnxExporterError(RuntimeError):
    """Errors raised by the ONNX exporter (here: a malformed custom op registration)."""
