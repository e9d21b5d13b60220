"""torch.linalg (in progress)."""
