"""Benchmarks: each module prints its figures when run (`make bench` runs them all)."""
