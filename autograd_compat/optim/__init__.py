"""torch.optim (in progress)."""
