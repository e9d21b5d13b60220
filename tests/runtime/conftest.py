"""Fixtures of the runtime tests."""

from __future__ import annotations

import pytest

from autograd_compat._defer import lazy


@pytest.fixture
def deferral_on(monkeypatch):
    """Deferral on (whatever the environment says), and the test learns its ops' shapes anew:
    an op an earlier test in this process read at once would run at its call, not deferred."""
    monkeypatch.setattr(lazy, "ENABLED", True)
    lazy._shapes.clear()
    lazy._redefer()
