"""The Summary protocol buffers SummaryWriter writes (`torch.utils.tensorboard.summary`):
scalars, histograms, images, precision-recall curves, text, hparams.

Built from tensorboard's own protos, with the fields and tags PyTorch's writer fills, so
TensorBoard (and `EventAccumulator`) reads our runs as it reads PyTorch's.
"""

from __future__ import annotations

import io

import numpy as np
from google.protobuf import struct_pb2
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.hparams import api_pb2, metadata, plugin_data_pb2
from tensorboard.plugins.pr_curve.plugin_data_pb2 import PrCurvePluginData
from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

from ..._pure import dtypes
from ..._state.tensor import Tensor
from ._utils import convert_to_HWC

__all__ = [
    "compute_curve",
    "default_bins",
    "hparams",
    "histogram",
    "image",
    "make_image",
    "make_np",
    "pr_curve",
    "scalar",
    "text",
]
_PR_THRESHOLDS_MAX = 127  # more thresholds than this break the pr_curves plugin's proto
_MINIMUM_COUNT = 1e-7  # the denominators' floor in precision and recall


def make_np(x) -> np.ndarray:
    """A numpy array of a Tensor (detached; bfloat16 read as float16), array or number."""
    if isinstance(x, np.ndarray):
        return x
    if np.isscalar(x):
        return np.array([x])
    if isinstance(x, Tensor):
        if x.dtype == dtypes.bfloat16:
            x = x.half()
        return x.detach().cpu().numpy()
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")


def scalar(tag: str, value, new_style: bool = False, double_precision: bool = False) -> Summary:
    """One scalar: `simple_value` (old style), or a float/double tensor for the scalars plugin."""
    array = make_np(value).squeeze()
    if array.ndim != 0:
        raise AssertionError(
            "Tensor should contain one element (0 dimensions). "
            f"Was given size: {array.size} and {array.ndim} dimensions."
        )
    number = float(array)
    if not new_style:
        return Summary(value=[Summary.Value(tag=tag, simple_value=number)])
    if double_precision:
        proto = TensorProto(double_val=[number], dtype="DT_DOUBLE")
    else:
        proto = TensorProto(float_val=[number], dtype="DT_FLOAT")
    plugin = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=tag, tensor=proto, metadata=plugin)])


def default_bins() -> list[float]:
    """TensorFlow's histogram bucket edges: +-1e-12 growing by 1.1 up to 1e20, and 0."""
    edges = []
    edge = 1e-12
    while edge < 1e20:
        edges.append(edge)
        edge *= 1.1
    return [-e for e in reversed(edges)] + [0] + edges


def histogram(tag: str, values, bins, max_bins: int | None = None) -> Summary:
    """A histogram of `values` over `bins` (numpy.histogram's argument), trimmed to the
    buckets that hold values plus one empty bucket on the left, as TensorBoard expects."""
    flat = make_np(values).astype(float).reshape(-1)
    if flat.size == 0:
        raise ValueError("The input has no element.")
    counts, limits = np.histogram(flat, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        counts, limits = _merge_buckets(counts, limits, len(counts) // max_bins)
    filled = np.nonzero(counts)[0]
    if filled.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    start, end = int(filled[0]), int(filled[-1]) + 1
    counts = counts[start - 1 : end] if start > 0 else np.concatenate([[0], counts[:end]])
    proto = HistogramProto(
        min=flat.min(),
        max=flat.max(),
        num=len(flat),
        sum=flat.sum(),
        sum_squares=flat.dot(flat),
        bucket_limit=limits[start : end + 1].tolist(),
        bucket=counts.tolist(),
    )
    return Summary(value=[Summary.Value(tag=tag, histo=proto)])


def _merge_buckets(counts: np.ndarray, limits: np.ndarray, group: int):
    """Sum every `group` neighbouring buckets (the last group padded with empty ones)."""
    remainder = len(counts) % group
    if remainder:
        counts = np.pad(counts, (0, group - remainder))
    counts = counts.reshape(-1, group).sum(axis=-1)
    merged = np.empty(counts.size + 1, limits.dtype)
    merged[:-1] = limits[:-1:group]
    merged[-1] = limits[-1]
    return counts, merged


def text(tag: str, string: str) -> Summary:
    """A string for the text plugin, under `<tag>/text_summary` as PyTorch names it."""
    plugin = SummaryMetadata.PluginData(
        plugin_name="text", content=TextPluginData(version=0).SerializeToString()
    )
    proto = TensorProto(
        dtype="DT_STRING",
        string_val=[string.encode("utf_8")],
        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]),
    )
    summary_metadata = SummaryMetadata(plugin_data=plugin)
    value = Summary.Value(tag=f"{tag}/text_summary", metadata=summary_metadata, tensor=proto)
    return Summary(value=[value])


def _plugin_summary(tag: str, **content) -> Summary:
    data = plugin_data_pb2.HParamsPluginData(version=metadata.PLUGIN_DATA_VERSION, **content)
    plugin = SummaryMetadata.PluginData(
        plugin_name=metadata.PLUGIN_NAME, content=data.SerializeToString()
    )
    return Summary(value=[Summary.Value(tag=tag, metadata=SummaryMetadata(plugin_data=plugin))])


def hparams(hparam_dict: dict, metric_dict: dict, domains: dict | None = None) -> tuple:
    """The hparams plugin's three summaries: experiment, session start, session end."""
    domains = domains or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for name, values in domains.items():
        if (
            name not in hparam_dict
            or not isinstance(values, list)
            or not all(isinstance(v, type(hparam_dict[name])) for v in values)
        ):
            raise TypeError(
                f"parameter: hparam_domain_discrete[{name}] should be a list of same type as "
                f"hparam_dict[{name}]."
            )
    start = plugin_data_pb2.SessionStartInfo()
    infos = []
    for name, value in hparam_dict.items():
        if value is None:
            continue
        if isinstance(value, Tensor):
            value = float(make_np(value).reshape(-1)[0])
        if isinstance(value, (int, float)):  # a bool too, as in PyTorch
            field, data_type = "number_value", "DATA_TYPE_FLOAT64"
        elif isinstance(value, str):
            field, data_type = "string_value", "DATA_TYPE_STRING"
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        setattr(start.hparams[name], field, value)
        domain = None
        if name in domains:
            domain = struct_pb2.ListValue(
                values=[struct_pb2.Value(**{field: v}) for v in domains[name]]
            )
        infos.append(
            api_pb2.HParamInfo(
                name=name, type=api_pb2.DataType.Value(data_type), domain_discrete=domain
            )
        )
    metrics = [api_pb2.MetricInfo(name=api_pb2.MetricName(tag=k)) for k in metric_dict]
    experiment = api_pb2.Experiment(hparam_infos=infos, metric_infos=metrics)
    end = plugin_data_pb2.SessionEndInfo(status=api_pb2.Status.Value("STATUS_SUCCESS"))
    return (
        _plugin_summary(metadata.EXPERIMENT_TAG, experiment=experiment),
        _plugin_summary(metadata.SESSION_START_INFO_TAG, session_start_info=start),
        _plugin_summary(metadata.SESSION_END_INFO_TAG, session_end_info=end),
    )


def make_image(tensor: np.ndarray, rescale: float = 1) -> Summary.Image:
    """An H x W x C uint8 array as a PNG `Summary.Image` (scaled by `rescale`, Lanczos),
    with the unscaled height and width recorded, as PyTorch's writer does."""
    from PIL import Image  # optional: only images need it (matplotlib brings it)

    height, width, channels = tensor.shape
    picture = Image.fromarray(tensor).resize(
        (int(width * rescale), int(height * rescale)), Image.Resampling.LANCZOS
    )
    with io.BytesIO() as output:
        picture.save(output, format="PNG")
        encoded = output.getvalue()
    return Summary.Image(
        height=height, width=width, colorspace=channels, encoded_image_string=encoded
    )


def image(tag: str, tensor, rescale: float = 1, dataformats: str = "NCHW") -> Summary:
    """One image (or a batch tiled into a grid) laid out as `dataformats` says: uint8
    values as they are, any other type taken in [0, 1] and scaled to [0, 255], clipped."""
    array = convert_to_HWC(make_np(tensor), dataformats)
    scale = 1 if array.dtype == np.uint8 else 255
    pixels = (array.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
    return Summary(value=[Summary.Value(tag=tag, image=make_image(pixels, rescale))])


def compute_curve(labels, predictions, num_thresholds: int = 127, weights=None) -> np.ndarray:
    """TensorBoard's precision-recall data: the rows true positives, false positives, true
    negatives, false negatives, precision and recall at `num_thresholds` thresholds evenly
    spaced over [0, 1] (predictions in [0, 1], labels 0 or 1, optional weights)."""
    weight = 1.0 if weights is None else weights
    buckets = np.int32(np.floor(predictions * (num_thresholds - 1)))
    positive = labels.astype(np.float64)
    span = (0, num_thresholds - 1)
    tp_buckets, _ = np.histogram(buckets, num_thresholds, span, weights=positive * weight)
    fp_buckets, _ = np.histogram(buckets, num_thresholds, span, weights=(1 - positive) * weight)
    tp = np.cumsum(tp_buckets[::-1])[::-1]  # counts at or above each threshold
    fp = np.cumsum(fp_buckets[::-1])[::-1]
    tn, fn = fp[0] - fp, tp[0] - tp
    precision = tp / np.maximum(_MINIMUM_COUNT, tp + fp)
    recall = tp / np.maximum(_MINIMUM_COUNT, tp + fn)
    return np.stack((tp, fp, tn, fn, precision, recall))


def pr_curve(tag: str, labels, predictions, num_thresholds: int = 127, weights=None) -> Summary:
    """A precision-recall curve for the pr_curves plugin (at most 127 thresholds)."""
    num_thresholds = min(num_thresholds, _PR_THRESHOLDS_MAX)
    data = compute_curve(labels, predictions, num_thresholds, weights)
    content = PrCurvePluginData(version=0, num_thresholds=num_thresholds).SerializeToString()
    plugin = SummaryMetadata.PluginData(plugin_name="pr_curves", content=content)
    proto = TensorProto(
        dtype="DT_FLOAT",
        float_val=data.reshape(-1).tolist(),
        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=n) for n in data.shape]),
    )
    value = Summary.Value(tag=tag, metadata=SummaryMetadata(plugin_data=plugin), tensor=proto)
    return Summary(value=[value])
