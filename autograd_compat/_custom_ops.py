"""torch._custom_ops: the older custom-op API, kept where libraries still import it
(torchvision's fake functions call `get_ctx`); the registrations are torch.library's."""

from .library import custom_op, get_ctx, impl_abstract, infer_schema
from .library import impl as _library_impl

__all__ = ["custom_op", "get_ctx", "impl", "impl_abstract", "infer_schema"]


def impl(qualname: str, *, device_types=("cpu", "cuda"), func=None):
    """Register a kernel of ``qualname`` for ``device_types`` (decorator when func is None)."""
    return _library_impl(qualname, list(device_types), func)
