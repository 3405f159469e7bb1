"""The turn log in words, and the public report that never names a non-visible spell (G12)."""

from __future__ import annotations

from cogs.log import LogWriter, public_report
from engine.content import load_content
from engine.report import Event, TurnReport
from engine.state import Side


def report(*events: Event) -> TurnReport:
    return TurnReport(3, events, Side.RED, Side.BLUE)


def test_events_read_as_sentences_with_player_names() -> None:
    writer = LogWriter(load_content(), {"red": "Alice", "blue": "Bob"})
    lines = writer.lines(
        report(
            Event.make("moved", group=12, side="red", to="D5", **{"from": "D4"}),
            Event.make(
                "trained",
                at="D4",
                group=81,
                mana_type=None,
                minion=80,
                side="red",
                structure=1,
                trained_as="swordsman",
            ),
            Event.make("trained", at="D4", mana_type=None, side="red", trained_as="archer"),
            Event.make("trained", at="D4", mana_type="order", side="blue", trained_as="mana"),
            Event.make(
                "captured",
                at="D7",
                mana_type="strife",
                side="red",
                structure=5,
                structure_kind="town",
                **{"from": "neutral"},
            ),
            Event.make(
                "died",
                at="F7",
                by=14,
                cause="killed",
                group=12,
                minion=8,
                side="blue",
                unit="archer",
            ),
            Event.make("spell_executed", card=25, side="blue", spell="fireball", target="group:17"),
            Event.make("turn_started", turn=4),
        )
    )
    assert lines == [
        "Red (Alice) group 12 moved D4 → D5",
        "Red (Alice) trained a swordsman at D4",
        "Red (Alice) trained an archer at D4",
        "Blue (Bob) trained a novice for order mana at D4",
        "Red (Alice) captured the town on D7",
        "Blue (Bob) archer 8 died on F7 (killed)",
        "Blue (Bob) cast Fireball on group 17",
    ]


def test_summary_counts_per_side_and_names_the_new_initiative() -> None:
    writer = LogWriter(load_content(), {"red": "Alice", "blue": "Bob"})
    summary = writer.summary(
        report(
            Event.make("moved", group=12, side="red", to="D5", **{"from": "D4"}),
            Event.make("moved", group=13, side="red", to="E5", **{"from": "E4"}),
        )
    )
    assert summary == [
        "Red (Alice): moved 2",
        "Blue (Bob): nothing",
        "Initiative passes to Blue (Bob).",
    ]


def test_the_public_report_leaves_out_non_visible_spells() -> None:
    content = load_content()
    hidden = next(s.id for s in content.spells.values() if not s.visible)
    shown = next(s.id for s in content.spells.values() if s.visible and not s.helper)
    events = (
        Event.make("spell_executed", card=1, side="red", spell=hidden, target="group:3"),
        Event.make("spell_effect", spell=hidden, text="secret"),
        Event.make("spell_executed", card=2, side="blue", spell=shown, target="group:4"),
        Event.make("moved", group=3, side="red", to="D5", **{"from": "D4"}),
    )
    public = public_report(report(*events), content)
    assert [e.get("spell") for e in public.events] == [shown, None]
    assert content.spells[hidden].name not in "\n".join(LogWriter(content).lines(public))
