"""torch.utils.data (in progress)."""
