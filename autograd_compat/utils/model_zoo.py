"""torch.utils.model_zoo: `load_url`, torch.hub's `load_state_dict_from_url` by its old name."""

from ..hub import load_state_dict_from_url as load_url
from ..hub import tqdm

__all__ = ["load_url", "tqdm"]
