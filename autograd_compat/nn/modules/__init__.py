"""torch.nn.modules: every layer class, as PyTorch's package lays them out.

`batchnorm`, `padding` and `upsampling` name the files PyTorch keeps those layers in, so
`from torch.nn.modules.batchnorm import BatchNorm2d` works under the alias. `utils` (`_pair`
and kin) is imported where used, never here: `torch.nn`'s star import of this package would
bind it over `torch.nn.utils`.
"""

from ..._alias import missing_attribute as _missing_attribute
from . import misc as padding
from . import misc as upsampling
from . import normalization as batchnorm
from .activation import *
from .attention import MultiheadAttention
from .channelshuffle import *
from .container import *
from .conv import *
from .distance import *
from .dropout import *
from .embedding_bag import *
from .flatten import *
from .fold import *
from .instancenorm import *
from .lazy import *
from .linear import *
from .linear_cross_entropy_options import LinearCrossEntropyOptions
from .loss import *
from .misc import *
from .module import Module
from .normalization import *
from .pixelshuffle import *
from .pooling import *
from .rnn import *
from .sparse import *
from .transformer import *


def __getattr__(name: str):
    return _missing_attribute(__name__, name)
