"""What the eager fast paths could break: the cached saved masks, the inline LRU
hits of compiled forwards and constants, the Python-number dunder shortcut, and the one pass
over the backward's nodes that checks them and decides between the executors."""

import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._defer import lazy as _lazy
from autograd_compat._pure import op as _op
from autograd_compat._state.node import AccumulateGrad
from autograd_compat._tape import engine as _engine
from autograd_compat._tape import fused as _fused
from autograd_compat._tape import hot as _hot
from autograd_compat._tape import schedule as _schedule


@pytest.fixture
def hot_hits(monkeypatch) -> list:
    """What each call of the engine's hot pass (`_tape/hot.hot_schedule`) returned, in order."""
    hits: list = []
    hot_schedule = _hot.hot_schedule

    def logged(*args):
        hits.append(hot_schedule(*args))
        return hits[-1]

    monkeypatch.setattr(_engine, "hot_schedule", logged)
    return hits


def test_saved_masks_follow_which_inputs_require_grad():
    """mul saves the other input only: the cached mask differs with `requires`."""
    a = torch.tensor([2.0, 3.0], requires_grad=True)
    b = torch.tensor([5.0, 7.0])
    for x, y in ((a, b), (b, a), (a, a * 1)):
        out = x * y
        out.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [5 + 5 + 2 * 2, 7 + 7 + 2 * 3])


def test_a_view_ops_positions_are_never_freed_and_others_are():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x[1] * x[2]
    y.backward(retain_graph=False)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()
    z = x[1:] + 1  # linear: nothing saved, so a second backward works, as in PyTorch
    z.sum().backward()
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 3 + 2, 2 + 2])


def test_a_modified_saved_value_fails_backward_in_both_executors():
    for _ in range(_fused.FUSE_AFTER + 1):  # stepwise first, then the fused function
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        z = (y * y).sum()
        y.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.backward()


@pytest.mark.parametrize("where", ["tensor", "node", "leaf"])
def test_hooks_send_a_hot_graph_to_the_stepwise_executor(where):
    calls = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(_fused.FUSE_AFTER + 1):
        y = x.sin() * 2
        if where == "tensor":
            y.register_hook(lambda g: calls.append(1))
        elif where == "node":
            y.grad_fn.register_prehook(lambda g: calls.append(1))
        else:
            handle = x.register_hook(lambda g: calls.append(1))
        y.sum().backward()
        if where == "leaf":
            handle.remove()
    assert len(calls) == _fused.FUSE_AFTER + 1
    np.testing.assert_allclose(x.grad.numpy(), 3 * 2 * np.cos([1.0, 2.0]), rtol=1e-6)


@pytest.mark.parametrize("where", ["retain_grad", "saved_tensors_hooks", "removed_hook"])
def test_a_node_hooked_since_its_structure_was_remembered_is_not_matched(where, hot_hits):
    """The hot pass matches a node by its `hot` step, which a hook table, a retained grad or
    packed saved values clear: such a node's graph takes the general path, hooks and all; one
    whose hook was removed again gets the same gradients."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(_fused.FUSE_AFTER + 2):  # (the first makes x.grad: a new key)
        (x.sin() * 2).sum().backward()
    assert hot_hits[-1] is not None
    packed = []
    if where == "saved_tensors_hooks":
        with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
            y = x.sin() * 2
    else:
        y = x.sin() * 2
    if where == "retain_grad":
        y.retain_grad()
    elif where == "removed_hook":
        y.grad_fn.register_hook(lambda *args: None).remove()
    y.sum().backward()
    assert hot_hits[-1] is None or where == "removed_hook"
    if where == "retain_grad":
        np.testing.assert_allclose(y.grad.numpy(), [1.0, 1.0])
    if where == "saved_tensors_hooks":
        assert len(packed) == 1  # sin saved its input (mul by a number saves no tensor)
    expected = (_fused.FUSE_AFTER + 3) * 2 * np.cos([1.0, 2.0])
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)


def test_backward_with_inputs_runs_only_the_needed_nodes():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    for _ in range(_fused.FUSE_AFTER + 1):
        (a * b).sum().backward(inputs=[b])
    assert a.grad is None
    np.testing.assert_allclose(b.grad.numpy(), 3 * np.array([1.0, 2.0]))


def test_dunders_with_python_numbers_and_unknown_operands():
    t = torch.tensor([1, 2])
    assert (t * 2).dtype is torch.int64
    assert (t * 2.5).dtype is torch.float32
    assert (t + True).tolist() == [2, 3]
    with pytest.raises(TypeError):
        t * "x"
    assert t.__mul__(object()) is NotImplemented


def test_a_cached_constant_is_never_changed_by_an_inplace_op():
    y = torch.tensor([1.0, 2.0]) * 3.25
    y.mul_(2)
    y.add_(1)
    np.testing.assert_allclose((torch.zeros(2) + 3.25).numpy(), [3.25, 3.25])
    value = _op.constant(3.25, np.dtype("float32"))
    assert float(value) == 3.25


def test_compiled_forwards_stay_in_lru_order(monkeypatch):
    """A static key read again moves to the end, so the one in use outlives the others."""
    monkeypatch.setattr(_lazy, "ENABLED", False)  # every op through its compiled forward
    x = torch.tensor([1.0, 2.0])
    op = _op.registered_ops()["mul"]
    _ = x * 2.0
    key = next(k for k in op._compiled if dict(k)["dtype"] == np.dtype("float32"))
    _ = x * torch.tensor([1, 2])  # int64 with float32: another static key? same dtype key
    _ = torch.tensor([1, 2]) * torch.tensor([3, 4])  # the int64 key, read last
    _ = x * 2.0
    assert list(op._compiled)[-1] == key


class _FakeNode:
    """What the scheduler reads of a node: its sequence number and edges (and, for the
    survey, no saved values, hooks or outputs of note)."""

    op = static = saved_mask = placeholders = residuals = None
    pre_hooks = retained = hooks = prehooks_node = None
    hot = None
    saved = versions = ()
    out_meta = ((),)
    custom = False

    def __init__(self, seq: int, edges: tuple) -> None:
        self.seq = seq
        self.edges = edges


def _reference_order(graph: dict, needed: set) -> list:
    """Kahn's order by plain search: the ready node of the highest sequence number runs first,
    the earliest made ready among ties."""
    waiting = {
        n: sum(e is not None and e[0] is n for p in needed for e in graph[p]) for n in needed
    }
    ready = [(n, k) for k, n in enumerate(n for n in graph if waiting.get(n) == 0)]
    clock = len(ready)
    order = []
    while ready:
        best = max(ready, key=lambda item: (item[0].seq, -item[1]))
        ready.remove(best)
        order.append(best[0])
        for edge in graph[best[0]]:
            if edge is not None and edge[0] in waiting:
                waiting[edge[0]] -= 1
                if waiting[edge[0]] == 0:
                    ready.append((edge[0], clock))
                    clock += 1
    return order


def test_the_schedule_is_kahns_order_on_random_graphs():
    """Leaves share one sequence number; some nodes are numbered out of creation order (as a
    custom Function's); some edges are None; half the cases keep only the needed nodes."""
    rng = np.random.default_rng(0)
    for _ in range(500):
        nodes: list = []
        for i in range(int(rng.integers(1, 25))):
            leaf = rng.random() < 0.3
            edges = tuple(
                None if not nodes or rng.random() < 0.15 else (nodes[rng.integers(len(nodes))], 0)
                for _ in range(0 if leaf else int(rng.integers(1, 4)))
            )
            seq = 2**63 if leaf else int(rng.integers(0, 5)) if rng.random() < 0.1 else i + 10
            nodes.append(_FakeNode(seq, edges))
        waiting = _schedule.discover([(nodes[-1], 0)])
        graph = {node: node.edges for node in waiting}
        target = list(graph)[rng.integers(len(graph))]
        if rng.random() < 0.5:
            waiting = _schedule.needed(waiting, {target})
        needed = set(waiting)
        order, position = _schedule.order_of(waiting)
        assert order == _reference_order(graph, needed)
        assert position == {node: i for i, node in enumerate(order)}
        routes = _schedule.survey(order, position).routes
        for node, route in zip(order, routes):
            assert route == tuple(
                None if e is None or e[0] not in position else (position[e[0]], e[1])
                for e in node.edges
            )


def _random_graph(shape_seed: int, value_seed: int, swap: bool = False):
    """A loss from a random program of unary and binary ops over three leaves (fan-out, a
    value used twice, unused leaves): the program is fixed by `shape_seed`, the values by
    `value_seed`. `swap` records the two halves of the program in the other order (the same
    graph, other sequence numbers)."""
    rng = np.random.default_rng(shape_seed)
    values = np.random.default_rng(value_seed).standard_normal((3, 4)).astype(np.float32)
    leaves = [torch.tensor(v, requires_grad=True) for v in values]
    program = []
    for i in range(int(rng.integers(1, 12))):
        kind = int(rng.integers(4))
        program.append((kind, int(rng.integers(3 + i)), int(rng.integers(3 + i))))

    def run(pool, steps) -> None:
        for kind, a, b in steps:
            x, y = pool[a % len(pool)], pool[b % len(pool)]
            pool.append((x.sin(), x * y, x + y * 2, x.tanh() * x)[kind])

    halves = [program[: len(program) // 2], program[len(program) // 2 :]]
    pools = [list(leaves), list(leaves)]
    for half in reversed(range(2)) if swap else range(2):
        run(pools[half], halves[half])
    picks = pools[0][3:] + pools[1][3:] or leaves[:1]
    return sum(v.sum() for v in picks[-3:]), leaves


def test_the_hot_schedule_is_the_general_one_or_none_on_random_graphs():
    """Graphs of a structure fused before get their schedule from it (`hot_schedule`); any
    other graph whose root is of the same class gets None or, where its structure is the same,
    the same schedule."""
    hits = 0
    for case in range(40):
        for value_seed in range(_fused.FUSE_AFTER):  # the structure is fused, and remembered
            loss, _ = _random_graph(case, value_seed)
            loss.backward()
        for other, swap in ((case, False), (case, True), (case + 1, False)):
            loss, _ = _random_graph(other, 7, swap)
            edge, grad = loss._grad_edge(), _engine._validate_root(0, loss, None)
            general = _engine._schedule([edge], [grad], None, True, False)
            hot = _hot.hot_schedule(edge, grad)
            if hot is not None:
                hits += 1
                assert hot.order == general.order and hot.position == general.position
                assert hot.plan.seeds == general.plan.seeds
                assert hot.plan.sinks == general.plan.sinks
                assert hot.plan.arities == general.plan.arities
                assert list(hot.plan.routes) == general.plan.routes
                assert hot.fused is general.fused
                leaf = AccumulateGrad
                # (with a deferred run open the hot pass keeps its Pending values, as stored)
                kept = [tuple(_lazy.resolved(values)) for values in hot.saved]
                assert kept == [() if isinstance(n, leaf) else n.check_saved() for n in hot.order]
            else:
                assert other != case or swap or general.fused is None
    assert hits >= 40


def test_the_hot_schedule_keeps_the_backwards_semantics(hot_hits):
    """A hot graph whose saved value was modified, whose graph was freed or that has a hook
    raises or runs as the general path does."""
    for _ in range(_fused.FUSE_AFTER + 1):
        loss, leaves = _random_graph(3, 0)
        loss.backward()
    grads = [leaf.grad for leaf in leaves]
    loss, leaves = _random_graph(3, 0)
    loss.backward(retain_graph=True)
    loss.backward()
    for leaf, grad in zip(leaves, grads):
        assert (leaf.grad is None) == (grad is None)
        if grad is not None:
            np.testing.assert_allclose(leaf.grad.numpy(), 2 * grad.numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()
    assert hot_hits[-3] is not None and hot_hits[-1] is None  # (2nd: .grad exists, a new key)
    loss, leaves = _random_graph(3, 0)
    seen = []
    loss.grad_fn.register_hook(lambda *args: seen.append(1))
    loss.backward()
    assert seen == [1] and hot_hits[-1] is None
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    for i in range(_fused.FUSE_AFTER + 3):  # (the first makes x.grad: a new key)
        y = x * 1
        z = (y * y).sum()
        if i == _fused.FUSE_AFTER + 2:
            y.add_(1)
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                z.backward()
        else:
            z.backward()
    assert hot_hits[-2] is not None and hot_hits[-1] is None


def _buffer(t) -> int:
    return t._value.unsafe_buffer_pointer()


def test_a_reshaping_view_shares_the_cpu_buffer_and_other_views_do_not():
    """view/unsqueeze/squeeze on a CPU tensor run no program: the result's device buffer is the
    input's memory (`Op.host`); a transpose is a program's new buffer."""
    with torch.no_grad():
        x = torch.arange(24.0).reshape(2, 3, 4) * 1
    for view in (x.view(6, 4), x.unsqueeze(1), x.view(1, 24).squeeze(0), x.flatten()):
        assert _buffer(view) == _buffer(x)
    assert _buffer(x.transpose(0, 1)) != _buffer(x)


def test_shared_buffers_keep_their_values_through_writes_and_a_donating_optimizer():
    """A kept view of a parameter over its memory: the optimizer's update (which donates what
    nothing else holds) leaves the view's old memory intact and the view sees the new value,
    as in PyTorch; values written into the base reach every view."""
    w = torch.nn.Parameter(torch.arange(6.0).reshape(2, 3) * 1)
    flat = w.view(-1)
    optimizer = torch.optim.SGD([w], lr=0.5)
    for _ in range(3):
        optimizer.zero_grad()
        (w * w).sum().backward()
        optimizer.step()
    expected = np.arange(6.0).reshape(2, 3) * 0.0  # w - 0.5 * 2w = 0 after the first step
    np.testing.assert_array_equal(w.detach().numpy(), expected)
    np.testing.assert_array_equal(flat.detach().numpy(), expected.reshape(-1))
    with torch.no_grad():
        base = torch.ones(4, 2)
        view = base.view(8)
        base.add_(1)
    np.testing.assert_array_equal(view.numpy(), np.full(8, 2.0))
