"""torch.library and torch.ops: custom ops with kernels, fakes, derivatives and autocast rules,
the schema API (Library/define/impl), torch.ops lookups and their errors, against real
PyTorch; torchvision's registrations for its compiled ops are accepted at import."""

import functools
import inspect
import textwrap

import numpy as np
import pytest

import autograd_compat as torch
from tests._helpers.fresh_process import run_json
from tests._helpers.torch_compare import check_error

X = np.array([0.3, -1.2, 2.0])


def _custom_sin(lib, ns: str, with_autograd: bool):
    """A custom op whose kernel leaves the library (numpy): opaque to autograd."""

    @lib.library.custom_op(f"{ns}::numpy_sin", mutates_args=())
    def numpy_sin(x: lib.Tensor) -> lib.Tensor:
        return lib.from_numpy(np.sin(x.detach().numpy()))

    @numpy_sin.register_fake
    def _(x):
        return lib.empty_like(x)

    if with_autograd:

        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * x.cos()

        numpy_sin.register_autograd(backward, setup_context=setup_context)
    return numpy_sin


def _run_custom(lib, ns: str):
    op = _custom_sin(lib, ns, with_autograd=True)
    x = lib.tensor(X, requires_grad=True)
    y = getattr(lib.ops, ns).numpy_sin(x)
    (y * y).sum().backward()
    return {
        "value": y.detach().numpy().round(6).tolist(),
        "grad": x.grad.numpy().round(6).tolist(),
        "node": type(y.grad_fn).__name__,
        "repr": (repr(op), str(getattr(lib.ops, ns).numpy_sin.default), op._qualname),
        "schema": op._opoverload.name(),
    }


def test_custom_op_with_autograd_matches_pytorch(real_torch):
    assert _run_custom(torch, "ut_lib_a") == _run_custom(real_torch, "ut_lib_a")
    expected = 2 * np.sin(X) * np.cos(X)
    np.testing.assert_allclose(_run_custom(torch, "ut_lib_b")["grad"], expected, atol=1e-6)


def _backward_error(lib, ns: str):
    op = _custom_sin(lib, ns, with_autograd=False)
    x = lib.tensor(X, requires_grad=True)
    y = op(x)
    try:
        y.sum().backward()
    except RuntimeError as error:
        return y.requires_grad, str(error)
    return y.requires_grad, None


def test_backward_without_autograd_formula_raises_as_pytorch(real_torch):
    assert _backward_error(torch, "ut_lib_c") == _backward_error(real_torch, "ut_lib_c")


def _schema_api(lib, ns: str):
    """Library(ns, "DEF"): one op with a CPU kernel, one composite (differentiable) kernel."""
    library = lib.library.Library(ns, "DEF")
    library.define("scale(Tensor x, float k) -> Tensor")
    library.define("cube(Tensor x) -> Tensor")
    library.impl("scale", lambda x, k: x * k, "CPU")
    library.impl("cube", lambda x: x * x * x, "CompositeImplicitAutograd")
    ops = getattr(lib.ops, ns)
    x = lib.tensor(X, requires_grad=True)
    ops.cube(x).sum().backward()
    errors = []
    for call in (
        lambda: ops.missing,
        lambda: ops.scale.out,
        lambda: lib.library.Library(ns, "BOTH"),
    ):
        try:
            call()
        except (AttributeError, ValueError) as error:
            errors.append((type(error).__name__, str(error)))
    return {
        "scale": ops.scale(lib.tensor(X), 2.0).numpy().round(6).tolist(),
        "scale_requires_grad": ops.scale(x, 2.0).requires_grad,
        "cube_grad": x.grad.numpy().round(6).tolist(),
        "names": (str(ops.scale), ops.scale.overloads()),
        "errors": errors,
    }


def test_library_define_and_impl_match_pytorch(real_torch):
    assert _schema_api(torch, "ut_lib_d") == _schema_api(real_torch, "ut_lib_d")


def test_infer_schema_matches_pytorch(real_torch):
    def program(lib):
        T = lib.Tensor

        def f(x: T, y: list[int], z: float = 1.0, w: T | None = None) -> tuple[T, T]: ...

        def g(out: T, n: int = 2, flag: bool = False) -> None: ...

        def h(xs: list[T], name: str) -> T: ...

        def k(x: T, *, mode: str = "mean", dtype: lib.dtype = lib.float64, n: int) -> T: ...

        return [
            lib.library.infer_schema(f, mutates_args=()),
            lib.library.infer_schema(g, mutates_args=("out",)),
            lib.library.infer_schema(h, mutates_args=()),
            lib.library.infer_schema(k, mutates_args=()),
        ]

    assert program(torch) == program(real_torch)


def _bound_arguments(lib, ns: str):
    """What a custom op's kernel and setup_context receive for calls that name arguments,
    leave defaults out or give them, and pass an int for a float; and gradients through an
    op whose last argument comes by keyword (transformers' grouped matmul of experts)."""
    seen = []

    def kernel(*args, **kwargs):
        seen.append(("kernel", [type(a).__name__ for a in args], kwargs))
        return args[0] * args[1]

    def setup(ctx, inputs, keyword_only_inputs, output):
        seen.append(("setup", [type(a).__name__ for a in inputs], keyword_only_inputs))
        ctx.save_for_backward(inputs[0], inputs[1])

    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return grad * y, grad * x

    schema = '(Tensor x, Tensor y, float k=1., int[] z=[1, 2], *, int s=3, str m="mean") -> Tensor'
    lib.library.custom_op(f"{ns}::scaled", kernel, mutates_args=(), schema=schema)
    lib.library.register_autograd(f"{ns}::scaled", backward, setup_context=setup)
    op = getattr(lib.ops, ns).scaled
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = lib.tensor([3.0, 4.0])
    op(x, y=y)
    op(x, y, 1, s=3)
    op(x, y, 2, m="sum")
    op(x, y, z=[3], s=4)
    op(x.detach(), y, k=2)  # no gradient needed: the kernel alone

    @lib.library.custom_op(f"{ns}::mul", mutates_args=())
    def mul(a: lib.Tensor, b: lib.Tensor, scale: lib.Tensor) -> lib.Tensor:
        return a * b * scale

    def save(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    def mul_backward(ctx, grad):
        a, b, scale = ctx.saved_tensors
        return grad * b * scale, grad * a * scale, None

    mul.register_autograd(mul_backward, setup_context=save)
    mul(x, b=y, scale=lib.tensor(2.0)).sum().backward()
    return seen, x.grad.tolist()


def test_custom_op_arguments_bound_as_pytorch_binds_them(real_torch):
    ours, theirs = _bound_arguments(torch, "ut_lib_k"), _bound_arguments(real_torch, "ut_lib_k")
    assert ours == theirs
    assert theirs[1] == [6.0, 8.0]


@functools.cache
def _pick(lib):
    """An op with defaults and keyword-only arguments, defined once per library."""
    schema = '(Tensor x, Tensor y, int n=2, *, int? o=None, str mode="a") -> Tensor'
    lib.library.custom_op(
        "ut_lib_l::pick", lambda x, y, **_: x.clone(), mutates_args=(), schema=schema
    )
    return lib.ops.ut_lib_l.pick


@pytest.mark.parametrize(
    "call",
    [
        lambda op, x: op(x, x, 1, 2),
        lambda op, x: op(x),
        lambda op, x: op(x, x, q=1),
        lambda op, x: op(x, x, x=x),
        lambda op, x: op(x, 1.5),
        lambda op, x: op(x, x, n=2.5),
        lambda op, x: op(x, x, x),
        lambda op, x: op(x, x, o=x),
        lambda op, x: op(x, x, mode=2),
    ],
)
def test_custom_op_calls_that_do_not_fit_the_schema_raise_as_pytorch(call, real_torch):
    check_error(lambda lib: call(_pick(lib), lib.ones(2)), real_torch)


def test_custom_op_with_a_keyword_only_tensor_raises_as_pytorch(real_torch):
    schema = "(Tensor x, *, Tensor[] ys) -> Tensor"
    check_error(
        lambda lib: lib.library.custom_op(
            "ut_lib_m::f", lambda x, ys: x, mutates_args=(), schema=schema
        ),
        real_torch,
    )


def test_per_device_kernel_opcheck_and_fake():
    @torch.library.custom_op("ut_lib_e::double", mutates_args=())
    def double(x: torch.Tensor) -> torch.Tensor:
        return x * 0  # replaced on CPU by the kernel below

    double.register_kernel("cpu", lambda x: x * 2)
    double.register_fake(lambda x: torch.empty_like(x))
    assert double(torch.ones(2)).tolist() == [2.0, 2.0]
    x = torch.ones(3, requires_grad=True)
    result = torch.library.opcheck(double, (x,), raise_exception=False)
    assert result["test_schema"] == result["test_faketensor"] == "SUCCESS"
    assert "no autograd formula" in result["test_autograd_registration"]

    double.register_fake(lambda x: torch.empty(5))
    with pytest.raises(AssertionError, match="the fake gives"):
        torch.library.opcheck(double, (torch.ones(3),), test_utils="test_faketensor")


def test_register_autocast_casts_the_inputs_of_the_op():
    seen = []

    @torch.library.custom_op("ut_lib_f::observe", mutates_args=())
    def observe(x: torch.Tensor) -> torch.Tensor:
        seen.append(x.dtype)
        return x.clone()

    observe.register_autocast("cpu", torch.float64)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        observe(torch.ones(2))
        assert torch.is_autocast_enabled("cpu")
    observe(torch.ones(2))
    assert seen == [torch.float64, torch.float32]


def test_ops_of_a_compiled_extension_are_recorded_and_raise_when_called():
    @torch.library.register_fake("ut_ext::nms")
    def _(dets, scores, iou_threshold):
        return dets.new_empty(torch.library.get_ctx().new_dynamic_size(), dtype=torch.long)

    with pytest.raises(NotImplementedError, match=r"'ut_ext::nms'.*compiled PyTorch extension"):
        torch.ops.ut_ext.nms(torch.ones(2, 4), torch.ones(2), 0.5)
    with pytest.raises(RuntimeError, match="new_dynamic_size: an output size that depends"):
        torch.library.get_ctx().new_dynamic_size()
    with pytest.raises(OSError, match="Could not load this library: /x/_C.so"):
        torch.ops.load_library("/x/_C.so")
    assert str(torch.ops.aten.mm) == "aten.mm"
    assert torch.ops.aten.mm(torch.eye(2), torch.ones(2, 2)).tolist() == [[1, 1], [1, 1]]


def test_exclude_dispatch_key_guard_turns_autocast_off():
    keys = torch._C.DispatchKeySet(torch._C.DispatchKey.AutocastCPU) | torch._C.DispatchKeySet(
        torch._C.DispatchKey.AutocastCUDA
    )
    with torch.autocast("cpu", dtype=torch.bfloat16):
        with torch._C._ExcludeDispatchKeyGuard(keys):
            assert not torch.is_autocast_enabled("cpu")
            assert (torch.ones(2, 2) @ torch.ones(2, 2)).dtype == torch.float32
        assert torch.is_autocast_enabled("cpu")


_TORCHVISION_IMPORT = textwrap.dedent(
    """
    import json, sys
    import autograd_compat
    autograd_compat.alias_torch()
    import torch
    import torchvision
    try:
        torch.ops.torchvision.nms(torch.ones(1, 4), torch.ones(1), 0.5)
        nms = None
    except NotImplementedError as error:
        nms = str(error)
    print(json.dumps({
        "modules": sorted(m for m in sys.modules if m.startswith("torchvision")),
        "nms": nms,
    }))
    """
)


def test_torchvision_imports_under_the_alias_and_its_compiled_ops_raise_naming_them():
    result = run_json(_TORCHVISION_IMPORT, "TORCHVISION_WARN_WHEN_EXTENSION_LOADING_FAILS", None)
    assert {"torchvision._meta_registrations", "torchvision.models"} <= set(result["modules"])
    assert "Could not run 'torchvision::nms'" in result["nms"]
    assert "compiled PyTorch extension" in result["nms"]


def test_custom_op_signature_matches_pytorch(real_torch):
    for name in ("custom_op", "register_fake", "register_autograd", "register_kernel", "impl"):
        ours = inspect.signature(getattr(torch.library, name))
        theirs = inspect.signature(getattr(real_torch.library, name))
        assert list(ours.parameters) == list(theirs.parameters), name


def test_an_autocast_kernel_runs_under_autocast_with_autocast_off_inside():
    library = torch.library.Library("ut_lib_g", "DEF")
    library.define("dtype_of(Tensor x) -> Tensor")
    seen = []

    def kernel(x):
        seen.append((x.dtype, torch.is_autocast_enabled("cpu")))
        return x.clone()

    def autocast_kernel(x):
        keys = torch._C.DispatchKeySet(torch._C.DispatchKey.AutocastCPU)
        with torch._C._ExcludeDispatchKeyGuard(keys):
            return torch.ops.ut_lib_g.dtype_of(x.double())

    library.impl("dtype_of", kernel, "CPU")
    library.impl("dtype_of", autocast_kernel, "AutocastCPU")
    with torch.autocast("cpu", dtype=torch.bfloat16):
        torch.ops.ut_lib_g.dtype_of(torch.ones(2))
    torch.ops.ut_lib_g.dtype_of(torch.ones(2))
    assert seen == [(torch.float64, False), (torch.float32, False)]


def test_fake_gives_shapes_for_meta_inputs_as_pytorch(real_torch):
    def program(lib, ns):
        @lib.library.custom_op(f"{ns}::transpose_sin", mutates_args=())
        def transpose_sin(x: lib.Tensor) -> lib.Tensor:
            return lib.from_numpy(np.sin(x.numpy()).T.copy())

        meta = lib.ones(3, 2, device="meta")
        try:
            transpose_sin(meta)
            missing = None
        except RuntimeError as error:
            missing = str(error)
        transpose_sin.register_fake(lambda x: x.new_empty(x.shape[::-1]))
        out = transpose_sin(meta)
        real = transpose_sin(lib.ones(3, 2))
        return missing, str(out.device), tuple(out.shape), str(out.dtype), tuple(real.shape)

    assert program(torch, "ut_lib_h") == program(real_torch, "ut_lib_h")
