"""Parity programs over the wider op surface (each skipped while autograd_compat lacks its
op) and over views with in-place writes: values, gradients, dtypes, node names, errors."""

from __future__ import annotations

import numpy as np
import pytest

from tests._helpers.torch_compare import Corpus, catch, run_parity, snap

corpus = Corpus()
X = [[0.5, -1.25, 2.0], [1.5, 0.75, -0.25]]
Y = [[1.5, 0.25, 2.5], [0.5, 1.0, 3.0]]  # positive


def leaves(torch):
    return torch.tensor(X, requires_grad=True), torch.tensor(Y, requires_grad=True)


# name: (APIs it needs, f(torch, x, y) -> tensor). x is (2, 3) of mixed signs, y positive.
OPS = {
    "log1p": (["log1p"], lambda t, x, y: y.log1p()),
    "expm1": (["expm1"], lambda t, x, y: x.expm1()),
    "erf": (["erf"], lambda t, x, y: x.erf()),
    "square": (["square"], lambda t, x, y: x.square()),
    "rsqrt": (["rsqrt"], lambda t, x, y: y.rsqrt()),
    "reciprocal": (["reciprocal"], lambda t, x, y: y.reciprocal()),
    "sinh_cosh": (["sinh", "cosh"], lambda t, x, y: x.sinh() * x.cosh()),
    "tan_atan": (["tan", "atan"], lambda t, x, y: x.atan().tan()),
    "asin_acos": (["asin", "acos"], lambda t, x, y: (x / 3).asin() + (x / 3).acos()),
    "atan2": (["atan2"], lambda t, x, y: t.atan2(x, y)),
    "log2_log10": (["log2", "log10"], lambda t, x, y: y.log2() + y.log10()),
    "sign": (["sign"], lambda t, x, y: x.sign() * x),
    "floor_ceil_round": (
        ["floor", "ceil", "round"],
        lambda t, x, y: x.floor() + x.ceil() + x.round(),
    ),
    "clamp": (["clamp"], lambda t, x, y: x.clamp(-1.0, 1.0)),
    "clamp_min": (["clamp_min"], lambda t, x, y: x.clamp_min(0.5)),
    "clamp_tensor": (["clamp"], lambda t, x, y: x.clamp(min=-y, max=y)),
    "maximum": (["maximum"], lambda t, x, y: t.maximum(x, y - 1)),
    "minimum": (["minimum"], lambda t, x, y: t.minimum(x, y - 1)),
    "where": (["where"], lambda t, x, y: t.where(x > 0, x, y)),
    "masked_fill": (["masked_fill"], lambda t, x, y: x.masked_fill(x < 0, 0.5)),
    "lerp": (["lerp"], lambda t, x, y: t.lerp(x, y, 0.25)),
    "addcmul": (["addcmul"], lambda t, x, y: t.addcmul(x, x, y, value=0.5)),
    "addcdiv": (["addcdiv"], lambda t, x, y: t.addcdiv(x, x, y, value=2)),
    "remainder": (["remainder"], lambda t, x, y: t.remainder(x, 0.7)),
    "fmod": (["fmod"], lambda t, x, y: t.fmod(x, 0.7)),
    "max_all": (["max"], lambda t, x, y: x.max()),
    "max_dim_values": (["max"], lambda t, x, y: x.max(1).values),
    "max_dim_indices": (["max"], lambda t, x, y: x.max(dim=0)[1]),
    "min_dim": (["min"], lambda t, x, y: x.min(1, keepdim=True)[0]),
    "amax": (["amax"], lambda t, x, y: x.amax(0)),
    "amin": (["amin"], lambda t, x, y: x.amin((0, 1))),
    "argmax": (["argmax"], lambda t, x, y: x.argmax(1)),
    "prod": (["prod"], lambda t, x, y: x.prod(1)),
    "prod_all": (["prod"], lambda t, x, y: y.prod()),
    "var": (["var"], lambda t, x, y: x.var(1)),
    "var_unbiased_false": (["var"], lambda t, x, y: x.var(0, unbiased=False)),
    "std": (["std"], lambda t, x, y: x.std()),
    "cumsum": (["cumsum"], lambda t, x, y: x.cumsum(1)),
    "cumprod": (["cumprod"], lambda t, x, y: y.cumprod(0)),
    "logsumexp": (["logsumexp"], lambda t, x, y: x.logsumexp(1)),
    "median": (["median"], lambda t, x, y: x.median()),
    "sort_values": (["sort"], lambda t, x, y: x.sort(1).values),
    "topk": (["topk"], lambda t, x, y: x.topk(2, 1)[0]),
    "cat": (["cat"], lambda t, x, y: t.cat([x, y], 0)),
    "cat_dim1": (["cat"], lambda t, x, y: t.cat((x, y * 2), dim=1)),
    "stack": (["stack"], lambda t, x, y: t.stack([x, y], 1)),
    "unsqueeze": (["unsqueeze"], lambda t, x, y: x.unsqueeze(1)),
    "squeeze": (["squeeze", "unsqueeze"], lambda t, x, y: x.unsqueeze(0).squeeze(0)),
    "permute": (["permute"], lambda t, x, y: x.unsqueeze(2).permute(2, 1, 0)),
    "expand": (["Tensor.expand"], lambda t, x, y: x[0].expand(4, 3)),
    "expand_as": (["Tensor.expand_as"], lambda t, x, y: x[:, :1].expand_as(y)),
    "repeat": (["Tensor.repeat"], lambda t, x, y: x.repeat(2, 1)),
    "tile": (["tile"], lambda t, x, y: x.tile((1, 2))),
    "flatten": (["flatten"], lambda t, x, y: x.flatten()),
    "unflatten": (["unflatten"], lambda t, x, y: x.flatten().unflatten(0, (3, 2))),
    "flip": (["flip"], lambda t, x, y: x.flip(1)),
    "roll": (["roll"], lambda t, x, y: x.roll(1, 1)),
    "narrow": (["narrow"], lambda t, x, y: x.narrow(1, 1, 2)),
    "select": (["select"], lambda t, x, y: x.select(1, 2)),
    "chunk": (["chunk"], lambda t, x, y: x.chunk(3, 1)[1]),
    "split": (["split"], lambda t, x, y: x.split([1, 2], 1)[1]),
    "gather": (["gather"], lambda t, x, y: x.gather(1, t.tensor([[0, 0], [2, 1]]))),
    "index_select": (["index_select"], lambda t, x, y: x.index_select(1, t.tensor([2, 0, 2]))),
    "take": (["take"], lambda t, x, y: x.take(t.tensor([0, 5, 5]))),
    "masked_select": (["masked_select"], lambda t, x, y: x.masked_select(x > 0)),
    "scatter_add": (
        ["scatter_add"],
        lambda t, x, y: t.zeros(2, 4).scatter_add(1, t.tensor([[0, 1, 1], [3, 3, 0]]), x),
    ),
    "index_add": (
        ["index_add"],
        lambda t, x, y: t.zeros(3, 3).index_add(0, t.tensor([2, 2]), x),
    ),
    "diagonal": (["diagonal"], lambda t, x, y: x.diagonal()),
    "tril_triu": (["tril", "triu"], lambda t, x, y: x.tril() + y.triu(1)),
    "trace": (["trace"], lambda t, x, y: (x @ y.t()).trace()),
    "outer": (["outer"], lambda t, x, y: t.outer(x[0], y[1])),
    "dot": (["dot"], lambda t, x, y: t.dot(x[0], y[0])),
    "mv": (["mv"], lambda t, x, y: t.mv(x, y[0])),
    "bmm": (["bmm"], lambda t, x, y: t.bmm(x.unsqueeze(0), y.t().unsqueeze(0))),
    "addmm": (["addmm"], lambda t, x, y: t.addmm(x[:, :2], x, y.t(), beta=0.5, alpha=2)),
    "einsum": (["einsum"], lambda t, x, y: t.einsum("ij,kj->ik", x, y)),
    "tensordot": (["tensordot"], lambda t, x, y: t.tensordot(x, y, dims=([1], [1]))),
    "movedim": (["movedim"], lambda t, x, y: x.unsqueeze(0).movedim(0, 2)),
    "swapaxes": (["swapaxes"], lambda t, x, y: x.swapaxes(0, 1)),
    "mT": (["Tensor.mT"], lambda t, x, y: x.mT),
    "type_as": (["Tensor.type_as"], lambda t, x, y: x.type_as(t.ones(1, dtype=t.float64))),
    "det": (["det"], lambda t, x, y: t.det(x[:, :2] + t.eye(2) * 3)),
    "inverse": (["inverse"], lambda t, x, y: t.inverse(x[:, :2] + t.eye(2) * 3)),
    "linalg_vector_norm": (
        ["linalg.vector_norm"],
        lambda t, x, y: t.linalg.vector_norm(x, ord=3, dim=1),
    ),
    "linalg_matrix_norm": (["linalg.matrix_norm"], lambda t, x, y: t.linalg.matrix_norm(x)),
    "linalg_solve": (
        ["linalg.solve"],
        lambda t, x, y: t.linalg.solve(x[:, :2] + t.eye(2) * 3, y[:, :2]),
    ),
}


def _op_program(name):
    _, fn = OPS[name]

    def prog(torch):
        x, y = leaves(torch)
        out = fn(torch, x, y)
        if out.requires_grad:
            weights = np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape))
            out.backward(torch.tensor(weights.tolist(), dtype=out.dtype))
        return {"out": out, "x": x, "y": y}

    return prog


for _name, (_requires, _fn) in OPS.items():
    corpus.add(f"op_{_name}", _op_program(_name), requires=_requires)


# ----------------------------------------------------------------------------- views, in-place
@corpus
def view_in_place_write_reaches_base(torch):
    x, _ = leaves(torch)
    base = x.clone()
    row = base[0]
    row.mul_(2)
    base.sum().backward()
    return {"base": base, "row": row, "x": x, "version": base._version}


@corpus
def view_of_view_in_place(torch):
    x, _ = leaves(torch)
    base = x * 1
    v = base.reshape(6)[1:4]
    v.add_(10)
    (base * base).sum().backward()
    return {"base": base, "v": v, "x": x}


@corpus
def base_write_seen_by_view(torch):
    x, _ = leaves(torch)
    base = x.clone()
    v = base[:, 1]
    base.mul_(3)
    (v * 2).sum().backward()
    return {"base": base, "v": v, "x": x}


@corpus
def detach_shares_storage_and_version(torch):
    x, _ = leaves(torch)
    y = x * 2
    z = y.sin()
    d = y.detach()
    d.zero_()
    return {"y": y, "version": [y._version, d._version], "error": catch(lambda: z.sum().backward())}


@corpus
def data_write_is_not_tracked(torch):
    x, _ = leaves(torch)
    y = x * 2
    z = (y * y).sum()
    y.data.mul_(0)
    z.backward()
    return {"y": y, "x": x, "version": y._version}


@corpus
def in_place_mul_by_self_needs_original(torch):
    x, _ = leaves(torch)
    y = x * 1
    y.mul_(y)
    return catch(lambda: y.sum().backward())


@corpus
def in_place_on_view_of_leaf_errors(torch):
    x, _ = leaves(torch)
    return [catch(lambda: x[0].mul_(2)), catch(lambda: x.view(6).add_(1))]


@corpus
def in_place_on_leaf_under_no_grad_then_grad(torch):
    x, _ = leaves(torch)
    with torch.no_grad():
        x[0].mul_(2)
        x[1, 1] = 7.0
    (x * x).sum().backward()
    return x


@corpus
def setitem_on_non_leaf(torch):
    x, y = leaves(torch)
    z = x * 1
    z[0] = y[1] * 2
    z[:, 2] = 0.0
    z.sum().backward()
    return {"z": z, "x": x, "y": y}


@corpus
def in_place_sequence_versions(torch):
    x, _ = leaves(torch)
    y = x.clone()
    versions = [y._version]
    y.add_(1)
    versions.append(y._version)
    y.mul_(2)
    y[0] += 1
    versions.append(y._version)
    y.sum().backward()
    return {"versions": versions, "y": y, "x": x}


@corpus.requiring("Tensor.unsqueeze_")
def unsqueeze_in_place_and_grad(torch):
    x, _ = leaves(torch)
    y = x.clone()
    y.unsqueeze_(0)
    (y * y).sum().backward()
    return {"y": snap(y), "x": x}


# Discrepancies with PyTorch still present in the library: strict xfails (see torch_compare.Corpus).
KNOWN = {
    "data_write_is_not_tracked": (
        "y.data.mul_(0) after z = (y * y).sum(): PyTorch's saved tensor shares y's storage, so "
        "the backward sees the zeros (x.grad 0); autograd_compat's nodes keep the old immutable"
        " array (x.grad 4 * x). Inherent to immutable jax arrays: Node.saved would have to read"
        " through the tensor's _Storage at backward time"
    ),
}


@pytest.mark.parametrize("prog", corpus.params(KNOWN))
def test_parity(prog):
    run_parity(prog)
