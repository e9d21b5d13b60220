"""autograd_compat: PyTorch's autograd semantics on JAX.

`import autograd_compat as torch` and PyTorch-style autograd code runs unchanged. Every op is
a pure JAX function, jitted; its backward is `jax.vjp` of that function, and `create_graph`
records the backward as an op again, so derivatives of any order come from nested vjps.
"""

# noqa: I001 below: the XLA workaround must run before JAX starts its CPU backend
from ._pure import gc_freeze as _gc_freeze  # noqa: I001 (collections off until the end)
from ._pure import xla_workarounds as _xla_workarounds
from ._pure import compile_cache as _compile_cache  # JAX's persistent cache, per user
from ._pure import cpu_dispatch as _cpu_dispatch  # XLA:CPU programs run on the caller's thread
from ._pure import dtypes as _dtypes
from ._pure import heap_pad as _heap_pad
import builtins  # bool and int below are dtypes (from ._pure.dtypes)
from ._ops import methods as _methods  # binds every Tensor method before anything runs
from . import (
    _C,
    _dynamo,
    _higher_order_ops,
    autograd,
    compiler,
    cuda,
    distributions,
    fft,
    func,
    library,
    linalg,
    nn,
    optim,
    profiler,
    special,
    utils,
)
from ._compile.api import compile
from .func import vmap
from ._library.ops import ops
from ._alias import alias_torch
from ._ipython_extension import load_ipython_extension, unload_ipython_extension
from ._pure.device import device, get_default_device, set_default_device
from ._pure.dtypes import (
    bfloat16,
    bool,
    cdouble,
    cfloat,
    complex64,
    complex128,
    double,
    dtype,
    finfo,
    float,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    iinfo,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    promote_types,
    set_default_dtype,
    short,
    uint8,
    uint16,
    uint32,
    uint64,
    float8_e4m3fn,
    float8_e5m2,
    float8_e4m3fnuz,
    float8_e5m2fnuz,
    float8_e8m0fnu,
)
from ._ops.factories import *  # noqa: F403
from ._state.modes import *  # noqa: F403  (the grad-mode switches)
from ._interop import to_jax
from ._state.tensor_str import set_printoptions
from ._ops.comparison import *  # noqa: F403  (each op module lists its public names)
from ._ops.convert import *  # noqa: F403
from ._ops.decomposition import *  # noqa: F403
from ._ops.elementwise import *  # noqa: F403
from ._ops.histograms import *  # noqa: F403
from ._ops.index import *  # noqa: F403
from ._ops.linalg import *  # noqa: F403
from ._ops.order_statistics import *  # noqa: F403
from ._ops.pairwise import *  # noqa: F403
from ._ops.random import *  # noqa: F403
from ._ops.count_samples import *  # noqa: F403
from ._ops.reduce import *  # noqa: F403
from ._ops.sampling import *  # noqa: F403
from ._ops.shape import *  # noqa: F403
from ._ops.solvers import *  # noqa: F403
from ._ops.special_math import *  # noqa: F403
from ._ops.unary import *  # noqa: F403
from ._ops.splits import *  # noqa: F403
from ._ops.joining import *  # noqa: F403
from ._ops.scatters import *  # noqa: F403
from ._ops.tensor_info import *  # noqa: F403
from ._ops.storage import *  # noqa: F403
from ._ops.function_forms import *  # noqa: F403
from ._ops.view_copies import *  # noqa: F403
from ._ops.short_time import *  # noqa: F403
from ._ops.factorizations import *  # noqa: F403
from ._ops.window_functions import *  # noqa: F403
from ._ops.strided import *  # noqa: F403
from ._ops.segment_reduce import *  # noqa: F403
from ._ops.nn.grid_sample import grid_sampler, grid_sampler_2d, grid_sampler_3d
from ._ops.nonzero_static import *  # noqa: F403
from ._ops.chunk_cat import *  # noqa: F403
from ._ops.hash_tensor import *  # noqa: F403
from ._pure.layouts import *  # noqa: F403
from .random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from ._serialization import load, save
from ._lowrank import pca_lowrank, svd_lowrank
from . import storage
from ._pure.memory import OutOfMemoryError
from . import testing
from . import ao, backends, distributed, fx, hub, jit, onnx, serialization
from . import masked, multiprocessing, overrides, signal
from .jit import ScriptModule
from ._C import PyTorchFileReader
from math import e, inf, nan, pi
from .backends._settings import *  # noqa: F403  (torch.set_num_threads and the like)
from . import amp, cpu
from . import accelerator
from .amp import autocast
from ._state.modes import (
    get_autocast_dtype,
    is_autocast_cache_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
)
from ._pure.shapes import Size
from ._state.tensor import Tensor, is_tensor
from ._ops.nn.activation import hardshrink, prelu
from ._ops.nn.activation import tensor_log_softmax as log_softmax
from ._ops.nn.activation import tensor_softmax as softmax
from ._ops.nn.distance import cosine_similarity, pairwise_distance
from ._ops.nn.loss_enums import *  # noqa: F403  (torch.margin_ranking_loss and kin)
from ._ops.nn.normalization import rms_norm
from ._ops.nn.native_norms import *  # noqa: F403
from ._ops.masked_index import *  # noqa: F403
from ._ops.nn.channels import channel_shuffle, native_channel_shuffle
from ._ops.nn.padding import constant_pad_nd
from ._ops.coordinates import unravel_index
from ._ops.finite_differences import gradient
from ._ops.nn.rrelu import rrelu, rrelu_
from ._ops.nn.dropout import alpha_dropout, feature_alpha_dropout
from .autograd.anomaly_mode import (
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_anomaly_enabled,
)

from ._symbolic import *  # noqa: F403  (torch.SymInt and kin, torch.sym_max and kin)
from . import types, version
from .torch_version import __version__


def is_floating_point(input: Tensor) -> builtins.bool:
    return input.dtype.is_floating_point


def numel(input: Tensor) -> builtins.int:
    return input.numel()


def _assert(condition, message) -> None:
    """PyTorch's `torch._assert` (an assert that fx tracing keeps): AssertionError(message)
    unless `condition` holds."""
    if not condition:
        raise AssertionError(message)


_heap_pad.pad_heap_unless_asked()  # glibc keeps freed host memory for reuse: _pure/heap_pad.py
_gc_freeze.freeze_unless_asked()  # after every import above: see _pure/gc_freeze.py
