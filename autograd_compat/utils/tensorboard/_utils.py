"""Image layouts for TensorBoard: matplotlib figures rendered to arrays, batches tiled into
one grid, and any of PyTorch's `dataformats` ("NCHW", "CHW", "HWC", "HW", ...) brought to
height x width x 3 channels, as `torch.utils.tensorboard._utils` does."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["convert_to_HWC", "figure_to_image", "make_grid"]


def figure_to_image(figures, close: bool = True) -> np.ndarray:
    """A matplotlib figure rendered as a CHW uint8 RGB array (a list of them: NCHW), closed
    afterwards unless `close` is False."""
    import matplotlib.pyplot as plt  # optional: only figures need it
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    def render(figure) -> np.ndarray:
        canvas = FigureCanvasAgg(figure)
        canvas.draw()
        width, height = figure.canvas.get_width_height()
        rgba = np.frombuffer(canvas.buffer_rgba(), dtype=np.uint8).reshape(height, width, 4)
        if close:
            plt.close(figure)
        return np.moveaxis(rgba[:, :, :3], 2, 0)

    if isinstance(figures, list):
        return np.stack([render(figure) for figure in figures])
    return render(figures)


def make_grid(images: np.ndarray, ncols: int = 8) -> np.ndarray:
    """N images (N x 1 or 3 x H x W) tiled row by row into one 3 x rows*H x cols*W image,
    at most `ncols` per row; empty cells are zeros."""
    if not isinstance(images, np.ndarray):
        raise AssertionError("plugin error, should pass numpy array here")
    if images.shape[1] == 1:
        images = np.concatenate([images, images, images], 1)
    if images.ndim != 4 or images.shape[1] != 3:
        raise AssertionError("Input should be a 4D numpy array with 3 channels")
    count, _, height, width = images.shape
    ncols = min(count, ncols)
    nrows = math.ceil(count / ncols)
    canvas = np.zeros((3, height * nrows, width * ncols), dtype=images.dtype)
    for index in range(count):
        row, col = divmod(index, ncols)
        canvas[:, row * height : (row + 1) * height, col * width : (col + 1) * width] = images[
            index
        ]
    return canvas


def convert_to_HWC(tensor: np.ndarray, input_format: str) -> np.ndarray:  # noqa: N802
    """`tensor`, laid out as `input_format` says, as height x width x channels: a batch
    ("N...") tiled by `make_grid`, one channel or none repeated to three."""
    if len(set(input_format)) != len(input_format):
        raise AssertionError(
            f"You can not use the same dimension shorthand twice. input_format: {input_format}"
        )
    if tensor.ndim != len(input_format):
        raise AssertionError(
            "size of input tensor and input format are different. "
            f"tensor shape: {tensor.shape}, input_format: {input_format}"
        )
    input_format = input_format.upper()
    if len(input_format) == 4:
        nchw = tensor.transpose([input_format.find(c) for c in "NCHW"])
        return make_grid(nchw).transpose(1, 2, 0)
    if len(input_format) == 3:
        hwc = tensor.transpose([input_format.find(c) for c in "HWC"])
        if hwc.shape[2] == 1:
            hwc = np.concatenate([hwc, hwc, hwc], 2)
        return hwc
    if len(input_format) == 2:
        hw = tensor.transpose([input_format.find(c) for c in "HW"])
        return np.stack([hw, hw, hw], 2)
    raise AssertionError(f"input_format {input_format!r} is not one of N/C/H/W layouts")
