"""Every Tensor method the layers above the state implement: one table, bound once.

`Tensor` (in `_state/tensor.py`) declares its fields and the methods that need nothing but
them. Everything else a tensor can do is an op front end or a tape function whose first
argument is the tensor. `TensorMethods` lists them all, in one class body a type checker reads
(Tensor derives from it for the checker), and this module, imported by the package before
anything runs, copies the table onto Tensor.
"""

from __future__ import annotations

from .._pure import dtypes
from .._state.tensor import Tensor
from .._tape import backward as _backward
from .._tape import hooks as _hooks
from .._tape import views as _views
from . import (
    comparison,
    comparison_inplace,
    convert,
    decomposition,
    elementwise,
    histograms,
    index,
    linalg,
    order_statistics,
    random,
    random_fills,
    reduce,
    shape,
    solvers,
    special_math,
    strided,
    unary,
)
from . import factories as _factories
from . import factorizations as _factorizations
from . import hash_tensor as _hash_tensor
from . import nonzero_static as _nonzero_static
from . import sampling as _sampling
from . import scatters as _scatters
from . import short_time as _short_time
from . import splits as _splits
from . import storage as _storage
from . import subclass as _subclass
from . import tensor_info as _info
from .elementwise import _host_first as host_first
from .elementwise import _inplace as inplace
from .elementwise import _reflected as reflected
from .nn import activation
from .out_arg import without_out

__all__ = ["TensorMethods"]


class TensorMethods:
    """The methods and properties of Tensor implemented outside `_state/tensor.py`."""

    __slots__ = ()

    register_post_accumulate_grad_hook = _hooks.register_post_accumulate_grad_hook
    # tape: autograd, hooks, memory shared between tensors
    __init__ = _factories.legacy_init
    backward = _backward.tensor_backward
    register_hook = _hooks.register_tensor_hook
    _grad_edge = _views.grad_edge
    _view_grad_fn = _views.view_grad_fn
    _mark_views_require_grad = _views.mark_requires_grad
    _alias = _views.alias_of
    _write_shared = _views.write
    _join = _views.join
    _layout = _views.layout_of
    is_contiguous = _views.tensor_is_contiguous
    stride = _views.tensor_stride
    storage_offset = _views.tensor_storage_offset
    # elementwise, unary, comparison
    add = elementwise.add
    sub = elementwise.sub
    mul = elementwise.mul
    div = elementwise.div
    true_divide = elementwise.div
    divide = elementwise.div
    multiply = elementwise.mul
    subtract = elementwise.sub
    pow = elementwise.pow
    neg = unary.neg
    negative = unary.neg
    abs = unary.abs
    absolute = unary.abs
    exp = unary.exp
    log = unary.log
    sqrt = unary.sqrt
    sin = unary.sin
    cos = unary.cos
    tanh = unary.tanh
    sigmoid = unary.sigmoid
    relu = unary.relu
    lt = comparison.lt
    le = comparison.le
    gt = comparison.gt
    ge = comparison.ge
    eq = comparison.eq
    ne = comparison.ne
    less = comparison.lt
    less_equal = comparison.le
    greater = comparison.gt
    greater_equal = comparison.ge
    not_equal = comparison.ne
    zero_ = elementwise.zero_
    fill_ = elementwise.fill_
    copy_ = elementwise.copy_
    __add__ = reflected(elementwise.add, elementwise._ADD)
    __radd__ = __add__
    __sub__ = reflected(elementwise.sub, elementwise._SUB)
    __rsub__ = reflected(elementwise.rsub, elementwise._RSUB)
    __mul__ = reflected(elementwise.mul, elementwise._MUL)
    __rmul__ = __mul__
    __truediv__ = reflected(elementwise.div)
    __rtruediv__ = reflected(elementwise._rtruediv)
    __rdiv__ = __rtruediv__
    __pow__ = reflected(elementwise.pow)
    __rpow__ = reflected(elementwise._rpow)
    __neg__ = unary.neg
    __abs__ = unary.abs
    __pos__ = unary.positive
    __lt__ = reflected(comparison.lt)
    __le__ = reflected(comparison.le)
    __gt__ = reflected(comparison.gt)
    __ge__ = reflected(comparison.ge)
    __eq__ = reflected(comparison.eq)
    __ne__ = reflected(comparison.ne)
    __contains__ = _info.contains
    add_ = host_first(inplace(elementwise.add), 1)  # `N[i, j] += 1`: on the host first
    sub_ = host_first(inplace(elementwise.sub), -1)
    mul_ = inplace(elementwise.mul)
    div_ = inplace(elementwise.div)
    pow_ = inplace(elementwise.pow)
    neg_ = inplace(unary.neg)
    abs_ = inplace(unary.abs)
    exp_ = inplace(unary.exp)
    log_ = inplace(unary.log)
    sqrt_ = inplace(unary.sqrt)
    sin_ = inplace(unary.sin)
    cos_ = inplace(unary.cos)
    tanh_ = inplace(unary.tanh)
    sigmoid_ = inplace(unary.sigmoid)
    relu_ = inplace(unary.relu)
    tril_ = inplace(linalg.tril)
    triu_ = inplace(linalg.triu)
    addmm_ = inplace(linalg.addmm)
    expm1_ = inplace(unary.expm1)
    log1p_ = inplace(unary.log1p)
    log2_ = inplace(unary.log2)
    log10_ = inplace(unary.log10)
    rsqrt_ = inplace(unary.rsqrt)
    reciprocal_ = inplace(unary.reciprocal)
    tan_ = inplace(unary.tan)
    asin_ = inplace(unary.asin)
    acos_ = inplace(unary.acos)
    atan_ = inplace(unary.atan)
    arcsin_ = inplace(unary.asin)
    arccos_ = inplace(unary.acos)
    arctan_ = inplace(unary.atan)
    sinh_ = inplace(unary.sinh)
    cosh_ = inplace(unary.cosh)
    erf_ = inplace(unary.erf)
    floor_ = inplace(unary.floor)
    ceil_ = inplace(unary.ceil)
    trunc_ = inplace(unary.trunc)
    fix_ = inplace(unary.trunc)
    round_ = inplace(unary.round)
    sign_ = inplace(unary.sign)
    square_ = inplace(unary.square)
    atan2_ = inplace(elementwise.atan2)
    arctan2_ = inplace(elementwise.atan2)
    floor_divide_ = inplace(elementwise.floor_divide)
    remainder_ = inplace(elementwise.remainder)
    fmod_ = inplace(elementwise.fmod)
    clamp_ = inplace(comparison.clamp)
    clip_ = inplace(comparison.clamp)
    clamp_min_ = inplace(comparison.clamp_min)
    clamp_max_ = inplace(comparison.clamp_max)
    lerp_ = inplace(elementwise.lerp)
    addcmul_ = inplace(elementwise.addcmul)
    addcdiv_ = inplace(elementwise.addcdiv)
    logical_and_ = inplace(comparison.logical_and)
    logical_or_ = inplace(comparison.logical_or)
    logical_xor_ = inplace(comparison.logical_xor)
    logical_not_ = inplace(comparison.logical_not)
    bitwise_and_ = inplace(comparison.bitwise_and)
    bitwise_or_ = inplace(comparison.bitwise_or)
    bitwise_xor_ = inplace(comparison.bitwise_xor)
    bitwise_not_ = inplace(comparison.bitwise_not)
    bitwise_left_shift_ = inplace(comparison.bitwise_left_shift)
    bitwise_right_shift_ = inplace(comparison.bitwise_right_shift)
    exp2_ = inplace(unary.exp2)
    erfc_ = inplace(unary.erfc)
    erfinv_ = inplace(unary.erfinv)
    lgamma_ = inplace(unary.lgamma)
    digamma_ = inplace(unary.digamma)
    acosh_ = inplace(unary.acosh)
    asinh_ = inplace(unary.asinh)
    atanh_ = inplace(unary.atanh)
    arccosh_ = inplace(unary.acosh)
    arcsinh_ = inplace(unary.asinh)
    arctanh_ = inplace(unary.atanh)
    deg2rad_ = inplace(unary.deg2rad)
    rad2deg_ = inplace(unary.rad2deg)
    sinc_ = inplace(unary.sinc)
    frac_ = inplace(unary.frac)
    sgn_ = inplace(unary.sgn)
    logit_ = inplace(unary.logit)
    nan_to_num_ = inplace(unary.nan_to_num)
    xlogy_ = inplace(elementwise.xlogy)
    hypot_ = inplace(elementwise.hypot)
    copysign_ = inplace(elementwise.copysign)
    heaviside_ = inplace(elementwise.heaviside)
    scatter_ = inplace(index.scatter)
    scatter_add_ = inplace(index.scatter_add)
    index_add_ = inplace(index.index_add)
    index_copy_ = inplace(index.index_copy)
    index_fill_ = inplace(index.index_fill)
    masked_fill_ = inplace(index.masked_fill)
    masked_scatter_ = inplace(index.masked_scatter)
    addmv_ = inplace(linalg.addmv)
    addr_ = inplace(linalg.addr)
    baddbmm_ = inplace(linalg.baddbmm)
    addbmm_ = inplace(linalg.addbmm)
    # linalg
    matmul = linalg.matmul
    mm = linalg.mm
    bmm = linalg.bmm
    mv = linalg.mv
    dot = linalg.dot
    outer = linalg.outer
    ger = linalg.outer
    addmm = linalg.addmm
    trace = linalg.trace
    diag = linalg.diag
    tril = linalg.tril
    triu = linalg.triu
    det = linalg.det
    inverse = linalg.inverse
    __matmul__ = linalg.matmul
    __rmatmul__ = linalg._rmatmul
    # reduce
    sum = reduce.sum
    mean = reduce.mean
    norm = reduce.norm
    # softmax
    softmax = activation.softmax_method
    log_softmax = activation.log_softmax_method
    # random fills and casts
    normal_ = random.normal_
    uniform_ = random.uniform_
    bernoulli_ = random.bernoulli_
    random_ = random.random_
    type_as = convert.type_as
    # unary, comparison, elementwise (continued)
    expm1 = unary.expm1
    log1p = unary.log1p
    log2 = unary.log2
    log10 = unary.log10
    rsqrt = unary.rsqrt
    reciprocal = unary.reciprocal
    tan = unary.tan
    asin = unary.asin
    acos = unary.acos
    atan = unary.atan
    arcsin = unary.asin
    arccos = unary.acos
    arctan = unary.atan
    sinh = unary.sinh
    cosh = unary.cosh
    erf = unary.erf
    floor = unary.floor
    ceil = unary.ceil
    trunc = unary.trunc
    fix = unary.trunc
    round = unary.round
    sign = unary.sign
    square = unary.square
    atan2 = elementwise.atan2
    arctan2 = elementwise.atan2
    maximum = comparison.maximum
    minimum = comparison.minimum
    floor_divide = elementwise.floor_divide
    remainder = elementwise.remainder
    fmod = elementwise.fmod
    clamp = comparison.clamp
    clip = comparison.clamp
    clamp_min = comparison.clamp_min
    clamp_max = comparison.clamp_max
    lerp = elementwise.lerp
    addcmul = elementwise.addcmul
    addcdiv = elementwise.addcdiv
    logical_and = comparison.logical_and
    logical_or = comparison.logical_or
    logical_xor = comparison.logical_xor
    logical_not = comparison.logical_not
    bitwise_and = comparison.bitwise_and
    bitwise_or = comparison.bitwise_or
    bitwise_xor = comparison.bitwise_xor
    bitwise_not = comparison.bitwise_not
    bitwise_left_shift = comparison.bitwise_left_shift
    bitwise_right_shift = comparison.bitwise_right_shift
    isnan = comparison.isnan
    isinf = comparison.isinf
    isfinite = comparison.isfinite
    where = comparison._tensor_where
    __floordiv__ = elementwise._dunder(elementwise.floor_divide)
    __rfloordiv__ = elementwise._rfloordiv_method
    __mod__ = elementwise._dunder(elementwise.remainder)
    __rmod__ = elementwise._rmod_method
    __and__ = elementwise._dunder(comparison.bitwise_and)
    __rand__ = elementwise._dunder(comparison.bitwise_and, reflected=True)
    __or__ = elementwise._dunder(comparison.bitwise_or)
    __ror__ = elementwise._dunder(comparison.bitwise_or, reflected=True)
    __xor__ = elementwise._dunder(comparison.bitwise_xor)
    __rxor__ = elementwise._dunder(comparison.bitwise_xor, reflected=True)
    __lshift__ = elementwise._dunder(comparison.bitwise_left_shift)
    __rlshift__ = elementwise._dunder(comparison.bitwise_left_shift, reflected=True)
    __rshift__ = elementwise._dunder(comparison.bitwise_right_shift)
    __rrshift__ = elementwise._dunder(comparison.bitwise_right_shift, reflected=True)
    __invert__ = comparison._invert
    # reduce (continued)
    prod = reduce.prod
    std = reduce.std
    var = reduce.var
    max = reduce.max
    min = reduce.min
    amax = reduce.amax
    amin = reduce.amin
    argmax = reduce.argmax
    argmin = reduce.argmin
    logsumexp = reduce.logsumexp
    cumsum = reduce.cumsum
    cumprod = reduce.cumprod
    all = reduce.all
    any = reduce.any
    median = reduce.median
    sort = reduce.sort
    argsort = reduce.argsort
    topk = reduce.topk
    cumsum_ = reduce.cumsum_
    cumprod_ = reduce.cumprod_
    # unary, elementwise (continued)
    exp2 = unary.exp2
    erfc = unary.erfc
    erfinv = unary.erfinv
    lgamma = unary.lgamma
    digamma = unary.digamma
    acosh = unary.acosh
    asinh = unary.asinh
    atanh = unary.atanh
    arccosh = unary.acosh
    arcsinh = unary.asinh
    arctanh = unary.atanh
    deg2rad = unary.deg2rad
    rad2deg = unary.rad2deg
    sinc = unary.sinc
    frac = unary.frac
    sgn = unary.sgn
    logit = unary.logit
    nan_to_num = unary.nan_to_num
    xlogy = elementwise.xlogy
    hypot = elementwise.hypot
    copysign = elementwise.copysign
    heaviside = elementwise.heaviside
    fmax = comparison.fmax
    fmin = comparison.fmin
    positive = unary.positive
    logaddexp = elementwise.logaddexp
    logaddexp2 = elementwise.logaddexp2
    float_power = elementwise.float_power
    float_power_ = elementwise._float_power_
    # shape, index, convert
    reshape = shape.reshape
    reshape_as = shape.reshape_as
    view = shape.view
    view_as = shape.view_as
    transpose = shape.transpose
    transpose_ = shape.transpose_
    t = shape.t
    t_ = shape.t_
    T = property(shape._T_property)
    mT = property(shape._mT_property)
    mH = property(shape._mH_property)
    H = property(shape._H_property)
    adjoint = shape.adjoint
    permute = shape.permute
    squeeze = shape.squeeze
    squeeze_ = shape.squeeze_
    unsqueeze = shape.unsqueeze
    unsqueeze_ = shape.unsqueeze_
    expand = shape.expand
    expand_as = shape.expand_as
    narrow = shape.narrow
    select = shape.select
    diagonal = shape.diagonal
    as_strided = strided.as_strided
    as_strided_ = strided.as_strided_
    as_strided_scatter = strided.as_strided_scatter
    fill_diagonal_ = index.fill_diagonal_
    unbind = shape.unbind
    clone = shape.clone
    contiguous = shape.contiguous
    to = convert.to
    __getitem__ = index.getitem
    __setitem__ = index.setitem
    float = convert._cast_method(dtypes.float32)
    double = convert._cast_method(dtypes.float64)
    half = convert._cast_method(dtypes.float16)
    bfloat16 = convert._cast_method(dtypes.bfloat16)
    long = convert._cast_method(dtypes.int64)
    int = convert._cast_method(dtypes.int32)
    short = convert._cast_method(dtypes.int16)
    bool = convert._cast_method(dtypes.bool)
    byte = convert._cast_method(dtypes.uint8)
    char = convert._cast_method(dtypes.int8)
    cpu = convert.cpu
    cuda = convert.cuda
    # shape, index (continued)
    flip = shape.flip
    roll = shape.roll
    gather = index.gather
    scatter = index.scatter
    scatter_add = index.scatter_add
    index_select = index.index_select
    index_add = index.index_add
    index_copy = index.index_copy
    index_fill = index.index_fill
    masked_fill = index.masked_fill
    masked_scatter = index.masked_scatter
    masked_select = index.masked_select
    nonzero = index.nonzero
    take = index.take
    flatten = shape.flatten
    unflatten = shape.unflatten
    repeat = shape.repeat
    tile = shape.tile
    movedim = shape.movedim
    moveaxis = shape.movedim
    swapaxes = shape.swapaxes
    swapdims = shape.swapaxes
    split = shape.split
    chunk = shape.chunk
    tensor_split = shape.tensor_split
    exponential_ = random.exponential_
    cauchy_ = random_fills.cauchy_
    log_normal_ = random_fills.log_normal_
    geometric_ = random_fills.geometric_
    multinomial = _sampling.multinomial
    # linalg, reduce, convert, shape, comparison, index, new_* factories
    addbmm = linalg.addbmm
    addmv = linalg.addmv
    addr = linalg.addr
    baddbmm = linalg.baddbmm
    broadcast_to = shape.broadcast_to
    conj = convert.conj
    corrcoef = linalg.corrcoef
    count_nonzero = reduce.count_nonzero
    cov = linalg.cov
    cross = linalg.cross
    cummax = reduce.cummax
    cummin = reduce.cummin
    diag_embed = linalg.diag_embed
    diagflat = linalg.diagflat
    diff = reduce.diff
    fliplr = shape.fliplr
    flipud = shape.flipud
    inner = linalg.inner
    isclose = comparison.isclose
    kron = linalg.kron
    kthvalue = reduce.kthvalue
    matrix_power = linalg.matrix_power
    nanmean = reduce.nanmean
    nanquantile = reduce.nanquantile
    nansum = reduce.nansum
    quantile = reduce.quantile
    ravel = shape.ravel
    repeat_interleave = index.repeat_interleave
    rot90 = shape.rot90
    take_along_dim = index.take_along_dim
    allclose = comparison.allclose
    equal = comparison.equal
    is_signed = convert.is_signed
    new_zeros = _factories.new_zeros
    new_ones = _factories.new_ones
    new_empty = _factories.new_empty
    new_full = _factories.new_full
    new_tensor = _factories.new_tensor
    get_device = convert._get_device
    real = property(convert.real)
    imag = property(convert.imag)
    is_cpu = property(convert._is_cpu)
    itemsize = property(convert._itemsize)
    nbytes = property(convert._nbytes)
    # ---- the rest of PyTorch 2.13's surface: in-place aliases, splits, scatters, attributes
    eq_ = comparison_inplace.eq_
    ne_ = comparison_inplace.ne_
    lt_ = comparison_inplace.lt_
    le_ = comparison_inplace.le_
    gt_ = comparison_inplace.gt_
    ge_ = comparison_inplace.ge_
    greater_ = gt_
    greater_equal_ = ge_
    less_ = lt_
    less_equal_ = le_
    not_equal_ = ne_
    subtract_ = sub_
    multiply_ = mul_
    divide_ = div_
    true_divide_ = div_
    negative_ = neg_
    absolute_ = abs_
    swapaxes_ = shape.transpose_
    swapdims_ = shape.transpose_
    new = _factories.new
    new_empty_strided = _factories.new_empty_strided
    split_with_sizes = _splits.split_with_sizes
    hsplit = _splits.hsplit
    vsplit = _splits.vsplit
    dsplit = _splits.dsplit
    unsafe_split = _splits.unsafe_split
    unsafe_split_with_sizes = _splits.unsafe_split_with_sizes
    unsafe_chunk = _splits.unsafe_chunk
    unfold = _splits.unfold
    narrow_copy = _splits.narrow_copy
    sum_to_size = _splits.sum_to_size
    select_scatter = _scatters.select_scatter
    slice_scatter = _scatters.slice_scatter
    diagonal_scatter = _scatters.diagonal_scatter
    scatter_reduce = _scatters.scatter_reduce
    scatter_reduce_ = inplace(_scatters.scatter_reduce)
    index_reduce = _scatters.index_reduce
    index_reduce_ = inplace(_scatters.index_reduce)
    index_put = _scatters.index_put
    index_put_ = _scatters.index_put_
    put = _scatters.put
    put_ = inplace(_scatters.put)
    is_nonzero = _info.is_nonzero
    is_same_size = _info.is_same_size
    is_set_to = _info.is_set_to
    is_conj = _info.is_conj
    is_neg = _info.is_neg
    resolve_conj = _info.resolve_conj
    resolve_neg = _info.resolve_neg
    conj_physical = _info.conj_physical
    conj_physical_ = _info.conj_physical_
    layout = property(_info.layout)
    is_sparse = property(_info._false)
    is_sparse_csr = property(_info._false)
    is_quantized = property(_info._false)
    is_meta = property(_info.is_meta)
    is_nested = property(_info._false)
    is_mkldnn = property(_info._false)
    is_xla = property(_info._false)
    is_xpu = property(_info._false)
    is_mps = property(_info._false)
    is_ipu = property(_info._false)
    is_vulkan = property(_info._false)
    is_mtia = property(_info._false)
    is_maia = property(_info._false)
    is_distributed = _info._false
    data_ptr = _storage.data_ptr
    const_data_ptr = _storage.data_ptr
    untyped_storage = _storage.untyped_storage
    storage = _storage.storage
    cfloat = convert._cast_method(dtypes.complex64)
    cdouble = convert._cast_method(dtypes.complex128)
    chalf = convert.chalf
    pin_memory = _info.pin_memory
    is_pinned = _info.is_pinned
    share_memory_ = _info.share_memory_
    is_shared = _info.is_shared
    dim_order = _info.dim_order
    apply_ = _info.apply_
    map_ = _info.map_
    resize_ = _info.resize_
    resize_as_ = _info.resize_as_
    # ---- end of the surface audit block
    # ---- surface-math: linear algebra, histograms, order statistics and special functions ----
    svd = decomposition.svd
    qr = decomposition.qr
    slogdet = decomposition.slogdet
    logdet = decomposition.logdet
    matrix_exp = decomposition.matrix_exp
    cholesky = decomposition.cholesky
    cholesky_solve = decomposition.cholesky_solve
    cholesky_inverse = decomposition.cholesky_inverse
    pinverse = decomposition.pinverse
    vdot = decomposition.vdot
    dist = decomposition.dist
    renorm = decomposition.renorm
    renorm_ = inplace(decomposition.renorm)
    unique = histograms.unique
    unique_consecutive = histograms.unique_consecutive
    bincount = histograms.bincount
    histc = histograms.histc
    histogram = histograms.histogram
    argwhere = index.argwhere
    nonzero_static = _nonzero_static.nonzero_static
    hash_tensor = _hash_tensor.hash_tensor
    mode = order_statistics.mode
    nanmedian = order_statistics.nanmedian
    aminmax = order_statistics.aminmax
    msort = order_statistics.msort
    logcumsumexp = reduce.logcumsumexp
    angle = special_math.angle
    signbit = special_math.signbit
    isposinf = special_math.isposinf
    isneginf = special_math.isneginf
    isreal = special_math.isreal
    gcd = special_math.gcd
    gcd_ = inplace(special_math.gcd)
    lcm = special_math.lcm
    lcm_ = inplace(special_math.lcm)
    ldexp = special_math.ldexp
    ldexp_ = inplace(special_math.ldexp)
    frexp = special_math.frexp
    nextafter = special_math.nextafter
    nextafter_ = inplace(special_math.nextafter)
    i0 = special_math.i0
    i0_ = inplace(special_math.i0)
    polygamma = special_math.tensor_polygamma
    polygamma_ = inplace(special_math.tensor_polygamma)
    mvlgamma = special_math.mvlgamma
    mvlgamma_ = inplace(special_math.mvlgamma)
    igamma = special_math.igamma
    igamma_ = inplace(special_math.igamma)
    igammac = special_math.igammac
    igammac_ = inplace(special_math.igammac)
    hardshrink = activation.hardshrink
    prelu = activation.prelu
    bernoulli = random.bernoulli
    lu = solvers.lu
    lu_solve = solvers.lu_solve
    triangular_solve = solvers.triangular_solve
    # ---- end surface-math ----
    # ---- short-time transforms and decompositions (linalg) ----
    stft = _short_time.stft
    istft = _short_time.istft
    geqrf = _factorizations.geqrf
    orgqr = _factorizations.orgqr
    ormqr = _factorizations.ormqr
    # ---- end short-time transforms and decompositions ----
    # subclasses and the __torch_function__ protocol
    __torch_function__ = classmethod(_subclass.torch_function)
    as_subclass = _subclass.as_subclass
    _make_subclass = staticmethod(_subclass.make_subclass)
    # in-place operators: the in-place methods above
    __iadd__ = add_
    __isub__ = sub_
    __imul__ = mul_
    __itruediv__ = div_
    __ipow__ = pow_
    __ifloordiv__ = floor_divide_
    __imod__ = remainder_
    __iand__ = bitwise_and_
    __ior__ = bitwise_or_
    __ixor__ = bitwise_xor_
    __ilshift__ = bitwise_left_shift_
    __irshift__ = bitwise_right_shift_


# What Python puts in every class body (`__hash__` = None because the table defines `__eq__`;
# Tensor keeps its own identity hash).
_CLASS_ATTRIBUTES = frozenset(
    ("__module__", "__qualname__", "__doc__", "__slots__", "__hash__", "__firstlineno__")
    + ("__static_attributes__",)
)


def _bind() -> None:
    """Copy the table onto Tensor (at import, once); methods take no `out=`, so they are the
    front ends under `takes_out`'s wrapper (one call fewer)."""
    for name, value in vars(TensorMethods).items():
        if name not in _CLASS_ATTRIBUTES:
            setattr(Tensor, name, without_out(value))


_bind()
