"""torch._higher_order_ops: the control-flow operators libraries import from PyTorch's
internals (run eagerly here: there is no graph to lower them into)."""

from .associative_scan import associative_scan

__all__ = ["associative_scan"]
