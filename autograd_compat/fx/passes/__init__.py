"""torch.fx.passes: analyses over fx graphs (`shape_prop.ShapeProp`)."""

from . import shape_prop

__all__ = ["shape_prop"]
