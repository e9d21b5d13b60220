"""Every Tensor method the layers above the state implement: one table, bound once.

`Tensor` (in `_state/tensor.py`) declares its fields and the methods that need nothing but
them. Everything else a tensor can do is an op front end or a tape function whose first
argument is the tensor. `TensorMethods` lists them all, in one class body a type checker reads
(Tensor derives from it for the checker), and this module, imported last by the package,
copies the table onto Tensor.
"""

from __future__ import annotations

from .._pure import dtypes
from .._state.tensor import Tensor
from .._tape import backward as _backward
from .._tape import hooks as _hooks
from .._tape import views as _views
from . import (
    elementwise,
    linalg,
    movement,
    pointwise,
    reduce,
    reductions,
    shape,
    special,
    tensor_extras,
)
from . import factories as _factories
from .elementwise import _inplace as inplace
from .elementwise import _reflected as reflected
from .nn import activation

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
    # elementwise
    add = elementwise.add
    sub = elementwise.sub
    mul = elementwise.mul
    div = elementwise.div
    true_divide = elementwise.div
    divide = elementwise.div
    multiply = elementwise.mul
    subtract = elementwise.sub
    pow = elementwise.pow
    neg = elementwise.neg
    negative = elementwise.neg
    abs = elementwise.abs
    absolute = elementwise.abs
    exp = elementwise.exp
    log = elementwise.log
    sqrt = elementwise.sqrt
    sin = elementwise.sin
    cos = elementwise.cos
    tanh = elementwise.tanh
    sigmoid = elementwise.sigmoid
    relu = elementwise.relu
    lt = elementwise.lt
    le = elementwise.le
    gt = elementwise.gt
    ge = elementwise.ge
    eq = elementwise.eq
    ne = elementwise.ne
    less = elementwise.lt
    less_equal = elementwise.le
    greater = elementwise.gt
    greater_equal = elementwise.ge
    not_equal = elementwise.ne
    zero_ = elementwise.zero_
    fill_ = elementwise.fill_
    copy_ = elementwise.copy_
    __add__ = reflected(elementwise.add)
    __radd__ = reflected(elementwise.add)
    __sub__ = reflected(elementwise.sub)
    __rsub__ = reflected(elementwise.rsub)
    __mul__ = reflected(elementwise.mul)
    __rmul__ = reflected(elementwise.mul)
    __truediv__ = reflected(elementwise.div)
    __rtruediv__ = reflected(elementwise._rtruediv)
    __pow__ = reflected(elementwise.pow)
    __rpow__ = reflected(elementwise._rpow)
    __neg__ = elementwise.neg
    __abs__ = elementwise.abs
    __pos__ = special.positive
    __lt__ = reflected(elementwise.lt)
    __le__ = reflected(elementwise.le)
    __gt__ = reflected(elementwise.gt)
    __ge__ = reflected(elementwise.ge)
    __eq__ = reflected(elementwise.eq)
    __ne__ = reflected(elementwise.ne)
    add_ = inplace(elementwise.add)
    sub_ = inplace(elementwise.sub)
    mul_ = inplace(elementwise.mul)
    div_ = inplace(elementwise.div)
    pow_ = inplace(elementwise.pow)
    neg_ = inplace(elementwise.neg)
    abs_ = inplace(elementwise.abs)
    exp_ = inplace(elementwise.exp)
    log_ = inplace(elementwise.log)
    sqrt_ = inplace(elementwise.sqrt)
    sin_ = inplace(elementwise.sin)
    cos_ = inplace(elementwise.cos)
    tanh_ = inplace(elementwise.tanh)
    sigmoid_ = inplace(elementwise.sigmoid)
    relu_ = inplace(elementwise.relu)
    tril_ = inplace(linalg.tril)
    triu_ = inplace(linalg.triu)
    addmm_ = inplace(linalg.addmm)
    expm1_ = inplace(pointwise.expm1)
    log1p_ = inplace(pointwise.log1p)
    log2_ = inplace(pointwise.log2)
    log10_ = inplace(pointwise.log10)
    rsqrt_ = inplace(pointwise.rsqrt)
    reciprocal_ = inplace(pointwise.reciprocal)
    tan_ = inplace(pointwise.tan)
    asin_ = inplace(pointwise.asin)
    acos_ = inplace(pointwise.acos)
    atan_ = inplace(pointwise.atan)
    arcsin_ = inplace(pointwise.asin)
    arccos_ = inplace(pointwise.acos)
    arctan_ = inplace(pointwise.atan)
    sinh_ = inplace(pointwise.sinh)
    cosh_ = inplace(pointwise.cosh)
    erf_ = inplace(pointwise.erf)
    floor_ = inplace(pointwise.floor)
    ceil_ = inplace(pointwise.ceil)
    trunc_ = inplace(pointwise.trunc)
    fix_ = inplace(pointwise.trunc)
    round_ = inplace(pointwise.round)
    sign_ = inplace(pointwise.sign)
    square_ = inplace(pointwise.square)
    atan2_ = inplace(pointwise.atan2)
    arctan2_ = inplace(pointwise.atan2)
    floor_divide_ = inplace(pointwise.floor_divide)
    remainder_ = inplace(pointwise.remainder)
    fmod_ = inplace(pointwise.fmod)
    clamp_ = inplace(pointwise.clamp)
    clip_ = inplace(pointwise.clamp)
    clamp_min_ = inplace(pointwise.clamp_min)
    clamp_max_ = inplace(pointwise.clamp_max)
    lerp_ = inplace(pointwise.lerp)
    addcmul_ = inplace(pointwise.addcmul)
    addcdiv_ = inplace(pointwise.addcdiv)
    logical_and_ = inplace(pointwise.logical_and)
    logical_or_ = inplace(pointwise.logical_or)
    logical_xor_ = inplace(pointwise.logical_xor)
    logical_not_ = inplace(pointwise.logical_not)
    bitwise_and_ = inplace(pointwise.bitwise_and)
    bitwise_or_ = inplace(pointwise.bitwise_or)
    bitwise_xor_ = inplace(pointwise.bitwise_xor)
    bitwise_not_ = inplace(pointwise.bitwise_not)
    exp2_ = inplace(special.exp2)
    erfc_ = inplace(special.erfc)
    erfinv_ = inplace(special.erfinv)
    lgamma_ = inplace(special.lgamma)
    digamma_ = inplace(special.digamma)
    acosh_ = inplace(special.acosh)
    asinh_ = inplace(special.asinh)
    atanh_ = inplace(special.atanh)
    arccosh_ = inplace(special.acosh)
    arcsinh_ = inplace(special.asinh)
    arctanh_ = inplace(special.atanh)
    deg2rad_ = inplace(special.deg2rad)
    rad2deg_ = inplace(special.rad2deg)
    sinc_ = inplace(special.sinc)
    frac_ = inplace(special.frac)
    sgn_ = inplace(special.sgn)
    logit_ = inplace(special.logit)
    nan_to_num_ = inplace(special.nan_to_num)
    xlogy_ = inplace(special.xlogy)
    hypot_ = inplace(special.hypot)
    copysign_ = inplace(special.copysign)
    heaviside_ = inplace(special.heaviside)
    scatter_ = inplace(movement.scatter)
    scatter_add_ = inplace(movement.scatter_add)
    index_add_ = inplace(movement.index_add)
    index_copy_ = inplace(movement.index_copy)
    index_fill_ = inplace(movement.index_fill)
    masked_fill_ = inplace(movement.masked_fill)
    masked_scatter_ = inplace(movement.masked_scatter)
    addmv_ = inplace(tensor_extras.addmv)
    addr_ = inplace(tensor_extras.addr)
    baddbmm_ = inplace(tensor_extras.baddbmm)
    addbmm_ = inplace(tensor_extras.addbmm)
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
    softmax = activation.tensor_softmax
    log_softmax = activation.tensor_log_softmax
    # random fills and casts
    normal_ = _factories.normal_
    uniform_ = _factories.uniform_
    bernoulli_ = _factories.bernoulli_
    random_ = _factories.random_
    type_as = _factories.type_as
    # pointwise
    expm1 = pointwise.expm1
    log1p = pointwise.log1p
    log2 = pointwise.log2
    log10 = pointwise.log10
    rsqrt = pointwise.rsqrt
    reciprocal = pointwise.reciprocal
    tan = pointwise.tan
    asin = pointwise.asin
    acos = pointwise.acos
    atan = pointwise.atan
    arcsin = pointwise.asin
    arccos = pointwise.acos
    arctan = pointwise.atan
    sinh = pointwise.sinh
    cosh = pointwise.cosh
    erf = pointwise.erf
    floor = pointwise.floor
    ceil = pointwise.ceil
    trunc = pointwise.trunc
    fix = pointwise.trunc
    round = pointwise.round
    sign = pointwise.sign
    square = pointwise.square
    atan2 = pointwise.atan2
    arctan2 = pointwise.atan2
    maximum = pointwise.maximum
    minimum = pointwise.minimum
    floor_divide = pointwise.floor_divide
    remainder = pointwise.remainder
    fmod = pointwise.fmod
    clamp = pointwise.clamp
    clip = pointwise.clamp
    clamp_min = pointwise.clamp_min
    clamp_max = pointwise.clamp_max
    lerp = pointwise.lerp
    addcmul = pointwise.addcmul
    addcdiv = pointwise.addcdiv
    logical_and = pointwise.logical_and
    logical_or = pointwise.logical_or
    logical_xor = pointwise.logical_xor
    logical_not = pointwise.logical_not
    bitwise_and = pointwise.bitwise_and
    bitwise_or = pointwise.bitwise_or
    bitwise_xor = pointwise.bitwise_xor
    bitwise_not = pointwise.bitwise_not
    isnan = pointwise.isnan
    isinf = pointwise.isinf
    isfinite = pointwise.isfinite
    where = pointwise._tensor_where
    __floordiv__ = pointwise._dunder(pointwise.floor_divide)
    __rfloordiv__ = pointwise._rfloordiv_method
    __mod__ = pointwise._dunder(pointwise.remainder)
    __rmod__ = pointwise._rmod_method
    __and__ = pointwise._dunder(pointwise.bitwise_and)
    __rand__ = pointwise._dunder(pointwise.bitwise_and, reflected=True)
    __or__ = pointwise._dunder(pointwise.bitwise_or)
    __ror__ = pointwise._dunder(pointwise.bitwise_or, reflected=True)
    __xor__ = pointwise._dunder(pointwise.bitwise_xor)
    __rxor__ = pointwise._dunder(pointwise.bitwise_xor, reflected=True)
    __invert__ = pointwise._invert
    # reductions
    prod = reductions.prod
    std = reductions.std
    var = reductions.var
    max = reductions.max
    min = reductions.min
    amax = reductions.amax
    amin = reductions.amin
    argmax = reductions.argmax
    argmin = reductions.argmin
    logsumexp = reductions.logsumexp
    cumsum = reductions.cumsum
    cumprod = reductions.cumprod
    all = reductions.all
    any = reductions.any
    median = reductions.median
    sort = reductions.sort
    argsort = reductions.argsort
    topk = reductions.topk
    cumsum_ = reductions.cumsum_
    cumprod_ = reductions.cumprod_
    # special
    exp2 = special.exp2
    erfc = special.erfc
    erfinv = special.erfinv
    lgamma = special.lgamma
    digamma = special.digamma
    acosh = special.acosh
    asinh = special.asinh
    atanh = special.atanh
    arccosh = special.acosh
    arcsinh = special.asinh
    arctanh = special.atanh
    deg2rad = special.deg2rad
    rad2deg = special.rad2deg
    sinc = special.sinc
    frac = special.frac
    sgn = special.sgn
    logit = special.logit
    nan_to_num = special.nan_to_num
    xlogy = special.xlogy
    hypot = special.hypot
    copysign = special.copysign
    heaviside = special.heaviside
    fmax = special.fmax
    fmin = special.fmin
    positive = special.positive
    logaddexp = special.logaddexp
    logaddexp2 = special.logaddexp2
    float_power = special.float_power
    float_power_ = special._float_power_
    # shape
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
    fill_diagonal_ = shape.fill_diagonal_
    unbind = shape.unbind
    clone = shape.clone
    contiguous = shape.contiguous
    to = shape.to
    __getitem__ = shape.getitem
    __setitem__ = shape.setitem
    float = shape._cast_method(dtypes.float32)
    double = shape._cast_method(dtypes.float64)
    half = shape._cast_method(dtypes.float16)
    bfloat16 = shape._cast_method(dtypes.bfloat16)
    long = shape._cast_method(dtypes.int64)
    int = shape._cast_method(dtypes.int32)
    short = shape._cast_method(dtypes.int16)
    bool = shape._cast_method(dtypes.bool)
    byte = shape._cast_method(dtypes.uint8)
    char = shape._cast_method(dtypes.int8)
    cpu = shape.cpu
    cuda = shape.cuda
    # movement
    flip = movement.flip
    roll = movement.roll
    gather = movement.gather
    scatter = movement.scatter
    scatter_add = movement.scatter_add
    index_select = movement.index_select
    index_add = movement.index_add
    index_copy = movement.index_copy
    index_fill = movement.index_fill
    masked_fill = movement.masked_fill
    masked_scatter = movement.masked_scatter
    masked_select = movement.masked_select
    nonzero = movement.nonzero
    take = movement.take
    flatten = movement.flatten
    unflatten = movement.unflatten
    repeat = movement.repeat
    tile = movement.tile
    movedim = movement.movedim
    moveaxis = movement.movedim
    swapaxes = movement.swapaxes
    swapdims = movement.swapaxes
    split = movement.split
    chunk = movement.chunk
    tensor_split = movement.tensor_split
    exponential_ = movement.exponential_
    # tensor_extras
    addbmm = tensor_extras.addbmm
    addmv = tensor_extras.addmv
    addr = tensor_extras.addr
    baddbmm = tensor_extras.baddbmm
    broadcast_to = tensor_extras.broadcast_to
    conj = tensor_extras.conj
    corrcoef = tensor_extras.corrcoef
    count_nonzero = tensor_extras.count_nonzero
    cov = tensor_extras.cov
    cross = tensor_extras.cross
    cummax = tensor_extras.cummax
    cummin = tensor_extras.cummin
    diag_embed = tensor_extras.diag_embed
    diagflat = tensor_extras.diagflat
    diff = tensor_extras.diff
    fliplr = tensor_extras.fliplr
    flipud = tensor_extras.flipud
    inner = tensor_extras.inner
    isclose = tensor_extras.isclose
    kron = tensor_extras.kron
    kthvalue = tensor_extras.kthvalue
    matrix_power = tensor_extras.matrix_power
    nanmean = tensor_extras.nanmean
    nanquantile = tensor_extras.nanquantile
    nansum = tensor_extras.nansum
    quantile = tensor_extras.quantile
    ravel = tensor_extras.ravel
    repeat_interleave = tensor_extras.repeat_interleave
    rot90 = tensor_extras.rot90
    take_along_dim = tensor_extras.take_along_dim
    allclose = tensor_extras.allclose
    equal = tensor_extras.equal
    is_signed = tensor_extras.is_signed
    new_zeros = tensor_extras.new_zeros
    new_ones = tensor_extras.new_ones
    new_empty = tensor_extras.new_empty
    new_full = tensor_extras.new_full
    new_tensor = tensor_extras.new_tensor
    get_device = tensor_extras._get_device
    real = property(tensor_extras.real)
    imag = property(tensor_extras.imag)
    is_cpu = property(tensor_extras._is_cpu)
    itemsize = property(tensor_extras._itemsize)
    nbytes = property(tensor_extras._nbytes)
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


# What Python puts in every class body (`__hash__` = None because the table defines `__eq__`;
# Tensor keeps its own identity hash).
_CLASS_ATTRIBUTES = frozenset(
    ("__module__", "__qualname__", "__doc__", "__slots__", "__hash__", "__firstlineno__")
    + ("__static_attributes__",)
)


def _bind() -> None:
    """Copy the table onto Tensor (at import, once)."""
    for name, value in vars(TensorMethods).items():
        if name not in _CLASS_ATTRIBUTES:
            setattr(Tensor, name, value)


_bind()
