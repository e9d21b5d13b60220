"""PyTorch's error texts, verbatim, shared by the code that raises them and the tests.

Users search for these strings, so they are kept exactly as PyTorch prints them; a JAX-specific
hint may follow the PyTorch text but never replaces it.
"""

import jax

NO_GRAD_FN = "element {index} of tensors does not require grad and does not have a grad_fn"
IMPLICIT_GRAD = "grad can be implicitly created only for scalar outputs"
BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)
UNUSED_INPUT = (
    "The differentiated Tensor at index {index} appears to not have been used in the graph. "
    "Set allow_unused=True if this is the desired behavior."
)
FLOAT_REQUIRES_GRAD = "Only Tensors of floating point and complex dtype can require gradients"
FLOAT_REQUIRES_GRAD_INPLACE = "only Tensors of floating point dtype can require gradients"
FLOAT_REQUIRES_GRAD_SET = "only Tensors of floating point and complex dtype can require gradients"
FORWARD_GRAD_SIZE = (
    "Trying to set a forward gradient that has a different size than that of the original "
    "Tensor, this is not supported. Tensor is of size {tensor} while the given forward "
    "gradient is of size {tangent}."
)
NON_LEAF_REQUIRES_GRAD = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
)
LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
BYTE_ORDER = (
    "given numpy array has byte order different from the native byte order. Conversion "
    "between byte orders is currently not supported."
)
NUMPY_REQUIRES_GRAD = (
    "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
)
GRAD_SHAPE_MISMATCH = (
    "Mismatch in shape: grad_output[{index}] has a shape of {grad_shape} and output[{index}] "
    "has a shape of {out_shape}."
)
BOTH_GRAD_SPELLINGS = (
    "`grad_tensors` and `grad_variables` (deprecated) arguments both passed to `backward()`. "
    "Please only use `grad_tensors`."
)
BOTH_TENSOR_SPELLINGS = (
    "`tensors` and `variables` (deprecated) arguments both passed to `backward()`. "
    "Please only use `tensors`."
)
NON_LEAF_GRAD_ACCESS = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information."
)
MODIFIED_INPLACE = (
    "one of the variables needed for gradient computation has been modified by an inplace "
    "operation: [{type_name} {shape}]{producer}, is at version {version}; expected version "
    "{expected} instead. Hint: enable anomaly detection to find the operation that failed to "
    "compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
)
SET_REQUIRES_GRAD_NON_LEAF = "you can only change requires_grad flags of leaf variables."
RETAIN_GRAD_NO_GRAD = "can't retain_grad on Tensor that has requires_grad=False"
GRAD_ASSIGN_SIZE = (
    "attempting to assign a gradient of size '{grad_shape}' to a tensor of size '{shape}'. "
    "Please ensure that the gradient and the tensor are the same size"
)
GRAD_ASSIGN_DTYPE = (
    "attempting to assign a gradient with dtype '{grad_dtype}' to a tensor with grad_dtype "
    "'{dtype}'. The gradient must match the tensor's grad_dtype (defaults to the tensor's dtype)."
    " You can set the tensor's grad_dtype attribute with a specific dtype, or None to allow any "
    "dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may "
    "break downstream systems that assume they match."
)
# The C++ element type names PyTorch prints for the assigned gradient in GRAD_ASSIGN_DTYPE.
CPP_TYPE_NAMES = {
    "float16": "c10::Half",
    "bfloat16": "c10::BFloat16",
    "float32": "float",
    "float64": "double",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}
GRAD_ASSIGN_TYPE = "assigned grad expected to be a Tensor or None but got grad of type {type_name}"
BROADCAST = (
    "The size of tensor a ({size_a}) must match the size of tensor b ({size_b}) at "
    "non-singleton dimension {dim}"
)
DIM_OUT_OF_RANGE = (
    "Dimension out of range (expected to be in range of [{low}, {high}], but got {dim})"
)
INDEX_OUT_OF_RANGE = "index {index} is out of bounds for dimension {dim} with size {size}"
INVALID_VIEW_SHAPE = "shape '{shape}' is invalid for input of size {numel}"
SCALAR_CONVERSION = "a Tensor with {numel} elements cannot be converted to Scalar"
AMBIGUOUS_BOOL = "Boolean value of Tensor with more than one value is ambiguous"
NO_CUDA = "Torch not compiled with CUDA enabled"
INFERENCE_REQUIRES_GRAD = (
    "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
)
INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details."
)
SAME_DEVICE = (
    "Expected all tensors to be on the same device, but found at least two devices, "
    "{first} and {second}!"
)
SCALAR_OF_REQUIRES_GRAD = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first."
)


class TapeFallback(Exception):
    """Raised inside an autograd.functional trace when the traced code needs the tape
    (a custom Function's backward is Python, not a JAX function); functional then runs
    PyTorch's tape-based algorithm instead."""


# What tracing a function raises when it reads a traced value as a concrete one: callers
# fall back to a path that does not trace.
TRACE_ERRORS = (
    jax.errors.ConcretizationTypeError,
    jax.errors.TracerArrayConversionError,
    jax.errors.TracerIntegerConversionError,
    jax.errors.TracerBoolConversionError,
    jax.errors.UnexpectedTracerError,
    TapeFallback,
)


class GraphBreak(Exception):
    """What a torch.compile trace must not trace (a torch.compiler.disable function, a
    printed tensor, a data-dependent shape): the compiled call runs eagerly instead."""


class DataDependentError(RuntimeError, GraphBreak):
    """An op whose output shape depends on its input's values, asked to run on traced values
    (under jax.jit, jax.vmap, jax.grad or torch.compile)."""


class DataDependentIndexError(IndexError, GraphBreak):
    """Boolean-mask indexing (a data-dependent shape) on traced values."""


# What makes a torch.compile call run eagerly instead of failing (a graph break).
GRAPH_BREAKS = (*TRACE_ERRORS, GraphBreak)
