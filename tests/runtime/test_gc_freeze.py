"""The import freezes what it made, so full garbage collections skip it (`_pure/gc_freeze`).

The freeze happens once per process, at the import, so each case runs in a fresh process."""

from __future__ import annotations

import textwrap

import pytest

from tests._helpers.fresh_process import run_json

# Whether the import froze objects, and whether a cycle made after it is still collected.
SCRIPT = textwrap.dedent(
    """
    import gc, json, weakref
    import autograd_compat as torch
    frozen, enabled = gc.get_freeze_count(), gc.isenabled()

    class Cycle:
        pass

    a, b = Cycle(), Cycle()
    a.other, b.other = b, a
    x = torch.ones(3, requires_grad=True)
    a.graph = (x * 2).sum()  # a tensor with its graph inside the cycle
    gone = weakref.ref(a)
    del a, b
    gc.collect()
    print(json.dumps({"frozen": frozen, "enabled": enabled, "cycle_collected": gone() is None}))
    """
)


def _run(env_value: str | None) -> dict:
    return run_json(SCRIPT, "AUTOGRAD_COMPAT_GC_FREEZE", env_value)


def test_the_import_freezes_its_objects_and_later_cycles_are_still_collected():
    result = _run(None)
    assert result["frozen"] > 10_000  # JAX's and NumPy's modules, functions, types, ours
    assert result["enabled"]  # (collections are off while the package imports)
    assert result["cycle_collected"]


@pytest.mark.parametrize("value", ["0", "off"])
def test_the_environment_variable_leaves_the_collector_as_it_is(value):
    result = _run(value)
    assert result["frozen"] == 0
    assert result["enabled"]
    assert result["cycle_collected"]


def test_a_collector_switched_off_before_the_import_stays_off():
    script = (
        "import gc, json\ngc.disable()\nimport autograd_compat\nprint(json.dumps(gc.isenabled()))"
    )
    assert run_json(script, "AUTOGRAD_COMPAT_GC_FREEZE", None) is False
