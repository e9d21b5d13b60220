"""torch.amp.GradScaler: loss scaling for mixed-precision training, PyTorch's algorithm.

`scale(loss)` multiplies by the scale factor; `step(optimizer)` unscales the gradients (once,
unless `unscale_` already did) and steps only if they are all finite; `update()` multiplies the
scale by `backoff_factor` after a skipped step, and by `growth_factor` after `growth_interval`
finite steps in a row. The scale is kept as a float32 number on the host: finding an inf reads
the gradients back anyway.
"""

from __future__ import annotations

import enum
import warnings
from collections import abc

import numpy as np

from .._pure import device as _device
from .._pure import dtypes as _dtypes
from .._state.modes import no_grad
from .._state.tensor import Tensor

__all__ = ["GradScaler", "OptState"]


class OptState(enum.Enum):
    """Where an optimizer is in the scaler's iteration."""

    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state() -> dict:
    return {"stage": OptState.READY, "found_inf": None}


class GradScaler:
    """Scale the loss so low-precision gradients do not underflow, as `torch.amp.GradScaler`.

    Args:
        device (str, optional): "cuda" or "cpu". Defaults to "cuda" (disabled, with a warning,
            when there is no GPU).
        init_scale (float, optional): the first scale factor. Defaults to 2.**16.
        growth_factor (float, optional): multiplies the scale after `growth_interval`
            consecutive steps without inf/NaN gradients. Defaults to 2.0.
        backoff_factor (float, optional): multiplies the scale after a step with inf/NaN
            gradients (which is skipped). Defaults to 0.5.
        growth_interval (int, optional): Defaults to 2000.
        enabled (bool, optional): False makes every method a pass-through (`step` just calls
            `optimizer.step()`). Defaults to True.

    Example::

        >>> model = nn.Linear(2, 1)
        >>> optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        >>> scaler = torch.amp.GradScaler("cpu")
        >>> loss = model(torch.ones(1, 2)).sum()
        >>> scaler.scale(loss).backward()
        >>> scaler.step(optimizer)
        >>> scaler.update()
        >>> scaler.get_scale()
        65536.0
    """

    def __init__(
        self,
        device: str = "cuda",
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled and not _device._jax_devices("gpu"):
            warnings.warn(
                "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                stacklevel=2,
            )
            self._enabled = False
        if growth_factor <= 1.0 and self._enabled:
            raise AssertionError("The growth factor must be > 1.0.")
        if backoff_factor >= 1.0 and self._enabled:
            raise AssertionError("The backoff factor must be < 1.0.")
        self._scale = float(np.float32(init_scale))
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._growth_tracker = 0
        self._per_optimizer_states: dict[int, dict] = {}

    def _state_of(self, optimizer) -> dict:
        return self._per_optimizer_states.setdefault(id(optimizer), _fresh_state())

    def scale(self, outputs):
        """`outputs` (a Tensor, or an iterable of them, nested) times the scale factor."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            return outputs * self._scale
        if isinstance(outputs, abc.Iterable):
            scaled = map(self.scale, outputs)
            return type(outputs)(scaled) if isinstance(outputs, (list, tuple)) else scaled
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def unscale_(self, optimizer) -> None:
        """Divide the gradients of `optimizer`'s parameters by the scale, in place, noting
        whether any is inf or NaN (once per optimizer per `update()`)."""
        if not self._enabled:
            return
        state = self._state_of(optimizer)
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = float(np.float32(1.0 / self._scale))
        found_inf = False
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    grad = param.grad
                    if grad is None:
                        continue
                    if grad.dtype is _dtypes.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    found_inf = found_inf or not bool(grad.isfinite().all())
                    grad.mul_(inv_scale)
        state["found_inf"] = found_inf
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """Unscale (unless `unscale_` did) and call `optimizer.step(*args, **kwargs)`, unless a
        gradient is inf or NaN: then the step is skipped and None returned."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        state = self._state_of(optimizer)
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return result

    def update(self, new_scale: float | Tensor | None = None) -> None:
        """Back off after a skipped step, grow after `growth_interval` good ones; or set
        `new_scale` (a float, or a one-element Tensor that does not require grad)."""
        if not self._enabled:
            return
        if new_scale is not None:
            if isinstance(new_scale, Tensor) and (
                new_scale.numel() != 1 or new_scale.requires_grad
            ):
                raise AssertionError(
                    "new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                    "torch.FloatTensor with requires_grad=False."
                )
            self._scale = float(np.float32(float(new_scale)))
        else:
            found = [s["found_inf"] for s in self._per_optimizer_states.values()]
            found = [f for f in found if f is not None]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            self._update_scale(any(found))
        self._per_optimizer_states = {}

    def _update_scale(self, found_inf: bool) -> None:
        """PyTorch's `_amp_update_scale_`, in float32."""
        if found_inf:
            self._scale = float(np.float32(self._scale) * np.float32(self._backoff_factor))
            self._growth_tracker = 0
            return
        successful = self._growth_tracker + 1
        if successful == self._growth_interval:
            grown = np.float32(self._scale) * np.float32(self._growth_factor)
            if np.isfinite(grown):
                self._scale = float(grown)
            successful = 0
        self._growth_tracker = successful

    def get_scale(self) -> float:
        """The current scale factor (1.0 when disabled)."""
        return self._scale if self._enabled else 1.0

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict:
        """scale, growth_factor, backoff_factor, growth_interval and _growth_tracker (empty
        when disabled)."""
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._growth_tracker,
        }

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore what `state_dict()` returned (a no-op when disabled)."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved "
                "from a disabled instance of GradScaler."
            )
        self._scale = float(state_dict["scale"])
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._growth_tracker = int(state_dict["_growth_tracker"])
