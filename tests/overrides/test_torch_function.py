"""The `__torch_function__` protocol: subclasses and modes intercept the public functions, with
PyTorch's order and texts, checked against real PyTorch where both can run the same classes.

Classes with `__torch_function__` are defined inside the tests (a class statement switches
dispatch on), and each test ends with dispatch switched off again, as a fresh process has it.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

import autograd_compat as ours
from autograd_compat._overrides import install
from tests._helpers.paths import ROOT
from tests.ops.op_table import ROWS


@pytest.fixture(autouse=True)
def switched_off():
    """Each test starts with dispatch off and leaves it off, with no mode entered."""
    install.uninstall()
    yield
    assert not ours.overrides._get_current_function_mode_stack()
    install.uninstall()


def logging_classes(torch):
    """A Tensor subclass and a mode that log the PyTorch name of every call they see."""
    name = torch.overrides.resolve_name

    class LoggingTensor(torch.Tensor):
        log: list = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.log.append(name(func))
            return super().__torch_function__(func, types, args, kwargs)

    class LoggingMode(torch.overrides.TorchFunctionMode):
        def __init__(self):
            super().__init__()
            self.log = []

        def __torch_function__(self, func, types, args=(), kwargs=None):
            self.log.append(name(func))
            return func(*args, **(kwargs or {}))

    return LoggingTensor, LoggingMode


def _calls(torch, x):
    """Common calls: functions, methods, operators, properties, modules."""
    F = torch.nn.functional
    linear = torch.nn.Linear(2, 2)
    return [
        lambda: torch.add(x, 1),
        lambda: x + 1,
        lambda: 2 * x,
        lambda: x - 1,
        lambda: 1 - x,
        lambda: -x,
        lambda: x @ x,
        lambda: x.sum(),
        lambda: x.shape,
        lambda: x.dtype,
        lambda: x[0],
        lambda: F.relu(x),
        lambda: F.softmax(x, -1),
        lambda: torch.cat([x, x]),
        lambda: torch.stack((x, x)),
        lambda: torch.linalg.norm(x),
        lambda: torch.special.entr(x),
        lambda: torch.fft.fft(x),
        lambda: x.reshape(4),
        lambda: x.max(0),
        lambda: linear(x),
        lambda: torch.nn.ReLU()(x),
        lambda: torch.where(x > 0, x, 0.0),
    ]


def _normalized(log):
    """Names without their namespace's path: one function object here serves `torch.add` and
    `Tensor.add` (PyTorch names each call after the one used), and PyTorch places some torch
    functions in `torch.functional`."""
    return [n.replace("torch.functional.", "torch.").replace("Tensor.", "") for n in log]


def test_logged_calls_match_pytorch(real_torch):
    """The same subclass and mode, run on both libraries, see the same calls under the same
    names (one per call: a handler's own calls are not seen)."""
    logs = {}
    for lib in (ours, real_torch):
        LoggingTensor, LoggingMode = logging_classes(lib)
        plain = lib.tensor([[1.0, -2.0], [3.0, 4.0]])
        for call in _calls(lib, plain):
            with LoggingMode() as mode:
                call()
            logs.setdefault(lib.__name__, []).append(_normalized(mode.log))
        sub = plain.as_subclass(LoggingTensor)
        for call in _calls(lib, sub)[:-3]:  # the modules' parameters are plain Tensors
            LoggingTensor.log.clear()
            call()
            logs[lib.__name__].append(_normalized(LoggingTensor.log))
    assert logs["autograd_compat"] == logs["torch"]


def test_every_public_callable_dispatches_to_a_mode():
    """Every function, method, operator and property the registry lists reaches a mode, with
    its name, without running: the mode answers for it."""
    seen = []

    class Answer(ours.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return "answered"

    x = ours.zeros(1)
    entries = install.entries()
    with Answer():
        for entry in entries:
            assert entry.function(x) == "answered", entry.name
    assert len(seen) == len(entries) > 700
    assert {"torch.add", "torch.nn.functional.relu", "torch.Tensor.shape.__get__"} <= {
        ours.overrides.resolve_name(f) for f in seen
    }


def _values(result):
    if isinstance(result, ours.Tensor):
        return result.detach().as_subclass(ours.Tensor).numpy()
    if isinstance(result, (tuple, list)):
        return [_values(item) for item in result]
    return result


@pytest.mark.parametrize("start", range(2))
def test_logging_subclass_over_the_op_table(start):
    """A logging subclass as the inputs of op-table rows (every 16th, two slices): each row
    logs calls and gives the plain inputs' values."""
    LoggingTensor, _ = logging_classes(ours)
    rows = [row for row in ROWS if row.torch and row.xfail is None][start::16]
    for row in rows:
        arrays = row.arrays()
        flags = row.requires_grad or (row.grad is not False,) * len(arrays)
        grads = [bool(flag and a.dtype.kind == "f") for a, flag in zip(arrays, flags)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plain = row.call(
                ours, *(ours.tensor(a, requires_grad=g) for a, g in zip(arrays, grads))
            )
            LoggingTensor.log.clear()
            logged = row.call(
                ours,
                *(
                    ours.tensor(a, requires_grad=g).as_subclass(LoggingTensor)
                    for a, g in zip(arrays, grads)
                ),
            )
        assert LoggingTensor.log, row.id
        np.testing.assert_equal(_values(logged), _values(plain), err_msg=row.id)


def _nested_modes(lib):
    order = []

    class Named(lib.overrides.TorchFunctionMode):
        def __init__(self, label, answer=None):
            super().__init__()
            self.label, self.answer = label, answer

        def __torch_function__(self, func, types, args=(), kwargs=None):
            order.append((self.label, len(lib.overrides._get_current_function_mode_stack())))
            if self.answer is not None:
                return self.answer
            return func(*args, **(kwargs or {}))

    x = lib.ones(2)
    with Named("outer"), Named("inner"):
        y = lib.mul(x, 3)
    with Named("outer", answer=7), Named("inner"):
        z = x.sum()
    return (order, y.tolist(), z)


def test_nested_modes_and_a_mode_calling_func(real_torch):
    """The innermost mode sees a call first, with itself off while it runs; calling `func`
    goes on to the outer mode; a mode that answers stops the call there."""
    mine, theirs = _nested_modes(ours), _nested_modes(real_torch)
    assert mine == theirs
    assert theirs[0][:2] == [("inner", 1), ("outer", 0)]


def _priority_not_implemented_and_error_text(lib):
    order = []

    def handler(label, answer):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            order.append((label, [t.__name__ for t in types]))
            return answer

        return __torch_function__

    A = type("A", (lib.Tensor,), {"__torch_function__": handler("A", NotImplemented)})
    B = type("B", (A,), {"__torch_function__": handler("B", NotImplemented)})
    C = type("C", (lib.Tensor,), {"__torch_function__": handler("C", "from C")})
    a, b, c = (lib.ones(2).as_subclass(k) for k in (A, B, C))
    answer = (lib.add(a, c), lib.add(c, b))
    errors = []
    for fail in (lambda: lib.add(a, b), lambda: lib.nn.functional.relu(b)):
        with pytest.raises(TypeError) as info:
            fail()
        errors.append(str(info.value).replace("__main__.", "").replace(__name__ + ".", ""))
    return (order, answer, errors)


def test_priority_not_implemented_and_error_text(real_torch):
    """Subclasses before superclasses, then left to right; NotImplemented passes on; when all
    return it, PyTorch's TypeError (C++ text for ops, Python text for F.*)."""
    mine, theirs = (
        _priority_not_implemented_and_error_text(ours),
        _priority_not_implemented_and_error_text(real_torch),
    )
    assert mine == theirs


def _scalar_tensor_from_pytorch_docs(lib):
    handled = {}

    class ScalarTensor:
        def __init__(self, N, value):
            self._N, self._value = N, value

        def tensor(self):
            return self._value * lib.eye(self._N)

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func not in handled or not all(issubclass(t, ScalarTensor) for t in types):
                return NotImplemented
            return handled[func](*args, **(kwargs or {}))

    handled[lib.mean] = lambda input: float(input._value) / input._N
    with pytest.raises(TypeError) as info:
        lib.sum(ScalarTensor(5, 2))
    return (lib.mean(ScalarTensor(5, 2)), str(info.value).split(":")[0])


def test_scalar_tensor_from_pytorch_docs(real_torch):
    """The docs' ScalarTensor: a non-Tensor class whose `__torch_function__` implements
    torch.mean through a table keyed by the torch functions."""
    mine, theirs = (
        _scalar_tensor_from_pytorch_docs(ours),
        _scalar_tensor_from_pytorch_docs(real_torch),
    )
    assert mine == theirs == (0.4, theirs[1])


def _handle_torch_function_in_a_library_function(lib):
    overrides = lib.overrides

    def scaled(a, b):
        if overrides.has_torch_function_variadic(a, b):
            return overrides.handle_torch_function(scaled, (a, b), a, b)
        return a * b + 1

    @overrides.wrap_torch_function(lambda a: (a,))
    def twice(a):
        return a * 2

    class Marked:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return (func.__name__, len(args), [t.__name__ for t in types])

    x = lib.ones(1)
    return (
        scaled(x, Marked()),
        twice(Marked()),
        overrides.has_torch_function((x, x)),
        overrides.has_torch_function_unary(lib.nn.Parameter(x)),
        overrides.is_tensor_like(x),
        overrides.is_tensor_like(Marked()),
        overrides.is_tensor_like(3),
        overrides.is_tensor_method_or_property(lib.Tensor.add),
        overrides.is_tensor_method_or_property(lib.nn.functional.relu),
        scaled(x, x).tolist(),
    )


def test_handle_torch_function_in_a_library_function(real_torch):
    """A function guarding itself with has_torch_function / handle_torch_function, and one
    made dispatchable by wrap_torch_function, hand overriding arguments to their handler."""
    mine, theirs = (
        _handle_torch_function_in_a_library_function(ours),
        _handle_torch_function_in_a_library_function(real_torch),
    )
    assert mine == theirs


def _subclass_survives_ops_and_autograd(lib):

    class Sub(lib.Tensor):
        pass

    x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    s = x.as_subclass(Sub)
    y = (s * s).sum()
    y.backward()
    made = lib.Tensor._make_subclass(Sub, lib.ones(2), True)
    p = lib.nn.Parameter(lib.ones(2))
    kinds = [
        type(r).__name__
        for r in (s + 1, lib.exp(s), s[0], s.max(0).values, *s.split(1), s.detach(), p * 2)
    ]
    return (
        kinds,
        type(s.max(0)).__name__,
        type(s.shape).__name__,
        type(s.tolist()).__name__,
        s.grad_fn.name(),
        s.is_leaf,
        type(y).__name__,
        x.grad.tolist(),
        (type(made).__name__, made.is_leaf, made.requires_grad, made.grad_fn is None),
    )


def test_subclass_survives_ops_and_autograd(real_torch):
    """The default `__torch_function__` keeps a subclass through ops (inside tuples too);
    as_subclass is an alias in the graph; _make_subclass makes a leaf; Parameters give plain
    Tensors; gradients are PyTorch's."""
    mine, theirs = (
        _subclass_survives_ops_and_autograd(ours),
        _subclass_survives_ops_and_autograd(real_torch),
    )
    assert mine == theirs


def _disable_blocks(lib):
    LoggingTensor, LoggingMode = logging_classes(lib)
    Plain = type(
        "Plain", (lib.Tensor,), {"__torch_function__": lib._C._disabled_torch_function_impl}
    )
    s = lib.ones(2).as_subclass(LoggingTensor)
    with lib._C.DisableTorchFunctionSubclass():
        inner = type(s + 1).__name__
        with LoggingMode() as mode:
            lib.add(s, 1)
    with LoggingMode() as hidden, lib._C.DisableTorchFunction():
        lib.add(s, 1)
        enabled = lib._C._is_torch_function_enabled()
    return (
        inner,
        mode.log,
        hidden.log,
        enabled,
        type(lib.ones(2).as_subclass(Plain) + 1).__name__,
    )


def test_disable_blocks(real_torch):
    """DisableTorchFunctionSubclass stops subclass dispatch but not modes; DisableTorchFunction
    stops both; `_disabled_torch_function_impl` makes a subclass plain."""
    mine, theirs = _disable_blocks(ours), _disable_blocks(real_torch)
    assert mine == theirs


def test_functions_bound_before_the_switch_dispatch():
    """A function taken from the module before dispatch was switched on (`from torch import
    add`, a set of functions) is the object handlers receive, and dispatches."""
    add, relu = ours.add, ours.nn.functional.relu
    handled = {add, ours.Tensor.clone}
    seen = []

    class Watch(ours.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func in handled)
            return super().__torch_function__(func, types, args, kwargs)

    w = ours.ones(2).as_subclass(Watch)
    assert type(add(w, 1)) is Watch and type(relu(w)) is Watch and type(w.clone()) is Watch
    assert seen == [True, False, True]
    assert np.array_equal(add(ours.ones(2), 1).numpy(), [2.0, 2.0])


def test_import_leaves_dispatch_off():
    """Importing the package and its public modules switches nothing on: the functions run
    as they are (no cost), until something can override: the first instance of a class
    defining `__torch_function__`, or a Tensor subclass."""
    code = (
        "import autograd_compat as t, autograd_compat.nn, autograd_compat.distributions\n"
        "from autograd_compat._overrides import install\n"
        "assert not install.is_installed()\n"
        "class Like:\n"
        "    @classmethod\n"
        "    def __torch_function__(cls, func, types, args=(), kwargs=None): return 1\n"
        "assert not install.is_installed()\n"
        "assert t.mean(Like()) == 1 and install.is_installed()\n"
        "install.uninstall()\n"
        "class Sub(t.Tensor): pass\n"
        "assert install.is_installed()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]


def _redispatch(lib):
    log = []

    class Once(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            log.append(lib.overrides.resolve_name(func).replace("Tensor.", ""))
            return lib.overrides.redispatch_function(func, types, args, kwargs)

    x = lib.ones(2).as_subclass(Once)
    return log, type(lib.mul(x, 2)).__name__, type(x.shape).__name__


def test_redispatch_function_skips_one_level(real_torch):
    """redispatch_function runs the function itself: a plain Tensor, one call logged each."""
    mine, theirs = _redispatch(ours), _redispatch(real_torch)
    assert mine == theirs == (["torch.mul", "torch.shape.__get__"], "Tensor", "Size")
