"""The benchmarks stay runnable: each module imports, `make bench` knows every one of them, and
the instruction counts of `--instructions` come out of callgrind as described."""

import importlib
import shutil
import sys

import pytest

from bench import _callgrind, anchor
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
    # A second run repeats them to a few instructions in ten million (the first run of a fresh
    # clone also writes the probe's bytecode cache, which moves a handful).
    again = _callgrind.counts("tests.callgrind_probe", 2) or [0, 0]
    assert all(abs(a - b) <= b // 100_000 for a, b in zip(again, (small, large), strict=True))


def test_anchor_without_diplomacy_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "diplomacy", None)  # makes `import diplomacy` fail
    assert anchor.main([]) == 0
    assert "pip install -e '.[bench]'" in capsys.readouterr().out


def test_anchor_replays_the_same_phases_and_prints_every_ratio(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("diplomacy")
    from diplomacy import Game

    first, again = anchor.play(Game, 4), anchor.play(Game, 4)
    assert [p.name for p in first] == ["S1901M", "F1901M", "W1901A", "S1902M"]
    assert first == again
    assert first[0].orders == anchor.OPENING
    assert anchor.main(["--phases", "4", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "703 strikes" in out
    for row in ("per ordered piece", "per minion", "per strike", "per movement phase"):
        assert row in out
