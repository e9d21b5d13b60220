"""The operator registry and `torch.ops` behind torch.library (PyTorch's torch._library)."""
