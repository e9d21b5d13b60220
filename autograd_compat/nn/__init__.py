"""torch.nn (in progress)."""
