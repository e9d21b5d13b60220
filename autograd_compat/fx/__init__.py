"""torch.fx: importable, with fx program capture not available yet.

Libraries use torch.fx at import time: `torch.fx.wrap` marks functions that a symbolic trace
should keep as calls (timm, torchvision), and classes subclass `fx.Tracer` or
`fx.GraphModule` (torchvision's feature extraction). Those work here: `wrap` registers the
name and returns its argument, and the classes exist. Capturing a program (`symbolic_trace`,
constructing a `Tracer`, `Graph`, `GraphModule`, `Proxy`, `Node` or `Interpreter`) raises a
NotImplementedError naming what was called. One module per PyTorch module, as in PyTorch, so
a full implementation fills them in place.
"""

from ._symbolic_trace import Tracer, symbolic_trace, wrap
from .graph import Graph
from .graph_module import GraphModule
from .interpreter import Interpreter, Transformer
from .node import Node, has_side_effect, map_arg
from .proxy import Proxy
from .subgraph_rewriter import replace_pattern

__all__ = [
    "Graph",
    "GraphModule",
    "Interpreter",
    "Node",
    "Proxy",
    "Tracer",
    "Transformer",
    "has_side_effect",
    "map_arg",
    "replace_pattern",
    "symbolic_trace",
    "wrap",
]
