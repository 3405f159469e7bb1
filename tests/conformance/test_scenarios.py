"""The conformance suite: every scenario file under tests/scenarios/ is one test case."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance import load_scenario, run_scenario

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
FILES = sorted(SCENARIOS.rglob("*.toml"))


def test_the_suite_is_not_empty() -> None:
    assert len(FILES) >= 20


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(SCENARIOS)) for p in FILES])
def test_scenario(path: Path) -> None:
    scenario = load_scenario(path)
    failures = run_scenario(scenario)
    report = "\n".join(f"after turn {f.turn}:\n  " + "\n  ".join(f.lines) for f in failures)
    assert not failures, f"{scenario.name}\n{report}"
