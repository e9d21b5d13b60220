"""torch.fx.subgraph_rewriter: `replace_pattern`, which finds the matches of a pattern
program in a GraphModule and replaces each with a replacement program."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from ._symbolic_trace import symbolic_trace
from .graph import Graph
from .graph_module import GraphModule
from .node import Node

__all__ = ["Match", "replace_pattern"]


class Match(NamedTuple):
    """One replaced match: its anchor (the node giving the pattern's output) and the map from
    pattern nodes to the matched nodes."""

    anchor: Node
    nodes_map: dict[Node, Node]


def _as_graph(program: Callable | GraphModule) -> Graph:
    return program.graph if isinstance(program, GraphModule) else symbolic_trace(program).graph


class _Matcher:
    """Matches a single-output pattern graph against nodes of a graph, backwards from the
    pattern's output; pattern placeholders match any value."""

    def __init__(self, pattern: Graph) -> None:
        output = next(n for n in pattern.nodes if n.op == "output")
        if not isinstance(output.args[0], Node):
            raise NotImplementedError("replace_pattern: patterns with several outputs")
        self.anchor = output.args[0]

    def match(self, node: Node) -> dict[Node, Node] | None:
        mapping: dict[Node, Node] = {}
        if not self._match_node(self.anchor, node, mapping):
            return None
        inner = [m for p, m in mapping.items() if p.op != "placeholder"]
        for p, m in mapping.items():
            if p.op != "placeholder" and m is not node:
                if any(user not in inner for user in m.users):
                    return None  # an inner value is used outside the match
        return mapping

    def _match_node(self, p: Node, n: Node, mapping: dict[Node, Node]) -> bool:
        if p in mapping:
            return mapping[p] is n
        if p.op == "placeholder":
            mapping[p] = n
            return True
        if p.op != n.op or p.target != n.target or len(p.args) != len(n.args):
            return False
        if p.kwargs.keys() != n.kwargs.keys():
            return False
        mapping[p] = n
        pairs = list(zip(p.args, n.args)) + [(p.kwargs[k], n.kwargs[k]) for k in p.kwargs]
        return all(self._match_arg(pa, na, mapping) for pa, na in pairs)

    def _match_arg(self, pa, na, mapping: dict[Node, Node]) -> bool:
        if isinstance(pa, Node):
            return isinstance(na, Node) and self._match_node(pa, na, mapping)
        if isinstance(pa, (tuple, list)) and type(pa) is type(na):
            return len(pa) == len(na) and all(
                self._match_arg(a, b, mapping) for a, b in zip(pa, na)
            )
        return type(pa) is type(na) and pa == na


def replace_pattern(
    gm: GraphModule, pattern: Callable | GraphModule, replacement: Callable | GraphModule
) -> list[Match]:
    """Replace each non-overlapping match of `pattern` in `gm` with `replacement` (both
    functions or GraphModules, traced when functions), recompile `gm`, and return the
    matches."""
    pattern_graph, replacement_graph = _as_graph(pattern), _as_graph(replacement)
    matcher = _Matcher(pattern_graph)
    pattern_inputs = [n for n in pattern_graph.nodes if n.op == "placeholder"]
    replacement_inputs = [n for n in replacement_graph.nodes if n.op == "placeholder"]
    matches: list[Match] = []
    taken: set[Node] = set()
    for node in reversed(gm.graph.nodes):
        mapping = matcher.match(node)
        if mapping is None:
            continue
        inner = {m for p, m in mapping.items() if p.op != "placeholder"}
        if inner & taken:
            continue
        taken |= inner
        matches.append(Match(node, mapping))
    for match in matches:
        _replace(gm.graph, match, pattern_inputs, replacement_inputs, replacement_graph)
    gm.recompile()
    return matches


def _replace(
    graph: Graph,
    match: Match,
    pattern_inputs: list[Node],
    replacement_inputs: list[Node],
    replacement_graph: Graph,
) -> None:
    """Put a copy of the replacement before the match's anchor and remove the match."""
    val_map = {r: match.nodes_map[p] for p, r in zip(pattern_inputs, replacement_inputs)}
    with graph.inserting_before(match.anchor):
        value = graph.graph_copy(replacement_graph, val_map)
    match.anchor.replace_all_uses_with(value)
    inner = {m for p, m in match.nodes_map.items() if p.op != "placeholder"}
    for node in reversed(graph.nodes):
        if node in inner and not node.users:
            graph.erase_node(node)
