"""The op table: one row per registered op id, a small case reaching it through the public API.

`tests/ops/test_op_table.py` walks `autograd_compat._pure.op.registered_ops()` against these
rows (a new op without a row, or a row for a removed op, fails), checks that each row's call
applies its op, and checks the gradients of the differentiable rows against jax.vjp of the
op's pure function, central finite differences and, where PyTorch has the same call, PyTorch.

A row's `call(torch, *tensors)` is written against the PyTorch API only (`torch`, `Tensor`
methods, `torch.nn.functional`, `torch.nn`, `torch.linalg`, `torch.special`, `torch.fft`,
`torch.distributions`, `torch.autograd`), so it survives moves of the library's internals and
runs unchanged with real PyTorch. Inputs are small float64 arrays whose shapes are shared
between rows (every new (op, static arguments, shape) costs a compilation).
"""

from __future__ import annotations

import dataclasses
import warnings
import zlib
from collections.abc import Callable

import numpy as np

from tests._helpers.torch_compare import arr

# ----------------------------------------------------------------------------- inputs
# the shapes the rows share
V = (4,)  # a vector
S = (3, 4)  # the elementwise shape
M = (3, 3)  # a square matrix
B = (2, 3, 4)  # a batch of S
IMG = (1, 2, 4, 4)  # (N, C, H, W)
SEQ = (2, 3, 5)  # (N, C, L)


def make_array(spec, kind: str, position: int = 0) -> np.ndarray:
    """The input at `position` for one (shape or literal array, domain) pair; deterministic,
    and different at each position (equal inputs would put max, abs and friends on a tie).

    Domains: those of `torch_compare.arr` ("normal", "pos", "unit", "int", "nat", "bool"), plus
    "prob" (in [0.05, 0.95]), "gt1" (in [1.5, 3]) and "wellcond" (square matrices + 3 I).
    A numpy array is used as given.
    """
    if isinstance(spec, np.ndarray):
        return spec
    shape = tuple(spec)
    seed = zlib.crc32(repr((shape, kind, position)).encode())
    if kind == "prob":
        return np.random.default_rng(seed).uniform(0.05, 0.95, shape)
    if kind == "gt1":
        return np.random.default_rng(seed).uniform(1.5, 3.0, shape)
    if kind == "wellcond":
        return arr(shape, seed=seed) + 3 * np.eye(shape[-1])
    if kind in ("int", "nat"):
        return arr(shape, kind, np.int64, seed=seed)
    if kind == "bool":
        return arr(shape, kind, np.bool_, seed=seed)
    return arr(shape, kind, seed=seed)


@dataclasses.dataclass(frozen=True)
class OpCase:
    """One row: the op `id`, a `call(torch, *tensors)` reaching it, and how to check it.

    `inputs`: shapes (or literal numpy arrays); `domain`: one domain for all of them or one
    per input (see `make_array`). `grad`: check gradients (default: when the op is
    differentiable and some input is floating); `requires_grad`: which floating inputs are
    differentiated (default all). `torch`: PyTorch has the same call, so values, dtypes,
    grad_fn names (unless `names=False`) and gradients are compared with it; `tolerance`:
    the harness's per-dtype override for that forward comparison. `fd_rtol`/`fd_atol`/`fd_eps`:
    the finite-difference tolerances (1e-6 relative unless the row says why it needs more).
    `xfail`: a known bug (the row's checks are strict xfails with this reason).
    `name_differs`: the result's grad_fn name is not PyTorch's (a known discrepancy: the
    comparison with PyTorch skips names, and a strict xfail checks the name).
    `trace`: where the op's own application can't be checked against jax.vjp of `Op.fn`
    (in-place rows, inputs depending on each other), the whole row is, traced by jax.vjp;
    False where the row can't run under a jax trace (the reason is stated at the row).
    """

    id: str
    call: Callable
    inputs: tuple = (S,)
    domain: str | tuple = "normal"
    grad: bool | None = None
    requires_grad: tuple | None = None
    torch: bool = True
    names: bool = True
    tolerance: dict | None = None
    fd_eps: float = 1e-6
    fd_rtol: float = 1e-6
    fd_atol: float = 1e-8
    xfail: str | None = None
    name_differs: str | None = None
    trace: bool = True

    def arrays(self) -> list:
        kinds = (self.domain,) * len(self.inputs) if isinstance(self.domain, str) else self.domain
        assert len(kinds) == len(self.inputs), self.id
        return [make_array(s, k, i) for i, (s, k) in enumerate(zip(self.inputs, kinds))]


def _idx(*values) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def F(torch):
    """`torch.nn.functional` of either library."""
    return torch.nn.functional


def _masked_index(torch) -> tuple:
    """The mask and indices of the _unsafe_masked_index rows: row 5 is out of range where the
    mask is false, column 3 repeats."""
    rows, columns = torch.tensor([[0], [5]]), torch.tensor([[1, 3, 3]])
    return torch.tensor([[True], [False]]), [rows, columns]


def seeded(torch, fn):
    """`fn()` after seeding: random rows give the same draws at every call (finite
    differences evaluate the call again)."""
    torch.manual_seed(0)
    return fn()


def fixed(torch, module):
    """`module` in float64 with deterministic parameters (the same in both libraries)."""
    module = module.double()
    with torch.no_grad():
        for name, p in module.named_parameters():
            p.copy_(torch.tensor(0.5 * arr(tuple(p.shape), seed=zlib.crc32(name.encode()))))
    return module


def quiet(fn):
    """`fn()` with warnings ignored (PyTorch's own advice warnings, raised by both libraries)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def setitem(x, index, value):
    """`y = x.clone(); y[index] = value; y`: an indexed write into a copy of `x`."""
    y = x.clone()
    y[index] = value
    return y


def _bcast_function(torch):
    """x**2 as a custom Function whose backward returns a broadcast gradient (2, *shape):
    the engine sums it back to the input's shape (PyTorch's validate_outputs)."""

    class Bcast(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return (grad * x).expand(2, *x.shape)

    return Bcast


def _wide_grad(torch, x):
    """The gradient of a wide stack, taken with create_graph: its pieces are recorded."""
    y = torch.stack([x * 1.5 for _ in range(70)])
    return torch.autograd.grad((y**2).sum(), x, create_graph=True)[0]


def _whole_grad(torch, x):
    """A create_graph grad whose structure was met before: recorded as one op."""
    for _ in range(3):
        (g,) = torch.autograd.grad((x.sin() * x**3).sum(), x, create_graph=True)
    return g


def _running_mean(torch, x):
    """The running mean `batch_norm` in training leaves, from zeros."""
    mean = torch.zeros(x.shape[1], dtype=x.dtype)
    var = torch.ones(x.shape[1], dtype=x.dtype)
    torch.nn.functional.batch_norm(x, mean, var, training=True, momentum=0.3)
    return mean


def _regenerated_view(torch, x):
    """A view read after an in-place change of its base: its grad_fn is regenerated (as
    strided) from the base's new history."""
    y = x.clone()
    v = y[0]
    y.mul_(2)
    return v * 1


def _fw_primal(torch, x, t):
    fwAD = torch.autograd.forward_ad
    with fwAD.dual_level():
        return fwAD.unpack_dual(fwAD.make_dual(x, t)).primal * 1


def _fw_dual(torch, x, t):
    fwAD = torch.autograd.forward_ad
    with fwAD.dual_level():
        return fwAD.make_dual(x, t) * 1


def _dtensor(torch, x):
    """`x` as a replicated DTensor on a one-device mesh (every rank's piece)."""
    mesh = torch.distributed.device_mesh.init_device_mesh("cpu", (1,))
    placements = [torch.distributed.tensor.Replicate()]
    return torch.distributed.tensor.DTensor.from_local(x, mesh, placements)


# the targets of the sign-labelled losses, and the edges of a histogram
_SIGNS = np.array([[1.0, -1.0, 1.0, 1.0], [-1.0, -1.0, 1.0, -1.0], [1.0, 1.0, -1.0, 1.0]])
_EDGES = np.array([-2.0, -0.5, 0.0, 1.0, 2.5])
UNREACHABLE = "no public API reaches this op (registered, but nothing applies it)"
# a create_graph gradient's history is made of derived nodes, named by autograd_compat
DERIVED_NAMES = False


ROWS: list[OpCase] = [
    # ------------------------------------------------------------------ autograd machinery
    OpCase(
        "autograd.batched_grad.stack",
        lambda torch, x: torch.autograd.grad(
            x * x, x, torch.eye(4, dtype=torch.float64), is_grads_batched=True, create_graph=True
        )[0],
        inputs=(V,),
        names=DERIVED_NAMES,
        trace=False,  # differentiates inside: traced inputs don't require grad
    ),
    OpCase(
        "autograd.function.sum_to_size",
        lambda torch, x: torch.autograd.grad(
            _bcast_function(torch).apply(x).sum(), x, create_graph=True
        )[0],
        inputs=(V,),
        names=DERIVED_NAMES,
    ),
    OpCase("autograd.forward_ad.view", _fw_dual, inputs=(S, S), torch=False),
    OpCase("autograd.forward_ad.alias", _fw_primal, inputs=(S, S), torch=False),
    OpCase("_internal.copy_slices", lambda torch, x, v: setitem(x, 0, v), inputs=(S, V)),
    OpCase("_internal.as_strided", _regenerated_view, names=False),
    # batch norm in training writes its running statistics through this op
    OpCase("_internal.running_stats", _running_mean, inputs=((4, 3, 5),), grad=False),
    # cat/stack of more than 64 tensors: chunked (see _tape/wide.py), one PyTorch node.
    OpCase("_internal.wide_cat", lambda torch, x: torch.cat([x] * 70, 1)),
    OpCase("_internal.wide_stack", lambda torch, x: torch.stack([x] * 70, 1)),
    OpCase("_internal.wide_pieces", _wide_grad, names=False),
    # (its inputs are the nodes' saved values, which depend on each other: the row is checked
    # by finite differences and PyTorch; not traced, as autograd.grad needs an x requiring
    # grad; tests/autograd/test_whole_backward.py checks it against jax.grad)
    OpCase("_internal.whole_backward", _whole_grad, names=False, trace=False),
    OpCase(
        "_internal.assign",  # (a slice: a write by int indices may run on the host copy)
        lambda torch, x, v: setitem(x, slice(0, 1), v),
        inputs=(S, V),
        requires_grad=(False, False),
    ),
    # ------------------------------------------------------------------ random
    # (normal with tensor arguments: PyTorch's gradient to mean and std is zero, not the
    # sample's derivative, so finite differences do not apply; test_random_pytorch checks it)
    OpCase("normal_", lambda torch, x: seeded(torch, lambda: x.clone().normal_())),
    OpCase(
        "normal.tensor_float",
        lambda torch, m: seeded(torch, lambda: torch.normal(m, 0.5)),
        grad=False,
    ),
    OpCase(
        "normal.float_tensor",
        lambda torch, s: seeded(torch, lambda: torch.normal(1.0, s)),
        domain="pos",
        grad=False,
    ),
    OpCase(
        "normal.tensor_tensor",
        lambda torch, m, s: seeded(torch, lambda: torch.normal(m, s)),
        inputs=(S, S),
        domain=("normal", "pos"),
        grad=False,
    ),
    OpCase("uniform_", lambda torch, x: seeded(torch, lambda: x.clone().uniform_())),
    # The samplers' gradients are implicit reparameterisation (the derivative of the inverse
    # CDF at the sample), not the derivative of the draw at a fixed key, so finite differences
    # do not apply; tests/distributions/test_distributions.py checks them against PyTorch's
    # _standard_gamma_grad and the exact gradient of the mean.
    OpCase(
        "_standard_gamma",
        lambda torch, a: seeded(torch, lambda: torch._standard_gamma(a)),
        domain="pos",
        grad=False,
        torch=False,
    ),
    OpCase(
        "distributions.Dirichlet.rsample",
        lambda torch, a: seeded(torch, lambda: torch.distributions.Dirichlet(a).rsample()),
        domain="pos",
        grad=False,
        torch=False,
    ),
    OpCase(
        "bernoulli",
        lambda torch, p: seeded(torch, lambda: torch.bernoulli(p)),
        domain="prob",
    ),
    # Poisson and binomial draws: not PyTorch's sampler's values (their distribution is
    # tested in test_count_samples.py, with the zero gradient and the missing derivative).
    OpCase(
        "poisson",
        lambda torch, r: seeded(torch, lambda: torch.poisson(r)),
        domain="pos",
        grad=False,
        torch=False,
    ),
    OpCase(
        "binomial",
        lambda torch, n, p: seeded(torch, lambda: torch.binomial((n * 10).floor(), p)),
        inputs=(S, S),
        domain=("pos", "prob"),
        grad=False,
        torch=False,
    ),
    OpCase(
        "bernoulli.p",
        lambda torch, x: seeded(torch, lambda: torch.bernoulli(x, 0.3)),
        grad=False,
    ),
    OpCase(
        "bernoulli_.tensor",
        lambda torch, x, p: seeded(torch, lambda: x.clone().bernoulli_(p)),
        inputs=(S, S),
        domain=("normal", "prob"),
    ),
    OpCase(
        "bernoulli_.float",
        lambda torch, x: seeded(torch, lambda: x.clone().bernoulli_(0.3)),
    ),
    OpCase("random_.from", lambda torch, x: seeded(torch, lambda: x.clone().random_(1, 5))),
    OpCase("random_.to", lambda torch, x: seeded(torch, lambda: x.clone().random_(5))),
    OpCase("random_", lambda torch, x: seeded(torch, lambda: x.clone().random_())),
    OpCase(
        "exponential_",
        lambda torch, x: seeded(torch, lambda: x.clone().exponential_()),
    ),
    OpCase("cauchy_", lambda torch, x: seeded(torch, lambda: x.clone().cauchy_(0.5, 2.0))),
    OpCase("log_normal_", lambda torch, x: seeded(torch, lambda: x.clone().log_normal_(0.0, 0.5))),
    OpCase("geometric_", lambda torch, x: seeded(torch, lambda: x.clone().geometric_(0.3))),
    OpCase(
        "dropout",
        lambda torch, x: seeded(torch, lambda: F(torch).dropout(x, 0.5)),
    ),
    OpCase(
        "dropout.channel",
        lambda torch, x: seeded(torch, lambda: F(torch).dropout1d(x, 0.5)),
        inputs=(SEQ,),
    ),
    OpCase(
        "alpha_dropout",
        lambda torch, x: seeded(torch, lambda: F(torch).alpha_dropout(x, 0.5, training=True)),
    ),
    OpCase("rrelu", lambda torch, x: seeded(torch, lambda: F(torch).rrelu(x, training=True))),
    OpCase(
        "rrelu_",
        lambda torch, x: seeded(torch, lambda: F(torch).rrelu_(x.clone(), training=True)),
        trace=False,  # a traced program's slopes come from a JAX key, not PyTorch's draws
    ),
    # ------------------------------------------------------------------ arithmetic
    OpCase("add", lambda torch, x, y: x + y, inputs=(S, S)),
    OpCase("sub", lambda torch, x, y: x - y, inputs=(S, S)),
    OpCase("add.alpha", lambda torch, x, y: torch.add(x, y, alpha=2), inputs=(S, S)),
    OpCase("sub.alpha", lambda torch, x, y: torch.sub(x, y, alpha=2), inputs=(S, S)),
    OpCase("rsub", lambda torch, x, y: torch.rsub(x, y), inputs=(S, S)),
    OpCase("rsub.scalar", lambda torch, x: 2 - x),
    OpCase("mul", lambda torch, x, y: x * y, inputs=(S, S)),
    OpCase("div", lambda torch, x, y: x / y, inputs=(S, S), domain=("normal", "pos")),
    OpCase("pow", lambda torch, x, y: x**y, inputs=(S, S), domain=("pos", "normal")),
    OpCase("pow.scalar_exponent", lambda torch, x: x**3),
    OpCase("pow.scalar_base", lambda torch, x: 2**x),
    OpCase(
        "div.rounding_mode",
        lambda torch, x, y: torch.div(x, y, rounding_mode="floor"),
        inputs=(S, S),
        domain=("normal", "pos"),
    ),
    OpCase("neg", lambda torch, x: -x),
    OpCase("abs", lambda torch, x: torch.abs(x)),
    OpCase("exp", lambda torch, x: torch.exp(x)),
    OpCase("log", lambda torch, x: torch.log(x), domain="pos"),
    OpCase("sqrt", lambda torch, x: x.sqrt(), domain="pos"),
    OpCase("sin", lambda torch, x: torch.sin(x)),
    OpCase("cos", lambda torch, x: x.cos()),
    OpCase("tanh", lambda torch, x: torch.tanh(x)),
    OpCase("sigmoid", lambda torch, x: torch.sigmoid(x)),
    OpCase("relu", lambda torch, x: torch.relu(x)),
    OpCase("expm1", lambda torch, x: torch.expm1(x)),
    OpCase("log1p", lambda torch, x: torch.log1p(x), domain="pos"),
    OpCase("log2", lambda torch, x: torch.log2(x), domain="pos"),
    OpCase("log10", lambda torch, x: x.log10(), domain="pos"),
    OpCase("rsqrt", lambda torch, x: torch.rsqrt(x), domain="pos"),
    OpCase("reciprocal", lambda torch, x: x.reciprocal(), domain="pos"),
    OpCase("tan", lambda torch, x: torch.tan(x), domain="unit"),
    OpCase("asin", lambda torch, x: torch.asin(x), domain="unit"),
    OpCase("acos", lambda torch, x: torch.acos(x), domain="unit"),
    OpCase("atan", lambda torch, x: torch.atan(x)),
    OpCase("sinh", lambda torch, x: torch.sinh(x)),
    OpCase("cosh", lambda torch, x: torch.cosh(x)),
    OpCase("erf", lambda torch, x: torch.erf(x)),
    OpCase("floor", lambda torch, x: torch.floor(x)),
    OpCase("ceil", lambda torch, x: torch.ceil(x)),
    OpCase("trunc", lambda torch, x: torch.trunc(x)),
    OpCase("sign", lambda torch, x: torch.sign(x)),
    OpCase("round", lambda torch, x: torch.round(x)),
    OpCase("round.decimals", lambda torch, x: torch.round(x, decimals=1)),
    OpCase("atan2", lambda torch, x, y: torch.atan2(x, y), inputs=(S, S)),
    OpCase("maximum", lambda torch, x, y: torch.maximum(x, y), inputs=(S, S)),
    OpCase("minimum", lambda torch, x, y: torch.minimum(x, y), inputs=(S, S)),
    OpCase("fmax", lambda torch, x, y: torch.fmax(x, y), inputs=(S, S)),
    OpCase("fmin", lambda torch, x, y: torch.fmin(x, y), inputs=(S, S)),
    OpCase(
        "floor_divide",
        lambda torch, x, y: torch.floor_divide(x, y),
        inputs=(S, S),
        domain=("normal", "pos"),
        grad=False,
    ),
    OpCase("remainder.scalar", lambda torch, x: torch.remainder(x, 0.7)),
    OpCase(
        "remainder",
        lambda torch, x, y: torch.remainder(x, y),
        inputs=(S, S),
        domain=("normal", "pos"),
    ),
    OpCase(
        "remainder.scalar_self",
        lambda torch, y: torch.remainder(1.5, y),
        domain="pos",
        grad=False,
    ),
    OpCase("fmod.scalar", lambda torch, x: torch.fmod(x, -0.7)),
    OpCase("fmod", lambda torch, x, y: torch.fmod(x, y), inputs=(S, S), domain=("normal", "pos")),
    OpCase(
        "clamp.tensor",
        lambda torch, x, lo: torch.clamp(x, min=lo, max=lo + 1),
        inputs=(S, S),
    ),
    OpCase("clamp", lambda torch, x: torch.clamp(x, -0.5, 0.7)),
    OpCase("clamp_min", lambda torch, x: torch.clamp_min(x, 0.2)),
    OpCase("clamp_min.tensor", lambda torch, x, m: torch.clamp_min(x, m), inputs=(S, S)),
    OpCase("clamp_max", lambda torch, x: torch.clamp_max(x, 0.2)),
    OpCase("clamp_max.tensor", lambda torch, x, m: torch.clamp_max(x, m), inputs=(S, S)),
    OpCase("where", lambda torch, x, y: torch.where(x > 0, x, y), inputs=(S, S)),
    OpCase("lerp.scalar", lambda torch, x, y: torch.lerp(x, y, 0.3), inputs=(S, S)),
    OpCase("lerp", lambda torch, x, y, w: torch.lerp(x, y, w), inputs=(S, S, S)),
    OpCase("addcmul", lambda torch, x, y, z: torch.addcmul(x, y, z, value=0.5), inputs=(S, S, S)),
    OpCase(
        "addcdiv",
        lambda torch, x, y, z: torch.addcdiv(x, y, z, value=0.5),
        inputs=(S, S, S),
        domain=("normal", "normal", "pos"),
    ),
    OpCase("exp2", lambda torch, x: torch.exp2(x)),
    OpCase("erfc", lambda torch, x: torch.special.erfc(x)),
    OpCase("erfinv", lambda torch, x: torch.erfinv(x), domain="unit"),
    OpCase("lgamma", lambda torch, x: torch.lgamma(x), domain="pos"),
    OpCase("digamma", lambda torch, x: torch.special.digamma(x), domain="pos"),
    OpCase("acosh", lambda torch, x: torch.acosh(x), domain="gt1"),
    OpCase("asinh", lambda torch, x: torch.asinh(x)),
    OpCase("atanh", lambda torch, x: torch.atanh(x), domain="unit"),
    OpCase("deg2rad", lambda torch, x: torch.deg2rad(x)),
    OpCase("rad2deg", lambda torch, x: torch.rad2deg(x)),
    OpCase("sinc", lambda torch, x: torch.sinc(x)),
    OpCase("frac", lambda torch, x: torch.frac(x)),
    # times x: PyTorch's gradient of sgn alone is a ZeroTensor, which has no numpy view
    OpCase("sgn", lambda torch, x: torch.sgn(x) * x),
    OpCase("logit", lambda torch, x: torch.logit(x), domain="prob"),
    OpCase("nan_to_num", lambda torch, x: torch.nan_to_num(torch.log(x), nan=0.5)),
    OpCase(
        "xlogy.tensor",
        lambda torch, x, y: torch.xlogy(x, y),
        inputs=(S, S),
        domain=("normal", "pos"),
    ),
    OpCase("xlogy.scalar_self", lambda torch, y: torch.xlogy(2.0, y), domain="pos"),
    OpCase("xlogy.scalar_other", lambda torch, x: torch.xlogy(x, 2.0)),
    OpCase("hypot.tensor", lambda torch, x, y: torch.hypot(x, y), inputs=(S, S)),
    OpCase("logaddexp.tensor", lambda torch, x, y: torch.logaddexp(x, y), inputs=(S, S)),
    OpCase("logaddexp2.tensor", lambda torch, x, y: torch.logaddexp2(x, y), inputs=(S, S)),
    OpCase("copysign.tensor", lambda torch, x, y: torch.copysign(x, y), inputs=(S, S)),
    OpCase("copysign.scalar_other", lambda torch, x: torch.copysign(x, -1.0)),
    OpCase(
        "heaviside",
        lambda torch, x, y: torch.heaviside(x, y),
        inputs=(S, S),
        grad=False,
    ),
    # ------------------------------------------------------------------ comparisons, logic
    OpCase("lt", lambda torch, x, y: x < y, inputs=(S, S)),
    OpCase("le", lambda torch, x, y: x <= y, inputs=(S, S)),
    OpCase("gt", lambda torch, x, y: x > y, inputs=(S, S)),
    OpCase("ge", lambda torch, x, y: x >= y, inputs=(S, S)),
    OpCase("eq", lambda torch, x, y: x == y, inputs=(S, S)),
    OpCase("ne", lambda torch, x, y: x != y, inputs=(S, S)),
    OpCase("isnan", lambda torch, x: torch.isnan(x / (x > 0))),
    OpCase("isinf", lambda torch, x: torch.isinf(x / (x > 0))),
    OpCase("isfinite", lambda torch, x: torch.isfinite(x)),
    OpCase("isclose", lambda torch, x, y: torch.isclose(x, y), inputs=(S, S)),
    OpCase(
        "logical_and", lambda torch, x, y: torch.logical_and(x, y), inputs=(S, S), domain="bool"
    ),
    OpCase("logical_or", lambda torch, x, y: torch.logical_or(x, y), inputs=(S, S), domain="bool"),
    OpCase(
        "logical_xor", lambda torch, x, y: torch.logical_xor(x, y), inputs=(S, S), domain="bool"
    ),
    OpCase("logical_not", lambda torch, x: torch.logical_not(x), domain="bool"),
    OpCase("bitwise_and", lambda torch, x, y: x & y, inputs=(S, S), domain="int"),
    OpCase("bitwise_or", lambda torch, x, y: x | y, inputs=(S, S), domain="int"),
    OpCase("bitwise_xor", lambda torch, x, y: x ^ y, inputs=(S, S), domain="int"),
    OpCase("bitwise_not", lambda torch, x: ~x, domain="int"),
    OpCase("count_nonzero", lambda torch, x: torch.count_nonzero(x), domain="int"),
    OpCase("hash_tensor", lambda torch, x: torch.hash_tensor(x, 1)),
    OpCase(
        "nonzero_static",
        lambda torch, x: torch.nonzero_static(x, size=20, fill_value=-2),
        domain="int",
    ),
    OpCase("all", lambda torch, x: torch.all(x), domain="bool"),
    OpCase("argmax", lambda torch, x: torch.argmax(x, dim=1)),
    OpCase("argsort", lambda torch, x: torch.argsort(x, dim=1)),
    # ------------------------------------------------------------------ in-place writes
    OpCase("fill_", lambda torch, x: x.clone().fill_(2.0)),
    OpCase(
        "fill_.tensor",
        lambda torch, x, v: x.clone().fill_(v),
        inputs=(S, ()),
        trace=False,  # fill_ reads the value tensor's number (.item())
    ),
    OpCase("zero_", lambda torch, x: x.clone().zero_()),
    OpCase(
        "copy_",
        lambda torch, x, y: x.clone().copy_(y),
        inputs=(S, S),
        name_differs="torch::autograd::CopyBackwards in PyTorch, CopyBackwards here",
    ),
    OpCase("copy_.broadcast", lambda torch, x, v: setitem(x, 0, v), inputs=(S, V)),
    OpCase("fill_.broadcast", lambda torch, x, v: setitem(x, 0, v), inputs=(S, ())),
    OpCase(
        "index_put", lambda torch, x, v: setitem(x, torch.tensor([0, 2]), v), inputs=(S, (2, 4))
    ),
    # ------------------------------------------------------------------ nn.functional
    OpCase(
        "linear.addmm", lambda torch, x, w, b: F(torch).linear(x, w, b), inputs=(S, (2, 4), (2,))
    ),
    OpCase("linear.mm", lambda torch, x, w: F(torch).linear(x, w), inputs=(S, (2, 4))),
    OpCase(
        "linear.view", lambda torch, x, w, b: F(torch).linear(x, w, b), inputs=(B, (2, 4), (2,))
    ),
    OpCase("linear.unsafe_view", lambda torch, x, w: F(torch).linear(x, w), inputs=(B, (2, 4))),
    OpCase(
        "bilinear",
        lambda torch, x, y, w, b: F(torch).bilinear(x, y, w, b),
        inputs=(S, (3, 2), (2, 4, 2), (2,)),
    ),
    OpCase(
        "bilinear.no_bias",
        lambda torch, x, y, w: F(torch).bilinear(x, y, w),
        inputs=(S, (3, 2), (2, 4, 2)),
    ),
    OpCase(
        "convolution",
        lambda torch, x, w, b: F(torch).conv1d(x, w, b, padding=1),
        inputs=(SEQ, (2, 3, 3), (2,)),
    ),
    OpCase(
        "convolution.transposed",
        lambda torch, x, w, b: F(torch).conv_transpose1d(x, w, b),
        inputs=(SEQ, (3, 2, 3), (2,)),
    ),
    OpCase(
        "max_pool1d",
        lambda torch, x: F(torch).max_pool1d(x, 2),
        inputs=(SEQ,),
        name_differs="SqueezeBackward1 in PyTorch (max_pool2d of an unsqueezed input), "
        "MaxPool1DWithIndicesBackward0 here",
    ),
    OpCase("max_pool2d", lambda torch, x: F(torch).max_pool2d(x, 2), inputs=(IMG,)),
    OpCase(
        "fractional_max_pool2d",
        lambda torch, x, u: F(torch).fractional_max_pool2d(x, 2, 3, _random_samples=u),
        inputs=(IMG, (1, 2, 2)),
        domain=("normal", "prob"),
        requires_grad=(True, False),
    ),
    OpCase(
        "fractional_max_pool3d",
        lambda torch, x, u: F(torch).fractional_max_pool3d(x, 2, (1, 2, 2), _random_samples=u),
        inputs=((1, 2, 3, 4, 4), (1, 2, 3)),
        domain=("normal", "prob"),
        requires_grad=(True, False),
    ),
    OpCase(
        "max_pool3d",
        lambda torch, x: F(torch).max_pool3d(x, 2),
        inputs=((1, 2, 2, 4, 4),),
    ),
    OpCase(
        "avg_pool1d",
        lambda torch, x: F(torch).avg_pool1d(x, 2),
        inputs=(SEQ,),
        name_differs="SqueezeBackward1 in PyTorch (avg_pool2d of an unsqueezed input), "
        "AvgPool2DBackward0 here",
    ),
    OpCase("avg_pool2d", lambda torch, x: F(torch).avg_pool2d(x, 2), inputs=(IMG,)),
    OpCase(
        "avg_pool3d",
        lambda torch, x: F(torch).avg_pool3d(x, 2),
        inputs=((1, 2, 2, 4, 4),),
    ),
    OpCase("adaptive_avg_pool", lambda torch, x: F(torch).adaptive_avg_pool2d(x, 2), inputs=(IMG,)),
    OpCase(
        "adaptive_max_pool",
        lambda torch, x: F(torch).adaptive_max_pool2d(x, 3, return_indices=True),
        inputs=(IMG,),
    ),
    OpCase("pixel_shuffle", lambda torch, x: F(torch).pixel_shuffle(x, 2), inputs=((1, 4, 2, 2),)),
    OpCase("pixel_unshuffle", lambda torch, x: F(torch).pixel_unshuffle(x, 2), inputs=(IMG,)),
    OpCase("unfold", lambda torch, x: F(torch).unfold(x, 2, padding=1, stride=2), inputs=(IMG,)),
    OpCase("fold", lambda torch, x: F(torch).fold(x, (3, 3), 2), inputs=((1, 8, 4),)),
    OpCase(
        "batch_norm",
        lambda torch, x, w, b: F(torch).batch_norm(
            x,
            torch.zeros(3, dtype=torch.float64),
            torch.ones(3, dtype=torch.float64),
            w,
            b,
            training=True,
        ),
        inputs=(SEQ, (3,), (3,)),
    ),
    OpCase(
        "batch_norm.eval",
        lambda torch, x, m, v, w, b: F(torch).batch_norm(x, m, v, w, b),
        inputs=(SEQ, (3,), (3,), (3,), (3,)),
        domain=("normal", "normal", "pos", "normal", "normal"),
        requires_grad=(True, False, False, True, True),
    ),
    OpCase(
        "_native_batch_norm_legit",
        lambda torch, x, w, b: torch._native_batch_norm_legit(
            x,
            w,
            b,
            torch.zeros(3, dtype=torch.float64),
            torch.ones(3, dtype=torch.float64),
            True,
            0.1,
            1e-5,
        ),
        inputs=(SEQ, (3,), (3,)),
    ),
    OpCase(
        "_native_batch_norm_legit.eval",
        lambda torch, x, m, v, w, b: torch._native_batch_norm_legit(
            x, w, b, m, v, False, 0.1, 1e-5
        ),
        inputs=(SEQ, (3,), (3,), (3,), (3,)),
        domain=("normal", "normal", "pos", "normal", "normal"),
        requires_grad=(True, False, False, True, True),
    ),
    OpCase(
        "_native_batch_norm_legit.no_stats",
        lambda torch, x, w, b: torch._native_batch_norm_legit(x, w, b, True, 0.1, 1e-5),
        inputs=(SEQ, (3,), (3,)),
    ),
    OpCase(
        "layer_norm",
        lambda torch, x, w, b: F(torch).layer_norm(x, (4,), w, b),
        inputs=(S, V, V),
    ),
    OpCase(
        "group_norm",
        lambda torch, x, w, b: F(torch).group_norm(x, 2, w, b),
        inputs=((2, 4, 3), V, V),
    ),
    OpCase("normalize", lambda torch, x: F(torch).normalize(x)),
    OpCase(
        "cosine_similarity",
        lambda torch, x, y: F(torch).cosine_similarity(x, y),
        inputs=(S, S),
    ),
    OpCase(
        "pairwise_distance", lambda torch, x, y: F(torch).pairwise_distance(x, y), inputs=(S, S)
    ),
    OpCase("embedding", lambda torch, i, w: F(torch).embedding(i, w), inputs=(_idx(0, 2, 2), S)),
    OpCase(
        "embedding_bag",
        lambda torch, i, o, w, p: F(torch).embedding_bag(i, w, o, mode="sum", per_sample_weights=p),
        inputs=(_idx(0, 2, 2, 1), _idx(0, 1), S, V),
    ),
    OpCase("one_hot", lambda torch, i: F(torch).one_hot(i, 4), inputs=(_idx(0, 2, 3),)),
    OpCase("leaky_relu", lambda torch, x: F(torch).leaky_relu(x, 0.1)),
    OpCase("elu", lambda torch, x: F(torch).elu(x)),
    OpCase("gelu", lambda torch, x: F(torch).gelu(x)),
    OpCase("silu", lambda torch, x: F(torch).silu(x)),
    OpCase("softplus", lambda torch, x: F(torch).softplus(x)),
    OpCase("hardtanh", lambda torch, x: F(torch).hardtanh(x, -0.5, 0.5)),
    OpCase("threshold", lambda torch, x: F(torch).threshold(x, 0.1, 20.0)),
    OpCase("mish", lambda torch, x: F(torch).mish(x)),
    OpCase("hardsigmoid", lambda torch, x: F(torch).hardsigmoid(x)),
    OpCase("hardswish", lambda torch, x: F(torch).hardswish(x)),
    OpCase("logsigmoid", lambda torch, x: F(torch).logsigmoid(x)),
    OpCase("softsign", lambda torch, x: F(torch).softsign(x)),
    OpCase("tanhshrink", lambda torch, x: F(torch).tanhshrink(x)),
    OpCase("prelu", lambda torch, x, w: F(torch).prelu(x, w), inputs=(S, (1,))),
    OpCase("glu", lambda torch, x: F(torch).glu(x)),
    OpCase("softmax", lambda torch, x: F(torch).softmax(x, dim=1)),
    OpCase("log_softmax", lambda torch, x: F(torch).log_softmax(x, dim=1)),
    OpCase("softmin", lambda torch, x: F(torch).softmin(x, dim=1)),
    OpCase("mse_loss", lambda torch, x, y: F(torch).mse_loss(x, y), inputs=(S, S)),
    OpCase("l1_loss", lambda torch, x, y: F(torch).l1_loss(x, y), inputs=(S, S)),
    OpCase("smooth_l1_loss", lambda torch, x, y: F(torch).smooth_l1_loss(x, y), inputs=(S, S)),
    OpCase("huber_loss", lambda torch, x, y: F(torch).huber_loss(x, y), inputs=(S, S)),
    OpCase(
        "nll_loss",
        lambda torch, x, t: F(torch).nll_loss(x, t),
        inputs=(S, _idx(0, 3, 1)),
    ),
    OpCase(
        "cross_entropy",
        lambda torch, x, t: F(torch).cross_entropy(x, t),
        inputs=(S, _idx(0, 3, 1)),
    ),
    OpCase(
        "cross_entropy.label_smoothing",
        lambda torch, x, t: F(torch).cross_entropy(x, t, label_smoothing=0.1),
        inputs=(S, _idx(0, 3, 1)),
    ),
    OpCase(
        "cross_entropy.probs",
        lambda torch, x, p: F(torch).cross_entropy(x, p),
        inputs=(S, S),
        domain=("normal", "prob"),
    ),
    OpCase(
        "binary_cross_entropy",
        lambda torch, p, y: F(torch).binary_cross_entropy(p, y),
        inputs=(S, S),
        domain="prob",
    ),
    OpCase(
        "binary_cross_entropy_with_logits",
        lambda torch, x, y: F(torch).binary_cross_entropy_with_logits(x, y),
        inputs=(S, S),
        domain=("normal", "prob"),
    ),
    OpCase(
        "kl_div",
        lambda torch, x, y: quiet(lambda: F(torch).kl_div(x, y, reduction="mean")),
        inputs=(S, S),
        domain=("normal", "prob"),
    ),
    OpCase(
        "kl_div.sum",
        lambda torch, x, y: F(torch).kl_div(x, y, reduction="sum"),
        inputs=(S, S),
        domain=("normal", "prob"),
    ),
    OpCase(
        "kl_div.batchmean",
        lambda torch, x, y: F(torch).kl_div(x, y, reduction="batchmean"),
        inputs=(S, S),
        domain=("normal", "prob"),
    ),
    OpCase(
        "kl_div.none",
        lambda torch, x, y: F(torch).kl_div(x, y, reduction="none"),
        inputs=(S, S),
        domain=("normal", "prob"),
    ),
    OpCase(
        "scaled_dot_product_attention",
        lambda torch, q, k, v: F(torch).scaled_dot_product_attention(q, k, v),
        inputs=(B, B, B),
        name_differs="UnsafeViewBackward0 in PyTorch for float64 (the math path), "
        "ScaledDotProductFlashAttentionForCpuBackward0 here",
    ),
    OpCase(
        "multi_head_attention_forward",
        lambda torch, x: fixed(torch, torch.nn.MultiheadAttention(4, 2))(x, x, x)[0],
        inputs=((3, 2, 4),),
        trace=False,  # raises TracerArrayConversionError under a jax trace
    ),
    OpCase("pad.constant", lambda torch, x: F(torch).pad(x, (1, 1))),
    OpCase(
        "pad.reflect",
        lambda torch, x: F(torch).pad(x, (1, 1), mode="reflect"),
        inputs=(B,),
        name_differs="ReflectionPad1DBackward0 in PyTorch for a 3-d input, "
        "ReflectionPad2DBackward0 here",
    ),
    OpCase(
        "pad.replicate",
        lambda torch, x: F(torch).pad(x, (1, 1), mode="replicate"),
        inputs=(B,),
        name_differs="ReplicationPad1DBackward0 in PyTorch for a 3-d input, "
        "ReplicationPad2DBackward0 here",
    ),
    OpCase(
        "pad.circular",
        lambda torch, x: F(torch).pad(x, (1, 1), mode="circular"),
        inputs=(B,),
        name_differs="torch::autograd::CopySlices in PyTorch, CopySlices here",
    ),
    OpCase(
        "grid_sampler_2d",
        lambda torch, x, grid: F(torch).grid_sample(x, grid, align_corners=False),
        inputs=(IMG, (1, 3, 3, 2)),
        domain=("normal", "unit"),
    ),
    OpCase(
        "grid_sampler_3d",
        lambda torch, x, grid: F(torch).grid_sample(x, grid, align_corners=True),
        inputs=((1, 1, 2, 2, 2), (1, 2, 2, 2, 3)),
        domain=("normal", "unit"),
    ),
    OpCase(
        "affine_grid_generator",
        lambda torch, theta: F(torch).affine_grid(theta, [1, 1, 3, 4], align_corners=False),
        inputs=((1, 2, 3),),
    ),
    OpCase("view.dtype", lambda torch, x: x.view(torch.int64), grad=False),
    OpCase(
        "interpolate.nearest1d",
        lambda torch, x: F(torch).interpolate(x, scale_factor=2),
        inputs=(SEQ,),
    ),
    OpCase(
        "interpolate.nearest2d",
        lambda torch, x: F(torch).interpolate(x, scale_factor=2),
        inputs=(IMG,),
    ),
    OpCase(
        "interpolate.nearest3d",
        lambda torch, x: F(torch).interpolate(x, scale_factor=2),
        inputs=((1, 1, 2, 2, 2),),
    ),
    OpCase(
        "interpolate.linear",
        lambda torch, x: F(torch).interpolate(x, scale_factor=2, mode="linear"),
        inputs=(SEQ,),
    ),
    OpCase(
        "interpolate.bilinear",
        lambda torch, x: F(torch).interpolate(x, scale_factor=2, mode="bilinear"),
        inputs=(IMG,),
    ),
    OpCase(
        "interpolate.trilinear",
        lambda torch, x: F(torch).interpolate(x, scale_factor=2, mode="trilinear"),
        inputs=((1, 1, 2, 2, 2),),
    ),
    OpCase(
        "interpolate.nearest_exact1d",
        lambda torch, x: F(torch).interpolate(x, size=7, mode="nearest-exact"),
        inputs=(SEQ,),
    ),
    OpCase(
        "interpolate.nearest_exact2d",
        lambda torch, x: F(torch).interpolate(x, scale_factor=0.75, mode="nearest-exact"),
        inputs=(IMG,),
    ),
    OpCase(
        "interpolate.nearest_exact3d",
        lambda torch, x: F(torch).interpolate(x, size=3, mode="nearest-exact"),
        inputs=((1, 1, 2, 2, 2),),
    ),
    OpCase(
        "interpolate.bicubic",
        lambda torch, x: F(torch).interpolate(x, size=(3, 6), mode="bicubic"),
        inputs=(IMG,),
    ),
    OpCase(
        "interpolate.bilinear_aa",
        lambda torch, x: F(torch).interpolate(x, size=(3, 2), mode="bilinear", antialias=True),
        inputs=(IMG,),
    ),
    OpCase(
        "interpolate.bicubic_aa",
        lambda torch, x: F(torch).interpolate(x, size=(3, 2), mode="bicubic", antialias=True),
        inputs=(IMG,),
    ),
    OpCase(
        "interpolate.lanczos_aa",
        lambda torch, x: F(torch).interpolate(x, size=(3, 2), mode="lanczos", antialias=True),
        inputs=(IMG,),
    ),
    OpCase(
        "adaptive_avg_pool3d",
        lambda torch, x: F(torch).adaptive_avg_pool3d(x, 2),
        inputs=((1, 1, 3, 4, 3),),
    ),
    # ------------------------------------------------------------------ nn modules
    OpCase(
        "nn.rnn.rnn", lambda torch, x: fixed(torch, torch.nn.RNN(4, 3))(x)[0], inputs=((3, 2, 4),)
    ),
    OpCase(
        "nn.rnn.lstm",
        lambda torch, x: fixed(torch, torch.nn.LSTM(4, 3))(x)[0],
        inputs=((3, 2, 4),),
        name_differs="StackBackward0 in PyTorch for float64 (no mkldnn), "
        "MkldnnRnnLayerBackward0 here",
    ),
    OpCase(
        "nn.rnn.gru", lambda torch, x: fixed(torch, torch.nn.GRU(4, 3))(x)[0], inputs=((3, 2, 4),)
    ),
    OpCase(
        "nn.rnn_cell.rnn",
        lambda torch, x: fixed(torch, torch.nn.RNNCell(4, 3))(x),
        inputs=((2, 4),),
    ),
    OpCase(
        "nn.rnn_cell.lstm",
        lambda torch, x: fixed(torch, torch.nn.LSTMCell(4, 3))(x)[0],
        inputs=((2, 4),),
    ),
    OpCase(
        "nn.rnn_cell.gru",
        lambda torch, x: fixed(torch, torch.nn.GRUCell(4, 3))(x),
        inputs=((2, 4),),
    ),
    OpCase(
        "nn.utils.parameters_to_vector",
        lambda torch, x, y: torch.nn.utils.parameters_to_vector([x, y]),
        inputs=(S, V),
    ),
    # ------------------------------------------------------------------ linear algebra
    OpCase("mm", lambda torch, a, b: torch.mm(a, b), inputs=(S, (4, 3))),
    OpCase("dot", lambda torch, a, b: torch.dot(a, b), inputs=(V, V)),
    OpCase("mv", lambda torch, a, v: torch.mv(a, v), inputs=(S, V)),
    OpCase("matmul.vector_matrix", lambda torch, v, a: v @ a, inputs=((3,), S)),
    OpCase("matmul.batched", lambda torch, a, b: a @ b, inputs=(B, (4, 3))),
    OpCase("bmm", lambda torch, a, b: torch.bmm(a, b), inputs=(B, (2, 4, 3))),
    OpCase("outer", lambda torch, a, b: torch.outer(a, b), inputs=((3,), V)),
    OpCase("einsum.view", lambda torch, a, b: torch.einsum("ij,jk->ik", a, b), inputs=(S, (4, 3))),
    OpCase("einsum.mul", lambda torch, a, b: torch.einsum("ij,ij->ij", a, b), inputs=(S, S)),
    OpCase("einsum.sum", lambda torch, a: torch.einsum("ij->i", a)),
    OpCase("einsum.permute", lambda torch, a: torch.einsum("ij->ji", a)),
    OpCase(
        "einsum.diagonal",
        lambda torch, a: torch.einsum("ii->i", a),
        inputs=(M,),
        name_differs="PermuteBackward0 in PyTorch, DiagonalBackward0 here",
    ),
    OpCase("tensordot", lambda torch, a, b: torch.tensordot(a, b, dims=1), inputs=(S, (4, 3))),
    OpCase("addmm", lambda torch, c, a, b: torch.addmm(c, a, b), inputs=(M, S, (4, 3))),
    OpCase("addmv", lambda torch, c, a, v: torch.addmv(c, a, v), inputs=((3,), S, V)),
    OpCase("addr", lambda torch, c, a, b: torch.addr(c, a, b), inputs=(S, (3,), V)),
    OpCase(
        "baddbmm", lambda torch, c, a, b: torch.baddbmm(c, a, b), inputs=((2, 3, 3), B, (2, 4, 3))
    ),
    OpCase("addbmm", lambda torch, c, a, b: torch.addbmm(c, a, b), inputs=(M, B, (2, 4, 3))),
    OpCase(
        "kron",
        lambda torch, a, b: torch.kron(a, b),
        inputs=((2, 2), (2, 3)),
        name_differs="UnsafeViewBackward0 in PyTorch, KronBackward0 here",
    ),
    OpCase("trace", lambda torch, a: torch.trace(a), inputs=(M,)),
    OpCase("diag", lambda torch, v: torch.diag(v), inputs=(V,)),
    OpCase("diag.diagonal", lambda torch, a: torch.diag(a), inputs=(M,)),
    OpCase("diag_embed", lambda torch, a: torch.diag_embed(a)),
    OpCase("tril", lambda torch, a: torch.tril(a)),
    OpCase("triu", lambda torch, a: torch.triu(a)),
    OpCase("linalg.inv_ex", lambda torch, a: torch.linalg.inv(a), inputs=(M,), domain="wellcond"),
    OpCase("linalg.det", lambda torch, a: torch.linalg.det(a), inputs=(M,), domain="wellcond"),
    OpCase(
        "linalg.solve_ex",
        lambda torch, a, b: torch.linalg.solve(a, b),
        inputs=(M, (3,)),
        domain=("wellcond", "normal"),
    ),
    OpCase(
        "linalg.matrix_norm.sum", lambda torch, a: torch.linalg.matrix_norm(a, "nuc"), inputs=(M,)
    ),
    OpCase("linalg.matrix_norm.amax", lambda torch, a: torch.linalg.matrix_norm(a, 1)),
    OpCase("linalg.matrix_norm.amin", lambda torch, a: torch.linalg.matrix_norm(a, -1)),
    OpCase("linalg.cross", lambda torch, a, b: torch.cross(a, b, dim=1), inputs=(M, M)),
    OpCase("linalg.vector_norm", lambda torch, x: torch.linalg.vector_norm(x)),
    # ------------------------------------------------------------------ views and movement
    OpCase("view", lambda torch, x: x.view(12)),
    OpCase("reshape.alias", lambda torch, x: x.t().reshape(4, 3, 1)),
    OpCase("reshape.unsafe_view", lambda torch, x: x.t().reshape(12)),
    OpCase("transpose", lambda torch, x: x.transpose(0, 1)),
    OpCase("transpose_", lambda torch, x: x.clone().transpose_(0, 1)),
    OpCase("t", lambda torch, x: x.t()),
    OpCase("t_", lambda torch, x: x.clone().t_()),
    OpCase("permute", lambda torch, x: x.permute(2, 0, 1), inputs=(B,)),
    OpCase("squeeze", lambda torch, x: x.squeeze(), inputs=((3, 1, 4),)),
    OpCase("squeeze.dim", lambda torch, x: x.squeeze(1), inputs=((3, 1, 4),)),
    OpCase("squeeze.dims", lambda torch, x: x.squeeze((1,)), inputs=((3, 1, 4),)),
    OpCase("squeeze_", lambda torch, x: x.clone().squeeze_(), inputs=((3, 1, 4),)),
    OpCase("squeeze_.dim", lambda torch, x: x.clone().squeeze_(1), inputs=((3, 1, 4),)),
    OpCase("squeeze_.dims", lambda torch, x: x.clone().squeeze_((1,)), inputs=((3, 1, 4),)),
    OpCase("unsqueeze", lambda torch, x: x.unsqueeze(1)),
    OpCase("unsqueeze_", lambda torch, x: x.clone().unsqueeze_(1)),
    OpCase("expand", lambda torch, x: x.expand(2, 3, 4)),
    OpCase("select", lambda torch, x: x.select(0, 1)),
    OpCase("slice", lambda torch, x: x[1:]),
    OpCase("alias", lambda torch, x: x[...]),
    OpCase("diagonal", lambda torch, x: x.diagonal()),
    OpCase("clone", lambda torch, x: x.clone()),
    OpCase(
        "to.dtype",
        lambda torch, x: x.to(torch.float32),
        fd_eps=1e-3,  # the result is float32: differences of rounded values
        fd_rtol=1e-4,
    ),
    OpCase("to.device", lambda torch, x: x.to("cpu", copy=True)),
    OpCase("unbind", lambda torch, x: x.unbind(0)),
    OpCase("index", lambda torch, x: x[torch.tensor([0, 2, 2])]),
    OpCase("cat", lambda torch, x, y: torch.cat([x, y]), inputs=(S, S)),
    OpCase("stack", lambda torch, x, y: torch.stack([x, y]), inputs=(S, S)),
    OpCase("split", lambda torch, x: x.split(2)),
    OpCase("split_with_sizes", lambda torch, x: x.split([1, 2])),
    OpCase("flip", lambda torch, x: torch.flip(x, (0,))),
    OpCase("roll", lambda torch, x: torch.roll(x, 1, 1)),
    OpCase("rot90", lambda torch, x: torch.rot90(x)),
    OpCase("repeat", lambda torch, x: x.repeat(2, 1)),
    OpCase("gather", lambda torch, x, i: torch.gather(x, 1, i), inputs=(S, np.array([[0, 3]] * 3))),
    OpCase(
        "scatter",
        lambda torch, x, i, s: torch.scatter(x, 1, i, s),
        inputs=(S, np.array([[0, 3]] * 3), (3, 2)),
    ),
    OpCase(
        "scatter.value",
        lambda torch, x, i: torch.scatter(x, 1, i, 2.0),
        inputs=(S, np.array([[0, 3]] * 3)),
    ),
    OpCase(
        "scatter_add",
        lambda torch, x, i, s: torch.scatter_add(x, 1, i, s),
        inputs=(S, np.array([[0, 3]] * 3), (3, 2)),
    ),
    OpCase(
        "scatter_reduce",
        lambda torch, x, i, s: quiet(lambda: torch.scatter(x, 1, i, s, reduce="multiply")),
        grad=False,
        inputs=(S, np.array([[0, 3]] * 3), (3, 2)),
    ),
    # the rest of PyTorch 2.13's surface: in-place comparisons in the graph (a zero gradient)
    *[
        OpCase(f"{name}_", lambda torch, x, name=name: getattr(x * 1, f"{name}_")(0.1))
        for name in ("eq", "ne", "lt", "le", "gt", "ge")
    ],
    *[
        OpCase(
            f"{name}_.tensor",
            lambda torch, x, y, name=name: getattr(x * 1, f"{name}_")(y),
            inputs=(S, V),
        )
        for name in ("eq", "ne", "lt", "le", "gt", "ge")
    ],
    # the rest of PyTorch 2.13's surface: non-view splits, unfold, view scatters, reductions
    OpCase("unsafe_split", lambda torch, x: torch.unsafe_split(x, 2)),
    OpCase("unsafe_split_with_sizes", lambda torch, x: torch.unsafe_split_with_sizes(x, [1, 2])),
    OpCase("unfold.dimension", lambda torch, x: x.unfold(1, 2, 1)),
    OpCase("narrow_copy", lambda torch, x: torch.narrow_copy(x, 1, 1, 2)),
    OpCase(
        "segment_reduce",
        lambda torch, x: torch.segment_reduce(
            x, "prod", lengths=torch.tensor([[1, 0, 3]] * 3), axis=1, initial=0.5
        ),
    ),
    OpCase("as_strided", lambda torch, x: x[1:].as_strided((2, 2), (1, 4), 5)),
    OpCase("as_strided_", lambda torch, x: (x * 1).as_strided_((2, 2), (1, 4), 1)),
    OpCase(
        "as_strided_scatter",
        lambda torch, x, s: torch.as_strided_scatter(x, s, (2, 2), (1, 4), 1),
        inputs=(S, (2, 2)),
        requires_grad=(False, True),  # PyTorch's gradient in x is not its derivative
    ),
    OpCase("select_scatter", lambda torch, x, s: torch.select_scatter(x, s, 0, 1), inputs=(S, V)),
    OpCase(
        "slice_scatter",
        lambda torch, x, s: torch.slice_scatter(x, s, 1, 0, 4, 2),
        inputs=(S, (3, 2)),
    ),
    OpCase(
        "diagonal_scatter",
        lambda torch, x, s: torch.diagonal_scatter(x, s, 1),
        inputs=(S, (3,)),
    ),
    OpCase(
        "scatter_reduce.two",
        lambda torch, x, i, s: torch.scatter_reduce(x, 1, i, s, "prod"),
        inputs=(S, np.array([[0, 0], [1, 3], [2, 2]]), (3, 2)),
    ),
    OpCase(
        "scatter_reduce.legacy_name",
        lambda torch, x, i, s: torch.scatter_reduce(x, 1, i, s, "max"),
        grad=False,  # PyTorch's backward refuses the older names, and so does this one's
        inputs=(S, np.array([[0, 0], [1, 3], [2, 2]]), (3, 2)),
    ),
    OpCase(
        "index_reduce",
        lambda torch, x, i, s: quiet(lambda: torch.index_reduce(x, 1, i, s, "mean")),
        inputs=(S, _idx(0, 2, 0), (3, 3)),
    ),
    OpCase(
        "index_put.accumulate",
        lambda torch, x, i, v: torch.index_put(x, (i,), v, accumulate=True),
        inputs=(S, _idx(0, 2, 0), V),
    ),
    OpCase(
        "_unsafe_masked_index",
        lambda torch, x: torch._unsafe_masked_index(x, *_masked_index(torch), 2.0),
        inputs=(S,),
    ),
    OpCase(
        "_unsafe_masked_index_put_accumulate",
        lambda torch, x, v: torch._unsafe_masked_index_put_accumulate(x, *_masked_index(torch), v),
        inputs=(S, (2, 3)),
    ),
    OpCase("put", lambda torch, x, i, s: torch.put(x, i, s), inputs=(S, _idx(0, 5, -1), (3,))),
    OpCase("index_select", lambda torch, x, i: torch.index_select(x, 1, i), inputs=(S, _idx(0, 2))),
    OpCase(
        "index_add",
        lambda torch, x, i, s: torch.index_add(x, 1, i, s),
        inputs=(S, _idx(0, 2), (3, 2)),
    ),
    OpCase("index_fill", lambda torch, x, i: x.index_fill(1, i, 2.0), inputs=(S, _idx(0, 2))),
    OpCase(
        "index_fill.tensor",
        lambda torch, x, i, v: x.index_fill(1, i, v),
        inputs=(S, _idx(0, 2), ()),
    ),
    OpCase(
        "index_copy",
        lambda torch, x, i, s: x.index_copy(1, i, s),
        inputs=(S, _idx(0, 2), (3, 2)),
    ),
    OpCase("masked_fill", lambda torch, x: x.masked_fill(x > 0, 2.0)),
    OpCase("masked_fill.tensor", lambda torch, x, v: x.masked_fill(x > 0, v), inputs=(S, ())),
    OpCase("masked_select", lambda torch, x: torch.masked_select(x, x > 0)),
    OpCase(
        "masked_scatter",
        lambda torch, x, s: x.masked_scatter(x > 0, s),
        inputs=(S, S),
    ),
    OpCase("take", lambda torch, x: torch.take(x, torch.tensor([0, 5, 5]))),
    # ------------------------------------------------------------------ reductions
    OpCase("sum", lambda torch, x: x.sum()),
    OpCase("sum.dim", lambda torch, x: x.sum(1)),
    OpCase("mean", lambda torch, x: x.mean()),
    OpCase("mean.dim", lambda torch, x: x.mean(1)),
    OpCase("nansum", lambda torch, x: torch.nansum(x)),
    OpCase("prod", lambda torch, x: x.prod()),
    OpCase("prod.dim", lambda torch, x: x.prod(1)),
    OpCase("var", lambda torch, x: x.var(1)),
    OpCase("std", lambda torch, x: x.std(1)),
    OpCase("max.dim", lambda torch, x: x.max(1)),
    OpCase("min.dim", lambda torch, x: x.min(1)),
    OpCase("max", lambda torch, x: x.max()),
    OpCase("min", lambda torch, x: x.min()),
    OpCase("amax", lambda torch, x: torch.amax(x, 1)),
    OpCase("amin", lambda torch, x: torch.amin(x, 1)),
    OpCase("logsumexp", lambda torch, x: torch.logsumexp(x, 1)),
    OpCase("cumsum", lambda torch, x: torch.cumsum(x, 1)),
    OpCase("cumprod", lambda torch, x: torch.cumprod(x, 1)),
    OpCase("cummax", lambda torch, x: torch.cummax(x, 1)),
    OpCase("cummin", lambda torch, x: torch.cummin(x, 1)),
    OpCase("median", lambda torch, x: x.median()),
    OpCase("median.dim", lambda torch, x: x.median(1)),
    OpCase("kthvalue", lambda torch, x: torch.kthvalue(x, 2, 1)),
    OpCase(
        "quantile",
        lambda torch, x: torch.quantile(x, 0.3, dim=1),
        name_differs="SqueezeBackward4 in PyTorch, QuantileBackward here",
    ),
    OpCase("sort", lambda torch, x: torch.sort(x, 1)),
    OpCase("sort.stable", lambda torch, x: torch.sort(x, dim=1, stable=True)),
    OpCase("topk", lambda torch, x: torch.topk(x, 2)),
    # ------------------------------------------------------------------ complex
    OpCase(
        "real",
        lambda torch, x: torch.real(x.to(torch.complex128) * (1 + 2j)),
        name_differs="SelectBackward0 in PyTorch (a view of view_as_real), RealBackward0 here",
    ),
    OpCase(
        "imag",
        lambda torch, x: torch.imag(x.to(torch.complex128) * (1 + 2j)),
        name_differs="SelectBackward0 in PyTorch (a view of view_as_real), ImagBackward0 here",
    ),
    OpCase(
        "conj",
        lambda torch, x: torch.abs(torch.conj(x.to(torch.complex128) * (1 + 2j)) + 1j),
    ),
    OpCase(
        "view_as_complex",
        lambda torch, x: torch.view_as_complex(x.reshape(6, 2)).abs(),
    ),
    # ------------------------------------------------------------------ fft
    OpCase("_fft_r2c", lambda torch, x: torch.fft.rfft(x, n=6).abs()),
    OpCase(
        "_fft_c2c",
        lambda torch, x: torch.fft.ifft(torch.fft.fft2(x) * (1 + 2j), n=5, norm="ortho").abs(),
    ),
    OpCase("_fft_c2r", lambda torch, x: torch.fft.irfft(torch.fft.rfft(x) * (1 - 1j), n=5)),
    # three signals of 4 samples (reflect-padded to 8), a positive window of 4
    OpCase(
        "stft",
        lambda torch, x, w: torch.stft(x, 4, 1, window=w, return_complex=True).abs(),
        inputs=(S, V),
        domain=("normal", "pos"),
    ),
    OpCase(
        "istft",
        lambda torch, x, w: torch.istft(
            torch.stft(x, 4, 1, window=w, return_complex=True) * (1 + 2j), 4, 1, window=w
        ),
        inputs=(S, V),
        domain=("normal", "pos"),
    ),
    # ------------------------------------------------------------------ surface-math
    # gauge-invariant results (U Vh, eigenvectors squared): singular/eigen vectors have a sign
    OpCase(
        "linalg.svd",
        lambda torch, x: (lambda r: (r.U @ r.Vh, r.S))(torch.linalg.svd(x, full_matrices=False)),
    ),
    OpCase("linalg.svdvals", lambda torch, x: torch.linalg.svdvals(x)),
    OpCase("linalg.qr", lambda torch, x: torch.linalg.qr(x.mT)),
    OpCase(
        "linalg.eigh",
        lambda torch, a: (lambda r: (r.eigenvalues, r.eigenvectors**2))(
            torch.linalg.eigh(a @ a.mT)
        ),
        inputs=(M,),
        domain="wellcond",
    ),
    OpCase(
        "linalg.eigvalsh",
        lambda torch, a: torch.linalg.eigvalsh(a @ a.mT, UPLO="U"),
        inputs=(M,),
        domain="wellcond",
    ),
    OpCase(
        "linalg.slogdet", lambda torch, a: torch.linalg.slogdet(a), inputs=(M,), domain="wellcond"
    ),
    OpCase("linalg.matrix_exp", lambda torch, a: torch.matrix_exp(a), inputs=(M,)),
    OpCase("linalg.pinv", lambda torch, x: torch.linalg.pinv(x)),
    OpCase(
        "linalg.cholesky_ex",
        lambda torch, a: torch.linalg.cholesky(a @ a.mT),
        inputs=(M,),
        domain="wellcond",
    ),
    OpCase(
        "cholesky_solve",
        lambda torch, a, b: torch.cholesky_solve(b, torch.linalg.cholesky(a @ a.mT)),
        inputs=(M, S),
        domain=("wellcond", "normal"),
    ),
    OpCase(
        "cholesky_inverse",
        lambda torch, a: torch.cholesky_inverse(torch.linalg.cholesky(a @ a.mT)),
        inputs=(M,),
        domain="wellcond",
    ),
    OpCase("vdot", lambda torch, a, b: torch.vdot(a, b), inputs=(V, V)),
    OpCase("dist", lambda torch, a, b: torch.dist(a, b, 3), inputs=(S, S)),
    OpCase("renorm", lambda torch, x: x.renorm(2, 0, 1.5)),
    OpCase("histc", lambda torch, x: torch.histc(x, bins=4)),
    OpCase("mode", lambda torch, x: torch.mode(x, 1)),
    OpCase("nanmedian", lambda torch, x: x.nanmedian()),
    OpCase("nanmedian.dim", lambda torch, x: x.nanmedian(1)),
    OpCase("logcumsumexp", lambda torch, x: torch.logcumsumexp(x, 1)),
    OpCase("angle", lambda torch, x: torch.angle(x)),
    OpCase("signbit", lambda torch, x: torch.signbit(x)),
    OpCase("isreal", lambda torch, x: torch.isreal(x)),
    OpCase("isposinf", lambda torch, x: torch.isposinf(x / (x > 0))),
    OpCase("isneginf", lambda torch, x: torch.isneginf(-x / (x > 0))),
    OpCase("gcd", lambda torch, a, b: torch.gcd(a, b), inputs=(S, S), domain="int"),
    OpCase("lcm", lambda torch, a, b: torch.lcm(a, b), inputs=(S, S), domain="int"),
    # non-negative exponents: PyTorch's backward computes 2**e in integers (0 for e < 0)
    OpCase("ldexp", lambda torch, x, e: torch.ldexp(x, e), inputs=(S, S), domain=("normal", "nat")),
    OpCase("frexp", lambda torch, x: torch.frexp(x)),
    OpCase("nextafter", lambda torch, a, b: torch.nextafter(a, b), inputs=(S, S)),
    OpCase("i0", lambda torch, x: torch.i0(x)),
    OpCase("polygamma", lambda torch, x: torch.polygamma(1, x), domain="pos"),
    OpCase("mvlgamma", lambda torch, x: torch.mvlgamma(x, 2), domain="gt1"),
    # PyTorch has no derivative in a
    OpCase(
        "igamma",
        lambda torch, a, x: torch.igamma(a, x),
        inputs=(S, S),
        domain="pos",
        requires_grad=(False, True),
    ),
    OpCase(
        "igammac",
        lambda torch, a, x: torch.special.gammaincc(a, x),
        inputs=(S, S),
        domain="pos",
        requires_grad=(False, True),
    ),
    OpCase("hardshrink", lambda torch, x: F(torch).hardshrink(x, 0.3)),
    OpCase("softshrink", lambda torch, x: F(torch).softshrink(x, 0.3)),
    OpCase(
        "linalg.solve_triangular",
        lambda torch, a, b: torch.linalg.solve_triangular(a.triu(), b, upper=True),
        inputs=(M, S),
        domain=("wellcond", "normal"),
    ),
    OpCase("linalg.lu_factor_ex", lambda torch, a: torch.linalg.lu_factor(a), inputs=(M,)),
    OpCase(
        "linalg.lu_solve",
        lambda torch, a, b: torch.linalg.lu_solve(*torch.linalg.lu_factor(a), b, adjoint=True),
        inputs=(M, S),
        domain=("wellcond", "normal"),
    ),
    OpCase(
        "linalg.lstsq",
        lambda torch, a, b: torch.linalg.lstsq(a.mT, b).solution,
        inputs=(S, (4, 2)),
    ),
    OpCase("cdist", lambda torch, a, b: torch.cdist(a, b, 3), inputs=(S, (2, 4))),
    OpCase("block_diag", lambda torch, a, b: torch.block_diag(a, b), inputs=(S, V)),
    OpCase(
        "searchsorted",
        lambda torch, s, v: torch.searchsorted(s.sort().values, v),
        inputs=(S, S),
    ),
    OpCase("special.ndtr", lambda torch, x: torch.special.ndtr(x)),
    OpCase("special.ndtri", lambda torch, p: torch.special.ndtri(p), domain="prob"),
    OpCase("special.log_ndtr", lambda torch, x: torch.special.log_ndtr(x)),
    OpCase("special.i0e", lambda torch, x: torch.special.i0e(x)),
    OpCase("special.i1", lambda torch, x: torch.special.i1(x)),
    OpCase("special.i1e", lambda torch, x: torch.special.i1e(x)),
    OpCase("special.erfcx", lambda torch, x: torch.special.erfcx(x)),
    OpCase("special.entr", lambda torch, x: torch.special.entr(x), domain="pos"),
    OpCase(
        "special.xlog1py",
        lambda torch, x, y: torch.special.xlog1py(x, y),
        inputs=(S, S),
        domain=("normal", "pos"),
    ),
    # PyTorch has no derivative of zeta
    OpCase(
        "special.zeta",
        lambda torch, x, q: torch.special.zeta(x, q),
        inputs=(S, S),
        domain=("gt1", "pos"),
        grad=False,
    ),
    OpCase(
        "lu_unpack.permutation",
        lambda torch, a: torch.lu_unpack(*torch.linalg.lu_factor(a)),
        inputs=(M,),
        name_differs="LuUnpackBackward0 in PyTorch; L and U are composed here",
    ),
    OpCase("rrelu.eval", lambda torch, x: F(torch).rrelu(x)),
    OpCase("rrelu_.eval", lambda torch, x: F(torch).rrelu_(x.clone())),
    OpCase(
        "bitwise_left_shift",
        lambda torch, a, b: torch.bitwise_left_shift(a, b),
        inputs=(S, S),
        domain=("int", "nat"),
    ),
    OpCase(
        "bitwise_right_shift",
        lambda torch, a, b: torch.bitwise_right_shift(a, b),
        inputs=(S, S),
        domain=("int", "nat"),
    ),
    OpCase(
        "adaptive_max_pool3d",
        lambda torch, x: F(torch).adaptive_max_pool3d(x, 2),
        inputs=((1, 2, 2, 4, 4),),
    ),
    OpCase(
        "max_unpool2d",
        lambda torch, x: F(torch).max_unpool2d(*F(torch).max_pool2d(x, 2, return_indices=True), 2),
        inputs=(IMG,),
    ),
    OpCase(
        "max_unpool3d",
        lambda torch, x: F(torch).max_unpool3d(*F(torch).max_pool3d(x, 2, return_indices=True), 2),
        inputs=((1, 2, 2, 4, 4),),
    ),
    OpCase(
        "channel_shuffle", lambda torch, x: F(torch).channel_shuffle(x, 2), inputs=((1, 4, 2, 2),)
    ),
    OpCase("rms_norm", lambda torch, x, w: F(torch).rms_norm(x, (4,), w), inputs=(S, V)),
    OpCase(
        "histogram",
        lambda torch, x: torch.histogram(x, 4),
    ),
    OpCase(
        "histogram.bin_ct",
        lambda torch, x, e: torch.histogram(x, e),
        inputs=(S, _EDGES),
    ),
    # S as 3 points in 4 dims; then as 6 points in 2 dims with weights and given edges
    OpCase("histogramdd", lambda torch, x: torch.histogramdd(x, [2, 1, 3, 2])),
    OpCase(
        "histogramdd.bin_edges",
        lambda torch, x, e, w: torch.histogramdd(
            x.reshape(6, 2), [e, e[1:]], weight=w.reshape(-1)[:6], density=True
        ),
        inputs=(S, _EDGES, S),
        domain=("normal", "normal", "pos"),
    ),
    # sorted real parts and moduli: LAPACK's order of the eigenvalues is not fixed
    OpCase(
        "linalg.eigvals",
        lambda torch, a: (lambda e: (e.real.sort().values, e.abs().sort().values))(
            torch.linalg.eigvals(a)
        ),
        inputs=(M,),
        domain="wellcond",
    ),
    # phase-invariant results (LAPACK fixes each eigenvector's phase); sorted eigenvalues
    OpCase(
        "linalg.eig",
        lambda torch, a: (lambda r: (r[0].real.sort().values, r[1].abs().sum(0).sort().values))(
            torch.linalg.eig(a)
        ),
        inputs=(M,),
        domain="wellcond",
    ),
    OpCase("linalg.lu", lambda torch, x: torch.linalg.lu(x.mT)[1:]),
    # LAPACK's compact QR and the reflector products (PyTorch has no derivative of geqrf)
    OpCase("geqrf", lambda torch, x: torch.geqrf(x), grad=False),
    OpCase(
        "linalg.householder_product",
        lambda torch, a, t: torch.linalg.householder_product(a.mT, t[:3]),
        inputs=(S, V),
    ),
    OpCase(
        "ormqr",
        lambda torch, a, t, x: torch.ormqr(a, t[:3], x.mT, left=False, transpose=True),
        inputs=(M, V, S),
    ),
    # Bunch-Kaufman on the host (PyTorch has no derivative); the lower triangle of the first
    # matrix has a small diagonal, so that 2x2 pivots are taken
    OpCase(
        "linalg.ldl_factor_ex",
        lambda torch, a: torch.linalg.ldl_factor_ex(a - a.mT + a.diagonal().diag()),
        inputs=(M,),
        grad=False,
    ),
    OpCase(
        "linalg.ldl_solve",
        lambda torch, a, b: torch.linalg.ldl_solve(*torch.linalg.ldl_factor(a + a.mT), b),
        inputs=(M, S),
        domain=("wellcond", "normal"),
        grad=False,
    ),
    # log-probabilities (T, N, C) = B, one target of length 1 per batch element
    OpCase(
        "ctc_loss",
        lambda torch, x, t, n, m: F(torch).ctc_loss(x.log_softmax(2), t, n, m, reduction="none"),
        inputs=(B, _idx(1, 2, 3), _idx(2, 2, 2), _idx(1, 1, 1)),
    ),
    OpCase(
        "ctc_loss.mean",
        lambda torch, x, t, n, m: F(torch).ctc_loss(x.log_softmax(2), t, n, m),
        inputs=(B, _idx(1, 2, 3), _idx(2, 2, 2), _idx(1, 1, 1)),
    ),
    OpCase(
        "ctc_loss.sum",
        lambda torch, x, t, n, m: F(torch).ctc_loss(x.log_softmax(2), t, n, m, reduction="sum"),
        inputs=(B, _idx(1, 2, 3), _idx(2, 2, 2), _idx(1, 1, 1)),
    ),
    OpCase(
        "cosine_embedding_loss",
        lambda torch, x, y, t: F(torch).cosine_embedding_loss(x, y, t, reduction="mean"),
        inputs=(S, S, _SIGNS[0, :3]),
        requires_grad=(True, True, False),
    ),
    OpCase(
        "cosine_embedding_loss.none",
        lambda torch, x, y, t: F(torch).cosine_embedding_loss(x, y, t, reduction="none"),
        inputs=(S, S, _SIGNS[0, :3]),
        requires_grad=(True, True, False),
    ),
    OpCase(
        "cosine_embedding_loss.sum",
        lambda torch, x, y, t: F(torch).cosine_embedding_loss(x, y, t, reduction="sum"),
        inputs=(S, S, _SIGNS[0, :3]),
        requires_grad=(True, True, False),
    ),
    OpCase(
        "hinge_embedding_loss",
        lambda torch, x, t: F(torch).hinge_embedding_loss(x, t, reduction="mean"),
        inputs=(S, _SIGNS),
        requires_grad=(True, False),
    ),
    OpCase(
        "hinge_embedding_loss.none",
        lambda torch, x, t: F(torch).hinge_embedding_loss(x, t, reduction="none"),
        inputs=(S, _SIGNS),
        requires_grad=(True, False),
    ),
    OpCase(
        "hinge_embedding_loss.sum",
        lambda torch, x, t: F(torch).hinge_embedding_loss(x, t, reduction="sum"),
        inputs=(S, _SIGNS),
        requires_grad=(True, False),
    ),
    OpCase(
        "margin_ranking_loss",
        lambda torch, x, y, t: F(torch).margin_ranking_loss(x, y, t, reduction="mean"),
        inputs=(S, S, _SIGNS),
        requires_grad=(True, True, False),
    ),
    OpCase(
        "margin_ranking_loss.none",
        lambda torch, x, y, t: F(torch).margin_ranking_loss(x, y, t, reduction="none"),
        inputs=(S, S, _SIGNS),
        requires_grad=(True, True, False),
    ),
    OpCase(
        "margin_ranking_loss.sum",
        lambda torch, x, y, t: F(torch).margin_ranking_loss(x, y, t, reduction="sum"),
        inputs=(S, S, _SIGNS),
        requires_grad=(True, True, False),
    ),
    OpCase(
        "multilabel_soft_margin_loss",
        lambda torch, x, y: F(torch).multilabel_soft_margin_loss(x, y, reduction="mean"),
        inputs=(S, S),
        domain=("normal", "prob"),
    ),
    OpCase(
        "multilabel_soft_margin_loss.none",
        lambda torch, x, y: F(torch).multilabel_soft_margin_loss(x, y, reduction="none"),
        inputs=(S, S),
        domain=("normal", "prob"),
    ),
    OpCase(
        "multilabel_soft_margin_loss.sum",
        lambda torch, x, y: F(torch).multilabel_soft_margin_loss(x, y, reduction="sum"),
        inputs=(S, S),
        domain=("normal", "prob"),
    ),
    OpCase(
        "triplet_margin_loss",
        lambda torch, a, p, n: F(torch).triplet_margin_loss(a, p, n, reduction="mean"),
        inputs=(S, S, S),
    ),
    OpCase(
        "triplet_margin_loss.none",
        lambda torch, a, p, n: F(torch).triplet_margin_loss(a, p, n, reduction="none"),
        inputs=(S, S, S),
    ),
    OpCase(
        "triplet_margin_loss.sum",
        lambda torch, a, p, n: F(torch).triplet_margin_loss(a, p, n, reduction="sum"),
        inputs=(S, S, S),
    ),
    OpCase(
        "gaussian_nll_loss",
        lambda torch, x, y, v: F(torch).gaussian_nll_loss(x, y, v, reduction="mean"),
        inputs=(S, S, S),
        domain=("normal", "normal", "pos"),
    ),
    OpCase(
        "gaussian_nll_loss.none",
        lambda torch, x, y, v: F(torch).gaussian_nll_loss(x, y, v, reduction="none"),
        inputs=(S, S, S),
        domain=("normal", "normal", "pos"),
    ),
    OpCase(
        "gaussian_nll_loss.sum",
        lambda torch, x, y, v: F(torch).gaussian_nll_loss(x, y, v, reduction="sum"),
        inputs=(S, S, S),
        domain=("normal", "normal", "pos"),
    ),
    OpCase(
        "poisson_nll_loss",
        lambda torch, x, y: F(torch).poisson_nll_loss(x, y, reduction="mean"),
        inputs=(S, S),
        domain=("normal", "pos"),
    ),
    OpCase(
        "poisson_nll_loss.none",
        lambda torch, x, y: F(torch).poisson_nll_loss(x, y, reduction="none"),
        inputs=(S, S),
        domain=("normal", "pos"),
    ),
    OpCase(
        "poisson_nll_loss.sum",
        lambda torch, x, y: F(torch).poisson_nll_loss(x, y, reduction="sum"),
        inputs=(S, S),
        domain=("normal", "pos"),
    ),
    OpCase(
        "gaussian_nll_loss.full",
        lambda torch, x, y, v: F(torch).gaussian_nll_loss(x, y, v, full=True, reduction="mean"),
        inputs=(S, S, S),
        domain=("normal", "normal", "pos"),
    ),
    OpCase(
        "gaussian_nll_loss.full.none",
        lambda torch, x, y, v: F(torch).gaussian_nll_loss(x, y, v, full=True, reduction="none"),
        inputs=(S, S, S),
        domain=("normal", "normal", "pos"),
    ),
    OpCase(
        "gaussian_nll_loss.full.sum",
        lambda torch, x, y, v: F(torch).gaussian_nll_loss(x, y, v, full=True, reduction="sum"),
        inputs=(S, S, S),
        domain=("normal", "normal", "pos"),
    ),
    OpCase(
        "poisson_nll_loss.full",
        lambda torch, x, y: F(torch).poisson_nll_loss(x, y, full=True, reduction="mean"),
        inputs=(S, S),
        domain=("normal", "gt1"),
    ),
    OpCase(
        "poisson_nll_loss.full.none",
        lambda torch, x, y: F(torch).poisson_nll_loss(x, y, full=True, reduction="none"),
        inputs=(S, S),
        domain=("normal", "gt1"),
    ),
    OpCase(
        "poisson_nll_loss.full.sum",
        lambda torch, x, y: F(torch).poisson_nll_loss(x, y, full=True, reduction="sum"),
        inputs=(S, S),
        domain=("normal", "gt1"),
    ),
    OpCase(
        "soft_margin_loss",
        lambda torch, x, t: F(torch).soft_margin_loss(x, t),
        inputs=(S, _SIGNS),
        requires_grad=(True, False),
    ),
    OpCase(
        "multi_margin_loss",
        lambda torch, x, t: F(torch).multi_margin_loss(x, t),
        inputs=(S, _idx(0, 3, 1)),
    ),
    OpCase(
        "multilabel_margin_loss",
        lambda torch, x, t: F(torch).multilabel_margin_loss(x, t),
        inputs=(S, np.array([[3, 0, -1, 1], [1, -1, 2, 2], [0, 1, 2, 3]], dtype=np.int64)),
    ),
    # PyTorch defines no derivatives of these special functions
    OpCase(
        "special.chebyshev_polynomial_t",
        lambda torch, x, n: torch.special.chebyshev_polynomial_t(x, n),
        inputs=(S, S),
        domain=("unit", "nat"),
    ),
    OpCase(
        "special.chebyshev_polynomial_u",
        lambda torch, x, n: torch.special.chebyshev_polynomial_u(x, n),
        inputs=(S, S),
        domain=("unit", "nat"),
    ),
    OpCase(
        "special.chebyshev_polynomial_v",
        lambda torch, x, n: torch.special.chebyshev_polynomial_v(x, n),
        inputs=(S, S),
        domain=("unit", "nat"),
    ),
    OpCase(
        "special.chebyshev_polynomial_w",
        lambda torch, x, n: torch.special.chebyshev_polynomial_w(x, n),
        inputs=(S, S),
        domain=("unit", "nat"),
    ),
    OpCase(
        "special.hermite_polynomial_h",
        lambda torch, x, n: torch.special.hermite_polynomial_h(x, n),
        inputs=(S, S),
        domain=("normal", "nat"),
    ),
    OpCase(
        "special.hermite_polynomial_he",
        lambda torch, x, n: torch.special.hermite_polynomial_he(x, n),
        inputs=(S, S),
        domain=("normal", "nat"),
    ),
    OpCase(
        "special.laguerre_polynomial_l",
        lambda torch, x, n: torch.special.laguerre_polynomial_l(x, n),
        inputs=(S, S),
        domain=("pos", "nat"),
    ),
    OpCase(
        "special.legendre_polynomial_p",
        lambda torch, x, n: torch.special.legendre_polynomial_p(x, n),
        inputs=(S, S),
        domain=("unit", "nat"),
    ),
    OpCase(
        "special.shifted_chebyshev_polynomial_t",
        lambda torch, x, n: torch.special.shifted_chebyshev_polynomial_t(x, n),
        inputs=(S, S),
        domain=("prob", "nat"),
    ),
    OpCase(
        "special.shifted_chebyshev_polynomial_u",
        lambda torch, x, n: torch.special.shifted_chebyshev_polynomial_u(x, n),
        inputs=(S, S),
        domain=("prob", "nat"),
    ),
    OpCase(
        "special.shifted_chebyshev_polynomial_v",
        lambda torch, x, n: torch.special.shifted_chebyshev_polynomial_v(x, n),
        inputs=(S, S),
        domain=("prob", "nat"),
    ),
    OpCase(
        "special.shifted_chebyshev_polynomial_w",
        lambda torch, x, n: torch.special.shifted_chebyshev_polynomial_w(x, n),
        inputs=(S, S),
        domain=("prob", "nat"),
    ),
    OpCase("special.modified_bessel_i0", lambda torch, x: torch.special.modified_bessel_i0(x)),
    OpCase("special.modified_bessel_i1", lambda torch, x: torch.special.modified_bessel_i1(x)),
    OpCase("special.spherical_bessel_j0", lambda torch, x: torch.special.spherical_bessel_j0(x)),
    OpCase("special.airy_ai", lambda torch, x: torch.special.airy_ai(x)),
    OpCase("special.bessel_j0", lambda torch, x: torch.special.bessel_j0(x)),
    OpCase("special.bessel_j1", lambda torch, x: torch.special.bessel_j1(x)),
    OpCase("special.bessel_y0", lambda torch, x: torch.special.bessel_y0(x), domain="pos"),
    OpCase("special.bessel_y1", lambda torch, x: torch.special.bessel_y1(x), domain="pos"),
    OpCase(
        "special.modified_bessel_k0",
        lambda torch, x: torch.special.modified_bessel_k0(x),
        domain="pos",
    ),
    OpCase(
        "special.modified_bessel_k1",
        lambda torch, x: torch.special.modified_bessel_k1(x),
        domain="pos",
    ),
    OpCase(
        "special.scaled_modified_bessel_k0",
        lambda torch, x: torch.special.scaled_modified_bessel_k0(x),
        domain="pos",
    ),
    OpCase(
        "special.scaled_modified_bessel_k1",
        lambda torch, x: torch.special.scaled_modified_bessel_k1(x),
        domain="pos",
    ),
    # DTensor on a one-device mesh (PyTorch's needs a process group: torch=False)
    OpCase("distributed.tensor.from_local", _dtensor, torch=False),
    OpCase(
        "distributed.tensor.redistribute",
        lambda torch, x: _dtensor(torch, x).redistribute(
            placements=[torch.distributed.tensor.Shard(0)]
        ),
        torch=False,
    ),
    OpCase("distributed.tensor.to_local", lambda t, x: _dtensor(t, x).to_local(), torch=False),
]
