"""The benchmarks stay runnable: each module imports, `make bench` knows every one of them, and
the instruction counts of `--instructions` come out of callgrind as described."""

import importlib
import shutil

import pytest

from bench import _callgrind
from bench.__main__ import QUICK, modules


def test_every_bench_module_imports() -> None:
    assert modules(), "no benchmark found"
    for name in modules():
        module = importlib.import_module(f"bench.{name}")
        assert callable(module.main), name


def test_make_bench_runs_every_benchmark() -> None:
    assert set(QUICK) == set(modules())


def test_instructions_without_valgrind_say_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    _callgrind.report("tests.callgrind_probe", ["small", "large"])
    assert "valgrind is not installed" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_instruction_counts_cover_only_the_measured_calls_and_repeat() -> None:
    small, large = _callgrind.counts("tests.callgrind_probe", 2) or (0, 0)
    # Twice the work costs about twice the instructions; the start-up, the imports and the
    # unmeasured call (ten times the small one) are left out.
    assert 1.8 < large / small < 2.2
    assert small < 2 * 13_000_000
    assert _callgrind.counts("tests.callgrind_probe", 2) == [small, large]
