"""torch.utils._pytree: PyTorch's Python pytrees (flatten, unflatten, map, key paths, specs).

The rules are PyTorch's, which differ from `jax.tree_util`'s: `None` is a leaf (JAX treats
it as a node without children), dicts keep their insertion order (JAX sorts keys), every
namedtuple is the one node type `namedtuple` with its class as context, and a `TreeSpec` is a
plain dataclass of (type, context, children) that libraries build by hand (Lightning does).
So the registry and traversal are written here; tensors are leaves, as in PyTorch. A type
registered here is registered with `jax.tree_util` too (its context as JAX's hashable aux
data), so JAX's transforms and torch.compile see through it as PyTorch's tracer does.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import json
import threading
import types
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple
from collections.abc import Callable, Hashable, Iterable, Iterator
from enum import Enum
from typing import Any, NamedTuple, Protocol

import jax

__all__ = [
    "PyTree",
    "Context",
    "FlattenFn",
    "UnflattenFn",
    "DumpableContext",
    "ToDumpableContextFn",
    "FromDumpableContextFn",
    "PyTreeSpec",
    "TreeSpec",
    "LeafSpec",
    "keystr",
    "key_get",
    "register_pytree_node",
    "tree_is_leaf",
    "tree_flatten",
    "tree_flatten_with_path",
    "tree_unflatten",
    "tree_iter",
    "tree_leaves",
    "tree_leaves_with_path",
    "tree_structure",
    "tree_map",
    "tree_map_with_path",
    "tree_map_",
    "tree_map_only",
    "tree_map_only_",
    "tree_all",
    "tree_any",
    "tree_all_only",
    "tree_any_only",
    "treespec_dumps",
    "treespec_loads",
    "treespec_pprint",
    "is_namedtuple",
    "is_namedtuple_class",
    "is_namedtuple_instance",
    "is_structseq",
    "is_structseq_class",
    "is_structseq_instance",
]

DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL = 1
NO_SERIALIZED_TYPE_NAME_FOUND = "NO_SERIALIZED_TYPE_NAME_FOUND"

Context = Any
PyTree = Any
DumpableContext = Any
FlattenFn = Callable[[PyTree], tuple[list[Any], Context]]
UnflattenFn = Callable[[Iterable[Any], Context], PyTree]
ToDumpableContextFn = Callable[[Context], DumpableContext]
FromDumpableContextFn = Callable[[DumpableContext], Context]
FlattenWithKeysFn = Callable[[PyTree], tuple[list[tuple[Any, Any]], Any]]
FlattenFunc = FlattenFn
UnflattenFunc = UnflattenFn
FlattenWithKeysFunc = FlattenWithKeysFn


class KeyEntry(Protocol):
    """One step of a key path: printable, hashable, and able to fetch its child."""

    def __hash__(self) -> int: ...

    def __eq__(self, other: object) -> bool: ...

    def __str__(self) -> str: ...

    def get(self, parent: Any) -> Any: ...


KeyPath = tuple[KeyEntry, ...]


class NodeDef(NamedTuple):
    """How a registered container type is taken apart and rebuilt."""

    type: type[Any]
    flatten_fn: FlattenFn
    unflatten_fn: UnflattenFn
    flatten_with_keys_fn: FlattenWithKeysFn | None


class _SerializeNodeDef(NamedTuple):
    """How a registered type's spec is written to and read from JSON."""

    typ: type[Any]
    serialized_type_name: str
    to_dumpable_context: ToDumpableContextFn | None
    from_dumpable_context: FromDumpableContextFn | None


_NODE_REGISTRY_LOCK = threading.RLock()
SUPPORTED_NODES: dict[type[Any], NodeDef] = {}
SUPPORTED_SERIALIZED_TYPES: dict[type[Any], _SerializeNodeDef] = {}
SERIALIZED_TYPE_TO_PYTHON_TYPE: dict[str, type[Any]] = {}


def _deprecated(message: str) -> None:
    warnings.warn(message, FutureWarning, stacklevel=3)


def register_pytree_node(
    cls: type[Any],
    flatten_fn: FlattenFn,
    unflatten_fn: UnflattenFn,
    *,
    serialized_type_name: str | None = None,
    to_dumpable_context: ToDumpableContextFn | None = None,
    from_dumpable_context: FromDumpableContextFn | None = None,
    flatten_with_keys_fn: FlattenWithKeysFn | None = None,
) -> None:
    """Register a container-like type as pytree node.

    Args:
        cls: the type to register.
        flatten_fn: takes an instance, returns (children, context).
        unflatten_fn: takes (children, context), returns an instance.
        serialized_type_name: the name `treespec_dumps` writes for this type.
        to_dumpable_context: turns a context into JSON-dumpable data.
        from_dumpable_context: the inverse of ``to_dumpable_context``.
        flatten_with_keys_fn: like ``flatten_fn`` but returns (key, child) pairs, for key paths.

    Raises:
        ValueError: ``cls`` is already registered.
    """
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            raise ValueError(f"{cls} is already registered as pytree node.")
    _private_register_pytree_node(
        cls,
        flatten_fn,
        unflatten_fn,
        serialized_type_name=serialized_type_name,
        to_dumpable_context=to_dumpable_context,
        from_dumpable_context=from_dumpable_context,
        flatten_with_keys_fn=flatten_with_keys_fn,
    )


def _register_pytree_node(
    cls: type[Any],
    flatten_fn: FlattenFn,
    unflatten_fn: UnflattenFn,
    to_str_fn: Callable[..., Any] | None = None,
    maybe_from_str_fn: Callable[..., Any] | None = None,
    *,
    serialized_type_name: str | None = None,
    to_dumpable_context: ToDumpableContextFn | None = None,
    from_dumpable_context: FromDumpableContextFn | None = None,
    flatten_with_keys_fn: FlattenWithKeysFn | None = None,
) -> None:
    """Deprecated form of `register_pytree_node` that overwrites an existing registration."""
    _deprecated(
        "`torch.utils._pytree._register_pytree_node` is deprecated. "
        "Please use `torch.utils._pytree.register_pytree_node` instead."
    )
    if to_str_fn is not None or maybe_from_str_fn is not None:
        warnings.warn(
            "`to_str_fn` and `maybe_from_str_fn` is deprecated. "
            "Please use `to_dumpable_context` and `from_dumpable_context` instead.",
            FutureWarning,
            stacklevel=2,
        )
    _private_register_pytree_node(
        cls,
        flatten_fn,
        unflatten_fn,
        serialized_type_name=serialized_type_name,
        to_dumpable_context=to_dumpable_context,
        from_dumpable_context=from_dumpable_context,
        flatten_with_keys_fn=flatten_with_keys_fn,
    )


def _deregister_pytree_node(cls: type[Any]) -> None:
    """Remove `cls` from the registry (PyTorch-internal helper)."""
    with _NODE_REGISTRY_LOCK:
        del SUPPORTED_NODES[cls]
        node_def = SUPPORTED_SERIALIZED_TYPES.pop(cls)
        del SERIALIZED_TYPE_TO_PYTHON_TYPE[node_def.serialized_type_name]
        CONSTANT_NODES.discard(cls)


def _private_register_pytree_node(
    cls: type[Any],
    flatten_fn: FlattenFn,
    unflatten_fn: UnflattenFn,
    *,
    serialized_type_name: str | None = None,
    to_dumpable_context: ToDumpableContextFn | None = None,
    from_dumpable_context: FromDumpableContextFn | None = None,
    flatten_with_keys_fn: FlattenWithKeysFn | None = None,
) -> None:
    """Register `cls`, warning (not failing) when it is registered already."""
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            warnings.warn(
                f"{cls} is already registered as pytree node. "
                "Overwriting the previous registration.",
                stacklevel=2,
            )
        SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)
        if (to_dumpable_context is None) ^ (from_dumpable_context is None):
            raise ValueError(
                f"Both to_dumpable_context and from_dumpable_context for {cls} must "
                "be None or registered."
            )
        name = (
            NO_SERIALIZED_TYPE_NAME_FOUND if serialized_type_name is None else serialized_type_name
        )
        SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(
            cls, name, to_dumpable_context, from_dumpable_context
        )
        SERIALIZED_TYPE_TO_PYTHON_TYPE[name] = cls
        _register_with_jax(cls)


class _JaxContext:
    """A node's context as JAX's aux data, which JAX hashes and compares."""

    __slots__ = ("context",)

    def __init__(self, context: Context) -> None:
        self.context = context

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _JaxContext) and bool(self.context == other.context)

    def __hash__(self) -> int:
        return hash(_frozen(self.context))


def _frozen(value: Any) -> Any:
    """A hashable stand-in for a context: lists and dicts as tuples, other unhashables by type."""
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, _frozen(v)) for k, v in value.items())
    try:
        hash(value)
    except TypeError:
        return type(value)
    return value


class _Deregistered(NamedTuple):
    """An instance of a type taken out of the registry, as JAX sees it: no children."""

    node: Any


_JAX_NATIVE = (tuple, list, dict, namedtuple, OrderedDict, defaultdict, type(None))


def _register_with_jax(cls: type[Any]) -> None:
    """Let `jax.tree_util` take `cls` apart with the (current) registration of this registry."""
    if cls in _JAX_NATIVE:
        return

    def flatten(node: Any) -> tuple[list[Any], _JaxContext]:
        if cls not in SUPPORTED_NODES:  # deregistered: a node holding the object, no children
            return [], _JaxContext(_Deregistered(node))
        children, context = SUPPORTED_NODES[cls].flatten_fn(node)
        return list(children), _JaxContext(context)

    def unflatten(aux: _JaxContext, children: Iterable[Any]) -> Any:
        if isinstance(aux.context, _Deregistered):
            return aux.context.node
        return SUPPORTED_NODES[cls].unflatten_fn(list(children), aux.context)

    try:
        jax.tree_util.register_pytree_node(cls, flatten, unflatten)
    except ValueError:  # registered before: its functions read this registry, so they follow
        pass


def _register_namedtuple(cls: type[Any], *, serialized_type_name: str) -> None:
    """Register a namedtuple class under a name, so specs holding it can be serialized."""
    _private_register_pytree_node(
        cls,
        _namedtuple_flatten,
        _namedtuple_unflatten,
        serialized_type_name=serialized_type_name,
        to_dumpable_context=_namedtuple_serialize,
        from_dumpable_context=_namedtuple_deserialize,
        flatten_with_keys_fn=_namedtuple_flatten_with_keys,
    )


def register_dataclass(
    cls: type[Any],
    *,
    field_names: list[str] | None = None,
    drop_field_names: list[str] | None = None,
    serialized_type_name: str | None = None,
) -> None:
    """Register a dataclass (or a class built from keyword fields) as a node whose children
    are its fields that are not None."""
    drop = set(drop_field_names or [])
    if not dataclasses.is_dataclass(cls):
        if field_names is None:
            raise ValueError(
                "field_names must be specified with a list of all fields used to "
                f"initialize {cls}, as it is not a dataclass."
            )
    elif field_names is None:
        field_names = [f.name for f in dataclasses.fields(cls) if f.init]
    else:
        init_fields = {f.name for f in dataclasses.fields(cls) if f.init} - drop
        if init_fields != set(field_names):
            raise ValueError(
                "field_names does not include all dataclass fields.\n"
                f"Missing fields in `field_names`: {init_fields - set(field_names)}; "
                f"unexpected fields: {set(field_names) - init_fields}."
            )
    names = list(field_names)

    def flatten(obj: Any) -> tuple[list[Any], Context]:
        present = [n for n in names if getattr(obj, n) is not None]
        absent = [n for n in names if getattr(obj, n) is None]
        return [getattr(obj, n) for n in present], [present, absent]

    def unflatten(values: Iterable[Any], context: Context) -> Any:
        present, absent = context
        return cls(**dict(zip(present, values, strict=True)), **dict.fromkeys(absent))

    def flatten_with_keys(obj: Any) -> tuple[list[Any], Context]:
        values, (present, _) = flatten(obj)
        return [(GetAttrKey(n), v) for n, v in zip(present, values, strict=True)], present

    _private_register_pytree_node(
        cls,
        flatten,
        unflatten,
        serialized_type_name=serialized_type_name,
        flatten_with_keys_fn=flatten_with_keys,
    )


@dataclasses.dataclass(frozen=True)
class ConstantNode:
    """The context of a constant's spec: the constant itself."""

    value: Any


CONSTANT_NODES: set[type] = set()


def register_constant(cls: type[Any]) -> None:
    """Register a hashable type as a node without leaves: its instances are constants."""
    if cls.__eq__ is object.__eq__:
        raise TypeError(
            "register_constant(cls) expects `cls` to have a non-default `__eq__` implementation."
        )
    if cls.__hash__ is None:
        raise TypeError(
            "register_constant(cls) expects `cls` to have a non-default `__hash__` implementation."
        )
    _private_register_pytree_node(
        cls,
        lambda x: ([], ConstantNode(x)),
        lambda _, context: context.value,
        flatten_with_keys_fn=lambda x: ([], ConstantNode(x)),
    )
    CONSTANT_NODES.add(cls)


def is_constant_class(cls: type[Any]) -> bool:
    return isinstance(cls, type) and cls in CONSTANT_NODES


def _is_constant_holder(spec: TreeSpec) -> bool:
    """Whether the spec is of a type registered with `register_constant`."""
    return isinstance(spec._context, ConstantNode)


def _retrieve_constant(spec: TreeSpec) -> Any:
    if not _is_constant_holder(spec):
        raise AssertionError("spec does not correspond to a registered constant pytree")
    return spec.unflatten([])


_cxx_pytree_exists = False  # optree's C++ pytrees are not used here


@dataclasses.dataclass(frozen=True)
class SequenceKey:
    """Key path entry for a sequence child: prints as ``[idx]``."""

    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"

    def get(self, sequence: Any) -> Any:
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey:
    """Key path entry for a mapping child: prints as ``[key]``."""

    key: Hashable

    def __str__(self) -> str:
        return f"[{self.key!r}]"

    def get(self, mapping: Any) -> Any:
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    """Key path entry for an attribute child: prints as ``.name``."""

    name: str

    def __str__(self) -> str:
        return f".{self.name}"

    def get(self, obj: Any) -> Any:
        return getattr(obj, self.name)


def is_namedtuple(obj: object) -> bool:
    """Return whether the object is a namedtuple instance or class."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_namedtuple_class(cls: type) -> bool:
    """Return whether the class is a subclass of namedtuple."""
    fields = getattr(cls, "_fields", None)
    return (
        isinstance(cls, type)
        and issubclass(cls, tuple)
        and isinstance(fields, tuple)
        and all(type(field) is str for field in fields)
        and callable(getattr(cls, "_make", None))
        and callable(getattr(cls, "_asdict", None))
    )


def is_namedtuple_instance(obj: object) -> bool:
    """Return whether the object is an instance of namedtuple."""
    return is_namedtuple_class(type(obj))


_Py_TPFLAGS_BASETYPE = 1 << 10


def is_structseq(obj: object) -> bool:
    """Return whether the object is a PyStructSequence instance or class (`os.stat_result`)."""
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


def is_structseq_class(cls: type) -> bool:
    """Return whether the class is a class of PyStructSequence."""
    return (
        isinstance(cls, type)
        and cls.__bases__ == (tuple,)
        and all(
            isinstance(getattr(cls, name, None), int)
            for name in ("n_fields", "n_sequence_fields", "n_unnamed_fields")
        )
        and not cls.__flags__ & _Py_TPFLAGS_BASETYPE
    )


def is_structseq_instance(obj: object) -> bool:
    """Return whether the object is an instance of PyStructSequence."""
    return is_structseq_class(type(obj))


def _is_namedtuple_instance(tree: Any) -> bool:
    """Deprecated alias of `is_namedtuple_instance`."""
    _deprecated(
        "torch.utils._pytree._is_namedtuple_instance is private and will be removed in a "
        "future release. Please use torch.utils._pytree.is_namedtuple_instance instead."
    )
    return is_namedtuple_instance(tree)


def _sequence_keys(values: list[Any], context: Context) -> tuple[list[Any], Context]:
    return [(SequenceKey(i), v) for i, v in enumerate(values)], context


def _tuple_flatten(d: tuple[Any, ...]) -> tuple[list[Any], Context]:
    return list(d), None


def _tuple_flatten_with_keys(d: tuple[Any, ...]) -> tuple[list[Any], Context]:
    return _sequence_keys(*_tuple_flatten(d))


def _tuple_unflatten(values: Iterable[Any], context: Context) -> tuple[Any, ...]:
    return tuple(values)


def _list_flatten(d: list[Any]) -> tuple[list[Any], Context]:
    return d, None


def _list_flatten_with_keys(d: list[Any]) -> tuple[list[Any], Context]:
    return _sequence_keys(*_list_flatten(d))


def _list_unflatten(values: Iterable[Any], context: Context) -> list[Any]:
    return list(values)


def _dict_flatten(d: dict[Any, Any]) -> tuple[list[Any], Context]:
    return list(d.values()), list(d.keys())


def _dict_flatten_with_keys(d: dict[Any, Any]) -> tuple[list[Any], Context]:
    values, context = _dict_flatten(d)
    return [(MappingKey(k), v) for k, v in zip(context, values, strict=True)], context


def _dict_unflatten(values: Iterable[Any], context: Context) -> dict[Any, Any]:
    return dict(zip(context, values, strict=True))


def _namedtuple_flatten(d: Any) -> tuple[list[Any], Context]:
    return list(d), type(d)


def _namedtuple_flatten_with_keys(d: Any) -> tuple[list[Any], Context]:
    values, context = _namedtuple_flatten(d)
    return [(GetAttrKey(f), v) for f, v in zip(context._fields, values, strict=True)], context


def _namedtuple_unflatten(values: Iterable[Any], context: Context) -> Any:
    return context(*values)


def _namedtuple_serialize(context: Context) -> DumpableContext:
    node = SUPPORTED_SERIALIZED_TYPES.get(context)
    if node is None or node.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        reason = "didn't register" if node is None else "couldn't find"
        raise NotImplementedError(
            f"Can't serialize TreeSpec of namedtuple class {context} because we "
            f"{reason} a serializated_type_name. Please register using `_register_namedtuple`."
        )
    return node.serialized_type_name


def _namedtuple_deserialize(dumpable_context: DumpableContext) -> Context:
    if dumpable_context not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(
            f"Can't deserialize TreeSpec of namedtuple class {dumpable_context} "
            "because we couldn't find a serializated name."
        )
    return SERIALIZED_TYPE_TO_PYTHON_TYPE[dumpable_context]


def _ordereddict_flatten(d: OrderedDict[Any, Any]) -> tuple[list[Any], Context]:
    return _dict_flatten(d)


def _ordereddict_flatten_with_keys(d: OrderedDict[Any, Any]) -> tuple[list[Any], Context]:
    return _dict_flatten_with_keys(d)


def _ordereddict_unflatten(values: Iterable[Any], context: Context) -> OrderedDict[Any, Any]:
    return OrderedDict(zip(context, values, strict=True))


_odict_flatten = _ordereddict_flatten
_odict_unflatten = _ordereddict_unflatten


def _defaultdict_flatten(d: defaultdict[Any, Any]) -> tuple[list[Any], Context]:
    values, dict_context = _dict_flatten(d)
    return values, [d.default_factory, dict_context]


def _defaultdict_flatten_with_keys(d: defaultdict[Any, Any]) -> tuple[list[Any], Context]:
    values, context = _defaultdict_flatten(d)
    return [(MappingKey(k), v) for k, v in zip(context[1], values, strict=True)], context


def _defaultdict_unflatten(values: Iterable[Any], context: Context) -> defaultdict[Any, Any]:
    default_factory, dict_context = context
    return defaultdict(default_factory, _dict_unflatten(values, dict_context))


def _defaultdict_serialize(context: Context) -> DumpableContext:
    default_factory, dict_context = context
    return {
        "default_factory_module": default_factory.__module__,
        "default_factory_name": default_factory.__qualname__,
        "dict_context": dict_context,
    }


def _defaultdict_deserialize(dumpable_context: DumpableContext) -> Context:
    module = importlib.import_module(dumpable_context["default_factory_module"])
    factory = getattr(module, dumpable_context["default_factory_name"])
    return [factory, dumpable_context["dict_context"]]


def _deque_flatten(d: deque[Any]) -> tuple[list[Any], Context]:
    return list(d), d.maxlen


def _deque_flatten_with_keys(d: deque[Any]) -> tuple[list[Any], Context]:
    return _sequence_keys(*_deque_flatten(d))


def _deque_unflatten(values: Iterable[Any], context: Context) -> deque[Any]:
    return deque(values, maxlen=context)


_BUILTIN_NODES: tuple[tuple[Any, ...], ...] = (
    (tuple, _tuple_flatten, _tuple_unflatten, "builtins.tuple", _tuple_flatten_with_keys),
    (list, _list_flatten, _list_unflatten, "builtins.list", _list_flatten_with_keys),
    (dict, _dict_flatten, _dict_unflatten, "builtins.dict", _dict_flatten_with_keys),
    (namedtuple, _namedtuple_flatten, _namedtuple_unflatten, "collections.namedtuple",
     _namedtuple_flatten_with_keys, _namedtuple_serialize, _namedtuple_deserialize),
    (OrderedDict, _ordereddict_flatten, _ordereddict_unflatten, "collections.OrderedDict",
     _ordereddict_flatten_with_keys),
    (defaultdict, _defaultdict_flatten, _defaultdict_unflatten, "collections.defaultdict",
     _defaultdict_flatten_with_keys, _defaultdict_serialize, _defaultdict_deserialize),
    (deque, _deque_flatten, _deque_unflatten, "collections.deque", _deque_flatten_with_keys),
)  # fmt: skip
for _cls, _flatten, _unflatten, _name, _with_keys, *_dumpable in _BUILTIN_NODES:
    _to, _from = _dumpable or (None, None)
    _private_register_pytree_node(
        _cls,
        _flatten,
        _unflatten,
        serialized_type_name=_name,
        to_dumpable_context=_to,
        from_dumpable_context=_from,
        flatten_with_keys_fn=_with_keys,
    )

STANDARD_DICT_TYPES: frozenset[type] = frozenset({dict, OrderedDict, defaultdict})
BUILTIN_TYPES: frozenset[Any] = frozenset(row[0] for row in _BUILTIN_NODES)


def _get_node_type(tree: Any) -> Any:
    """The registry key of `tree`: its type, or `namedtuple` for every namedtuple."""
    node_type = type(tree)
    return namedtuple if is_namedtuple_class(node_type) else node_type


def tree_is_leaf(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    """Check if a pytree is a leaf: not a registered node, or selected by ``is_leaf``.

    Example:
        >>> from torch.utils._pytree import tree_is_leaf
        >>> tree_is_leaf(None), tree_is_leaf([1, 2])
        (True, False)
    """
    if is_leaf is not None and is_leaf(tree):
        return True
    return _get_node_type(tree) not in SUPPORTED_NODES


def _is_leaf(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    """Deprecated alias of `tree_is_leaf`."""
    _deprecated(
        "torch.utils._pytree._is_leaf is private and will be removed in a future release. "
        "Please use torch.utils._pytree.tree_is_leaf instead."
    )
    return tree_is_leaf(tree, is_leaf=is_leaf)


@dataclasses.dataclass(init=False, frozen=True, eq=False, repr=False)
class TreeSpec:
    """The structure of a pytree: its root's node type, context and children's specs."""

    type: Any
    _context: Context
    _children: list[TreeSpec]
    num_nodes: int
    num_leaves: int
    num_children: int

    def __init__(self, type: Any, context: Context, children_specs: list[TreeSpec]) -> None:
        if type is None and (context is not None or children_specs):
            raise AssertionError("leaf node should not have a context or children")
        leaves = 1 if type is None else sum(child.num_leaves for child in children_specs)
        nodes = 1 + sum(child.num_nodes for child in children_specs)
        for name, value in (
            ("type", type),
            ("_context", context),
            ("_children", children_specs),
            ("num_nodes", nodes),
            ("num_leaves", leaves),
            ("num_children", len(children_specs)),
        ):
            object.__setattr__(self, name, value)

    def __repr__(self, indent: int = 0) -> str:
        if self.is_leaf():
            return "*"
        inner = indent + 2
        children = [child.__repr__(inner) for child in self._children]
        shown = (",\n" + " " * inner).join(children)
        return f"TreeSpec({self.type.__name__}, {self._context}, [{shown}])"

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (
            str(self.type) == str(other.type)
            and self._context == other._context
            and self._children == other._children
        )

    def __hash__(self) -> int:
        node_type, context = self.type, self._context
        if node_type is defaultdict:
            context = (context[0], tuple(context[1]))
        elif node_type in (dict, OrderedDict):
            context = tuple(context)
        elif node_type is not None and node_type not in BUILTIN_TYPES:
            context = None  # a user type's context may be unhashable
        return hash((node_type, context, tuple(self._children)))

    @property
    def context(self) -> Context:
        return self._context

    @property
    def children_specs(self) -> list[TreeSpec]:
        _deprecated(
            "`treespec.children_specs` is deprecated. Use `treespec.child(index)` to access "
            "a single child, or `treespec.children()` to get all children."
        )
        return self._children

    def is_leaf(self) -> bool:
        """Test whether the treespec represents a leaf."""
        return self.num_nodes == 1 and self.num_leaves == 1

    def children(self) -> list[TreeSpec]:
        """Get all the child treespecs."""
        return self._children.copy()

    def child(self, index: int) -> TreeSpec:
        """Get the child treespec at the given index."""
        return self._children[index]

    def flatten_up_to(self, tree: PyTree) -> list[PyTree]:
        """Flatten ``tree`` down to this spec's leaves, which may be subtrees of ``tree``."""
        subtrees: list[PyTree] = []
        self._flatten_up_to(tree, subtrees)
        return subtrees

    def _flatten_up_to(self, node: PyTree, subtrees: list[PyTree]) -> None:
        if self.is_leaf():
            subtrees.append(node)
            return
        for subtree, subspec in zip(self._matching_children(node), self._children, strict=True):
            subspec._flatten_up_to(subtree, subtrees)

    def _matching_children(self, node: PyTree) -> list[PyTree]:
        """`node`'s children, after checking that its type, arity and context match."""
        node_type = _get_node_type(node)
        both_dicts = self.type in STANDARD_DICT_TYPES and node_type in STANDARD_DICT_TYPES
        if self.type not in BUILTIN_TYPES and node_type != self.type:
            raise ValueError(f"Type mismatch; expected {self.type!r}, but got {node_type!r}.")
        if not both_dicts and node_type != self.type:
            raise ValueError(f"Node type mismatch; expected {self.type!r}, but got {node_type!r}.")
        if both_dicts:
            expected = self._context[1] if self.type is defaultdict else self._context
            self._check_keys(node, expected)
            return [node[key] for key in expected]
        children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
        if len(children) != self.num_children:
            raise ValueError(
                f"Node arity mismatch; expected {self.num_children}, but got {len(children)}."
            )
        if self.type not in BUILTIN_TYPES and context != self._context:
            raise ValueError(f"Node context mismatch for custom node type {self.type!r}.")
        if node_type is not deque and context != self._context:
            raise ValueError(
                f"Node context mismatch for node type {self.type!r}; "
                f"expected {self._context!r}, but got {context!r}."
            )
        return list(children)

    def _check_keys(self, node: Any, expected: list[Any]) -> None:
        if len(node) != self.num_children:
            raise ValueError(
                f"Node arity mismatch; expected {self.num_children}, but got {len(node)}."
            )
        missing, extra = set(expected) - set(node), set(node) - set(expected)
        if missing or extra:
            message = f"; missing key(s): {missing}" if missing else ""
            message += f"; extra key(s): {extra}" if extra else ""
            raise ValueError(f"Node keys mismatch{message}.")

    def unflatten(self, leaves: Iterable[Any]) -> PyTree:
        """Reconstruct a pytree from the leaves."""
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(
                f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} "
                f"but the spec refers to a pytree that holds {self.num_leaves} "
                f"items ({self})."
            )
        if self.is_leaf():
            return leaves[0]
        children, start = [], 0
        for child in self._children:
            children.append(child.unflatten(leaves[start : start + child.num_leaves]))
            start += child.num_leaves
        return SUPPORTED_NODES[self.type].unflatten_fn(children, self._context)


PyTreeSpec = TreeSpec


class LeafSpec(TreeSpec):
    """The spec of a leaf (deprecated class: test ``spec.is_leaf()`` instead)."""

    def __init__(self) -> None:
        _deprecated(
            "`isinstance(treespec, LeafSpec)` is deprecated, use "
            "`isinstance(treespec, TreeSpec) and treespec.is_leaf()` instead."
        )
        super().__init__(None, None, [])


with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    _LEAF_SPEC = LeafSpec()


def treespec_leaf() -> LeafSpec:
    """Make a treespec representing a leaf node."""
    return _LEAF_SPEC


def treespec_tuple(iterable: Iterable[TreeSpec] = (), /) -> TreeSpec:
    """Make a tuple treespec from an iterable of child treespecs."""
    children = list(iterable)
    if any(not isinstance(child, TreeSpec) for child in children):
        raise ValueError(f"Expected a tuple of TreeSpec values, got: {children!r}.")
    return TreeSpec(tuple, None, children)


def treespec_dict(mapping: Any = (), /, **kwargs: TreeSpec) -> TreeSpec:
    """Make a dict treespec from a dict of child treespecs."""
    dct = dict(mapping, **kwargs)
    if any(not isinstance(child, TreeSpec) for child in dct.values()):
        raise ValueError(f"Expected a dictionary of TreeSpec values, got: {dct!r}.")
    return TreeSpec(dict, list(dct.keys()), list(dct.values()))


def _flatten_into(node: PyTree, leaves: list[Any], is_leaf: Callable | None) -> TreeSpec:
    if tree_is_leaf(node, is_leaf=is_leaf):
        leaves.append(node)
        return _LEAF_SPEC
    node_type = _get_node_type(node)
    children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
    return TreeSpec(node_type, context, [_flatten_into(c, leaves, is_leaf) for c in children])


def _is_pytreespec_instance(obj: Any) -> bool:
    return isinstance(obj, TreeSpec)


def tree_flatten(
    tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None
) -> tuple[list[Any], TreeSpec]:
    """Flattens a pytree into a list of values and a TreeSpec that can rebuild it.

    Example:
        >>> from torch.utils._pytree import tree_flatten
        >>> tree_flatten({"b": [1, None], "a": 2})[0]
        [1, None, 2]
    """
    leaves: list[Any] = []
    return leaves, _flatten_into(tree, leaves, is_leaf)


def tree_unflatten(leaves: Iterable[Any], treespec: TreeSpec) -> PyTree:
    """Given a list of values and a TreeSpec, builds a pytree (the inverse of tree_flatten)."""
    if not isinstance(treespec, TreeSpec):
        if not isinstance(leaves, TreeSpec):
            raise TypeError(
                "Expected `treespec` to be an instance of "
                f"PyTreeSpec but got item of type {type(treespec)}."
            )
        leaves, treespec = treespec, leaves
    return treespec.unflatten(leaves)


def tree_iter(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> Iterator[Any]:
    """Get an iterator over the leaves of a pytree."""
    if tree_is_leaf(tree, is_leaf=is_leaf):
        yield tree
        return
    children, _ = SUPPORTED_NODES[_get_node_type(tree)].flatten_fn(tree)
    for child in children:
        yield from tree_iter(child, is_leaf=is_leaf)


def tree_leaves(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> list[Any]:
    """Get a list of leaves of a pytree."""
    return list(tree_iter(tree, is_leaf=is_leaf))


def arg_tree_leaves(*args: PyTree, **kwargs: PyTree) -> list[Any]:
    """The leaves of every positional and keyword argument, in order."""
    return tree_leaves((list(args), list(kwargs.values())))


def tree_structure(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> TreeSpec:
    """Get the TreeSpec for a pytree."""
    return tree_flatten(tree, is_leaf=is_leaf)[1]


def tree_map(
    func: Callable[..., Any],
    tree: PyTree,
    *rests: PyTree,
    is_leaf: Callable[[PyTree], bool] | None = None,
) -> PyTree:
    """Map a multi-input function over pytree args to produce a new pytree.

    The structure comes from ``tree``; each of ``rests`` must have ``tree`` as a prefix.

    Example:
        >>> from torch.utils._pytree import tree_map
        >>> tree_map(lambda x: x + 1, {"x": 7, "y": (42, 64)})
        {'x': 8, 'y': (43, 65)}
    """
    leaves, treespec = tree_flatten(tree, is_leaf=is_leaf)
    flat_args = [leaves] + [treespec.flatten_up_to(r) for r in rests]
    return treespec.unflatten(map(func, *flat_args))


def tree_map_(
    func: Callable[..., Any],
    tree: PyTree,
    *rests: PyTree,
    is_leaf: Callable[[PyTree], bool] | None = None,
) -> PyTree:
    """Like `tree_map`, but calls ``func`` for its effect and returns ``tree`` itself."""
    leaves, treespec = tree_flatten(tree, is_leaf=is_leaf)
    flat_args = [leaves] + [treespec.flatten_up_to(r) for r in rests]
    deque(map(func, *flat_args), maxlen=0)
    return tree


def _predicate(type_or_types_or_pred: Any) -> Callable[[Any], bool]:
    if isinstance(type_or_types_or_pred, (type, tuple, types.UnionType)):
        return lambda x: isinstance(x, type_or_types_or_pred)
    if callable(type_or_types_or_pred):
        return type_or_types_or_pred
    raise TypeError("Argument must be a type, a tuple of types, or a callable.")


def map_only(type_or_types_or_pred: Any, /) -> Callable[[Callable], Callable]:
    """Decorator: apply the function to leaves matching the types (or predicate) only."""
    pred = _predicate(type_or_types_or_pred)

    def wrapper(func: Callable[[Any], Any]) -> Callable[[Any], Any]:
        @functools.wraps(func)
        def wrapped(x: Any) -> Any:
            return func(x) if pred(x) else x

        return wrapped

    return wrapper


def tree_map_only(
    type_or_types_or_pred: Any,
    /,
    func: Callable[[Any], Any],
    tree: PyTree,
    is_leaf: Callable[[PyTree], bool] | None = None,
) -> PyTree:
    """`tree_map` over the leaves of the given types (or predicate); others stay as they are."""
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(
    type_or_types_or_pred: Any,
    /,
    func: Callable[[Any], Any],
    tree: PyTree,
    is_leaf: Callable[[PyTree], bool] | None = None,
) -> PyTree:
    """`tree_map_` over the leaves of the given types (or predicate)."""
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred: Callable[[Any], bool], tree: PyTree, is_leaf: Callable | None = None) -> bool:
    """Whether ``pred`` holds for every leaf."""
    return all(map(pred, tree_iter(tree, is_leaf=is_leaf)))


def tree_any(pred: Callable[[Any], bool], tree: PyTree, is_leaf: Callable | None = None) -> bool:
    """Whether ``pred`` holds for some leaf."""
    return any(map(pred, tree_iter(tree, is_leaf=is_leaf)))


def tree_all_only(
    type_or_types: Any, /, pred: Callable, tree: PyTree, is_leaf: Callable | None = None
) -> bool:
    """Whether ``pred`` holds for every leaf of the given types."""
    return all(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(
    type_or_types: Any, /, pred: Callable, tree: PyTree, is_leaf: Callable | None = None
) -> bool:
    """Whether ``pred`` holds for some leaf of the given types."""
    return any(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def _broadcast_to_and_flatten(
    tree: PyTree, treespec: TreeSpec, is_leaf: Callable | None = None
) -> list[Any] | None:
    """`tree` (a prefix of `treespec`'s structure) repeated down to its leaves, or None."""
    result: list[Any] = []

    def add_leaves(x: Any, subtree: PyTree) -> None:
        result.extend([x] * tree_structure(subtree, is_leaf=is_leaf).num_leaves)

    try:
        tree_map_(add_leaves, tree, treespec.unflatten([0] * treespec.num_leaves), is_leaf=is_leaf)
    except ValueError:
        return None
    return result


class EnumEncoder(json.JSONEncoder):
    """JSON encoder writing an Enum member as its class's path and name."""

    def default(self, o: object) -> Any:
        if isinstance(o, Enum):
            return {"__enum__": True, "fqn": f"{type(o).__module__}:{type(o).__qualname__}",
                    "name": o.name}  # fmt: skip
        return super().default(o)


def enum_object_hook(obj: dict[str, Any]) -> Any:
    """JSON object hook reading what `EnumEncoder` wrote back into the Enum member."""
    if "__enum__" not in obj:
        return obj
    module_name, _, class_name = obj["fqn"].partition(":")
    enum_cls: Any = importlib.import_module(module_name)
    for attr in class_name.split("."):
        enum_cls = getattr(enum_cls, attr)
    return enum_cls[obj["name"]]


def _treespec_to_json(treespec: TreeSpec) -> dict[str, Any]:
    if treespec.is_leaf():
        return {"type": None, "context": None, "children_spec": []}
    if treespec.type not in SUPPORTED_SERIALIZED_TYPES:
        raise NotImplementedError(f"Serializing {treespec.type} in pytree is not registered.")
    node = SUPPORTED_SERIALIZED_TYPES[treespec.type]
    if node.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(
            f"No registered serialization name for {treespec.type} found. Please update your "
            "_register_pytree_node call with a `serialized_type_name` kwarg."
        )
    if node.to_dumpable_context is None:
        try:
            context = json.dumps(treespec._context, cls=EnumEncoder)
        except TypeError as error:
            raise TypeError(
                "Unable to serialize context. Please make the context json dump-able, or "
                "register a custom serializer using _register_pytree_node."
            ) from error
    else:
        context = node.to_dumpable_context(treespec._context)
    children = [_treespec_to_json(child) for child in treespec._children]
    return {"type": node.serialized_type_name, "context": context, "children_spec": children}


def _json_to_treespec(schema: dict[str, Any]) -> TreeSpec:
    if schema["type"] is None and schema["context"] is None and not schema["children_spec"]:
        return _LEAF_SPEC
    if schema["type"] not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(f"Deserializing {schema['type']} in pytree is not registered.")
    typ = SERIALIZED_TYPE_TO_PYTHON_TYPE[schema["type"]]
    node = SUPPORTED_SERIALIZED_TYPES[typ]
    if node.from_dumpable_context is None:
        context = json.loads(schema["context"], object_hook=enum_object_hook)
    else:
        context = node.from_dumpable_context(schema["context"])
    return TreeSpec(typ, context, [_json_to_treespec(c) for c in schema["children_spec"]])


def treespec_dumps(treespec: TreeSpec, protocol: int | None = None) -> str:
    """Serialize a TreeSpec to PyTorch's JSON text (protocol 1)."""
    protocol = DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL if protocol is None else protocol
    if protocol != 1:
        raise ValueError(f"Unknown protocol {protocol}. Available protocols: [1]")
    return json.dumps((protocol, _treespec_to_json(treespec)), cls=EnumEncoder)


@functools.lru_cache
def treespec_loads(serialized: str) -> TreeSpec:
    """Read a TreeSpec back from `treespec_dumps`' text."""
    protocol, schema = json.loads(serialized)
    if protocol != 1:
        raise ValueError(f"Unknown protocol {protocol}. Available protocols: [1]")
    return _json_to_treespec(schema)


class _Asterisk(str):
    """A leaf placeholder that prints as * (no quotes)."""

    def __repr__(self) -> str:
        return "*"


def treespec_pprint(treespec: TreeSpec) -> str:
    """The spec shown as its pytree with * at every leaf."""
    return repr(treespec.unflatten([_Asterisk("*")] * treespec.num_leaves))


def _generate_key_paths(
    key_path: KeyPath, tree: PyTree, is_leaf: Callable | None = None
) -> Iterator[tuple[KeyPath, Any]]:
    if is_leaf and is_leaf(tree):
        yield key_path, tree
        return
    node_type = _get_node_type(tree)
    handler = SUPPORTED_NODES.get(node_type)
    if handler is None:
        yield key_path, tree
        return
    if handler.flatten_with_keys_fn is None:
        raise ValueError(
            f"Did not find a flatten_with_keys_fn for type: {node_type}. "
            "Please pass a flatten_with_keys_fn argument to register_pytree_node."
        )
    key_children, _ = handler.flatten_with_keys_fn(tree)
    for key, child in key_children:
        yield from _generate_key_paths((*key_path, key), child, is_leaf)


def tree_flatten_with_path(
    tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None
) -> tuple[list[tuple[KeyPath, Any]], TreeSpec]:
    """Like `tree_flatten`, with each leaf's key path: ([(path, leaf), ...], spec).

    Example:
        >>> from torch.utils._pytree import keystr, tree_flatten_with_path
        >>> [keystr(path) for path, _ in tree_flatten_with_path({"a": [1, 2]})[0]]
        ["['a'][0]", "['a'][1]"]
    """
    return list(_generate_key_paths((), tree, is_leaf)), tree_structure(tree, is_leaf)


def tree_leaves_with_path(
    tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None
) -> list[tuple[KeyPath, Any]]:
    """The (key path, leaf) pairs of a pytree."""
    return list(_generate_key_paths((), tree, is_leaf))


def tree_map_with_path(
    func: Callable[..., Any],
    tree: PyTree,
    *rests: PyTree,
    is_leaf: Callable[[PyTree], bool] | None = None,
) -> PyTree:
    """Like `tree_map`, with each leaf's key path as ``func``'s first argument."""
    path_leaves, treespec = tree_flatten_with_path(tree, is_leaf)
    columns = list(zip(*path_leaves, strict=True)) + [treespec.flatten_up_to(r) for r in rests]
    return treespec.unflatten(func(*xs) for xs in zip(*columns, strict=True))


def keystr(kp: KeyPath) -> str:
    """Given a key path, return a pretty-printed representation."""
    return "".join(str(k) for k in kp)


def key_get(obj: Any, kp: KeyPath) -> Any:
    """Given an object and a key path, return the value at the key path."""
    for k in kp:
        obj = k.get(obj)
    return obj
