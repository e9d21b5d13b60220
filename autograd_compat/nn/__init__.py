"""torch.nn: Module, Parameter, the layers and losses, functional, init and utils.

Every layer is a Module whose forward calls one fused op from `nn.functional` (a pure JAX
function, differentiated by jax.vjp). Parameter names, state_dict keys, default
initializations, reprs and error messages are PyTorch's.
"""

import importlib

from .._alias import missing_attribute as _missing_attribute
from . import functional, init, modules, parallel, parameter, utils
from .modules import *  # noqa: F403
from .modules.module import Module, register_module_forward_hook, register_module_forward_pre_hook
from .parallel import DataParallel
from .parameter import Buffer, Parameter

# torch.nn.attention is a package; the star import above bound `attention` to modules.attention,
# and `from . import attention` would keep that binding.
attention = importlib.import_module(f"{__name__}.attention")


def __getattr__(name: str):
    return _missing_attribute(__name__, name)
