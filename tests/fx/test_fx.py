"""torch.fx against real PyTorch: each program runs once per library (`torch` is the module
passed in) and the graphs (op kinds and targets, in order) and the values must agree."""

from __future__ import annotations

import contextlib
import io
import pickle

import numpy as np
import pytest

import autograd_compat


def structure(gm) -> list[tuple[str, str]]:
    """(op, target) of each node; functions by name, so both libraries' graphs compare."""
    return [
        (n.op, n.target if isinstance(n.target, str) else n.target.__name__) for n in gm.graph.nodes
    ]


def numpy(value):
    if isinstance(value, (list, tuple)):
        return [numpy(v) for v in value]
    if isinstance(value, dict):
        return {k: numpy(v) for k, v in value.items()}
    return value.detach().numpy() if hasattr(value, "detach") else value


def assert_same(ours, theirs) -> None:
    """The two libraries' results agree: graph structures exactly, values closely."""
    for kind in (list, tuple, dict, str):
        assert isinstance(ours, kind) == isinstance(theirs, kind), (ours, theirs)
    if isinstance(ours, dict):
        assert ours.keys() == theirs.keys()
        for key in ours:
            assert_same(ours[key], theirs[key])
    elif isinstance(ours, (list, tuple)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert_same(a, b)
    elif isinstance(ours, np.ndarray):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    else:
        assert ours == theirs


def both(prog, real_torch):
    """Run `prog(torch)` on each library and check that the results agree; return ours."""
    ours, theirs = prog(autograd_compat), prog(real_torch)
    assert_same(ours, theirs)
    return ours


def inputs(torch, *shape, seed=0):
    values = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return torch.from_numpy(values)


def small_model(torch):
    """A module with a leaf submodule, a parameter, operators, method calls and `.shape`."""
    nn = torch.nn

    class Small(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 3)
            self.scale = nn.Parameter(torch.ones(3) * 0.5)

        def forward(self, x, y: int = 2):
            h = self.lin(x + 1) * self.scale
            return h.relu().sum(-1) + h.shape[0] * y

    model = Small()
    with torch.no_grad():
        model.lin.weight.copy_(inputs(torch, 3, 4, seed=1))
        model.lin.bias.copy_(inputs(torch, 3, seed=2))
    return model


def test_trace_matches_torch_and_the_module(real_torch):
    def prog(torch):
        model = small_model(torch)
        gm = torch.fx.symbolic_trace(model)
        x = inputs(torch, 2, 4).requires_grad_()
        out = gm(x)
        out.sum().backward()
        grads = [x.grad.clone(), gm.lin.weight.grad.clone(), gm.scale.grad.clone()]
        x.grad = model.lin.weight.grad = None
        model(x).sum().backward()
        assert gm.lin is model.lin  # submodules are shared, not copied
        return {
            "structure": structure(gm),
            "out": numpy(out),
            "same_as_module": all(
                np.allclose(a, b)
                for a, b in zip(numpy([x.grad, model.lin.weight.grad]), numpy(grads))
            ),
            "grads": numpy(grads),
            "names": [n.name for n in gm.graph.nodes],
            "users": [len(n.users) for n in gm.graph.nodes],
            "state": sorted(gm.state_dict()),
            "defaults": gm(x, 3).shape[0],
            "readable": "class Small(torch.nn.Module)" in gm.print_readable(False),
        }

    result = both(prog, real_torch)
    assert result["structure"][2] == ("call_function", "add")
    assert (
        "def forward(self, x, y"
        in autograd_compat.fx.symbolic_trace(small_model(autograd_compat)).code
    )


def test_graph_prints_as_torch(real_torch):
    def prog(torch):
        gm = torch.fx.symbolic_trace(small_model(torch))
        return {"graph": str(gm.graph), "code": gm.code}

    both(prog, real_torch)
    table = io.StringIO()
    with contextlib.redirect_stdout(table):
        autograd_compat.fx.symbolic_trace(small_model(autograd_compat)).graph.print_tabular()
    lines = table.getvalue().splitlines()
    assert lines[0].split() == ["opcode", "name", "target", "args", "kwargs"]
    assert lines[3].split() == ["placeholder", "y", "y", "(2,)", "{}"]
    assert lines[4].split()[:2] == ["call_function", "add"]


def test_custom_tracer_keeps_a_module_as_leaf(real_torch):
    def prog(torch):
        nn = torch.nn

        class Gate(nn.Module):
            def forward(self, x):
                return x.sigmoid() * x

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.gate = Gate()
                self.body = nn.Sequential(nn.Linear(4, 4), Gate())

            def forward(self, x):
                return self.body(self.gate(x)) - 1

        class GateLeaf(torch.fx.Tracer):
            def is_leaf_module(self, m, qualname):
                return isinstance(m, Gate) or super().is_leaf_module(m, qualname)

        net = Net()
        with torch.no_grad():
            net.body[0].weight.copy_(inputs(torch, 4, 4, seed=3))
            net.body[0].bias.copy_(inputs(torch, 4, seed=4))
        default = torch.fx.symbolic_trace(net)
        graph = GateLeaf().trace(net)
        gm = torch.fx.GraphModule(net, graph)
        x = inputs(torch, 2, 4)
        return {
            "default": structure(default),
            "leaf": structure(gm),
            "out": numpy(gm(x)),
            "orig": numpy(net(x)),
            "submodules": sorted(name for name, _ in gm.named_modules()),
        }

    result = both(prog, real_torch)
    assert ("call_module", "gate") in result["leaf"]
    assert ("call_module", "gate") not in result["default"]


def test_invert_a_graph(real_torch):
    """fx docs' "invert" example, on Tensor methods (test_invert_with_torch_functions has the
    docs' torch.* version)."""

    def prog(torch):
        inverse = {"exp": "log", "tan": "arctan", "log": "exp", "arctan": "tan"}

        def f(x):
            return x.tan().exp()

        traced = torch.fx.symbolic_trace(f)
        new_graph = torch.fx.Graph()
        env = {}
        for node in reversed(traced.graph.nodes):
            if node.op == "call_method":
                new = new_graph.call_method(inverse[node.target], (env[node.name],))
                env[node.args[0].name] = new
            elif node.op == "output":
                env[node.args[0].name] = new_graph.placeholder(node.name)
            elif node.op == "placeholder":
                new_graph.output(env[node.name])
        inverted = torch.fx.GraphModule(traced, new_graph)
        x = inputs(torch, 5) * 0.5
        return {"structure": structure(inverted), "roundtrip": numpy(inverted(f(x))), "x": numpy(x)}

    result = both(prog, real_torch)
    np.testing.assert_allclose(result["roundtrip"], result["x"], rtol=1e-5, atol=1e-6)


def add_twice(torch):
    nn = torch.nn

    class AddTwice(nn.Module):
        def forward(self, x, y):
            return (x + y).neg() + y * 2

    return AddTwice()


def test_replace_add_with_mul_by_transformer(real_torch):
    import operator

    def prog(torch):
        class AddToMul(torch.fx.Transformer):
            def call_function(self, target, args, kwargs):
                if target is operator.add:
                    target = operator.mul
                return super().call_function(target, args, kwargs)

        gm = AddToMul(torch.fx.symbolic_trace(add_twice(torch))).transform()
        x, y = inputs(torch, 3), inputs(torch, 3, seed=1)
        return {
            "structure": structure(gm),
            "out": numpy(gm(x, y)),
            "expected": numpy((x * y).neg() * (y * 2)),
        }

    result = both(prog, real_torch)
    assert ("call_function", "add") not in result["structure"]
    np.testing.assert_allclose(result["out"], result["expected"], rtol=1e-6)


def test_replace_add_with_mul_by_editing_nodes(real_torch):
    import operator

    def prog(torch):
        gm = torch.fx.symbolic_trace(add_twice(torch))
        for node in gm.graph.nodes:
            if node.op == "call_function" and node.target is operator.add:
                with gm.graph.inserting_after(node):
                    new = gm.graph.call_function(operator.mul, node.args, node.kwargs)
                node.replace_all_uses_with(new)
                gm.graph.erase_node(node)
        gm.graph.lint()
        gm.recompile()
        x, y = inputs(torch, 3), inputs(torch, 3, seed=1)
        return {
            "structure": structure(gm),
            "out": numpy(gm(x, y)),
            "code_has_mul": "x * y" in gm.code,
        }

    result = both(prog, real_torch)
    assert result["code_has_mul"]


def test_graph_editing_api(real_torch):
    import operator

    def prog(torch):
        fx = torch.fx
        graph = fx.Graph()
        x = graph.placeholder("x")
        y = graph.placeholder("y", default_value=3)
        a = graph.call_function(operator.add, (x, y))
        dead = graph.call_method("sum", (a,))
        b = graph.call_method("mul", (a,), {"other": 2})
        graph.output((b, [a]))
        with graph.inserting_before(b):
            c = graph.call_function(operator.sub, (a, 1))
        b.replace_input_with(a, c)
        copy = fx.Graph()
        out = copy.graph_copy(graph, {})
        copy.output(out)
        record = {
            "order": [n.name for n in graph.nodes],
            "prev_next": [dead.prev.name, dead.next.name],
            "inputs": [n.name for n in b.all_input_nodes],
            "users": sorted(u.name for u in a.users),
            "dce": graph.eliminate_dead_code(),
            "after": [n.name for n in graph.nodes],
            "copy": [n.op for n in copy.nodes],
            "kwargs": dict(b.kwargs),
            "map_arg": fx.map_arg((x, [y, 1]), lambda n: n.name),
        }
        gm = fx.GraphModule(torch.nn.Module(), graph)
        record["out"] = numpy(gm(inputs(torch, 2)))
        with pytest.raises(RuntimeError, match="still had 2 users"):
            graph.erase_node(a)
        return record

    both(prog, real_torch)


def test_graph_module_from_a_dict_root(real_torch):
    def prog(torch):
        graph = torch.fx.Graph()
        x = graph.placeholder("x")
        lin = graph.call_module("block.lin", (x,))
        w = graph.get_attr("w")
        graph.output(graph.call_method("add", (lin, w)))
        linear = torch.nn.Linear(3, 3)
        with torch.no_grad():
            linear.weight.copy_(inputs(torch, 3, 3, seed=7))
            linear.bias.zero_()
        gm = torch.fx.GraphModule({"block.lin": linear, "w": torch.ones(3)}, graph)
        missing = None
        try:
            torch.fx.GraphModule({"w": torch.ones(3)}, graph)
        except RuntimeError as e:
            missing = str(e)
        return {
            "out": numpy(gm(inputs(torch, 2, 3))),
            "buffers": sorted(name for name, _ in gm.named_buffers()),
            "params": sorted(name for name, _ in gm.named_parameters()),
            "missing": missing,
            "code": gm.code,
        }

    both(prog, real_torch)


def test_subgraph_rewriter(real_torch):
    def prog(torch):
        class M(torch.nn.Module):
            def forward(self, x, w):
                a = (x + w).relu()
                b = (a + x).relu()
                return b * 2

        def pattern(p, q):
            return (p + q).relu()

        def replacement(p, q):
            return (p * q).sigmoid()

        gm = torch.fx.symbolic_trace(M())
        matches = torch.fx.replace_pattern(gm, pattern, replacement)
        x, w = inputs(torch, 4), inputs(torch, 4, seed=1)
        expected = ((x * w).sigmoid() * x).sigmoid() * 2
        return {
            "matches": len(matches),
            "anchors": [m.anchor.target for m in matches],
            "structure": structure(gm),
            "out": numpy(gm(x, w)),
            "expected": numpy(expected),
        }

    result = both(prog, real_torch)
    assert result["matches"] == 2
    np.testing.assert_allclose(result["out"], result["expected"], rtol=1e-6)


def test_shape_prop(real_torch):
    def prog(torch):
        from importlib import import_module

        shape_prop = import_module(f"{torch.__name__}.fx.passes.shape_prop")
        gm = torch.fx.symbolic_trace(small_model(torch))
        shape_prop.ShapeProp(gm).propagate(inputs(torch, 2, 4))
        metas = [n.meta.get("tensor_meta") for n in gm.graph.nodes]
        return [
            None
            if m is None
            else (tuple(m.shape), str(m.dtype), m.requires_grad, m.stride, str(m.memory_format))
            for m in metas
        ]

    result = both(prog, real_torch)
    assert result[-1] == ((2,), "torch.float32", True, (1,), "torch.contiguous_format")


def test_interpreter_runs_and_overrides(real_torch):
    def prog(torch):
        class Counting(torch.fx.Interpreter):
            def call_method(self, target, args, kwargs):
                self.seen.append(target)
                return super().call_method(target, args, kwargs)

        gm = torch.fx.symbolic_trace(small_model(torch))
        interp = Counting(gm)
        interp.seen = []
        x = inputs(torch, 2, 4)
        out = interp.run(x)
        node = next(n for n in gm.graph.nodes if n.op == "call_module")
        interp.env = {n: x if n.op == "placeholder" else None for n in gm.graph.nodes}
        args, kwargs = interp.fetch_args_kwargs_from_env(node)
        return {
            "out": numpy(out),
            "direct": numpy(gm(x)),
            "seen": interp.seen,
            "fetched": [numpy(args[0]), kwargs],
        }

    both(prog, real_torch)


def test_trace_errors_as_torch(real_torch):
    def prog(torch):
        def control(x):
            return x if x.sum() > 0 else -x

        def loop(x):
            return [v for v in x]

        def length(x):
            return len(x)

        def unpack(x):
            a, b = x
            return a - b

        errors = []
        for fn in (control, loop, length):
            try:
                torch.fx.symbolic_trace(fn)
            except Exception as e:  # noqa: BLE001 - the type and text are compared
                errors.append((type(e).__name__, str(e)))
        errors.append(structure(torch.fx.symbolic_trace(unpack)))
        return errors

    both(prog, real_torch)


def test_fx_wrap_records_a_call(real_torch):
    def prog(torch):
        namespace = {"torch": torch, "__name__": "fx_wrap_test"}
        source = (
            "def scale(x, k):\n    return x * k if k > 1 else x\n"
            "torch.fx.wrap('scale')\n"
            "def f(x):\n    return scale(x, 3) + 1\n"
        )
        exec(compile(source, "<fx_wrap_test>", "exec"), namespace)
        gm = torch.fx.symbolic_trace(namespace["f"])
        return {"structure": structure(gm), "out": numpy(gm(inputs(torch, 3)))}

    result = both(prog, real_torch)
    assert ("call_function", "scale") in result["structure"]


def test_is_fx_symbolic_tracing(real_torch):
    def prog(torch):
        from importlib import import_module

        tracing = import_module(f"{torch.__name__}.fx._symbolic_trace").is_fx_symbolic_tracing
        seen = []

        def f(x):
            seen.append(tracing())
            return x + 1

        torch.fx.symbolic_trace(f)
        return [*seen, tracing()]

    assert both(prog, real_torch) == [True, False]


def test_concrete_args_specialize_and_check(real_torch):
    def prog(torch):
        def f(x, flag):
            return x * 2 if flag else x

        gm = torch.fx.symbolic_trace(f, concrete_args={"flag": True})
        x = inputs(torch, 2)
        try:
            gm(x, False)
            error = None
        except AssertionError as e:
            error = str(e)
        return {
            "structure": structure(gm),
            "out": numpy(gm(x, True)),
            "error": error,
            "code": gm.code,
        }

    result = both(prog, real_torch)
    assert result["error"] == "flag has been specialized to have value True but got another value"


def test_autowrap_math(real_torch):
    def prog(torch):
        import math

        def f(x):
            return x * math.sqrt(x.shape[0])

        gm = torch.fx.symbolic_trace(f)
        return {"structure": structure(gm), "out": numpy(gm(inputs(torch, 4)))}

    both(prog, real_torch)


def test_compile_a_graph_module():
    torch = autograd_compat
    gm = torch.fx.symbolic_trace(small_model(torch))
    x = inputs(torch, 2, 4)
    np.testing.assert_allclose(numpy(torch.compile(gm)(x)), numpy(gm(x)), rtol=1e-6)


def pickled_function(x):
    return (x.tanh() + 1).sum(-1)


def test_graph_module_deepcopy_pickle_and_state_dict():
    torch = autograd_compat
    gm = torch.fx.symbolic_trace(small_model(torch))
    copied = __import__("copy").deepcopy(gm)
    x = inputs(torch, 2, 4)
    np.testing.assert_allclose(numpy(copied(x)), numpy(gm(x)))
    assert copied.lin is not gm.lin
    assert type(copied) is not type(gm) and type(copied).__name__ == "Small"
    with pytest.raises(TypeError, match="pickling Tensors is not supported"):
        pickle.dumps(gm)
    plain = torch.fx.symbolic_trace(pickled_function)
    loaded = pickle.loads(pickle.dumps(plain))
    np.testing.assert_allclose(numpy(loaded(x)), numpy(plain(x)))
    assert type(loaded).__name__ == "pickled_function" and loaded.code == plain.code
    assert [n.op for n in loaded.graph.nodes] == [n.op for n in plain.graph.nodes]
    fresh = torch.fx.symbolic_trace(small_model(torch))
    fresh.load_state_dict(gm.state_dict())
    assert sorted(fresh.state_dict()) == ["lin.bias", "lin.weight", "scale"]


def test_proxy_torch_function_records_calls(real_torch):
    """What a library function called on Proxies records, through the classmethod the
    __torch_function__ protocol calls."""

    def prog(torch):
        graph = torch.fx.Graph()
        x = torch.fx.Proxy(graph.placeholder("x"))
        relu = torch.fx.Proxy.__torch_function__(torch.relu, (torch.fx.Proxy,), (x,))
        scaled = torch.fx.Proxy.__torch_function__(
            torch.nn.functional.softmax, (torch.fx.Proxy,), (relu,), {"dim": 0}
        )
        graph.output(scaled.node)
        gm = torch.fx.GraphModule(torch.nn.Module(), graph)
        return {"graph": str(graph), "out": numpy(gm(inputs(torch, 4)))}

    both(prog, real_torch)


def test_conv_net_with_functions_containers_and_keywords(real_torch):
    """ModuleList iteration, F and torch functions, a buffer, size/reshape, a keyword-only
    input and a dict of tuples as output."""

    def prog(torch):
        nn, F = torch.nn, torch.nn.functional

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.convs = nn.ModuleList([nn.Conv2d(3, 4, 3, padding=1), nn.Conv2d(4, 4, 1)])
                self.register_buffer("shift", torch.arange(4.0))
                self.head = nn.Sequential(nn.Flatten(), nn.Linear(4 * 8 * 8, 5))

            def forward(self, x, *, scale=1.0):
                for conv in self.convs:
                    x = F.relu(conv(x))
                x = x + self.shift.view(1, -1, 1, 1)
                y = torch.cat([x, -x], dim=1)[:, :4] + torch.ones(4).view(1, 4, 1, 1)
                out = self.head(y.reshape(y.size(0), 4, 8, 8))
                return {"logits": out * scale, "pair": (out.softmax(-1), x.mean(dim=(2, 3)))}

        net = Net()
        rng = np.random.default_rng(5)
        with torch.no_grad():
            for _, p in sorted(net.named_parameters()):
                p.copy_(torch.from_numpy(rng.standard_normal(p.shape).astype(np.float32) / 8))
        gm = torch.fx.symbolic_trace(net)
        x = inputs(torch, 2, 3, 8, 8)
        return {
            "structure": structure(gm),
            "out": numpy(gm(x, scale=2.0)),
            "orig": numpy(net(x, scale=2.0)),
            "code_line": next(line for line in gm.code.splitlines() if "convs_0 =" in line),
        }

    result = both(prog, real_torch)
    assert_same(result["out"], result["orig"])


def test_torch_functions_on_proxies(real_torch):
    def prog(torch):
        F = torch.nn.functional

        def f(x):
            return F.relu(torch.relu(x) + torch.exp(x)).sum()

        gm = torch.fx.symbolic_trace(f)
        return {"structure": structure(gm), "out": numpy(gm(inputs(torch, 3)))}

    both(prog, real_torch)


def test_invert_with_torch_functions(real_torch):
    def prog(torch):
        inverse = {torch.exp: torch.log, torch.tan: torch.arctan}

        def f(x):
            return torch.exp(torch.tan(x))

        traced = torch.fx.symbolic_trace(f)
        graph = torch.fx.Graph()
        env = {}
        for node in reversed(traced.graph.nodes):
            if node.op == "call_function":
                env[node.args[0].name] = graph.call_function(
                    inverse[node.target], (env[node.name],)
                )
            elif node.op == "output":
                env[node.args[0].name] = graph.placeholder(node.name)
            elif node.op == "placeholder":
                graph.output(env[node.name])
        x = inputs(torch, 5) * 0.5
        return numpy(torch.fx.GraphModule(traced, graph)(f(x)))

    both(prog, real_torch)
