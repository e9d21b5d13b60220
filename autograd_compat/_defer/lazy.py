"""Deferred ops: a run of eager ops becomes one XLA call.

An eager op costs one XLA dispatch, ~4.4 us on CPU: more than PyTorch's whole op with autograd;
and ops run one by one cannot fuse (a step's forward computed inside its backward's program
runs as `torch.compile`'s does: transformers' tiny GPT-2 step 13.5 -> 10.9 ms).
So `apply` (`_tape/record.py`) *defers* ops into the calling thread's *segment*, and
the first read of one of its values *flushes* it: the contract (what is deferred and when, when
a segment is flushed, `Known.notes`, threads, `ENABLED`) is the package's docstring
(`_defer/__init__.py`). A flush runs its ops so:
- a run of ops met for the first time runs op by op, each through its own jitted program
  (every op ran eagerly at these shapes before it could be deferred: its program exists, or
  compiles now where that first call computed on the host, `Op.first_call`), so a one-off
  cell of a notebook compiles each op once at most;
- a run met again (the same ops, static arguments and wiring: the step of a loop) runs as one
  jitted program, compiled once (the third time: `COMPILE_AFTER`), that returns only the values
  still referenced; a big run (an op's output above `SMALL_ELEMENTS`: a whole forward, say)
  compiles in seconds, so it goes op by op until that has taken as long as its compile is
  estimated to (`COMPILE_S_PER_OP` an op): a short loop never pays more than twice its time.
A flush gives the values the ops give one by one, rounded as each op rounds. XLA:CPU contracts
a multiply and an add fused into one loop into a fused multiply-add, which rounds once where
PyTorch rounds twice (3,000 steps of `y * 1.0001 + 0.0001` drift by 5e-5), so every op's
output that may be a product enters a run's program behind a seam (`_pure/op_rounding`) that
leaves its bits as they are and gives the next op nothing to contract with; the program is
compiled with XLA's fusion (`FUSED`), as is a forward computed inside its backward's program
(`call_with_deferred`), whose forward values are therefore the ops' own too.
A segment is flushed when full (`MAX_OPS`), so programs stay small and nothing waits for long,
and once the arrays it reads pass `MAX_HELD_BYTES`: a deferred op keeps its inputs alive until
its segment is flushed, so a loop of `batch.sum()` would otherwise hold a segment's worth of
batches.
On by default (it saves the dispatch of every deferred op: see docs/performance.md);
`AUTOGRAD_COMPAT_LAZY=0` runs every op at its call.

Nothing here knows about Tensor: `_state/tensor.LazyTensor` holds a `Pending`.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import os
import sys
import threading
import time
import weakref
from collections import OrderedDict
from math import prod

import jax
import numpy as np
from jax import ensure_compile_time_eval

from .._pure import executables, op_rounding
from .._pure import memory as _memory
from .._pure.jax_internals import ArrayImpl, trace_ctx
from .._pure.op import HashedTuple, Op, lru_put, stuck_trace
from .._pure.references import CALL_REFERENCES

ENV = "AUTOGRAD_COMPAT_LAZY"
ENABLED = os.environ.get(ENV, "1").strip().lower() not in ("0", "off", "false", "no")  # default on
# An op with an output bigger than this makes its run *big*: the run is compiled only once
# running it op by op has taken as long as its compile is estimated to (`COMPILE_S_PER_OP`
# times its ops): such a program (a whole forward, inside its backward's program) compiles in
# seconds, which a short loop would never win back.
SMALL_ELEMENTS = 16384
COMPILE_S_PER_OP = 0.04
MAX_OPS = 256  # a segment is flushed when it holds this many ops
MAX_HELD_BYTES = 16 * 2**20  # ... or when the arrays it reads (its externals) pass this size
SHAPE_CACHE = 4096  # (op, static arguments, input avals) -> output avals: emptied when full
PROGRAMS = 256  # runs of ops counted or compiled (an LRU)
COMPILE_AFTER = 3  # a run is compiled the third time it is met: code run twice compiles nothing
AT_ONCE_OPS = 2  # a run of this many ops or fewer read right after them runs at its call
REDEFER_AFTER = 1024  # calls of ops run at their call for a read at once, then deferred again
# XLA:CPU's parallel task assigner splits a loop it deems costly across the intra-op threads:
# for these small arrays the handoff costs more than the loop (a gradient penalty's program,
# one 32x64 loop split in two: 72 -> 45 us a call without the pass)
SERIAL = "cpu-parallel-task-assigner"
FUSED = {"xla_disable_hlo_passes": SERIAL}  # a run's compile options


class Pending:
    """A deferred op's output: its aval now, its array once its segment was flushed."""

    __slots__ = ("segment", "slot", "aval", "known", "array", "__weakref__")

    def __init__(self, segment: Segment, slot: int, aval, known: Known) -> None:
        self.segment = segment
        self.slot = slot
        self.aval = aval
        self.known = known  # what `learn` found for the op that makes it
        self.array = None

    @property
    def shape(self) -> tuple:
        return self.aval.shape

    @property
    def dtype(self):
        return self.aval.dtype

    @property
    def ndim(self) -> int:
        return len(self.aval.shape)

    @property
    def size(self) -> int:
        return prod(self.aval.shape)

    def result(self, learning: bool = False):
        """The array (its segment is flushed first if it was not). `learning`: the reader is an
        op running once to learn its output shapes, a warm-up read that says nothing of how
        the value is used."""
        array = self.array
        if array is None:
            segment = self.segment
            if segment is None:  # another thread's flush handed the array out meanwhile
                return self.array
            if len(segment.plan) <= AT_ONCE_OPS and not segment.closed and not learning:
                segment.read_at_once()  # deferring its ops gains nothing: run them at their call
            segment.flush()
            array = self.array
        return array

    def peek(self):
        """The array, computed apart from its segment while that is still open: only the ops
        it comes from run, op by op, and the segment stays open (they run again in it). For a
        check that must see values at the call that takes them (the range of cross-entropy's
        class indices) without ending the run of ops around it."""
        segment = self.segment
        if self.array is None and segment is not None:
            with segment.lock:
                if not segment.closed:
                    return segment.compute_alone(self.slot)
        return self.result()


def replaces(old) -> bool:
    """Whether a deferred value may replace `old` (a tensor's stored value) unread: `old` is
    deferred too, or an array on JAX's default placement (one committed to a device or a
    mesh keeps its placement, which the write must compute into)."""
    kind = type(old)
    return kind is Pending or (kind is ArrayImpl and not old._committed)


def resolved(values, learning: bool = False):
    """`values` with each Pending replaced by its array (`learning`: see `Pending.result`)."""
    return [v.result(learning) if type(v) is Pending else v for v in values]


# ----------------------------------------------------------------------------- output shapes
class Known:
    """What one eager run of an op taught about its applications at some input avals (`learn`):
    its output avals (a tuple of them when `tupled`) and their (shape, dtype) pairs (`meta`),
    the input avals (`inputs`; a numpy input's is its (shape, dtype)) and the static arguments.
    `deferrable`: whether the op is deferred there (it may be, and its result was not read at
    once lately: `at_once`, see `_run_at_call`); `big`: whether an output is bigger than
    `SMALL_ELEMENTS`. `notes`: a dict the caller fills
    with what it derives from these (the recorder's node recipes), found with the Pending
    outputs or `defer`'s answer, without a lookup of its own."""

    __slots__ = (
        "avals",
        "tupled",
        "meta",
        "inputs",
        "static",
        "deferrable",
        "big",
        "at_once",
        "notes",
    )

    def __init__(
        self, avals, tupled: bool, inputs: tuple, static: tuple, deferrable: bool, big: bool
    ) -> None:
        self.deferrable = deferrable
        self.big = big
        self.at_once = False
        self.avals = avals
        self.tupled = tupled
        outputs = avals if tupled else (avals,)
        self.meta = tuple([(a.shape, a.dtype) for a in outputs])
        self.inputs = inputs
        self.static = static
        self.notes: dict = {}


_shapes: dict = {}  # (op, static, input avals) -> Known | None (an output is not an array)
LEARN = object()  # `defer`'s answer when the op's output shapes are not known yet: run, `learn`
_at_once: list = []  # the Knowns of `_shapes` that run at their call for a read at once
_calls_left = [REDEFER_AFTER]  # such calls until they are all deferred again


def _run_at_call(known: Known) -> None:
    """The op of `known` was read right after it (in a run of at most `AT_ONCE_OPS` ops): it
    runs at its call from now on, until `REDEFER_AFTER` calls of ops so marked have passed.
    Then every marked op is deferred again (`_redefer`): one read at once, a print in a
    notebook, must not make every later run of the op an XLA call of its own, the ops around
    it included (a chain of ops each once printed stayed ~2x slower for good); an op still
    read at once is marked again by its next read, one deferral and one flush later."""
    known.deferrable = False
    known.at_once = True
    _at_once.append(known)


def _redefer() -> None:
    """Defer every op marked by `_run_at_call` again, and start the count anew."""
    for known in _at_once:
        known.deferrable = True
        known.at_once = False
    _at_once.clear()
    _calls_left[0] = REDEFER_AFTER


def _signature(values, segment: Segment | None = None) -> tuple | None:
    """The input avals that decide an op's output shapes (a `CommittedAvals` where an input
    is an array committed to a device); None if a value cannot be deferred (a tracer,
    anything but an array). A Pending of another segment than `segment` (another thread's)
    is flushed first, outside any lock of ours."""
    sig = []
    committed = False
    for v in values:
        kind = type(v)
        if kind is ArrayImpl:
            if v._committed:
                committed = True
            sig.append(v.aval)
        elif kind is Pending:
            other = v.segment
            if other is not segment and other is not None:  # (None: its array was handed out)
                other.flush()
            sig.append(v.aval)
        elif kind is np.ndarray:
            sig.append((v.shape, v.dtype))
        else:
            return None
    return CommittedAvals(sig) if committed else tuple(sig)


class CommittedAvals(tuple):
    """`_signature`'s avals where an input is committed to a device: the op then runs at its
    call, keeping its placement, and only its `Known` serves. Equal to (and hashed as) the
    plain tuple of the same avals, so both find one `Known`."""

    __slots__ = ()


def learn(op: Op, static: tuple, values, out) -> None:
    """Remember the output avals of `op` at these inputs after an eager run (`out`), so its
    next application at the same shapes can be deferred, unless the op says it may not be
    (`Op.deferrable`)."""
    sig = _signature(values)
    if sig is None:
        return
    if len(_shapes) >= SHAPE_CACHE:
        _shapes.clear()
        _at_once.clear()  # (their Knowns are dropped too)
    if type(out) is tuple:
        if not all(hasattr(o, "aval") for o in out):  # an output is no array
            _shapes[(op, static, sig)] = None
        else:
            avals = tuple([o.aval for o in out])
            big = any(prod(a.shape) > SMALL_ELEMENTS for a in avals)
            _shapes[(op, static, sig)] = Known(avals, True, sig, static, op.deferrable, big)
    else:
        aval = out.aval
        big = prod(aval.shape) > SMALL_ELEMENTS
        _shapes[(op, static, sig)] = Known(aval, False, sig, static, op.deferrable, big)


def defer(op: Op, static: tuple, values):
    """The Pending output(s) of `op` on `values`, appended to this thread's segment; else the
    op runs now: its `Known` where it is not deferrable (its result is read at once, the op
    may not be deferred) or an input is committed to a device, `LEARN` where its output
    shapes are to be learnt, None otherwise (an input or an output is not an array)."""
    segment = _local.segment
    if segment is None or len(segment.plan) >= MAX_OPS or segment.held > MAX_HELD_BYTES:
        if segment is not None:
            segment.flush()
        segment = _local.segment = Segment()
    sig = _signature(values, segment)
    if sig is None:
        return None
    key = (op, static, sig)
    known = _shapes.get(key, LEARN)
    if known is None or known is LEARN or type(sig) is CommittedAvals:
        return known
    if not known.deferrable:
        if known.at_once:  # (a count, not a call: the doubling loop's every op comes here)
            _calls_left[0] -= 1
            if _calls_left[0] <= 0:  # (`<=`: threads may both count past zero)
                _redefer()
        return known
    out = segment.append(key, values, known)
    if out is None:  # another thread flushed this segment (it read one of its values)
        segment = _local.segment = Segment()
        out = segment.append(key, values, known)
    return out


class _Local(threading.local):
    segment: Segment | None = None
    compiles = True  # whether a flushed run may compile (`runs_compile`)


_local = _Local()


def runs_compile(allowed: bool) -> bool:
    """Let the calling thread's flushed runs compile, or run them op by op, neither compiled
    nor counted (a stepwise backward whose forward's program with it is on its way: its vjp
    ops' run would compile for the few steps before that program supersedes it); returns
    what was set before."""
    before = _local.compiles
    _local.compiles = allowed
    return before


def flush_current() -> None:
    """Flush the calling thread's segment: a backward ends a step, and what it leaves deferred
    would keep its inputs alive."""
    segment = _local.segment
    if segment is not None:
        segment.flush()


# ----------------------------------------------------------------------------- segments
class Segment:
    """A run of deferred ops of one thread, in order: their plan (op, static arguments, where
    each input comes from, whether the output is a tuple), the arrays they read, and weak
    references to their Pending outputs. Closed (no more ops) at its first flush; it lives on
    while a Pending of it still waits for its array."""

    __slots__ = (
        "plan",
        "externals",
        "_external_slots",
        "outputs",
        "closed",
        "lock",
        "first",
        "held",
        "big",
        "widths",
        "combined",
    )

    def __init__(self) -> None:
        self.plan: list = []
        self.externals: list = []  # the arrays the run reads, each once
        self._external_slots: dict = {}  # id(array) -> its index in `externals`
        self.outputs: list = []  # weak references to the Pending outputs, by slot (a tuple
        # output takes one slot per element)
        self.held = 0  # the bytes of `externals`
        self.closed = False
        self.lock = threading.Lock()
        self.first: Known | None = None  # what is known of the first op
        self.big = False  # whether an op's output is big (`Known.big`)
        self.widths: list = []  # how many slots each op of the plan takes
        self.combined: HashedTuple | None = None  # its key with a backward (`call_with_deferred`)

    def _external(self, value) -> int:
        """The index of an input that is no output of this segment in `externals`."""
        if type(value) is Pending:
            value = value.array  # another segment's, flushed (see `_signature`)
        index = self._external_slots.get(id(value))
        if index is None:
            index = self._external_slots[id(value)] = len(self.externals)
            self.externals.append(value)
            if type(value) is np.ndarray:
                self.held += value.nbytes
            else:  # (a jax.Array's `nbytes` costs ~0.5 us; its aval has the same)
                aval = value.aval
                self.held += prod(aval.shape) * aval.dtype.itemsize
        return index

    def append(self, key: tuple, values, known: Known):
        """Add one op (its `_shapes` key: op, static arguments, input avals, and what is known
        of it there) on `values` (arrays, or Pending outputs); its Pending output(s), or None
        if the segment was closed meanwhile.

        Safe against an interrupt (a signal handler's KeyboardInterrupt, raised where a call
        returns): the lock is taken by a `with` (after a bare `acquire()` such an exception
        left it held, and every later op of the thread waited on it for good), and the op's
        outputs and its plan entry are added together or not at all, so the slots of later
        ops stay those of their place in the plan."""
        with self.lock:
            if self.closed:
                return None
            refs = []  # where each input comes from: an output's slot s as ~s, else an external
            for v in values:
                if type(v) is Pending and v.segment is self:
                    refs.append(~v.slot)
                else:
                    refs.append(self._external(v))
            plan, outputs = self.plan, self.outputs
            ops, slot = len(plan), len(outputs)
            tupled = known.tupled
            out: Pending | tuple[Pending, ...]
            if tupled:
                out = tuple([Pending(self, slot + i, a, known) for i, a in enumerate(known.avals)])
                weak = [weakref.ref(p) for p in out]
            else:
                pending = Pending(self, slot, known.avals, known)
                out, weak = pending, [weakref.ref(pending)]
            try:
                outputs.extend(weak)
                # (`known.static`: one object for every application, compared by identity)
                plan.append((key[0], known.static, tuple(refs), tupled))
                self.widths.append(len(weak))
            except BaseException:
                del outputs[slot:], plan[ops:], self.widths[ops:]
                raise
            if not ops:
                self.first = known
            if known.big:
                self.big = True
            return out

    def compute_alone(self, slot: int):
        """The output at `slot`, from the ops it depends on run op by op; the caller holds the
        lock of this open segment, which stays as it is."""
        starts = list(itertools.accumulate(self.widths, initial=0))
        needed, todo = set(), [bisect.bisect_right(starts, slot) - 1]
        while todo:
            index = todo.pop()
            if index not in needed:
                needed.add(index)
                refs = self.plan[index][2]
                todo.extend([bisect.bisect_right(starts, ~r) - 1 for r in refs if r < 0])
        env: dict = {}
        for index in sorted(needed):
            op, static, refs, tupled = self.plan[index]
            out = op.compiled(static)(*[self.externals[r] if r >= 0 else env[~r] for r in refs])
            for offset, value in enumerate(out if tupled else (out,)):
                env[starts[index] + offset] = value
        return env[slot]

    def read_at_once(self) -> None:
        """Its ops (at most `AT_ONCE_OPS`) were read right after them: they run at their call
        (`_run_at_call`). Each op's `Known`: the first op's, and those of live outputs."""
        knowns = [self.first] + [p.known for ref in self.outputs if (p := ref()) is not None]
        for known in knowns:
            if known is not None and known.deferrable:  # (each once: two ops may share one)
                _run_at_call(known)

    def close(self) -> None:
        """No more ops: the next deferred op of this thread starts a new segment."""
        self.closed = True
        if _local.segment is self:
            _local.segment = None

    def compile_cost(self) -> float:
        """The seconds its run takes op by op before it is compiled (`_program`): 0 for a run
        of small ops, for a big one the estimate of its compile."""
        return COMPILE_S_PER_OP * len(self.plan) if self.big else 0.0

    def flush(self, may_compile: bool = True) -> None:
        """Close the segment; compute its outputs still referenced that have no array yet
        (op by op, its run neither compiled nor counted, unless `may_compile`)."""
        with self.lock:
            self.close()
            live = [p for ref in self.outputs if (p := ref()) is not None and p.array is None]
            if not live:
                return
            wanted = tuple([p.slot for p in live])
            try:
                if trace_ctx.is_top_level():
                    arrays = self._run(wanted, may_compile)
                else:  # a read inside a trace: the values are concrete, keep them so
                    with ensure_compile_time_eval():
                        arrays = self._run(wanted, may_compile)
            except _memory.DISPATCH_ERRORS as failure:
                _memory.raise_exhausted(failure)
            _hand_out(live, arrays)

    def _run(self, wanted: tuple, may_compile: bool):
        """The outputs at the slots `wanted`: by the run's program once `_program` gives it,
        else op by op (the time that takes counted towards its compile)."""
        plan = tuple(self.plan)
        key = None
        if may_compile and len(plan) > 1 and _local.compiles:
            function = functools.partial(_traced_plan, plan, wanted)
            key = HashedTuple((plan, wanted))
            program = _program(key, function, FUSED, self.compile_cost())
            if program is not None:
                try:
                    return program(op_rounding.key(), *self.externals)
                except RecursionError as failure:  # its first trace was interrupted: the
                    if not stuck_trace(failure):  # run starts over as one met anew
                        raise
                    _programs.pop(key, None)
        start = time.perf_counter()
        arrays = _run_plan(self.externals, plan, wanted)
        if key is not None:
            _paid(key, time.perf_counter() - start)
        return arrays


def _hand_out(pendings: list, arrays) -> None:
    for pending, array in zip(pendings, arrays):
        pending.array = array
        pending.segment = None  # what it was computed from may go


class Uncompiled:
    """A run not compiled yet: the times it was met, and the seconds it took op by op."""

    __slots__ = ("met", "seconds")

    def __init__(self) -> None:
        self.met = 0
        self.seconds = 0.0


_programs: OrderedDict = OrderedDict()  # key -> its Uncompiled record, or its jitted program


def _program(key, function, options: dict, cost: float = 0.0):
    """The jitted `function` (compiled with the XLA `options`) for `key` once `key` was met
    `COMPILE_AFTER` times and its runs op by op took `cost` seconds (`_paid`); None before
    (the run goes op by op and compiles nothing)."""
    program = _programs.get(key)
    if program is None or type(program) is Uncompiled:
        record = Uncompiled() if program is None else program
        record.met += 1
        if record.met >= COMPILE_AFTER and record.seconds >= cost:
            program = executables.jit(function, compiler_options=options)
        else:
            program = record
        lru_put(_programs, key, program, PROGRAMS)
    else:
        try:  # (segments of two threads flush at once: the other's `lru_put` may evict `key`
            _programs.move_to_end(key)  # between the lookup and here; it is then met anew)
        except KeyError:
            pass
    return None if type(program) is Uncompiled else program


def _paid(key, seconds: float) -> None:
    """Count `seconds` of running `key`'s run op by op towards its compile."""
    record = _programs.get(key)
    if type(record) is Uncompiled:
        record.seconds += seconds


def _run_plan(externals: list, plan: tuple, wanted: tuple) -> tuple:
    """Run the ops of `plan` on `externals` op by op, each through its own jitted program;
    the outputs at the slots `wanted`. Every other output is dropped after its last use, so a
    run of big ops holds no more at once than its ops run at their calls would."""
    last_use = {~r: index for index, entry in enumerate(plan) for r in entry[2] if r < 0}
    for slot in wanted:
        last_use[slot] = len(plan)
    dropped_after: dict = {}
    for slot, index in last_use.items():
        dropped_after.setdefault(index, []).append(slot)
    env: list = []
    for index, (op, static, refs, tupled) in enumerate(plan):
        out = op.compiled(static)(*[externals[r] if r >= 0 else env[~r] for r in refs])
        first = len(env)
        env.extend(out if tupled else (out,))
        del out  # (held by `env` alone, to be dropped there)
        for slot in range(first, len(env)):
            if slot not in last_use:  # never read, never wanted
                env[slot] = None
        for slot in dropped_after.get(index, ()):
            env[slot] = None
    return tuple([env[s] for s in wanted])


def _trace_plan(externals, plan: tuple, seam) -> list:
    """Every output of `plan`'s ops on `externals`, traced into the caller's program, each
    that may be a product behind a seam (`op_rounding.apart`; `seam` is the program's key, a
    runtime zero) so that XLA's fusion rounds every op as its own program does."""
    env: list = []
    for op, static, refs, tupled in plan:
        inputs = [externals[r] if r >= 0 else env[~r] for r in refs]
        out = op.fn(*inputs, **dict(static))
        outputs = out if tupled else (out,)
        seams = _seams(op, static, inputs)
        env.extend([op_rounding.apart(o, seam) if s else o for o, s in zip(outputs, seams)])
    return env


_needs_seam: OrderedDict = OrderedDict()  # (op, static, input avals) -> `needs_seam`'s answer


def _seams(op: Op, static: tuple, inputs: list) -> tuple:
    """Which outputs of `op` on `inputs` need a seam (`op_rounding.needs_seam`), from its
    jaxpr at their shapes (traced once per shapes, when a run's program is)."""
    avals = tuple([jax.ShapeDtypeStruct(x.shape, x.dtype) for x in inputs])
    key = (op, static, avals)
    answer = _needs_seam.get(key)
    if answer is None:
        closed = jax.make_jaxpr(functools.partial(op.fn, **dict(static)))(*avals)
        answer = op_rounding.needs_seam(closed)
        lru_put(_needs_seam, key, answer, SHAPE_CACHE)
    return answer


def _traced_plan(plan: tuple, wanted: tuple, seam, *externals) -> tuple:
    env = _trace_plan(externals, plan, seam)
    return tuple([env[s] for s in wanted])


# ----------------------------------------------------------------------------- into a program
def open_segment() -> Segment | None:
    """The calling thread's segment if it holds ops a backward could compute with it."""
    segment = _local.segment
    return segment if segment is not None and segment.plan else None


def call_with_deferred(segment: Segment, function, saved: list, args: tuple, keep_all: bool):
    """`function(saved, *args)` (a jitted function whose first argument is a list of tuples of
    arrays: a backward and the values its nodes saved), as one program that first computes the
    deferred values `saved` holds: the forward and the backward of a step in one XLA call.

    Outputs of the open segment that something else still references (a result the caller
    reads, all of them with `keep_all`: a graph that is kept) are returned by the same call and
    handed to their Pending. Returns None when `saved` holds no value of `segment` (this
    thread's open one, `open_segment`), or the first time this combination is met (the
    segment is then flushed, and the caller runs `function` on the computed values). Either way
    the segment is closed and every value of it still referenced is computed: the ops of the
    next step start a new segment, so a loop's segments repeat, and nothing deferred holds its
    inputs past the backward."""
    layout, concrete, counts = _layout(segment, saved)
    if not counts:
        segment.flush()  # a backward ends a step: the next ops start a new segment
        return None
    with segment.lock:
        segment.close()
        extra = _referenced(segment, counts, keep_all)
        plan = tuple(segment.plan)
        key = HashedTuple((function, plan, layout, tuple([p.slot for p in extra])))
        combined = functools.partial(_with_plan, function, plan, layout, key[3])
        # fused, as the backward alone is
        program = _program(key, combined, FUSED, segment.compile_cost())
        if program is not None:
            try:
                result, arrays = program(op_rounding.key(), segment.externals, concrete, args)
            except _memory.DISPATCH_ERRORS as failure:
                _memory.raise_exhausted(failure)
            _hand_out(extra, arrays)
            return result
    # A big run is compiled with its backward only: its time op by op is counted so
    start = time.perf_counter()
    segment.flush(may_compile=not segment.big)
    _paid(key, time.perf_counter() - start)
    segment.combined = key
    return None


def backward_paid(segment: Segment, seconds: float) -> None:
    """Count `seconds`, a backward's run after `call_with_deferred` answered None for
    `segment`, towards the compile of their combined program."""
    if segment.combined is not None:
        _paid(segment.combined, seconds)


def _layout(segment: Segment, saved: list) -> tuple:
    """Where each saved value comes from (a slot s of `segment` as ~s, else an index into the
    concrete values, each array once), the concrete values, and how often each Pending of
    `segment` appears (by slot)."""
    layout = []
    concrete: list = []
    places: dict = {}  # id(array) -> its index in `concrete`: each array is passed once
    counts: dict = {}
    for values in saved:
        entry = []
        for value in values:
            if type(value) is Pending:
                if value.segment is segment and value.array is None:
                    slot = value.slot
                    entry.append(~slot)
                    counts[slot] = counts.get(slot, 0) + 1
                    continue
                value = value.result()
            place = places.get(id(value))
            if place is None:  # (a constant many nodes saved: `y * 1.01` in a loop)
                place = places[id(value)] = len(concrete)
                concrete.append(value)
            entry.append(place)
        layout.append(tuple(entry))
    return tuple(layout), concrete, counts


_HELD_HERE = 1 + CALL_REFERENCES  # `sys.getrefcount` of a value one variable holds


def _referenced(segment: Segment, counts: dict, keep_all: bool) -> list:
    """The Pending outputs of `segment` without an array that are referenced from elsewhere
    than the saved values counted in `counts` (every live one with `keep_all`)."""
    extra = []
    for ref in segment.outputs:
        pending = ref()
        # holders: `pending` here and the saved tuples counted (`_pure/references`)
        if pending is not None and pending.array is None:
            if keep_all or sys.getrefcount(pending) > _HELD_HERE + counts.get(pending.slot, 0):
                extra.append(pending)
    return extra


def _with_plan(function, plan: tuple, layout: tuple, extra: tuple, seam, externals, concrete, args):
    env = _trace_plan(externals, plan, seam)
    saved = [tuple([concrete[r] if r >= 0 else env[~r] for r in entry]) for entry in layout]
    return function(saved, *args), tuple([env[s] for s in extra])
