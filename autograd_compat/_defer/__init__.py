"""Layer 0.5, deferral: runs of eager ops batched into one XLA call.

It imports only `_pure`; `_state` and the layers above import it. The mechanism is
`lazy.py`; this is its contract with the recorder (`_tape/record.apply`), the nodes
(`_state/node`) and the engine (`_tape/engine`).

**What is deferred, and when.** `apply` asks `lazy.defer(op, static, values)` about every op
while `lazy.ENABLED`; the answer decides what runs:
- `Pending` (a tuple of them for a tuple-valued op): the op is deferred, appended to the
  calling thread's segment; `apply` wraps each in a `LazyTensor`. That takes inputs that are
  all uncommitted `jax.Array`s, numpy arrays or `Pending`s, and a `Known` that allows it.
- `LEARN`: the op was never run at these input avals. `apply` runs it now (`Op.first_call`:
  on the host, without compiling, where its jaxpr is exact there) and calls `lazy.learn`,
  which keeps its output avals in a `Known`: the next call may be deferred. Shape errors are
  therefore raised at the op, on its first call, never at a flush.
- a `Known` that does not allow deferral: the op runs now (`Op.deferrable` is False, or it
  was read at once lately: below); or any
  `Known`, where an input is an array committed to a device (`device=` in a factory, `.to`,
  where the process has more than one device: on its one device `_pure/device.commit` leaves
  arrays uncommitted): the op runs now, in its placement, and the recorder still reuses the
  Known's node recipes.
- None: an input is a tracer, or no array: the op runs now.

**Pending** is a deferred output: its aval (shape and dtype, read without computing anything),
its segment and slot, and `array` once computed. `Pending.result()` returns the array,
flushing the segment first. A tensor's value may be a Pending only through `LazyTensor`
(`_state/tensor`) or a node's saved tuple; code that needs arrays calls `lazy.resolved`.

**Known** is what one eager run taught about an op at some input avals: output avals and
(shape, dtype) pairs (`meta`), input avals, the static arguments (one object shared by every
application) and `deferrable`. `Known.notes` belongs to the recorder: `lazy` never reads it.
The recorder keeps there, per requires_grad pattern, the node `Recipe` `record._known_recipe`
makes (the node's `Step` (op, static, saved mask, placeholders, out_meta, residuals' layout),
whether it holds
saved primals, its class, what it watches, which outputs are inexact). A recipe depends only
on what the Known holds and the pattern, so one recipe, and one `Step`, serves every node of
that op at those shapes: `Node.__init__` stores the step as `Node.hot`, and the engine's hot
pass (`_tape/hot.hot_schedule`) matches a graph against the
structure of the last fused backward by comparing each `node.hot` with the remembered step,
by identity first (one pointer test per node) and by equality after. A node that must not be
matched sets `hot` to None (a hook table, `retain_grad`, packed saved values, a custom
backward); a new such case must too. Knowns, notes with them, are dropped together when the
shape table fills (`SHAPE_CACHE`): the next nodes get equal, not identical, steps.

**When a segment is flushed** (its live outputs computed: in one jitted program for a run met
`COMPILE_AFTER` times and, where an op of it has an output bigger than `SMALL_ELEMENTS` (a *big*
run), whose runs op by op took as long as its compile is estimated to take, `COMPILE_S_PER_OP` an
op; else op by op through the ops' own programs): at the first read of one of its values
(`LazyTensor._value`, an op that runs now on it, a node's saved values in a stepwise backward;
making a view of one reads nothing: its buffer's root value stays the Pending until read,
`_tape/views.PendingBuffer`); when it holds `MAX_OPS` ops or reads more than `MAX_HELD_BYTES` of
arrays (at the next op's `defer`); when an op of another thread takes one of its values as
input; before and after a stepwise backward without create_graph (`flush_current`). A fused
backward computes the open segment inside its own program (`call_with_deferred`, compiled as a
run is, a big run's time counting its backward's too, `backward_paid`; before, it flushes the
segment) and hands out the values still referenced. A flushed segment is closed: the thread's
next deferred op starts a new one. A check that must see values at the call (class indices in
range) reads them with `Pending.peek`: only the ops they come from run, op by op, and the
segment stays open. Values are those of the ops run one by one, rounded as each op rounds,
inside a fused backward's program too (`_pure/op_rounding`). An allocation failure surfaces at
the flush, as `OutOfMemoryError`.

**Read at once.** A segment of at most `AT_ONCE_OPS` ops read right after them marks their
Knowns not deferrable (deferring them gains nothing) until `REDEFER_AFTER` calls of such ops
have passed; then all are deferred again, so one print does not slow an op for good.

**Threads.** Each thread defers into its own segment (a thread-local). A segment's lock guards
its appending and its flush; any thread may flush any segment, and a Pending read while
another thread flushes its segment waits for that flush. The shape table and the run counts
are process-wide, written without a lock: threads may interleave a lookup and an eviction (a
run evicted so is counted anew) or miscount the read-at-once calls, never corrupt them.

**`ENABLED` off** (`AUTOGRAD_COMPAT_LAZY=0`, or `lazy.ENABLED = False` at run time): `defer` is
not asked, so every op runs at its call through its program (no first call on the host:
nothing tells a first call from a later one) and nothing is learnt; values deferred before stay
Pending until read. Nodes get a recipe of their own each (`record._record`): equal steps, so
the hot pass still matches, by equality.
"""
