"""Puts bench/ on `sys.path`, so a probe imports the benchmark's shared code (`run`,
`workloads`) as the scripts in bench/ do."""

import pathlib
import sys

BENCH = str(pathlib.Path(__file__).resolve().parent.parent)
if BENCH not in sys.path:
    sys.path.insert(0, BENCH)
