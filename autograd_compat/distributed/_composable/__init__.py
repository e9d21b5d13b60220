"""torch.distributed._composable: the module path FSDP2 had before `torch.distributed.fsdp`."""
