"""The /rules topics say what the shipped rules data says."""

from __future__ import annotations

from cogs.rules import TOPICS
from engine.content import load_content


def test_the_overview_tells_of_blues_extra_novice_as_the_economy_gives_it() -> None:
    economy = load_content().economy
    _, text = TOPICS["overview"]
    assert economy.blue_novices == 1
    assert "Blue starts with one more novice" in text
    assert "Red starts with the initiative" in text
