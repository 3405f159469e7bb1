"""A program for tests/test_bench.py to count under callgrind: two measured calls of known sizes."""

import sys

from bench import _callgrind


def work(n: int) -> int:
    return sum(i * i for i in range(n))


if __name__ == "__main__" and _callgrind.FLAG in sys.argv:
    work(200_000)  # not measured: ten times the work of the first measured call
    _callgrind.measured(lambda: work(20_000))
    _callgrind.measured(lambda: work(40_000))
