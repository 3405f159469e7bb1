"""The coverage report's list of rule ids (conformance/rule_ids.toml) is the specification's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conformance.coverage import (
    DECISION_DOCS,
    REPO,
    RULE_IDS,
    RULE_WORD,
    decision_ids,
    named_ids,
    rule_ids,
    rule_titles,
)

RULE_ID = re.compile(r"^- ([A-Z]\d+)\.", re.MULTILINE)
SHARED_RULES = REPO.parent / "shared" / "rules" / "README.md"


def _ids_of(path: Path) -> list[str]:
    return RULE_ID.findall(path.read_text(encoding="utf-8"))


def test_rule_ids_follow_the_specification_copy_in_docs() -> None:
    assert rule_ids() == _ids_of(REPO / "docs" / "rules-spec.md")


def test_rule_ids_follow_the_shared_specification() -> None:
    if not SHARED_RULES.exists():
        pytest.skip(f"{SHARED_RULES} is absent: the shared rules sit beside a checkout, not in it")
    assert rule_ids() == _ids_of(SHARED_RULES)


def test_every_rule_has_a_one_line_title() -> None:
    titles = rule_titles()
    assert all(title.strip() and "\n" not in title for title in titles.values())


def test_coverage_reads_only_files_of_the_repository() -> None:
    for path in (RULE_IDS, *DECISION_DOCS):
        assert path.resolve().is_relative_to(REPO)


@pytest.mark.parametrize(
    ("prefix", "ids"),
    [
        ("I4_", ["I4"]),
        ("D_MOVE_VOTE_", ["D-MOVE-VOTE"]),
        ("D_SP31_D_SP32_", ["D-SP31", "D-SP32"]),
        ("N2_N5_", ["N2", "N5"]),
        ("N12_D_SP39_", ["N12", "D-SP39"]),
        ("D_", []),
    ],
)
def test_a_test_name_names_every_id_before_its_first_lower_case_word(
    prefix: str, ids: list[str]
) -> None:
    assert named_ids(prefix) == ids


def test_no_decision_id_has_a_word_that_reads_as_a_rule_id() -> None:
    """A test name's ``D_`` word runs to the next rule id; a decision word such as ``S12`` would
    end it early and cut the decision in two."""
    for decision in decision_ids():
        assert not any(RULE_WORD.fullmatch(w) for w in decision.split("-")[1:]), decision
