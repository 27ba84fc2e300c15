"""Benchmarks: not part of the default test run (see README, Performance)."""
