"""The scenario runner: readable failures, bad files, the command line and rule coverage."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conformance import ScenarioError, load_scenario, run_scenario
from conformance.__main__ import main
from conformance.coverage import REPO, rule_ids

PASSING = """
name = "a group moves"
rules = ["G6"]

[board]
mask = \"\"\"
...
\"\"\"

[[group]]
name = "g"
owner = "red"
at = "A1"
minions = ["swordsman"]

[[turn]]
red.moves = [["g", "B1"]]

[turn.expect]
groups.g = { at = "B1" }
"""


def _write(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_passing_scenario_has_no_failure(tmp_path: Path) -> None:
    assert run_scenario(load_scenario(_write(tmp_path, PASSING))) == []


def test_a_failing_scenario_prints_a_readable_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, PASSING.replace('groups.g = { at = "B1" }', 'groups.g = { at = "C1" }'))
    assert main([str(path)]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out
    assert "group g at: expected 'C1', got 'B1'" in out


def test_missing_events_show_the_report(tmp_path: Path) -> None:
    text = PASSING + 'events = [{ kind = "bounced", group = "g" }]\n'
    failures = run_scenario(load_scenario(_write(tmp_path, text)))
    assert failures and "not found (in order)" in failures[0].lines[0]
    assert any("moved" in line for line in failures[0].lines)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('rules = ["G6"]', "rules = []", "rules"),
        ('at = "A1"', 'at = "Q1"', "group\\[0\\].at"),
        ('[["g", "B1"]]', '[["h", "B1"]]', "no group named 'h'"),
        ('minions = ["swordsman"]', 'minions = ["dragon"]', "unknown unit 'dragon'"),
        ("[turn.expect]", "[turn.expect]\ncolour = 1", "unknown key"),
        ('red.moves = [["g", "B1"]]', 'red.moves = [["g"]]', "turn\\[0\\].red.moves\\[0\\]: write"),
    ],
)
def test_bad_scenarios_name_the_key(tmp_path: Path, old: str, new: str, message: str) -> None:
    path = _write(tmp_path, PASSING.replace(old, new))
    with pytest.raises(ScenarioError, match=message):
        run_scenario(load_scenario(path))


def test_command_line_exit_codes_and_coverage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = _write(tmp_path, PASSING)
    assert main([str(good), "--coverage"]) == 0
    out = capsys.readouterr().out
    assert "1 passed, 0 failed" in out
    assert "G6   1 scenario(s)" in out
    assert "UNCOVERED" in out


def test_rule_ids_come_from_the_specification() -> None:
    ids = rule_ids()
    assert ids[:2] == ["S1", "S2"]
    assert {"I1", "I6", "G12", "C8", "N12"} <= set(ids)


def test_errors_name_the_full_path_of_the_key(tmp_path: Path) -> None:
    path = _write(tmp_path, PASSING.replace("[turn.expect]", "[turn.expect]\ncolour = 1"))
    with pytest.raises(ScenarioError) as caught:
        run_scenario(load_scenario(path))
    assert str(caught.value).startswith(f"{path}: turn[0].expect.colour: unknown key (accepted: ")


def test_python_dash_m_conformance_exits_with_the_result(tmp_path: Path) -> None:
    good = _write(tmp_path, PASSING, "good.toml")
    bad = _write(tmp_path, PASSING.replace('at = "B1" }', 'at = "C1" }'), "bad.toml")
    for path, code, word in ((good, 0, "ok"), (bad, 1, "FAIL")):
        run = subprocess.run(
            [sys.executable, "-m", "conformance", str(path)],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=False,
        )
        assert run.returncode == code, run.stdout + run.stderr
        assert run.stdout.startswith(f"{word}  " if word == "ok" else f"{word}  {path}")
