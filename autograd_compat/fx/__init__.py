"""torch.fx: Python-level program capture.

`symbolic_trace` runs a module's forward on Proxies and records each operation into a
`Graph` of `Node`s; a `GraphModule` runs that graph as generated Python code. `Interpreter`
and `Transformer` run and rewrite graphs node by node, `replace_pattern` rewrites matches of
a pattern, and `passes.shape_prop.ShapeProp` records tensor metadata. One module per
PyTorch module, as in PyTorch.
"""

from . import passes
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
