"""torch._dynamo.utils: `counters` of compilations ("stats") and graph breaks ("graph_break"),
and `is_compile_supported`."""

from .._compile.function import counters as counters

__all__ = ["counters", "is_compile_supported"]


def is_compile_supported(device_type) -> bool:
    """Whether torch.compile compiles for `device_type`: on every device JAX runs here (CPU
    and, where present, CUDA), since a compiled function is one XLA program."""
    return str(getattr(device_type, "type", device_type)).split(":")[0] in ("cpu", "cuda")
