"""torch.stft and torch.istft against real PyTorch where the OpInfo samples do not reach: the
argument errors and their texts, `align_to_window`, the zero tail of a long `length`, and
values in a deferred run of complex ops (XLA:CPU without its fusion pass miscompiles complex
transposes, which the ops avoid)."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as torch
from tests._helpers.torch_compare import check_error, run_parity

X = np.random.default_rng(0).standard_normal(20)
Z = np.random.default_rng(1).standard_normal((5, 4, 2))


def _spec(t):
    return t.view_as_complex(t.tensor(Z, dtype=t.float32))


STFT_ERRORS = {
    "no_return_complex": lambda t: t.stft(t.tensor(X), 8, window=t.ones(8)),
    "n_fft_too_long": lambda t: t.stft(t.tensor(X), 30, center=False, return_complex=True),
    "hop_zero": lambda t: t.stft(t.tensor(X), 8, 0, window=t.ones(8), return_complex=True),
    "win_length": lambda t: t.stft(t.tensor(X), 8, win_length=9, return_complex=True),
    "window_size": lambda t: t.stft(t.tensor(X), 8, window=t.ones(7), return_complex=True),
    "integer": lambda t: t.stft(t.tensor(X).long(), 8, return_complex=True),
    "three_dims": lambda t: t.stft(t.tensor(X).reshape(2, 2, 5), 4, return_complex=True),
    "complex_onesided": lambda t: t.stft(t.tensor(X).to(t.complex64), 8, onesided=True),
    "align_centered": lambda t: t.stft(t.tensor(X), 8, align_to_window=True, return_complex=True),
    "pad_mode": lambda t: t.stft(t.tensor(X), 8, pad_mode="foo", return_complex=True),
}

ISTFT_ERRORS = {
    "real_input": lambda t: t.istft(_spec(t).real, 8),
    "frequencies_onesided": lambda t: t.istft(_spec(t), 10),
    "frequencies_two_sided": lambda t: t.istft(_spec(t), 8, onesided=False),
    "hop": lambda t: t.istft(_spec(t), 8, hop_length=9),
    "win_length": lambda t: t.istft(_spec(t), 8, win_length=9),
    "window_shape": lambda t: t.istft(_spec(t), 8, window=t.ones(7)),
    "onesided_complex_output": lambda t: t.istft(_spec(t), 8, return_complex=True),
    "window_envelope_zero": lambda t: t.istft(_spec(t), 8, window=t.zeros(8)),
    "empty": lambda t: t.istft(_spec(t)[:0], 8),
    "four_dims": lambda t: t.istft(_spec(t).reshape(1, 1, 5, 4), 8),
    "complex_window": lambda t: t.istft(_spec(t), 8, window=t.ones(8, dtype=t.complex64)),
    "edges_uncovered": lambda t: t.istft(_spec(t), 8, 2, 4, window=t.ones(4), center=False),
}


@pytest.mark.filterwarnings("ignore:A window was not provided")
@pytest.mark.parametrize("name", sorted(STFT_ERRORS))
def test_stft_errors_match_torch(name, real_torch):
    check_error(STFT_ERRORS[name], real_torch)


@pytest.mark.filterwarnings("ignore:A window was not provided")
@pytest.mark.parametrize("name", sorted(ISTFT_ERRORS))
def test_istft_errors_match_torch(name, real_torch):
    check_error(ISTFT_ERRORS[name], real_torch)


@pytest.mark.filterwarnings("ignore:The length of signal is shorter")
def test_align_to_window_and_long_length_match_torch(real_torch):
    def program(t):
        x = t.tensor(X, dtype=t.float32)
        aligned = t.stft(x, 8, 2, 4, t.ones(4), False, align_to_window=True, return_complex=True)
        w = t.ones(8) + 0.5
        spec = t.stft(x, 8, 2, window=w, return_complex=True)
        return aligned, t.istft(spec, 8, 2, window=w, length=26)

    run_parity(program)


def test_complex_results_stay_right_in_deferred_runs():
    """The fourth run of a chain of complex stft/istft and reshapes (compiled into one deferred
    program from the third run) gives the values of the first."""
    signal = torch.tensor(X[:16] + 1j * X[4:], dtype=torch.complex64)
    w = torch.ones(8) + 0.5
    runs = []
    for _ in range(4):
        spec = torch.stft(signal, 8, 2, window=w, center=False).reshape(8, 5) * 2
        back = torch.istft(spec, 8, 2, window=w, center=False, return_complex=True)
        runs.append(np.concatenate([spec.reshape(-1).numpy(), back.reshape(-1).numpy()]))
    np.testing.assert_allclose(runs[3], runs[0])
    np.testing.assert_allclose(runs[0][40:], 2 * signal.numpy(), rtol=1e-5, atol=1e-6)
