"""Property-based graph fuzzing: random computation graphs, gradients of order 1 and 2.

Hypothesis draws a DAG over a fixed vocabulary of ops (elementwise math, Python scalars,
broadcasting binaries, reductions, shape ops, indexing, matmul, in-place ops on fresh
non-leaves), with fan-out and reuse of intermediates, over four small shapes. The same graph
is evaluated by autograd_compat, by real PyTorch and by the equivalent pure JAX function:

- first order (1,750 graphs): `autograd.backward(outputs, weights)` into the leaves' `.grad`,
  against PyTorch's `.grad` (values, and which grads are None) for every graph and against
  `jax.vjp` for every tenth (eager JAX autodiff costs more than all the rest);
- second order (200 graphs): outputs, `autograd.grad(..., create_graph=True)` and the
  gradient of `sum(v_j * g_j)` (a Hessian-vector product) against PyTorch and against
  `jax.jvp` of `jax.grad` (forward-over-reverse), for every graph;
- the fused executor (50 graphs): the engine's one-XLA-call backward against its stepwise one.

Every op maps the four shapes to themselves, so the XLA compilations are shared by all
graphs. Runs are deterministic (derandomize, no example database); FUZZ_GRAPHS_SCALE=10
runs ten times as many. A failure is shrunk to a minimal graph; each one found is kept as a
regression test (`REGRESSIONS`, at the end).
"""

from __future__ import annotations

import contextlib
import os
import warnings
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import autograd_compat as ac

try:
    import torch
except ImportError:  # pragma: no cover - the JAX reference still runs
    torch = None

DTYPE = "float64"
SHAPES = [(), (3,), (2, 3), (1, 3)]
# Examples per test; FUZZ_GRAPHS_SCALE multiplies them all (e.g. 10 for a long local run).
_SCALE = float(os.environ.get("FUZZ_GRAPHS_SCALE", "1"))
EXAMPLES_FIRST = int(1750 * _SCALE)
EXAMPLES_SECOND = int(200 * _SCALE)
EXAMPLES_FUSED = int(50 * _SCALE)
MAX_NODES = 8
JAX_EVERY = int(os.environ.get("FUZZ_GRAPHS_JAX_EVERY", "10"))  # first order: 1 graph in N


# ----------------------------------------------------------------------------- reference math
@jax.custom_jvp
def _abs(x):
    return jnp.abs(x)


@_abs.defjvp
def _abs_jvp(primals, tangents):  # PyTorch: d|x|/dx = sign(x), 0 at 0 (JAX's is 1)
    (x,), (t,) = primals, tangents
    return jnp.abs(x), jnp.sign(x) * t


def _norm(x):
    """The 2-norm with PyTorch's zero gradient at 0 (the double-where trick)."""
    s = jnp.sum(x * x)
    safe = jnp.where(s == 0, 1.0, s)
    return jnp.where(s == 0, 0.0, jnp.sqrt(safe))


def _relu(x):
    return jnp.where(x > 0, x, 0.0)


# ----------------------------------------------------------------------------- vocabulary
@dataclass(frozen=True)
class Op:
    """One vocabulary entry: a Tensor-API function, its JAX twin and a shape rule."""

    name: str
    arity: int
    tensor: object  # f(*tensors) with the PyTorch API (torch or autograd_compat)
    jax: object  # f(*arrays) with jax.numpy
    shape: object  # shape(*input shapes) -> output shape, or None when not applicable


def _same(*shapes):
    return shapes[0]


def _broadcast(a, b):
    try:
        return tuple(np.broadcast_shapes(a, b))
    except ValueError:
        return None


def _inplace_target(a, b):
    """`a.op_(b)` keeps a's shape: b must broadcast to it."""
    return a if _broadcast(a, b) == a else None


def _matrix(a):
    return a if len(a) == 2 else None


def _row(a, source_ndim=2):
    """(1, 3) for inputs of `source_ndim` dimensions (or of exactly that shape), else None."""
    ok = a == source_ndim if isinstance(source_ndim, tuple) else len(a) == source_ndim
    return (1, 3) if ok else None


def _drop_first(a):
    return a[1:] if a else None


def _gram_shape(x, a):
    """`x @ (a.T @ a)`: x is (..., 3) and a is a (k, 3) matrix; the result has x's shape."""
    return x if x and x[-1] == 3 and len(a) == 2 else None


def _gram_jax(x, a):
    return jnp.matmul(x, jnp.matmul(a.T, a))


def _inplace(method, *args):
    """`y = a.clone(); y.method_(*rest, *args)`: an in-place op on a fresh non-leaf."""

    def run(a, *rest):
        y = a.clone()
        getattr(y, method)(*rest, *args)
        return y

    return run


# Every op maps shapes of SHAPES to shapes of SHAPES: few distinct (op, shapes) pairs exist,
# so the XLA compilations they need are shared by all the graphs.
UNARY = [
    Op("neg", 1, lambda a: -a, lambda a: -a, _same),
    Op("sin", 1, lambda a: a.sin(), jnp.sin, _same),
    Op("tanh", 1, lambda a: a.tanh(), jnp.tanh, _same),
    Op("sigmoid", 1, lambda a: a.sigmoid(), jax.nn.sigmoid, _same),
    Op("exp", 1, lambda a: a.exp(), jnp.exp, _same),
    Op("abs", 1, lambda a: a.abs(), _abs, _same),
    Op("relu", 1, lambda a: a.relu(), _relu, _same),
    Op("square", 1, lambda a: a * a, lambda a: a * a, _same),
    Op("cube", 1, lambda a: a**3, lambda a: a**3, _same),
    Op("sqrt1p", 1, lambda a: (a * a + 1).sqrt(), lambda a: jnp.sqrt(a * a + 1), _same),
    Op("log1p", 1, lambda a: (a * a + 1).log(), lambda a: jnp.log(a * a + 1), _same),
    Op("mul_s", 1, lambda a: a * 2.5, lambda a: a * 2.5, _same),
    Op("add_s", 1, lambda a: 1.5 + a, lambda a: 1.5 + a, _same),
    Op("rsub_s", 1, lambda a: 2 - a, lambda a: 2 - a, _same),
    Op("rpow_s", 1, lambda a: 2**a, lambda a: 2.0**a, _same),
]
BINARY = [
    Op("add", 2, lambda a, b: a + b, lambda a, b: a + b, _broadcast),
    Op("sub", 2, lambda a, b: a - b, lambda a, b: a - b, _broadcast),
    Op("mul", 2, lambda a, b: a * b, lambda a, b: a * b, _broadcast),
    Op("div", 2, lambda a, b: a / (b * b + 1), lambda a, b: a / (b * b + 1), _broadcast),
    Op("pow", 2, lambda a, b: (a * a + 1) ** b, lambda a, b: (a * a + 1) ** b, _broadcast),
    Op("add_alpha", 2, lambda a, b: a.add(b, alpha=-2), lambda a, b: a - 2 * b, _broadcast),
    Op("dot", 2, lambda a, b: a @ b, jnp.matmul, lambda a, b: () if a == b == (3,) else None),
    Op("gram", 2, lambda x, a: x @ (a.t() @ a), _gram_jax, _gram_shape),
]
REDUCE = [
    Op("sum", 1, lambda a: a.sum(), jnp.sum, lambda a: ()),
    Op("sum0", 1, lambda a: a.sum(0), lambda a: a.sum(0), _drop_first),
    Op(
        "sum0_keep",
        1,
        lambda a: a.sum(0, keepdim=True),
        lambda a: a.sum(0, keepdims=True),
        lambda a: (1, 3) if len(a) == 2 else None,
    ),
    Op("mean", 1, lambda a: a.mean(), jnp.mean, lambda a: ()),
    Op("norm", 1, lambda a: a.norm(), _norm, lambda a: ()),
]
SHAPE_OPS = [
    Op(
        "reshape",
        1,
        lambda a: a.reshape(*((1, 3) if a.ndim == 1 else (3,))),
        lambda a: a.reshape((1, 3) if a.ndim == 1 else (3,)),
        lambda a: {(3,): (1, 3), (1, 3): (3,)}.get(a),
    ),
    Op(
        "reshape_t",
        1,
        lambda a: a.reshape(3, 2).t(),
        lambda a: a.reshape(3, 2).T,
        lambda a: a if a == (2, 3) else None,
    ),
    Op(
        "transpose_twice",
        1,
        lambda a: a.transpose(0, 1).transpose(-1, -2),
        lambda a: a,
        _matrix,
    ),
    Op("select0", 1, lambda a: a[0], lambda a: a[0], _drop_first),
    Op("slice_rows", 1, lambda a: a[:1], lambda a: a[:1], lambda a: _row(a)),
    Op(
        "gather_last",
        1,
        lambda a: a[..., [0, 2, 0]],
        lambda a: a[..., np.array([0, 2, 0])],
        lambda a: a if a and a[-1] == 3 else None,
    ),
    Op(
        "gather_rows",
        1,
        lambda a: a[[a.shape[0] - 1, 0]],
        lambda a: a[np.array([a.shape[0] - 1, 0])],
        lambda a: (2, 3) if len(a) == 2 else None,
    ),
    Op("none_index", 1, lambda a: a[None], lambda a: a[None], lambda a: _row(a, (3,))),
    Op("unbind0", 1, lambda a: a.unbind(0)[-1], lambda a: a[-1], _drop_first),
    Op("clone", 1, lambda a: a.clone(), lambda a: a, _same),
]
INPLACE = [
    Op("iadd", 2, _inplace("add_"), lambda a, b: a + b, _inplace_target),
    Op("imul", 2, _inplace("mul_"), lambda a, b: a * b, _inplace_target),
    Op("isin", 1, _inplace("sin_"), jnp.sin, _same),
    Op("iexp", 1, _inplace("exp_"), jnp.exp, _same),
]
VOCABULARY = {op.name: op for op in UNARY + BINARY + REDUCE + SHAPE_OPS + INPLACE}


# ----------------------------------------------------------------------------- graphs
@dataclass(frozen=True)
class Graph:
    """Leaves (shapes), nodes (op name, input indices) and the weighted outputs.

    Values are numbered leaves first, then nodes. `seed` fixes leaf values, output weights
    and the second-order direction.
    """

    leaves: tuple
    nodes: tuple
    outputs: tuple
    seed: int = 0

    def shapes(self) -> list:
        shapes = list(self.leaves)
        for name, inputs in self.nodes:
            shapes.append(VOCABULARY[name].shape(*(shapes[i] for i in inputs)))
        return shapes


OP_NAMES = tuple(sorted(VOCABULARY))


@st.composite
def graphs(draw, max_nodes: int = MAX_NODES):
    n_leaves = draw(st.integers(1, 3))
    leaves = tuple(SHAPES[draw(st.integers(0, len(SHAPES) - 1))] for _ in range(n_leaves))
    shapes = list(leaves)
    nodes = []
    for _ in range(draw(st.integers(1, max_nodes))):
        op = VOCABULARY[OP_NAMES[draw(st.integers(0, len(OP_NAMES) - 1))]]
        # Counted back from the latest value (deep chains; hypothesis shrinks towards it),
        # any earlier one may be reused (fan-out).
        first = len(shapes) - 1 - draw(st.integers(0, len(shapes) - 1))
        inputs = (first,)
        if op.arity == 2:
            partners = [
                j for j in range(len(shapes)) if op.shape(shapes[first], shapes[j]) is not None
            ]
            if not partners:
                continue
            inputs = (first, partners[draw(st.integers(0, len(partners) - 1))])
        shape = op.shape(*(shapes[i] for i in inputs))
        if shape is None:
            continue
        nodes.append((op.name, inputs))
        shapes.append(shape)
    assume(nodes)
    last = len(shapes) - 1
    extra = draw(st.lists(st.integers(n_leaves, last), max_size=2, unique=True))
    outputs = tuple(sorted({last, *extra}))
    seed = draw(st.integers(0, 2**16))
    return Graph(leaves, tuple(nodes), outputs, seed)


def _arrays(graph: Graph, dtype: str):
    """Leaf values (magnitudes in [0.3, 1.5]), output weights and second-order directions."""
    rng = np.random.default_rng(graph.seed)
    shapes = graph.shapes()

    def draw(shape):
        return (rng.uniform(0.3, 1.5, shape) * rng.choice([-1.0, 1.0], shape)).astype(dtype)

    leaves = [draw(s) for s in graph.leaves]
    weights = [draw(shapes[i]) for i in graph.outputs]
    directions = [draw(s) for s in graph.leaves]
    return leaves, weights, directions


def evaluate(graph: Graph, leaves: list, backend: str) -> list:
    """Every value of the graph (leaves, then nodes), computed by `backend`."""
    values = list(leaves)
    for name, inputs in graph.nodes:
        op = VOCABULARY[name]
        fn = op.jax if backend == "jax" else op.tensor
        values.append(fn(*(values[i] for i in inputs)))
    return values


# ----------------------------------------------------------------------------- the three runs
def jax_reference(graph: Graph, leaves, weights, directions, second_order: bool):
    """(outputs, first-order grads, Hessian-vector products or None) of the pure JAX function:
    `jax.vjp` with the weights; for second order `jax.jvp` of `jax.grad` (forward-over-reverse)
    of `sum(w_i * out_i)` along the directions."""
    leaves = [jnp.asarray(x) for x in leaves]

    def outputs_of(*xs):
        values = evaluate(graph, list(xs), "jax")
        return [values[i] for i in graph.outputs]

    if not second_order:
        outputs, vjp = jax.vjp(outputs_of, *leaves)
        grads = vjp([jnp.asarray(w) for w in weights])
        return [np.asarray(o) for o in outputs], [np.asarray(g) for g in grads], None

    def f(*xs):
        return sum(jnp.sum(o * w) for o, w in zip(outputs_of(*xs), weights))

    argnums = tuple(range(len(leaves)))
    outputs = [np.asarray(o) for o in outputs_of(*leaves)]
    grads, hvp = jax.jvp(
        lambda *xs: jax.grad(f, argnums)(*xs), tuple(leaves), tuple(map(jnp.asarray, directions))
    )
    return outputs, [np.asarray(g) for g in grads], [np.asarray(h) for h in hvp]


def _np(t):
    """A tensor's value as numpy (PyTorch's lazy zero tensors need force=True)."""
    return None if t is None else t.detach().numpy(force=True)


def tensor_run(lib, graph: Graph, leaves, weights, directions, second_order: bool):
    """Outputs, leaf `.grad` after `autograd.backward(outputs, weights)` and, for second order,
    `autograd.grad(create_graph=True)` and the Hessian-vector product, with a PyTorch-API
    module. A gradient that does not flow is None, as the library reports it."""
    xs = [lib.tensor(x, requires_grad=True) for x in leaves]
    values = evaluate(graph, xs, "tensor")
    outs = [values[i] for i in graph.outputs]
    ws = [lib.tensor(w) for w in weights]
    lib.autograd.backward(outs, ws, retain_graph=second_order)
    result = {"outputs": [_np(o) for o in outs], "leaf_grads": [_np(x.grad) for x in xs]}
    if not second_order:
        return result
    loss = sum((o * w).sum() for o, w in zip(outs, ws))
    grads = lib.autograd.grad(loss, xs, create_graph=True, allow_unused=True)
    result["grads"] = [_np(g) for g in grads]
    terms = [(g * lib.tensor(v)).sum() for g, v in zip(grads, directions) if g is not None]
    terms = [t for t in terms if t.requires_grad]
    hvp = lib.autograd.grad(sum(terms), xs, allow_unused=True) if terms else [None] * len(xs)
    result["hvp"] = [_np(h) for h in hvp]
    return result


def _zeros_for_none(arrays, like):
    return [np.zeros_like(r) if a is None else a for a, r in zip(arrays, like)]


def _assert_close(actual, expected, what: str, graph: Graph, tolerance) -> None:
    for i, (a, e) in enumerate(zip(actual, expected)):
        np.testing.assert_allclose(
            np.asarray(a, np.float64),
            np.asarray(e, np.float64),
            rtol=tolerance[0],
            atol=tolerance[1],
            err_msg=f"{what}[{i}] differs for {graph}",
        )


TOLERANCE = {"float64": (1e-9, 1e-10), "float32": (2e-4, 2e-5)}  # float32: regressions
CHECKED: dict = {}  # test name -> graphs checked (assumptions passed), for the count test
OPS_SEEN: set = set()


def check_graph(
    graph: Graph,
    dtype: str = DTYPE,
    second_order: bool = True,
    against_jax: bool = True,
    inside_given: bool = True,
) -> None:
    """The property: autograd_compat agrees with PyTorch and (when `against_jax`, or when
    PyTorch is missing) with the pure JAX function on `graph`."""
    leaves, weights, directions = _arrays(graph, dtype)
    tol = TOLERANCE[dtype]
    shapes = graph.shapes()
    like = {
        "outputs": [np.zeros(shapes[i]) for i in graph.outputs],
        "leaf_grads": [np.zeros(s) for s in graph.leaves],
        "grads": [np.zeros(s) for s in graph.leaves],
        "hvp": [np.zeros(s) for s in graph.leaves],
    }
    references = {}
    if torch is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            references["PyTorch"] = tensor_run(
                torch, graph, leaves, weights, directions, second_order
            )
    if against_jax or torch is None:
        with jax.default_matmul_precision("highest"):
            out, grads, hvp = jax_reference(graph, leaves, weights, directions, second_order)
        references["JAX"] = {"outputs": out, "leaf_grads": grads}
        if second_order:
            references["JAX"].update(grads=grads, hvp=hvp)
    # Graphs whose values overflow (exp of exp of ...) say nothing: drop them.
    first = next(iter(references.values()))
    arrays = [a for values in first.values() for a in values if a is not None]
    magnitude = max(float(np.max(np.abs(a), initial=0.0)) for a in arrays)
    if not (np.isfinite(magnitude) and magnitude < 1e5):
        if inside_given:
            assume(False)
        pytest.skip(f"values overflow: {graph}")

    ours = tensor_run(ac, graph, leaves, weights, directions, second_order)
    for name, reference in references.items():
        if name == "PyTorch":
            ours_none = [g is None for g in ours["leaf_grads"]]
            theirs_none = [g is None for g in reference["leaf_grads"]]
            assert ours_none == theirs_none, f"which .grad are None differs from PyTorch: {graph}"
        scale = 10 if name == "PyTorch" else 1  # two libraries round differently
        for key, expected in reference.items():
            _assert_close(
                _zeros_for_none(ours[key], like[key]),
                _zeros_for_none(expected, like[key]),
                f"{key} vs {name}",
                graph,
                (tol[0] * scale, tol[1] * scale),
            )
    _count(f"{'second' if second_order else 'first'}-order vs {'+'.join(references)}", graph)


def _count(name: str, graph: Graph) -> None:
    CHECKED[name] = CHECKED.get(name, 0) + 1
    OPS_SEEN.update(op for op, _ in graph.nodes)


# ----------------------------------------------------------------------------- the fuzz tests
COMMON = dict(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@contextlib.contextmanager
def fuse_after(count: int):
    """Set the engine's fusion threshold for a block. The fuzz tests keep the engine
    stepwise (a huge count): with fusion on, every graph structure drawn twice would be
    compiled into one XLA function (~0.1 s each); fusion has its own test below."""
    from autograd_compat._tape import fused as _fused

    previous = _fused.FUSE_AFTER
    _fused.FUSE_AFTER = count
    try:
        yield
    finally:
        _fused.FUSE_AFTER = previous


STEPWISE = 10**9


@settings(max_examples=EXAMPLES_FIRST, **COMMON)
@given(graph=graphs())
def test_random_graphs_first_order(graph):
    """First order on every graph against PyTorch; every tenth graph also against jax.vjp
    (eager JAX autodiff costs more than the rest together; the second-order test checks
    JAX on all of its graphs)."""
    _FIRST_ORDER_RUNS[0] += 1
    with fuse_after(STEPWISE):
        check_graph(graph, second_order=False, against_jax=_FIRST_ORDER_RUNS[0] % JAX_EVERY == 1)


_FIRST_ORDER_RUNS = [0]


@settings(max_examples=EXAMPLES_SECOND, **COMMON)
@given(graph=graphs(max_nodes=5))
def test_random_graphs_second_order(graph):
    with fuse_after(STEPWISE):
        check_graph(graph)


@settings(max_examples=EXAMPLES_FUSED, **COMMON)
@given(graph=graphs(max_nodes=5))
def test_random_graphs_fused_backward(graph):
    """The fused executor (one jitted function per graph structure) on random graphs: the
    engine fuses from the first backward here, and must agree with the stepwise run."""
    leaves, weights, _ = _arrays(graph, DTYPE)
    results = []
    for count in (STEPWISE, 1):
        with fuse_after(count):
            xs = [ac.tensor(x, requires_grad=True) for x in leaves]
            values = evaluate(graph, xs, "tensor")
            outputs = [values[i] for i in graph.outputs]
            ac.autograd.backward(outputs, [ac.tensor(w) for w in weights])
        results.append([_np(x.grad) for x in xs])
    stepwise, fused = results
    assert [g is None for g in stepwise] == [g is None for g in fused], graph
    like = [np.zeros(s) for s in graph.leaves]
    _assert_close(
        _zeros_for_none(fused, like), _zeros_for_none(stepwise, like), "fused", graph, (1e-12, 0)
    )
    _count("fused", graph)


def test_graph_count():
    """At least 2,000 generated graphs were checked in this run, and every op of the
    vocabulary was in some of them (when all the fuzz tests of this file ran)."""
    kinds = {key.split(" ")[0].split("-")[0] for key in CHECKED}
    if kinds != {"first", "second", "fused"}:
        pytest.skip(f"only part of the fuzz tests ran: {CHECKED}")
    total = sum(CHECKED.values())
    print(f"graphs checked: {CHECKED}, total {total}; ops used: {len(OPS_SEEN)}")
    assert total >= 0.9 * (EXAMPLES_FIRST + EXAMPLES_SECOND + EXAMPLES_FUSED)
    assert total >= 2000 or _SCALE < 1, CHECKED
    assert OPS_SEEN == set(VOCABULARY), set(VOCABULARY) - OPS_SEEN


# ----------------------------------------------------------------------------- regressions
# Minimal graphs found (and shrunk) by the fuzzer; each was a real discrepancy once.
REGRESSIONS: dict = {
    # PyTorch's second derivative of abs is a lazy zero tensor (numpy() needs force=True).
    "abs_second_order": Graph(leaves=((),), nodes=(("abs", (0,)),), outputs=(1,), seed=0),
}


@pytest.mark.parametrize("graph", [pytest.param(g, id=k) for k, g in REGRESSIONS.items()])
def test_fuzz_regression(graph):
    with fuse_after(STEPWISE):
        check_graph(graph, inside_given=False)


def test_fuzzer_catches_a_planted_backward_bug(monkeypatch):
    """The property is sensitive: an engine that drops one of two cotangents meeting at a
    fan-out (x used twice) fails it."""
    from autograd_compat._tape import propagate as _propagate

    graph = Graph(leaves=((3,),), nodes=(("mul", (0, 0)),), outputs=(1,), seed=1)
    with fuse_after(STEPWISE):
        check_graph(graph, inside_given=False)
        monkeypatch.setattr(_propagate, "add", lambda a, b: a if a is not None else b)
        with pytest.raises(AssertionError, match="differs"):
            check_graph(graph, inside_given=False)
