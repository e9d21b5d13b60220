"""What torch.fx says when a program would be captured: not available yet."""

from __future__ import annotations


def unavailable(name: str) -> NotImplementedError:
    """The error for using `torch.fx.<name>`, which needs fx program capture."""
    return NotImplementedError(
        f"torch.fx.{name}: fx program capture is not available in autograd_compat yet (models "
        "run eagerly, and torch.compile compiles whole functions without an fx graph)"
    )


class Unavailable:
    """Base of the fx classes: subclassing works, constructing one raises."""

    def __init__(self, *args, **kwargs) -> None:
        raise unavailable(type(self).__qualname__)
