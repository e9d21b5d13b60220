"""torch.optim: SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adafactor, NAdam, RAdam, Adamax,
ASGD, Rprop, LBFGS, Muon (SparseAdam refuses: no sparse gradients) and the lr schedulers;
swa_utils averages weights (SWA, EMA).

The update rules were checked against PyTorch's (torch/optim/*.py, the single-tensor paths
PyTorch takes for CPU tensors) step by step, including the order of operations and where
Python-float hyperparameters are cast to the parameter dtype; the tests compare trajectories
against PyTorch over several steps. Each optimizer's update is one pure function of
(params, grads, state, hyperparameters), jitted once per parameter structure with the
hyperparameters as array inputs, so a scheduler changing lr does not recompile.

optax is not used: runtime dependencies are jax and numpy only, and optax's rules differ
from PyTorch's in ways that change the numbers (PyTorch's Adam applies weight_decay as L2 on
the gradient, unlike optax.adamw's decoupled decay; PyTorch's first momentum buffer is the
gradient itself, its eps placement and bias corrections differ, and its state layout is
what state_dict() must reproduce).
"""

from .._alias import missing_attribute as _missing_attribute
from . import lr_scheduler, swa_utils
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adam_variants import Adamax, NAdam, RAdam
from .asgd_rprop import ASGD, Rprop, SparseAdam
from .lbfgs import LBFGS
from .muon import Muon
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = [
    "ASGD",
    "LBFGS",
    "SGD",
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "Muon",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "Rprop",
    "SparseAdam",
    "lr_scheduler",
    "swa_utils",
]


def __getattr__(name: str):
    return _missing_attribute(__name__, name)
