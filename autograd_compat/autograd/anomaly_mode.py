"""torch.autograd.anomaly_mode: detect_anomaly and set_detect_anomaly (see `_anomaly`)."""

from __future__ import annotations

from .._tape.anomaly import detect_anomaly as detect_anomaly
from .._tape.anomaly import is_anomaly_check_nan_enabled as is_anomaly_check_nan_enabled
from .._tape.anomaly import is_anomaly_enabled as is_anomaly_enabled
from .._tape.anomaly import set_anomaly_enabled as set_anomaly_enabled
from .._tape.anomaly import set_detect_anomaly as set_detect_anomaly

__all__ = [
    "detect_anomaly",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "set_anomaly_enabled",
    "set_detect_anomaly",
]
