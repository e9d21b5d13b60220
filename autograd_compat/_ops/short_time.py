"""The short-time Fourier transform and its inverse: torch.stft and torch.istft.

Each is one registered op, a pure JAX function of the signal (or spectrum) and the optional
window: framing is a gather of overlapping windows, the transform `jnp.fft`, and the inverse's
overlap-add a scatter-add divided by the summed squared window (PyTorch's least-squares
estimate). Centre padding (`pad_mode`) is `F.pad` before the op, as PyTorch's Python wrapper
does it; the 1-D squeeze, the tail padding of `length` and `view_as_real` are ops after it,
so the outer nodes are PyTorch's.
"""

from __future__ import annotations

import functools
import warnings

import jax.numpy as jnp
import numpy as np
from jax import lax

from .._pure.op import register
from .._tape.args import is_tracer, scalar_type_name, tensor_arg
from .._tape.record import apply
from .joining import view_as_real
from .nn.padding import pad

__all__ = ["istft", "stft"]


def _frame_positions(frames: int, n_fft: int, hop: int) -> np.ndarray:
    """(frames, n_fft) indices of each frame's samples in the signal."""
    return hop * np.arange(frames)[:, None] + np.arange(n_fft)[None, :]


def _full_window(window, *, n_fft, win_length, dtype):
    """The window zero-padded on both sides to `n_fft` (ones of `win_length` when None)."""
    if window is None:
        window = jnp.ones((win_length,), dtype)
    left = (n_fft - win_length) // 2
    return jnp.pad(window, (left, n_fft - win_length - left))


def _by_parts(fn, x):
    """`fn(x)` for a linear `fn`, a complex `x` through its real and imaginary parts: XLA:CPU
    with its fusion pass off (the deferred runs' programs) miscompiles complex transposes
    followed by a reshape, which gathers and scatters along an inner dim hold."""
    if jnp.iscomplexobj(x):
        return lax.complex(fn(x.real), fn(x.imag))
    return fn(x)


def _stft(x, *window, n_fft, hop, win_length, onesided, norm):
    """(batch, length) signal -> (batch, frames, frequencies) spectrum."""
    frames = 1 + (x.shape[-1] - n_fft) // hop
    positions = _frame_positions(frames, n_fft, hop)
    framed = _by_parts(lambda part: part[:, positions], x)
    if window or win_length < n_fft:
        w = window[0] if window else None
        framed = framed * _full_window(w, n_fft=n_fft, win_length=win_length, dtype=x.dtype)
    transform = jnp.fft.rfft if onesided else jnp.fft.fft
    return transform(framed, axis=-1, norm=norm)


def _istft(spec, *window, n_fft, hop, win_length, onesided, two_sided, norm, start, end):
    """(batch, frequencies, frames) spectrum -> (batch, end - start) signal: the inverse
    transform of each frame, windowed, overlap-added and divided by the window envelope."""
    frames = spec.shape[-1]
    spec = _by_parts(lambda part: jnp.swapaxes(part, 1, 2), spec)
    real_dtype = jnp.finfo(spec.dtype).dtype
    w = _full_window(
        window[0] if window else None, n_fft=n_fft, win_length=win_length, dtype=real_dtype
    )
    if two_sided:
        signal = jnp.fft.ifft(spec, axis=-1, norm=norm)
    else:
        if not onesided:
            spec = spec[..., : n_fft // 2 + 1]
        signal = jnp.fft.irfft(spec, n=n_fft, axis=-1, norm=norm)
    length = n_fft + hop * (frames - 1)
    positions = _frame_positions(frames, n_fft, hop).reshape(-1)
    batch = signal.shape[0]
    y = _by_parts(
        lambda part: (
            jnp.zeros((batch, length), part.dtype).at[:, positions].add(part.reshape(batch, -1))
        ),
        signal * w,
    )
    envelope = _by_parts(
        lambda part: jnp.zeros((length,), part.dtype).at[positions].add(part),
        jnp.tile(w * w, frames),
    )
    return y[:, start:end] / envelope[start:end]


_STFT = register("stft", _stft, node="FftR2CBackward0")
_ISTFT = register("istft", _istft, node="DivBackward0")


# ----------------------------------------------------------------------------- messages
def _flag(value) -> str:
    """A C++ stream's rendering of an optional bool or int (1/0, None)."""
    return "None" if value is None else str(int(value))


def _window_text(window) -> str:
    return "None" if window is None else f"{window.type()}{{{list(window.shape)}}}"


@functools.cache
def _warn_no_window(name: str, text: str) -> None:
    """PyTorch's once-per-process warning that no window was given (TORCH_WARN_ONCE)."""
    warnings.warn(
        f"A window was not provided. A rectangular window will be applied,{text}To suppress "
        "this warning and use a rectangular window, explicitly set `window=torch.ones(n_fft, "
        "device=<device>)`.",
        UserWarning,
        stacklevel=4,
    )


@functools.cache
def _warn_real_output() -> None:
    warnings.warn(
        "stft with return_complex=False is deprecated. In a future pytorch release, stft will "
        "return complex tensors for all inputs, and return_complex=False will raise an error.\n"
        "Note: you can still call torch.view_as_real on the complex output to recover the old "
        "return format.",
        UserWarning,
        stacklevel=4,
    )


# ----------------------------------------------------------------------------- stft
class _Frames:
    """The frame parameters both transforms resolve the same way."""

    def __init__(self, n_fft: int, hop_length, win_length) -> None:
        self.n_fft = int(n_fft)
        self.hop = self.n_fft // 4 if hop_length is None else int(hop_length)
        self.win_length = self.n_fft if win_length is None else int(win_length)


def stft(
    input,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window=None,
    center: bool = True,
    pad_mode: str = "reflect",
    normalized: bool = False,
    onesided: bool | None = None,
    return_complex: bool | None = None,
    align_to_window: bool | None = None,
):
    """Short-time Fourier transform of a 1-D signal or a 2-D batch of signals.

    Returns the spectrum of each frame, shape `(B?, N, T)`: N frequencies (`n_fft // 2 + 1`
    when `onesided`, the default for real input and window), T frames of `n_fft` samples
    `hop_length` apart (the input padded by `n_fft // 2` on both sides with `pad_mode` when
    `center`). `return_complex` must be given for real inputs; False gives real pairs.

    Example:
        >>> torch.stft(torch.ones(8), 4, window=torch.ones(4), return_complex=True).shape
        torch.Size([3, 9])
    """
    tensor_arg(input, "stft")
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:
        ndim = input.ndim
        padded = pad(
            input.view((1,) * (3 - ndim) + tuple(input.shape)), (n_fft // 2,) * 2, pad_mode
        )
        input = padded.view(tuple(padded.shape[-ndim:]))
    p = _Frames(n_fft, hop_length, win_length)

    def fail(text: str):
        return RuntimeError(
            f"stft({input.type()}{list(input.shape)}, n_fft={p.n_fft}, hop_length={p.hop}, "
            f"win_length={p.win_length}, window={_window_text(window)}, "
            f"normalized={_flag(normalized)}, onesided={_flag(onesided)}, "
            f"return_complex={_flag(return_complex)}, align_to_window={_flag(align_to_window)}"
            f") : {text}"
        )

    if window is None:
        _warn_no_window(
            "stft",
            "which is known to cause spectral leakage. Other windows such as "
            "torch.hann_window or torch.hamming_window are recommended to reduce spectral "
            "leakage.",
        )
    complex_in = input.dtype.is_complex or (window is not None and window.dtype.is_complex)
    if not (complex_in or return_complex):
        if return_complex is None:
            raise RuntimeError(
                "stft requires the return_complex parameter be given for real inputs, and will "
                "further require that return_complex=True in a future PyTorch release."
            )
        _warn_real_output()
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise fail("expected a tensor of floating point or complex values")
    if input.ndim not in (1, 2):
        raise fail("expected a 1D or 2D tensor")
    length = input.shape[-1]
    if not 0 < p.n_fft <= length:
        raise fail(f"expected 0 < n_fft < {length}, but got n_fft={p.n_fft}")
    if p.hop <= 0:
        raise fail(f"expected hop_length > 0, but got hop_length={p.hop}")
    if not 0 < p.win_length <= p.n_fft:
        raise fail(f"expected 0 < win_length <= n_fft, but got win_length={p.win_length}")
    if window is not None and tuple(window.shape) != (p.win_length,):
        raise fail(
            f"expected a 1D window tensor of size equal to win_length={p.win_length}, but got "
            f"window with size {list(window.shape)}"
        )
    as_complex = complex_in if return_complex is None else bool(return_complex)
    one_sided = not complex_in if onesided is None else bool(onesided)
    if one_sided and complex_in:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    batched = input if input.ndim == 2 else input.unsqueeze(0)
    if align_to_window:
        batched = pad(batched, ((p.n_fft - p.win_length) // 2,) * 2, pad_mode)
    windows = () if window is None else (window,)
    out = apply(
        _STFT,
        batched,
        *windows,
        n_fft=p.n_fft,
        hop=p.hop,
        win_length=p.win_length,
        onesided=one_sided,
        norm="ortho" if normalized else "backward",
    )
    out = out.transpose_(1, 2)
    if input.ndim == 1:
        out = out.squeeze_(0)
    return out if as_complex else view_as_real(out)


# ----------------------------------------------------------------------------- istft
def _istft_envelope_check(window, p: _Frames, frames: int, start: int, end: int, fail) -> None:
    """PyTorch's NOLA check: the summed squared window must not vanish where the output is
    read (checked on concrete values; under a jax trace the result holds inf/NaN instead)."""
    if window is not None and is_tracer(window._value):
        return
    w = np.ones(p.win_length) if window is None else np.asarray(window.detach().numpy())
    left = (p.n_fft - p.win_length) // 2
    w = np.pad(w, (left, p.n_fft - p.win_length - left))
    envelope = np.zeros(p.n_fft + p.hop * (frames - 1), np.result_type(w.dtype, np.float32))
    np.add.at(
        envelope, _frame_positions(frames, p.n_fft, p.hop).reshape(-1), np.tile(w * w, frames)
    )
    if np.abs(envelope[start:end]).min() < 1e-11:
        raise fail("window overlap add min: 1\n[ CPUBoolType{} ]", sep=" ")


def istft(
    input,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window=None,
    center: bool = True,
    normalized: bool = False,
    onesided: bool | None = None,
    length: int | None = None,
    return_complex: bool = False,
):
    """Inverse short-time Fourier transform: the least-squares signal whose `stft` (with the
    same arguments) is `input`, a complex `(B?, N, T)` spectrum.

    The output has `length` samples when given (zero-padded at the tail if longer than the
    frames cover), else all the frames cover less the centre padding. It is real unless
    `return_complex` (which needs a two-sided spectrum).

    Example:
        >>> x = torch.arange(8.0)
        >>> w = torch.ones(4)
        >>> spec = torch.stft(x, 4, hop_length=1, window=w, return_complex=True)
        >>> torch.istft(spec, 4, hop_length=1, window=w, length=8)
        tensor([0., 1., 2., 3., 4., 5., 6., 7.])
    """
    tensor_arg(input, "istft")
    if window is None:
        _warn_no_window(
            "istft",
            "Please provide the same window used by stft to make the inversion lossless.",
        )
    p = _Frames(n_fft, hop_length, win_length)
    if not input.dtype.is_complex:
        raise RuntimeError(
            "istft requires a complex-valued input tensor matching the output from stft with "
            "return_complex=True."
        )

    def fail(text: str, sep: str = " : "):
        return RuntimeError(
            f"istft(CPU{scalar_type_name(input.dtype)}Type{list(input.shape)}, n_fft={p.n_fft}, "
            f"hop_length={p.hop}, win_length={p.win_length}, window={_window_text(window)}, "
            f"center={_flag(center)}, normalized={_flag(normalized)}, "
            f"onesided={_flag(onesided)}, length={_flag(length)}, "
            f"return_complex={_flag(return_complex)}){sep}{text}"
        )

    if input.numel() == 0:
        raise fail("input tensor cannot be empty.")
    if input.ndim not in (2, 3):
        raise fail(f"expected a tensor with 3 or 4 dimensions, but got {input.ndim + 1}")
    fft_size, frames = input.shape[-2:]
    one_sided = fft_size != p.n_fft if onesided is None else bool(onesided)
    if one_sided and p.n_fft // 2 + 1 != fft_size:
        raise fail(
            "expected the frequency dimension (3rd to the last) of the input tensor to match "
            f"n_fft / 2 + 1 when onesided=True, but got {fft_size}"
        )
    if not one_sided and p.n_fft != fft_size:
        raise fail(
            "expected the frequency dimension (3rd to the last) of the input tensor to match "
            f"n_fft when onesided=False, but got {fft_size}"
        )
    if not 0 < p.hop <= p.win_length:
        raise fail("expected 0 < hop_length <= win_length")
    if not 0 < p.win_length <= p.n_fft:
        raise fail("expected 0 < win_length <= n_fft")
    if window is not None and tuple(window.shape) != (p.win_length,):
        raise fail("Invalid window shape. window has to be 1D and length of `win_length`")
    if return_complex and one_sided:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    if not return_complex and window is not None and window.dtype.is_complex:
        raise RuntimeError("Complex windows are incompatible with return_complex=False")
    covered = p.n_fft + p.hop * (frames - 1)
    start = p.n_fft // 2 if center else 0
    if length is not None:
        end = start + int(length)
    else:
        end = covered - p.n_fft // 2 if center else covered
    _istft_envelope_check(window, p, frames, start, min(end, covered), fail)
    batched = input if input.ndim == 3 else input.unsqueeze(0)
    windows = () if window is None else (window,)
    y = apply(
        _ISTFT,
        batched,
        *windows,
        n_fft=p.n_fft,
        hop=p.hop,
        win_length=p.win_length,
        onesided=one_sided,
        two_sided=bool(return_complex),
        norm="ortho" if normalized else "backward",
        start=start,
        end=min(end, covered),
    )
    if input.ndim == 2:
        y = y.squeeze(0)
    if end > covered:
        _warn_short_signal()
        y = pad(y, (0, end - covered))
    return y


@functools.cache
def _warn_short_signal() -> None:
    warnings.warn(
        "The length of signal is shorter than the length parameter. Result is being padded "
        "with zeros in the tail. Please check your center and hop_length settings.",
        UserWarning,
        stacklevel=4,
    )
