"""torch._dynamo.utils: `counters` of compilations ("stats") and graph breaks ("graph_break")."""

from .._compile.function import counters as counters

__all__ = ["counters"]
