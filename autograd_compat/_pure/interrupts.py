"""Calls whose results survive a signal handler's exception (Ctrl-C's KeyboardInterrupt, a
timer's) raised as they return.

CPython runs a pending signal handler right after a call returns, before the caller stores
the result. For a program that consumed its inputs (donated buffers) a dropped result means
the tensors' values are gone: `call_through_interrupt` has C code store the result (a list
extended from a one-item iterator), with no such point in between, and hands the caller the
interruption to raise once the results are written back.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from itertools import islice

_NEVER = object()  # a sentinel no function returns


def call_through_interrupt(fn: Callable, *args, **kwargs) -> tuple:
    """(`fn(*args, **kwargs)`, the exception a signal handler raised as it returned, or None).
    What `fn` itself raises, or a handler before it completed, propagates."""
    done: list = []
    try:
        done.extend(islice(iter(functools.partial(fn, *args, **kwargs), _NEVER), 1))
    except BaseException as interruption:
        if not done:
            raise
        return done[0], interruption
    return done[0], None
