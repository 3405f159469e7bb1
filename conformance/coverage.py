"""Rule coverage: every rule id of the specification and every decision id of the project's
docs, with the scenarios and the tests named after it. Reads only files of this repository."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from conformance.model import Scenario

REPO: Final = Path(__file__).resolve().parent.parent
RULE_IDS: Final = Path(__file__).resolve().parent / "rule_ids.toml"
DECISION_DOCS: Final = (REPO / "docs" / "rules.md", REPO / "docs" / "spells.md")
DECISION_ID: Final = re.compile(r"\*\*(D-[A-Z0-9-]+)\.\*\*")
# A test names the ids in the upper-case words before its first lower-case one:
# test_I4_equal_deltas... names rule I4, test_D_MOVE_VOTE_... decision D-MOVE-VOTE, and
# test_D_SP31_D_SP32_town... both D-SP31 and D-SP32.
TEST_NAME: Final = re.compile(r"def (test_((?:[A-Z][A-Z0-9]*_)+)[a-z]\w*)")
RULE_WORD: Final = re.compile(r"[A-Z]\d+")


def named_ids(prefix: str) -> list[str]:
    """The ids in a test name's upper-case words (``D_SP31_D_SP32_`` is D-SP31 and D-SP32): a
    ``D`` word opens a decision that runs to the next ``D`` or rule id; no decision id has a
    word of one letter and digits, so a rule id always stands alone."""
    ids: list[str] = []
    in_decision = False
    for word in prefix.strip("_").split("_"):
        if word == "D":
            ids.append("D")
            in_decision = True
        elif RULE_WORD.fullmatch(word):
            ids.append(word)
            in_decision = False
        elif in_decision:
            ids[-1] += "-" + word
    return [i for i in ids if i != "D"]


def rule_titles() -> dict[str, str]:
    """The specification's rule ids, in its order, with their one-line titles."""
    with RULE_IDS.open("rb") as fh:
        rules: dict[str, str] = tomllib.load(fh)["rules"]
    return rules


def rule_ids() -> list[str]:
    return list(rule_titles())


def decision_ids() -> list[str]:
    """The ``D-...`` decision ids of ``docs/rules.md``, then those of ``docs/spells.md``."""
    found: list[str] = []
    for path in DECISION_DOCS:
        if path.exists():
            found += DECISION_ID.findall(path.read_text(encoding="utf-8"))
    return found


def tests_by_rule(tests_dir: Path) -> dict[str, list[str]]:
    """Rule and decision ids named by test functions under ``tests_dir``, with those tests."""
    found: dict[str, list[str]] = {}
    for path in sorted(tests_dir.rglob("test_*.py")):
        for match in TEST_NAME.finditer(path.read_text(encoding="utf-8")):
            for rule in named_ids(match.group(2)):
                found.setdefault(rule, []).append(f"{path.name}::{match.group(1)}")
    return found


def coverage(scenarios: Sequence[Scenario], tests_dir: Path) -> tuple[list[str], list[str]]:
    """Report lines and the uncovered ids (the specification's rules, then the decisions of
    docs/rules.md and docs/spells.md)."""
    by_rule: dict[str, list[str]] = {}
    for s in scenarios:
        for r in s.rules:
            by_rule.setdefault(r, []).append(f"{s.path.parent.name}/{s.path.name}")
    tests = tests_by_rule(tests_dir)
    lines: list[str] = []
    uncovered: list[str] = []
    for rule in [*rule_ids(), *decision_ids()]:
        scen = by_rule.get(rule, [])
        named = tests.get(rule, [])
        if not scen and not named:
            uncovered.append(rule)
            lines.append(f"{rule:4} UNCOVERED")
            continue
        lines.append(f"{rule:4} {len(scen)} scenario(s), {len(named)} test(s)")
        lines += [f"       scenario {n}" for n in scen]
        lines += [f"       test {n}" for n in named]
    return lines, uncovered
