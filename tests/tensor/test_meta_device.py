"""The meta device: tensors with a shape and a dtype and no data, made by factories, `to`,
modules built on it, moved off it with `to_empty` or `load_state_dict(assign=True)`; ops give
shapes and dtypes without computing; against real PyTorch."""

from __future__ import annotations

import copy

import pytest

import autograd_compat as torch
from tests._helpers.torch_compare import catch, run_parity


def _shown(t) -> tuple:
    """What a meta result shows (its values cannot be read): repr, shape, dtype, device."""
    return repr(t), tuple(t.shape), str(t.dtype), str(t.device), t.is_meta


def test_factories_and_repr():
    def prog(torch):
        meta = torch.device("meta")
        made = [
            torch.empty(2, 3, device="meta"),
            torch.zeros(2, dtype=torch.int64, device=meta),
            torch.ones((), device="meta"),
            torch.full((2,), 3, device="meta"),
            torch.randn(2, 3, device="meta", requires_grad=True),
            torch.rand(4, device="meta", dtype=torch.float16),
            torch.randint(0, 5, (3,), device="meta"),
            torch.arange(5, device="meta"),
            torch.linspace(0, 1, 5, device="meta"),
            torch.eye(3, device="meta"),
            torch.tensor([1, 2], device="meta"),
            torch.empty_strided((2, 3), (3, 1), device="meta"),
            torch.ones(2, 3).to("meta"),
            torch.ones(2, 3).to(device=meta, dtype=torch.bfloat16),
        ]
        m = made[0]
        made += [torch.zeros_like(m), m.new_zeros(4), m.new_full((2,), 1.5), m.to(torch.int32)]
        return {
            "device": (repr(meta), str(meta), meta == torch.device("meta"), meta.type),
            "made": [_shown(t) for t in made],
            "same": m.to("meta") is m,
            "cpu_like": torch.empty_like(m, device="cpu").shape,
        }

    run_parity(prog)


def test_ops_give_shapes_without_computing():
    def prog(torch):
        m = torch.empty(2, 3, device="meta")
        w = torch.empty(4, 3, device="meta")
        results = [
            m @ w.t(),
            m.sum(1),
            m.mean(),
            m[:, 1:],
            m[torch.tensor([0, 1])],
            m.view(6),
            m.t().contiguous(),
            torch.cat([m, m], 1),
            torch.stack([m, m]),
            torch.softmax(m, -1),
            torch.nn.functional.linear(m, w),
            m == m,
            m * torch.tensor(2.0),  # a CPU scalar may join, as in PyTorch
            m.to(torch.float16) + 1,
        ]
        m.add_(1)
        m.uniform_()
        m.copy_(torch.ones(2, 3))
        return {
            "results": [_shown(t) for t in results],
            "inplace": _shown(m),
            "mixed": catch(lambda: torch.ones(2, 3) + m),
        }

    run_parity(prog)


def test_reading_values_raises():
    def prog(torch):
        m = torch.empty(2, 3, device="meta")
        return [
            catch(lambda: m.item()),
            catch(lambda: torch.empty((), device="meta").item()),
            catch(lambda: bool(torch.empty((), device="meta"))),
            catch(lambda: m.numpy()),
            m.data_ptr(),
            m.untyped_storage().nbytes(),
        ]

    run_parity(prog)
    m = torch.empty(2, 3, device="meta")
    for read in (
        m.tolist,
        m.cpu,
        lambda: m.to("cpu"),
        lambda: torch.nn.Linear(2, 2).to("meta").cpu(),
    ):
        with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor; no data!"):
            read()


def test_modules_on_meta_and_off_it():
    def prog(torch):
        torch.manual_seed(0)
        lin = torch.nn.Linear(3, 4, device="meta")
        emb = torch.nn.Embedding(5, 3, device="meta")
        conv = torch.nn.Conv2d(1, 2, 3, device="meta")
        norm = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2)).to("meta")
        shown = {
            "weight": (repr(lin.weight), isinstance(lin.weight, torch.nn.Parameter)),
            "forward": _shown(lin(torch.empty(5, 3, device="meta"))),
            "emb": _shown(emb(torch.tensor([1, 2]).to("meta"))),
            "conv": _shown(conv(torch.empty(1, 1, 5, 5, device="meta"))),
            "buffer": _shown(norm[1].running_mean),
            "params": [p.is_meta for p in norm.parameters()],
            "deepcopy": repr(copy.deepcopy(lin).weight),
            "aliases": [_shown(lin.weight.detach()), _shown(lin.weight.data)],
        }
        lin.to_empty(device="cpu")
        lin.weight.data.fill_(0.5)
        lin.bias.data.fill_(0.125)
        shown["to_empty"] = (lin.weight.device.type, isinstance(lin.weight, torch.nn.Parameter))
        shown["out"] = lin(torch.ones(1, 3))
        source = torch.nn.Linear(3, 4)
        with torch.no_grad():
            source.weight.fill_(0.25)
            source.bias.fill_(-1.0)
        target = torch.nn.Linear(3, 4, device="meta")
        shown["keys"] = str(target.load_state_dict(source.state_dict(), assign=True))
        shown["assigned"] = (target.weight.is_meta, target.weight.requires_grad, target.weight)
        shown["loaded_out"] = target(torch.ones(1, 3))
        return shown

    run_parity(prog)


def test_parameter_registration_as_accelerate_patches_it():
    """`accelerate.init_empty_weights` re-registers every parameter as
    `type(param)(param.to("meta"), **param.__dict__)` (its `register_empty_parameter`)."""

    def prog(torch):
        module = torch.nn.Linear(2, 3)
        for name, param in list(module._parameters.items()):
            kwargs = dict(param.__dict__, requires_grad=param.requires_grad)
            module._parameters[name] = type(param)(param.to("meta"), **kwargs)
        return _shown(module.weight), type(module.weight).__name__, module.bias.requires_grad

    run_parity(prog)


def test_device_context():
    def prog(torch):
        with torch.device("meta"):
            made = [
                torch.empty(2),
                torch.tensor([1.0, 2.0]),
                torch.randn(3),
                torch.nn.Linear(2, 3).weight,
                torch.nn.BatchNorm1d(2).running_mean,
            ]
            with torch.device("cpu"):
                inner = torch.zeros(2)
        return [_shown(t) for t in made], inner, torch.zeros(1)

    run_parity(prog)


def test_backward_gives_meta_gradients():
    def prog(torch):
        lin = torch.nn.Linear(3, 2, device="meta")
        x = torch.empty(4, 3, device="meta", requires_grad=True)
        lin(x).sum().backward()
        y = torch.empty(3, device="meta", requires_grad=True)
        z = torch.empty(3, device="meta", requires_grad=True)
        found = torch.autograd.grad((y * 2).sum(), [y, z], allow_unused=True)
        return {
            "grads": [_shown(t) for t in (lin.weight.grad, lin.bias.grad, x.grad)],
            "grad": [_shown(found[0]), found[1]],
            "unused": catch(lambda: torch.autograd.grad((y * 2).sum(), [z])),
        }

    run_parity(prog)
