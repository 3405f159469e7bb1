"""The arena's match loop: a chosen configuration, and the hook that sees each resolved turn."""

from __future__ import annotations

from ai import Level
from ai.arena import match_config, play_match
from engine.content import load_content
from engine.report import TurnReport
from engine.setup import MatchConfig, default_deck
from engine.state import GameState, Side


def test_a_given_configuration_replaces_the_seeds_own() -> None:
    content = load_content()
    config = MatchConfig(
        seed=3,
        realm="great_frost",
        houses={Side.RED: "mind", Side.BLUE: "mind"},
        decks={side: default_deck("mind", content) for side in Side},
    )
    assert match_config(3, content).houses != config.houses
    levels: dict[Side, Level] = {side: "random" for side in Side}
    record = play_match(3, levels, content, max_turns=2, config=config)
    assert record.final is not None
    assert record.final.options.realm == "great_frost"
    assert {p.house for p in record.final.players} == {"mind"}


def test_after_turn_sees_every_report_with_the_position_it_led_to() -> None:
    content = load_content()
    seen: list[tuple[GameState, TurnReport]] = []
    before: list[GameState] = []
    record = play_match(
        11,
        {Side.RED: "greedy", Side.BLUE: "random"},
        content,
        max_turns=5,
        budgets={Side.RED: 8, Side.BLUE: None},
        observe=lambda state, _orders: before.append(state),
        after_turn=lambda state, report: seen.append((state, report)),
    )
    assert [report.turn for _, report in seen] == list(range(1, record.turns + 1))
    assert [state.turn for state in before] == [report.turn for _, report in seen]
    assert [state.turn for state, _ in seen] == [t + 1 for t in range(1, record.turns + 1)]
    assert seen[-1][0] == record.final
