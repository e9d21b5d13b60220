"""What the tests share: the PyTorch oracle (`torch_compare`), subprocess runners and the
scripts they launch, and the repository's paths."""
