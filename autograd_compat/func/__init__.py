"""torch.func: composable function transforms (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap)
on JAX's own transforms, and the module helpers functional_call and stack_module_state.

The functions take and return this library's Tensors (pytrees of them), nest in each other
(`vmap(grad(f))`, `jacrev(jacfwd(f))`) and are recorded for torch.autograd like any op.
"""

from ._module import functional_call, stack_module_state
from ._transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
from ._vmap import vmap

__all__ = [
    "functional_call",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "stack_module_state",
    "vjp",
    "vmap",
]
