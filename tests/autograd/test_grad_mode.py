"""no_grad / enable_grad / set_grad_enabled: context managers, decorators, thread-local."""

from __future__ import annotations

import threading

import autograd_compat as torch


def test_no_grad_context_and_nesting():
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        assert not torch.is_grad_enabled()
        y = x * 2
        with torch.enable_grad():
            z = x * 2
    assert torch.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None
    assert z.requires_grad and z.grad_fn is not None


def test_decorators():
    x = torch.ones(2, requires_grad=True)

    @torch.no_grad()
    def double(t):
        return t * 2

    @torch.enable_grad()
    def triple(t):
        return t * 3

    assert not double(x).requires_grad
    with torch.no_grad():
        assert triple(x).requires_grad


def test_set_grad_enabled_as_function_and_context():
    torch.set_grad_enabled(False)
    try:
        assert not torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(True)
    with torch.set_grad_enabled(False):
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()


def test_generator_functions_keep_the_mode_per_step():
    @torch.no_grad()
    def gen():
        yield torch.is_grad_enabled()
        yield torch.is_grad_enabled()

    assert list(gen()) == [False, False]
    assert torch.is_grad_enabled()


def test_grad_mode_is_thread_local():
    seen = []
    with torch.no_grad():
        thread = threading.Thread(target=lambda: seen.append(torch.is_grad_enabled()))
        thread.start()
        thread.join()
        assert not torch.is_grad_enabled()
    assert seen == [True]


def test_manual_sgd_step_under_no_grad():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
    assert w.is_leaf and w.requires_grad
    assert w.tolist() == [0.800000011920929, 1.600000023841858]
