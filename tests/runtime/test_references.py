"""`CALL_REFERENCES` (`_pure/references.py`): what `sys.getrefcount` counts beyond an object's
holders, on the running interpreter, the same for the two ways the library's checks pass an
object (a variable, a container's element). (Counts are taken outside `assert` statements:
pytest's rewritten asserts keep their operands.)"""

from __future__ import annotations

import sys

from autograd_compat._pure.references import CALL_REFERENCES


def test_a_variable_is_its_only_holder():
    obj = object()
    count = sys.getrefcount(obj)
    assert count == 1 + CALL_REFERENCES


def test_a_container_element_is_held_by_each_slot_and_not_by_the_expression():
    values = [object()]
    alone = sys.getrefcount(values[0])
    twice = (values[0], values[0])
    shared = sys.getrefcount(values[0])
    assert (alone, shared) == (1 + CALL_REFERENCES, 3 + CALL_REFERENCES)
    assert twice[0] is values[0]


def test_inside_a_generator_as_the_donation_check_asks():
    values = (object(), object())
    kept = values[1]
    held = [sys.getrefcount(values[i]) <= 1 + CALL_REFERENCES for i in range(2)]
    assert held == [True, False]
    assert kept is values[1]
