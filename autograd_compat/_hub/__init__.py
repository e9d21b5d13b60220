"""torch.hub's machinery: downloads (`download.py`) and GitHub repositories (`repos.py`)."""
