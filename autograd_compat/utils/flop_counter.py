"""torch.utils.flop_counter: count the FLOPs of the matmuls and convolutions run in a block,
by PyTorch's formulas (2*m*n*k per matrix product, 2 per multiply-add of a convolution) and
under PyTorch's op names (`aten.mm`, `aten.addmm`, `aten.bmm`, `aten.baddbmm`,
`aten.convolution`, `aten.convolution_backward`), per module.

Every op this library runs inside the block is reported by `apply` (an op observer); a product
whose result will be differentiated gets a pre-hook on its node that counts its backward
(one product of the same size per input that needs a gradient, as PyTorch's backward
formulas run) when the backward runs inside the block. Modules are tracked with global
forward hooks and named as PyTorch's ModuleTracker does ("Sequential.0").
Not counted, as in PyTorch on CPU: elementwise ops, reductions, mv/dot, and attention
(`scaled_dot_product_attention` has no CPU FLOP formula there). This library's einsum is
made of multiplies and sums, so its contractions are not counted (PyTorch's are, as bmm).
"""

from __future__ import annotations

import math
import warnings
import weakref
from collections import defaultdict
from collections.abc import Callable
from typing import Any, NamedTuple

from .._alias import missing_attribute as _missing_attribute
from .._C import _current_graph_task_id
from .._library.ops import aten_packet
from .._state.tensor import Tensor
from .._tape.record import OpEvent, add_observer, remove_observer
from ..autograd.graph import register_multi_grad_hook
from ..nn.modules import module as _module
from ._pytree import tree_leaves

__all__ = ["FlopCounterMode", "register_flop_formula"]


def _shape(x: Any) -> tuple[int, ...]:
    return tuple(x.shape)


def _broadcast_batch(a: tuple, b: tuple) -> int:
    batch_a, batch_b = a[:-2], b[:-2]
    size = max(len(batch_a), len(batch_b))
    padded = [(1,) * (size - len(s)) + s for s in (batch_a, batch_b)]
    return math.prod(max(x, y) for x, y in zip(*padded))


def _product_flops(a: tuple, b: tuple) -> int:
    """2*m*n*k for a @ b, times the broadcast batch."""
    m = a[-2] if len(a) >= 2 else 1
    n = b[-1] if len(b) >= 2 else 1
    return 2 * _broadcast_batch(a, b) * m * n * a[-1]


def _linear_flops(x: tuple, w: tuple) -> int:
    return 2 * math.prod(x[:-1]) * w[0] * x[-1]


def conv_flop_count(x_shape, w_shape, out_shape, transposed: bool = False) -> int:
    """PyTorch's count for a convolution: each output (input, transposed) point times the
    filter size, batch and both channel counts, two FLOPs per multiply-add."""
    batch_size = x_shape[0]
    conv_shape = (x_shape if transposed else out_shape)[2:]
    c_out, c_in, *filter_size = w_shape
    return math.prod(conv_shape) * math.prod(filter_size) * batch_size * c_out * c_in * 2


class _Rule(NamedTuple):
    """How one op of this library counts: PyTorch's name forward and backward, the inputs
    whose gradients cost a product each, and the forward count from the event."""

    forward: str
    backward: str
    operands: tuple[int, int]
    count: Callable[[OpEvent], int]


def _conv_count(event: OpEvent) -> int:
    x, w = _shape(event.inputs[0]), _shape(event.inputs[1])
    out = _shape(event.result)
    if not event.static.get("batched", True):
        x, out = (1, *x), (1, *out)
    return conv_flop_count(x, w, out, transposed=event.op.id == "convolution.transposed")


def _pair(i: int, j: int) -> Callable[[OpEvent], int]:
    return lambda e: _product_flops(_shape(e.inputs[i]), _shape(e.inputs[j]))


def _linear(event: OpEvent) -> int:
    return _linear_flops(_shape(event.inputs[0]), _shape(event.inputs[1]))


def _batched_matmul(event: OpEvent) -> str:
    """PyTorch's matmul folds batch @ matrix into one mm; other batched products are bmm."""
    return "mm" if event.inputs[1].ndim == 2 else "bmm"


_RULES: dict[str, _Rule] = {
    "mm": _Rule("mm", "mm", (0, 1), _pair(0, 1)),
    "matmul.vector_matrix": _Rule("mm", "mm", (0, 1), _pair(0, 1)),
    "matmul.batched": _Rule("bmm", "bmm", (0, 1), _pair(0, 1)),  # or mm: `_batched_matmul`
    "addmm": _Rule("addmm", "mm", (1, 2), _pair(1, 2)),
    "bmm": _Rule("bmm", "bmm", (0, 1), _pair(0, 1)),
    "baddbmm": _Rule("baddbmm", "bmm", (1, 2), _pair(1, 2)),
    "linear.addmm": _Rule("addmm", "mm", (0, 1), _linear),
    "linear.mm": _Rule("mm", "mm", (0, 1), _linear),
    "linear.view": _Rule("addmm", "mm", (0, 1), _linear),
    "linear.unsafe_view": _Rule("mm", "mm", (0, 1), _linear),
    "convolution": _Rule("convolution", "convolution_backward", (0, 1), _conv_count),
    "convolution.transposed": _Rule("convolution", "convolution_backward", (0, 1), _conv_count),
}


def register_flop_formula(targets, get_raw: bool = False):
    """Decorator registering a FLOP formula for ops (accepted; see FlopCounterMode's
    ``custom_mapping`` for formulas of ops by their aten name)."""

    def register(formula: Callable) -> Callable:
        for target in targets if isinstance(targets, (list, tuple)) else [targets]:
            _CUSTOM[str(target)] = formula
        return formula

    return register


_CUSTOM: dict[str, Callable] = {}


def get_suffix_str(number: int) -> str:
    """The unit suffix PyTorch's table uses for a count ("", "K", "M", "B", "T")."""
    return ["", "K", "M", "B", "T"][max(0, min(4, (len(str(number)) - 2) // 3))]


def convert_num_with_suffix(number: int, suffix: str) -> str:
    index = ["", "K", "M", "B", "T"].index(suffix)
    return f"{number / 1000**index:.3f}" + suffix


def convert_to_percent_str(num: int, denom: int) -> str:
    return "0%" if denom == 0 else f"{num / denom:.2%}"


class _ModuleTracker:
    """The modules whose forward or backward is running, named as PyTorch's ModuleTracker
    names them: forward hooks enter and leave a module; in the backward a module is entered
    when its outputs' gradients are computed and left when its inputs' are, and once that
    backward is over every module is left (PyTorch's engine callback)."""

    def __init__(self) -> None:
        self.parents = {"Global"}
        self._names: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._seen: weakref.WeakSet = weakref.WeakSet()
        self._handles: list = []
        self._entered_in_backward = False

    def _name(self, module: Any) -> str:
        name = self._names.setdefault(module, type(module).__name__)
        if module not in self._seen:
            self._seen.add(module)
            for child_name, child in module.named_children():
                self._names[child] = f"{name}.{child_name}"
                self._name(child)
        return name

    def current(self) -> set[str]:
        """The modules running now (a copy)."""
        if self._entered_in_backward and _current_graph_task_id() == -1:
            self.parents = {"Global"}
            self._entered_in_backward = False
        return set(self.parents)

    def _append(self, name: str, backward: bool) -> Callable[..., None]:
        def append(*_: Any) -> None:
            self.current()
            self._entered_in_backward |= backward
            self.parents.add(name)

        return append

    def _pop(self, name: str) -> Callable[..., None]:
        return lambda *_: self.parents.discard(name)

    def _on_gradients(self, tree: Any, fn: Callable[..., None]) -> None:
        tensors = [t for t in tree_leaves(tree) if isinstance(t, Tensor) and t.requires_grad]
        if tensors:
            self._handles.append(register_multi_grad_hook(tensors, fn))

    def _enter(self, module: Any, args: Any) -> None:
        name = self._name(module)
        self._append(name, False)()
        self._on_gradients(args, self._pop(name))

    def _leave(self, module: Any, args: Any, output: Any) -> None:
        name = self._name(module)
        self.parents.discard(name)
        self._on_gradients(output, self._append(name, True))

    def __enter__(self) -> _ModuleTracker:
        self._handles = [
            _module.register_module_forward_pre_hook(self._enter),
            _module.register_module_forward_hook(self._leave),
        ]
        return self

    def __exit__(self, *exc_info: object) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles.clear()
        self.parents = {"Global"}


class FlopCounterMode:
    """Count the FLOPs of the matmuls and convolutions run inside the block (and of their
    backward, when it runs inside too), per module and op.

    Args:
        mods: not needed (deprecated in PyTorch).
        depth: how deep in the module tree `get_table` (and the display on exit) goes.
        display: print the table on exit.
        custom_mapping: extra formulas, by aten op (``torch.ops.aten.X``): called with the
            input shapes and ``out_shape=``.

    Example:
        >>> lin = torch.nn.Linear(8, 4)
        >>> with torch.utils.flop_counter.FlopCounterMode(display=False) as counter:
        ...     lin(torch.ones(2, 8))
        tensor(...)
        >>> counter.get_total_flops()  # 2 * 2 * 4 * 8
        128
    """

    def __init__(
        self,
        mods: Any = None,
        depth: int = 2,
        display: bool = True,
        custom_mapping: dict[Any, Any] | None = None,
    ) -> None:
        self.flop_counts: dict[str, dict[Any, int]] = defaultdict(lambda: defaultdict(int))
        self.depth = depth
        self.display = display
        self.custom_mapping = {str(k): v for k, v in (custom_mapping or {}).items()}
        if mods is not None:
            warnings.warn(
                "mods argument is not needed anymore, you can stop passing it", stacklevel=2
            )
        self.mod_tracker = _ModuleTracker()
        self._active = False

    def get_total_flops(self) -> int:
        return sum(self.flop_counts["Global"].values())

    def get_flop_counts(self) -> dict[str, dict[Any, int]]:
        """FLOPs by module name ("Global" for all), then by op (``torch.ops.aten.mm``)."""
        return {k: dict(v) for k, v in self.flop_counts.items()}

    def _add(self, parents: set[str], name: str, flops: int) -> None:
        op = aten_packet(name)
        for parent in parents:
            self.flop_counts[parent][op] += flops

    def _observe(self, event: OpEvent) -> None:
        name = event.op.id.partition(".")[0] if event.op.id else event.op.name
        custom = self.custom_mapping.get(f"aten.{name}") or _CUSTOM.get(f"aten.{name}")
        if custom is not None:
            shapes = [_shape(x) if hasattr(x, "shape") else x for x in event.inputs]
            out = event.result
            self._add(self.mod_tracker.current(), name, custom(*shapes, out_shape=_out(out)))
            return
        rule = _RULES.get(event.op.id or "")
        if rule is None:
            return
        flops = rule.count(event)
        forward = _batched_matmul(event) if event.op.id == "matmul.batched" else rule.forward
        self._add(self.mod_tracker.current(), forward, flops)
        self._count_backward(event, rule, flops)

    def _count_backward(self, event: OpEvent, rule: _Rule, flops: int) -> None:
        result = event.result
        node = getattr(result, "grad_fn", None)
        needed = sum(bool(getattr(event.inputs[i], "requires_grad", False)) for i in rule.operands)
        if node is None or not needed:
            return
        backward = rule.backward
        if event.op.id == "matmul.batched":
            backward = _batched_matmul(event)

        def count(grad_outputs: Any) -> None:
            if self._active:
                self._add(self.mod_tracker.current(), backward, flops * needed)

        node.register_prehook(count)

    def get_table(self, depth: int | None = None) -> str:
        """The counts as PyTorch's table: module, FLOP, % of the total, down to ``depth``."""
        depth = self.depth if depth is None else depth
        total = self.get_total_flops()
        suffix = get_suffix_str(total)
        subsumed = False

        def rows_of(module: str, indent: int) -> list[list[str]]:
            nonlocal subsumed
            flops = sum(self.flop_counts[module].values())
            subsumed |= flops >= total
            pad = " " * indent
            rows = [[pad + module, convert_num_with_suffix(flops, suffix),
                     convert_to_percent_str(flops, total)]]  # fmt: skip
            for op, count in self.flop_counts[module].items():
                rows.append([f"{pad} - {op}", convert_num_with_suffix(count, suffix),
                             convert_to_percent_str(count, total)])  # fmt: skip
            return rows

        rows: list[list[str]] = []
        for module in sorted(self.flop_counts):
            if module != "Global" and module.count(".") + 1 <= depth:
                rows.extend(rows_of(module, module.count(".")))
        if "Global" in self.flop_counts and not subsumed:
            rows = rows_of("Global", 0) + [[" " + r[0], *r[1:]] for r in rows]
        return _tabulate(rows or [["Global", "0", "0%"]], ["Module", "FLOP", "% Total"])

    def __enter__(self) -> FlopCounterMode:
        self.flop_counts.clear()
        self.mod_tracker.__enter__()
        self._active = True
        add_observer(self._observe)
        return self

    def __exit__(self, *exc_info: object) -> None:
        remove_observer(self._observe)
        self._active = False
        self.mod_tracker.__exit__()
        if self.display:
            print(self.get_table(self.depth))


def _out(result: Any) -> Any:
    return tuple(_shape(r) for r in result) if isinstance(result, tuple) else _shape(result)


def _tabulate(rows: list[list[str]], header: list[str]) -> str:
    """tabulate's "simple" table (left, right, right aligned), as PyTorch prints it."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        first = f"{cells[0]:<{widths[0]}}"
        return "  ".join([first, *(f"{c:>{w}}" for c, w in zip(cells[1:], widths[1:]))])

    dashes = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), dashes, *(line(r) for r in rows)])


def __getattr__(name: str):
    return _missing_attribute(__name__, name)
