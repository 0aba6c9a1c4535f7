"""Benchmarks: scripts that print figures and a ratio against a baseline from the same run.

`python -m bench` runs them all on both stacks; `python -m bench --help` for one at a time.
"""
