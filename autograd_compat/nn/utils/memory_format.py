"""torch.nn.utils.memory_format: convolution weights converted to a memory format (channels
last), for code that prepares a model for NHWC kernels."""

from __future__ import annotations

from ..modules.conv import Conv2d, Conv3d, ConvTranspose2d, ConvTranspose3d

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, kinds: tuple, memory_format):
    """`module` with the weight of every layer of `kinds` in it cloned to `memory_format`."""
    if isinstance(module, kinds):
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, kinds, memory_format)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Every Conv2d and ConvTranspose2d weight in `module` in `memory_format`; the module."""
    return _convert(module, (Conv2d, ConvTranspose2d), memory_format)


def convert_conv3d_weight_memory_format(module, memory_format):
    """Every Conv3d and ConvTranspose3d weight in `module` in `memory_format`; the module."""
    return _convert(module, (Conv3d, ConvTranspose3d), memory_format)
