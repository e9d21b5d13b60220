"""The package's import graph, read with `ast`: no cycles, no imports inside functions in the
core, and each core layer importing only the layers below it."""

from __future__ import annotations

import ast
import functools
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "autograd_compat"
CORE = (
    "autograd_compat._pure",
    "autograd_compat._defer",
    "autograd_compat._state",
    "autograd_compat._tape",
)
# What each core layer may import from the package (itself included): the layers below it.
ALLOWED = {layer: CORE[: CORE.index(layer) + 1] for layer in CORE}
# The only imports made inside functions: optional dependencies, absent from a plain install.
OPTIONAL_DEPENDENCIES = frozenset({"ipykernel", "jupyter_client", "matplotlib", "PIL"})
# `_pure` modules that hold runtime state (a lock, a thread-local, a rebound global), and why
# it is there rather than in `_defer` or `_state`.
STATEFUL_PURE = {
    # the bound on compiled programs: `op.Op.compiled` registers each jitted function there
    "autograd_compat._pure.executables",
    # the thread's `with torch.device(...)` blocks, entered through the `device` class itself
    "autograd_compat._pure.device",
}


def _modules() -> dict[str, pathlib.Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


@functools.cache
def _tree(path: pathlib.Path) -> ast.Module:
    """The module at `path`, parsed once for every test here."""
    return ast.parse(path.read_text())


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> list[str]:
    base = module.split(".") if is_package else module.split(".")[:-1]
    if node.level:
        base = base[: len(base) - (node.level - 1)]
        prefix = ".".join(base + ([node.module] if node.module else []))
    else:
        prefix = node.module or ""
    targets = []
    for alias in node.names:
        name = f"{prefix}.{alias.name}"
        targets.append(name if name in MODULES else prefix)
    return targets


def _imports(module: str) -> list[tuple[str, bool]]:
    """(imported package module, whether the import is inside a function) for `module`;
    imports under `if TYPE_CHECKING:` are for the type checker only and left out."""
    path = MODULES[module]
    tree = _tree(path)
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.ImportFrom):
                for target in _resolve(module, path.name == "__init__.py", child):
                    if target.startswith("autograd_compat"):
                        found.append((target, in_function))
            elif isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.startswith("autograd_compat"):
                        found.append((alias.name, in_function))
            inner = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            visit(child, in_function or inner)

    visit(tree, False)
    return [(target, inner) for target, inner in found if target != module]


def _cycles() -> list[list[str]]:
    graph = {m: sorted({t for t, _ in _imports(m) if t in MODULES}) for m in MODULES}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in graph:
        if v not in index:
            connect(v)
    return components


def test_the_package_has_no_import_cycle():
    assert _cycles() == []


@pytest.mark.parametrize("layer", CORE)
def test_core_layers_import_only_below_and_never_inside_functions(layer):
    for module in [m for m in MODULES if m == layer or m.startswith(layer + ".")]:
        for target, inner in _imports(module):
            assert not inner, f"{module} imports {target} inside a function"
            assert target == "autograd_compat" or target.startswith(ALLOWED[layer]), (
                f"{module} (layer {layer}) imports {target}, a layer above it"
            )


def _runtime_state(path: pathlib.Path) -> list[str]:
    """What in the module at `path` holds runtime state: a `threading.local` or a lock made
    anywhere, a class deriving from `threading.local`, a `global` statement."""
    found = []
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Attribute) and node.attr in ("local", "Lock", "RLock"):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Global):
            found.append(f"line {node.lineno}: global {', '.join(node.names)}")
    return found


def test_pure_modules_hold_no_runtime_state():
    for module, path in MODULES.items():
        if module.startswith("autograd_compat._pure") and module not in STATEFUL_PURE:
            assert _runtime_state(path) == [], f"{module} holds runtime state"


@pytest.mark.parametrize("module", sorted(STATEFUL_PURE) + ["autograd_compat._defer.lazy"])
def test_the_state_check_sees_the_state_of_the_stateful_modules(module):
    assert _runtime_state(MODULES[module])


def _imports_inside_functions(path: pathlib.Path) -> list[tuple[int, str]]:
    """(line, top-level package name) of each import inside a function of the module at
    `path` (a relative import's name is ".")."""
    found = []
    for function in ast.walk(_tree(path)):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(function):
                if isinstance(node, ast.Import):
                    found += [(node.lineno, a.name.split(".")[0]) for a in node.names]
                elif isinstance(node, ast.ImportFrom):
                    name = "." if node.level else (node.module or "").split(".")[0]
                    found.append((node.lineno, name))
    return found


def test_imports_inside_functions_are_of_optional_dependencies_only():
    for module, path in MODULES.items():
        for line, name in _imports_inside_functions(path):
            assert name in OPTIONAL_DEPENDENCIES, (
                f"{module}:{line} imports {name} inside a function: move it to the module's "
                "imports (an optional dependency goes in OPTIONAL_DEPENDENCIES)"
            )
