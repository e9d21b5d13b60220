"""torch.hann_window, hamming_window, blackman_window, bartlett_window and kaiser_window
against real PyTorch: values in float32, float64 and float16, periodic and symmetric, the
trivial lengths, requires_grad, and the argument errors."""

from __future__ import annotations

import pytest

from tests._helpers.torch_compare import check_error, run_parity

NAMES = ["bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window"]


@pytest.mark.parametrize("name", NAMES)
def test_windows_match_torch(name, real_torch):
    def program(t):
        window = getattr(t, name)
        out = [window(n, periodic) for n in (0, 1, 5) for periodic in (True, False)]
        out += [window(7, dtype=t.float64), window(9, False, dtype=t.float16)]
        out.append(window(4, requires_grad=True))
        return out

    run_parity(program)


def test_window_parameters_match_torch(real_torch):
    run_parity(lambda t: [t.hamming_window(6, False, 0.5, 0.3), t.kaiser_window(6, True, 4.0)])


ERRORS = [
    lambda t: t.hann_window(5, dtype=t.int64),
    lambda t: t.hann_window(-1),
    lambda t: t.blackman_window(4, pin_memory=True),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, real_torch):
    check_error(ERRORS[index], real_torch)
