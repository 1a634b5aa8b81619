"""A stand-in for the filecheck package, for bench/numba-suite/replay.py:
numba-cuda's testing module imports it at load time; only the FileCheck
assertions on compiled code use it, and the simulator skips those."""
