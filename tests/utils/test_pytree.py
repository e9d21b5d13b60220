"""torch.utils._pytree against real PyTorch's: each program runs on both modules' pytree and
the plain records it returns (reprs, leaves, key strings, errors) must be equal."""

from __future__ import annotations

import collections
import dataclasses
import warnings

import pytest

import autograd_compat as torch
from autograd_compat.utils import _pytree as ours

Point = collections.namedtuple("Point", "x y")


class Box:
    """A user container registered as a node (the way transformers registers ModelOutput)."""

    def __init__(self, items: dict) -> None:
        self.items = items


def _tree():
    nested = collections.OrderedDict(x=3, y=None)
    deq = collections.deque([5, 6], maxlen=4)
    dd = collections.defaultdict(list, {"k": 7})
    return {"b": [1, None, (2.5, "s")], "a": (Point(4, nested), deq, dd), "e": [], "n": None}


def _catch(fn):
    try:
        return ("ok", fn())
    except Exception as error:  # the records compare the type and text
        return (type(error).__name__, str(error))


def _structure(p):
    leaves, spec = p.tree_flatten(_tree())
    paths = [(p.keystr(kp), v) for kp, v in p.tree_flatten_with_path(_tree())[0]]
    rebuilt = p.tree_unflatten([str(v) for v in leaves], spec)
    return {
        "leaves": leaves,
        "repr": repr(spec),
        "counts": (spec.num_leaves, spec.num_nodes, spec.num_children),
        "paths": paths,
        "rebuilt": repr(rebuilt),
        "none": repr(p.tree_flatten([None])),
        "leaf": repr(p.tree_structure(5)),
        "pprint": p.treespec_pprint(spec),
        "eq": spec == p.tree_structure(_tree()),
        "hash": hash(spec) == hash(p.tree_structure(_tree())),
        "is_leaf": [p.tree_is_leaf(x) for x in (None, 1, [1], Point(1, 2), {})],
        "namedtuple": (p.is_namedtuple(Point), p.is_namedtuple_instance(Point(1, 2))),
    }


def _maps(p):
    def only_ints(x):
        return x * 10

    return {
        "map": p.tree_map(lambda x: repr(x), _tree()),
        "multi": p.tree_map(lambda x, y: [x, y], [5, (6, 7)], [[8], ({"z": 1}, 2)]),
        "only": p.tree_map_only(int, only_ints, _tree()),
        "only_tuple": p.tree_map_only((int, float), only_ints, [1, 2.0, "a"]),
        "path": p.tree_map_with_path(lambda kp, x: p.keystr(kp), {"a": [1, (2,)]}),
        "is_leaf": p.tree_leaves(_tree(), is_leaf=lambda x: isinstance(x, tuple)),
        "all_any": (p.tree_all(lambda x: x is not None, _tree()), p.tree_any_only(
            str, lambda s: s == "s", _tree())),
        "dict_kinds": p.tree_map(lambda x, y: x + y, {"a": 1, "b": 2},
                                 collections.OrderedDict(b=20, a=10)),
    }  # fmt: skip


def _errors(p):
    spec = p.tree_structure(_tree())
    return [
        _catch(lambda: p.tree_map(lambda x, y: x, [1, 2], [1])),
        _catch(lambda: p.tree_map(lambda x, y: x, [1, 2], (1, 2))),
        _catch(lambda: p.tree_map(lambda x, y: x, {"a": 1}, {"b": 1})),
        _catch(lambda: p.tree_map(lambda x, y: x, Point(1, 2), (1, 2))),
        _catch(lambda: p.tree_unflatten([1, 2], spec)),
        _catch(lambda: p.tree_unflatten(spec, "no spec")),
        _catch(lambda: p.register_pytree_node(list, p._list_flatten, p._list_unflatten)),
        _catch(lambda: p.treespec_dumps(p.tree_structure(Point(1, 2)))),
    ]


def _serialization(p):
    spec = p.tree_structure({"a": [1, (2, 3)], "b": collections.OrderedDict(c=4)})
    text = p.treespec_dumps(spec)
    return {
        "text": text,
        "back": repr(p.treespec_loads(text)),
        "same": p.treespec_loads(text) == spec,
    }


def _custom_node(p):
    """A user type registered with PyTorch's signature, flattened, mapped and keyed."""
    if Box not in p.SUPPORTED_NODES:
        p.register_pytree_node(
            Box,
            lambda box: p._dict_flatten(box.items),
            lambda values, keys: Box(p._dict_unflatten(values, keys)),
            serialized_type_name=f"{__name__}.Box",
            flatten_with_keys_fn=lambda box: p._dict_flatten_with_keys(box.items),
        )
    tree = [Box({"w": 1, "v": [2, 3]})]
    leaves, spec = p.tree_flatten(tree)
    mapped = p.tree_map(lambda x: x + 1, tree)[0]
    return {
        "leaves": leaves,
        "repr": repr(spec).replace(p.__name__, "P"),
        "mapped": mapped.items,
        "paths": [p.keystr(kp) for kp, _ in p.tree_leaves_with_path(tree)],
        "dumps": p.treespec_dumps(spec),
        "node_def": p.SUPPORTED_NODES[Box].flatten_fn(Box({"q": 9})),
        "up_to": _catch(lambda: spec.flatten_up_to([Box({"w": 1})])),
    }


@pytest.mark.parametrize("program", [_structure, _maps, _errors, _serialization, _custom_node])
def test_pytree_matches_pytorch(program, real_torch):
    import torch.utils._pytree as theirs  # the real module: this test file is not aliased

    assert theirs.__file__ != ours.__file__
    assert program(ours) == program(theirs)


def test_lightning_style_spec_building_and_deprecations(real_torch):
    """Lightning builds `TreeSpec(type, context, children)` and `LeafSpec()` itself."""
    import torch.utils._pytree as theirs

    def program(p):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            leaf = p.LeafSpec()
            spec = p.TreeSpec(list, None, [leaf, p.TreeSpec(dict, ["a"], [leaf])])
            p._register_pytree_node(frozenset, lambda s: (sorted(s), None), lambda v, c: v)
            p._is_leaf(3)
        p._deregister_pytree_node(frozenset)
        return {
            "spec": (repr(spec), spec.num_leaves, spec.is_leaf(), leaf.is_leaf()),
            "unflatten": p.tree_unflatten([1, 2], spec),
            "is_leafspec": isinstance(p.tree_structure(1), p.LeafSpec),
            "node_type": p._get_node_type(Point(1, 2)) is collections.namedtuple,
            "warnings": [(w.category.__name__, str(w.message)) for w in caught],
        }

    assert program(ours) == program(theirs)


def test_tensors_are_leaves_and_reachable_from_the_package():
    tree = {"w": torch.ones(2), "b": [torch.zeros(1), None]}
    leaves, spec = torch.utils._pytree.tree_flatten(tree)
    assert [type(x) for x in leaves] == [torch.Tensor, torch.Tensor, type(None)]
    doubled = ours.tree_map_only(torch.Tensor, lambda t: t * 2, tree)
    assert doubled["w"].tolist() == [2.0, 2.0] and doubled["b"][1] is None
    assert ours.key_get(tree, ours.tree_flatten_with_path(tree)[0][0][0]) is tree["w"]


class Pair:
    """A user container registered through torch's API only."""

    def __init__(self, first, second) -> None:
        self.first, self.second = first, second


ours.register_pytree_node(
    Pair,
    lambda p: ([p.first, p.second], {"names": ["first", "second"]}),
    lambda values, context: Pair(*values),
)


def test_registered_types_are_nodes_for_jax_and_torch_compile():
    import jax

    tree = {"b": Pair(1.0, [2.0, None]), "a": 3.0}
    assert jax.tree_util.tree_leaves(tree) == [3.0, 1.0, 2.0]  # JAX: sorted keys, None no leaf
    doubled = jax.tree_util.tree_map(lambda v: v * 2, tree)
    assert (doubled["b"].first, doubled["b"].second) == (2.0, [4.0, None])
    first, second = jax.tree_util.tree_structure(tree), jax.tree_util.tree_structure(tree)
    assert first == second and hash(first) == hash(second)

    compiled = torch.compile(lambda x: Pair(x * 2, x.sum()))
    out = compiled(torch.ones(3))
    assert type(out) is Pair and out.first.tolist() == [2.0, 2.0, 2.0] and out.second.item() == 3


@dataclasses.dataclass
class Span:
    start: object
    end: object = None


@dataclasses.dataclass(frozen=True)
class Tag:
    name: str


def test_register_dataclass_and_constant_match_pytorch(real_torch):
    import torch.utils._pytree as theirs

    def program(p):
        if Span not in p.SUPPORTED_NODES:
            p.register_dataclass(Span)
            p.register_constant(Tag)
        tree = [Span(1, None), Span(2, Tag("x")), Tag("y")]
        leaves, spec = p.tree_flatten(tree)
        rebuilt = p.tree_unflatten([v * 10 for v in leaves], spec)
        paths = [p.keystr(k) for k, _ in p.tree_flatten_with_path(tree)[0]]
        errors = []
        for call in (lambda: p.register_dataclass(Box), lambda: p.register_constant(Box)):
            try:
                call()
            except (TypeError, ValueError) as error:
                errors.append(type(error).__name__)
        return leaves, repr(rebuilt), paths, p.is_constant_class(Tag), errors

    assert program(ours) == program(theirs)
