"""The weights-only unpickler: what `torch.load(weights_only=True)` (PyTorch's default since
2.6) accepts, and nothing else.

The pickle is parsed by `pickletools.genops` (parsing only: no import, no call) and run by a
small stack machine of PyTorch's protocol-2 opcodes. A GLOBAL resolves only through the
allow-list `names.TORCH_GLOBALS` or the user's (`torch.serialization.add_safe_globals`);
REDUCE and NEWOBJ call only allowed objects; BUILD sets attributes only on OrderedDict/Counter
and the user's classes; APPEND and SETITEM only fill lists and dicts. Anything else raises
`pickle.UnpicklingError` with PyTorch's text, wrapped by `failure_message` as `torch.load`
wraps it, so code in a checkpoint is never executed.
"""

from __future__ import annotations

import _compat_pickle
import io
import pickle
import pickletools
import re
import warnings
from collections import Counter, OrderedDict
from collections.abc import Callable

from .._pure.shapes import Size
from .._state.tensor import Tensor
from ..nn.parameter import Parameter
from .names import TORCH_GLOBALS, is_unsupported, torch_name

BLOCKED_MODULES = ("sys", "os", "posix", "nt")

UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will "
    "likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
    "file from a trusted source."
)
_DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default "
    "with weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
)


def failure_message(message: str) -> str:
    """`torch.load`'s text for a weights-only unpickling error `message`: the way out
    (weights_only=False, for trusted files only) first, then the unpickler's own words."""
    if re.search(r"GLOBAL (\S+) was not an allowed global by default.", message):
        return (
            "Weights only load failed. This file can still be loaded, to do so you have two "
            "options, \033[1mdo those steps only if you trust the source of the checkpoint"
            f"\033[0m. \n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with "
            "`weights_only=True` please check the recommended steps in the following error "
            f"message.\n\tWeightsUnpickler error: {message}{_DOCS_MESSAGE}"
        )
    text = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
    if not re.search(r"whose module (\S+) is blocked", message):
        text += (
            "Please file an issue with the following so that we can make `weights_only=True` "
            "compatible with your use case: WeightsUnpickler error: "
        )
    return f"{text}\n\n{message}{_DOCS_MESSAGE}"


# globals the user allowed (`torch.serialization.add_safe_globals`): full name -> object
user_globals: dict[str, object] = {}


def allow(entries) -> None:
    """Add `entries` (objects, or (object, "module.name") pairs) to the user's allow-list."""
    for entry in entries:
        if isinstance(entry, tuple):
            if len(entry) != 2:
                raise ValueError(
                    "Expected tuple of length 2 (global, str of callable full path), but got "
                    f"tuple of length: {len(entry)}"
                )
            if type(entry[1]) is not str:
                raise TypeError(
                    "Expected second item in tuple to be str of callable full path, but got: "
                    f"{type(entry[1])}"
                )
            user_globals[entry[1]] = entry[0]
        else:
            user_globals[full_name(entry)] = entry


def full_name(obj) -> str:
    """The name a checkpoint gives a class or function: "module.qualname", under PyTorch's
    module for this library's own (`nn.Dropout` is "torch.nn.modules.dropout.Dropout" in a
    file saved here or by PyTorch)."""
    mapped = torch_name(obj)
    if mapped is not None:
        return f"{mapped[0]}.{mapped[1]}"
    return f"{getattr(obj, '__module__', None)}.{getattr(obj, '__qualname__', None)}"


def _is_user_allowed(obj) -> bool:
    return any(obj is allowed for allowed in user_globals.values())


def _resolve(module: str, name: str) -> object:
    """The allowed object a GLOBAL names, after pickle's Python 2 renames; refused otherwise."""
    if (module, name) in _compat_pickle.NAME_MAPPING:
        module, name = _compat_pickle.NAME_MAPPING[(module, name)]
    elif module in _compat_pickle.IMPORT_MAPPING:
        module = _compat_pickle.IMPORT_MAPPING[module]
    full = f"{module}.{name}"
    if module in BLOCKED_MODULES:
        raise pickle.UnpicklingError(
            f"Trying to load unsupported GLOBAL {full} whose module {module} is blocked."
        )
    if full in TORCH_GLOBALS:
        return TORCH_GLOBALS[full]
    if full in user_globals:
        return user_globals[full]
    if is_unsupported(full):
        raise RuntimeError(
            f"autograd_compat.load: the checkpoint uses {full}, which PyTorch allows but "
            "autograd_compat does not support (quantized, sparse, nested and meta tensors, and "
            "dtypes it lacks)"
        )
    shown = full.removeprefix("builtins.") if module == "builtins" else full
    raise pickle.UnpicklingError(
        f"Unsupported global: GLOBAL {shown} was not an allowed global by default. Please use "
        f"`torch.serialization.add_safe_globals([{shown}])` or the "
        f"`torch.serialization.safe_globals([{shown}])` context manager to allowlist this "
        "global if you trust this class/function."
    )


# what REDUCE may call: the allowed globals but the Tensor class (a value for
# `_rebuild_from_type_v2`; its legacy constructor would allocate any size a file asks for)
_ALLOWED_IDS = frozenset(id(v) for v in TORCH_GLOBALS.values() if v is not Tensor)
# the allowed classes NEWOBJ may create (a Tensor is made by a rebuild function, never bare)
_NEWOBJ_CLASSES = (OrderedDict, Counter, set, bytearray, complex, Size)


class _Machine:
    """The unpickler's state: stack, mark stack and memo; `persistent_load` gives storages."""

    def __init__(self, persistent_load: Callable, encoding: str) -> None:
        self.stack: list = []
        self.marks: list[list] = []
        self.memo: dict[int, object] = {}
        self.persistent_load = persistent_load
        self.encoding = encoding

    def pop_mark(self) -> list:
        items = self.stack
        self.stack = self.marks.pop()
        return items

    def run(self, data: bytes):
        for opcode, arg, _ in pickletools.genops(io.BytesIO(data)):
            handler = _HANDLERS.get(opcode.name)
            if handler is None:
                raise pickle.UnpicklingError(f"Unsupported operand {ord(opcode.code)}")
            if handler(self, arg):
                return self.stack.pop()
        raise EOFError


def _push(value: Callable) -> Callable:
    def handler(m: _Machine, arg) -> None:
        m.stack.append(value(arg))

    return handler


def _global(m: _Machine, arg: str) -> None:
    module, _, name = arg.partition(" ")
    m.stack.append(_resolve(module, name))


def _newobj(m: _Machine, _) -> None:
    args = m.stack.pop()
    cls = m.stack.pop()
    if cls is Parameter:
        m.stack.append(Parameter(*args))
    elif any(cls is allowed for allowed in _NEWOBJ_CLASSES) or _is_user_allowed(cls):
        m.stack.append(cls.__new__(cls, *args))
    else:
        raise pickle.UnpicklingError(
            "Can only create new object for nn.Parameter or classes allowlisted via "
            f"`add_safe_globals` but got {cls}"
        )


def _reduce(m: _Machine, _) -> None:
    args = m.stack.pop()
    func = m.stack[-1]
    if id(func) not in _ALLOWED_IDS and not _is_user_allowed(func):
        message = f"Trying to call reduce for unrecognized function {func}"
        if hasattr(func, "__self__"):
            message += f" which belongs to {func.__self__}"
        raise pickle.UnpicklingError(message)
    if not isinstance(args, tuple):
        raise ValueError(f"REDUCE arguments must be a tuple, got {type(args).__name__}")
    m.stack[-1] = func(*args)


def _build(m: _Machine, _) -> None:
    state = m.stack.pop()
    inst = m.stack[-1]
    if _is_user_allowed(type(inst)):  # as pickle builds: __setstate__, else attributes
        if hasattr(inst, "__setstate__"):
            inst.__setstate__(state)
            return
        slots = None
        if isinstance(state, tuple) and len(state) == 2:
            state, slots = state
        if state:
            inst.__dict__.update(state)
        for key, value in (slots or {}).items():
            setattr(inst, key, value)
        return
    if type(inst) not in (OrderedDict, Counter):  # state dicts' `_metadata` attribute
        raise pickle.UnpicklingError(
            "Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
            f"`add_safe_globals`, but got {type(inst)}"
        )
    if not isinstance(state, dict) or not all(isinstance(k, str) for k in state):
        raise ValueError(f"the state of an {type(inst).__name__} must be a dict of attributes")
    inst.__dict__.update(state)


def _list_target(m: _Machine, verb: str) -> list:
    target = m.stack[-1]
    if type(target) is not list:
        raise pickle.UnpicklingError(f"Can only {verb} lists, but got {type(target)}")
    return target


def _dict_target(m: _Machine, opcode: str) -> dict:
    target = m.stack[-1]
    if type(target) not in (dict, OrderedDict, Counter):
        raise pickle.UnpicklingError(
            f"Can only {opcode} for dict, collections.OrderedDict, collections.Counter, but got "
            f"{type(target)}"
        )
    return target


def _append(m: _Machine, _) -> None:
    item = m.stack.pop()
    _list_target(m, "append to").append(item)


def _appends(m: _Machine, _) -> None:
    items = m.pop_mark()
    _list_target(m, "extend").extend(items)


def _setitem(m: _Machine, _) -> None:
    value, key = m.stack.pop(), m.stack.pop()
    _dict_target(m, "SETITEM")[key] = value


def _setitems(m: _Machine, _) -> None:
    items = m.pop_mark()
    target = _dict_target(m, "SETITEMS")
    for i in range(0, len(items), 2):
        target[items[i]] = items[i + 1]


def _mark(m: _Machine, _) -> None:
    m.marks.append(m.stack)
    m.stack = []


def _tuple(m: _Machine, _) -> None:
    items = m.pop_mark()
    m.stack.append(tuple(items))


def _tuple_n(n: int) -> Callable:
    def handler(m: _Machine, _) -> None:
        if len(m.stack) < n:
            raise IndexError("pop from empty list")
        items = tuple(m.stack[len(m.stack) - n :])
        del m.stack[len(m.stack) - n :]
        m.stack.append(items)

    return handler


def _short_binstring(m: _Machine, arg: str) -> None:
    data = arg.encode("latin1")  # genops decodes it as latin-1
    m.stack.append(data if m.encoding == "bytes" else data.decode(m.encoding, "strict"))


_STORAGE = ("storage", b"storage")


def _persid(m: _Machine, _) -> None:
    pid = m.stack.pop()
    if type(pid) is not tuple and type(pid) is not int:
        raise pickle.UnpicklingError(
            f"persistent_load id must be tuple or int, but got {type(pid)}"
        )
    if type(pid) is tuple and pid and not (type(pid[0]) in (str, bytes) and pid[0] in _STORAGE):
        raise pickle.UnpicklingError(
            f"Only persistent_load of storage is allowed, but got {type(pid[0])}"
        )
    m.stack.append(m.persistent_load(pid))


def _get(m: _Machine, index: int) -> None:
    m.stack.append(m.memo[index])


def _put(m: _Machine, index: int) -> None:
    m.memo[index] = m.stack[-1]


def _proto(m: _Machine, protocol: int) -> None:
    if protocol != 2:
        warnings.warn(
            f"Detected pickle protocol {protocol} in the checkpoint, which was not the default "
            "pickle protocol used by `torch.load` (2). The weights_only Unpickler might not "
            "support all instructions implemented by this protocol, please file an issue for "
            "adding support if you encounter this.",
            stacklevel=7,
        )


def _stop(m: _Machine, _) -> bool:
    return True


_HANDLERS: dict[str, Callable] = {
    "GLOBAL": _global,
    "NEWOBJ": _newobj,
    "REDUCE": _reduce,
    "BUILD": _build,
    "APPEND": _append,
    "APPENDS": _appends,
    "SETITEM": _setitem,
    "SETITEMS": _setitems,
    "MARK": _mark,
    "TUPLE": _tuple,
    "TUPLE1": _tuple_n(1),
    "TUPLE2": _tuple_n(2),
    "TUPLE3": _tuple_n(3),
    "NONE": _push(lambda _: None),
    "NEWFALSE": _push(lambda _: False),
    "NEWTRUE": _push(lambda _: True),
    "EMPTY_TUPLE": _push(lambda _: ()),
    "EMPTY_LIST": _push(lambda _: []),
    "EMPTY_DICT": _push(lambda _: {}),
    "EMPTY_SET": _push(lambda _: set()),
    "BININT": _push(lambda arg: arg),
    "BININT1": _push(lambda arg: arg),
    "BININT2": _push(lambda arg: arg),
    "LONG1": _push(lambda arg: arg),
    "BINFLOAT": _push(lambda arg: arg),
    "BINUNICODE": _push(lambda arg: arg),
    "SHORT_BINSTRING": _short_binstring,
    "BINPERSID": _persid,
    "BINGET": _get,
    "LONG_BINGET": _get,
    "BINPUT": _put,
    "LONG_BINPUT": _put,
    "PROTO": _proto,
    "STOP": _stop,
}


def load(data: bytes, persistent_load: Callable, encoding: str = "utf-8"):
    """The object pickled in `data`, unpickled with the weights-only allow-list."""
    return _Machine(persistent_load, encoding).run(data)
