"""The turn log in words, and the public report that never names a non-visible spell (G12)."""

from __future__ import annotations

from cogs.log import LogWriter, Roster, public_report
from engine.content import load_content
from engine.report import Event, TurnReport
from engine.setup import MatchConfig, default_deck, new_game
from engine.state import Side
from engine.view import view_for


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
        "Red (Alice) moved a group D4 → D5",
        "Red (Alice) trained a swordsman at D4",
        "Red (Alice) trained an archer at D4",
        "Blue (Bob) trained a novice for order mana at D4",
        "Red (Alice) captured the town on D7",
        "Blue (Bob): an archer died on F7 (killed)",
        "Blue (Bob) cast Fireball on a group",
    ]


def test_minions_and_groups_are_named_as_the_boards_show_them_not_by_id() -> None:
    roster = Roster(
        minions={8: ("blue", "archer"), 14: ("red", "swordsman"), 30: ("red", "Dracha")},
        groups={12: ("blue", "F7"), 17: ("red", "E6")},
        structures={5: ("town", "D7")},
    )
    writer = LogWriter(load_content(), {"red": "Alice", "blue": "Bob"}, roster)
    lines = writer.lines(
        report(
            Event.make("spell_executed", card=25, side="blue", spell="fireball", target="group:17"),
            Event.make("moved", group=17, side="red", to="F6", **{"from": "E6"}),
            Event.make("spell_executed", card=26, side="blue", spell="fireball", target="group:17"),
            Event.make("spell_added", card=27, host="structure:5", side="red", spell="fortitude"),
            Event.make("spell_added", card=28, host="minion:30", side="red", spell="fortitude"),
            Event.make(
                "strike",
                attacker=14,
                damage=3,
                hit=True,
                hp=4,
                mode="hand",
                soaked=0,
                victim=8,
            ),
            Event.make(
                "strike",
                attacker=8,
                damage=0,
                hit=False,
                hp=7,
                mode="hand",
                soaked=0,
                victim=30,
            ),
            Event.make("damaged", amount=5, group=12, minion=8, source="fireball"),
            Event.make("level_gained", group=17, level=2, minion=14),
            Event.make("died", at="F7", by=30, cause="killed", group=12, minion=8, side="blue"),
            Event.make("group_died", at="F7", group=12, side="blue"),
            Event.make("strike", attacker=99, damage=0, hit=False, hp=1, victim=98),
            Event.make(
                "trained",
                at="D4",
                group=81,
                mana_type=None,
                minion=80,
                side="red",
                structure=1,
                trained_as="archer",
            ),
            Event.make("strike", attacker=80, damage=2, hit=True, hp=-1, victim=8),
        )
    )
    assert lines == [
        "Blue (Bob) cast Fireball on the Red group on E6",
        "Red (Alice) moved a group E6 → F6",
        "Blue (Bob) cast Fireball on the Red group on F6",
        "Fortitude is active on the town on D7",
        "Fortitude is active on the Red Dracha",
        "  The Red swordsman hits the Blue archer for 3 (4 hp left)",
        "  The Blue archer misses the Red Dracha",
        "The Blue archer takes 5 damage (Fireball)",
        "The Red swordsman reaches level 2",
        "Blue (Bob): an archer died on F7 (killed)",
        "Blue (Bob): the group on F7 is gone",
        "  A minion misses a minion",
        "Red (Alice) trained an archer at D4",
        "  The Red archer hits the Blue archer for 2 (0 hp left)",
    ]


def test_the_roster_reads_sides_units_and_squares_off_the_public_boards() -> None:
    content = load_content()
    state = new_game(
        MatchConfig(
            seed=3,
            houses={Side.RED: "war", Side.BLUE: "life"},
            decks={
                Side.RED: default_deck("war", content),
                Side.BLUE: default_deck("life", content),
            },
        ),
        content,
    )
    roster = Roster.of(content, view_for(state, None, content))
    for group in state.groups:
        assert roster.groups[group.id] == (str(group.owner), group.coord.name)
        for m in group.minions:
            assert roster.minions[m.id] == (str(group.owner), content.units[m.unit].name.lower())
    for structure in state.structures:
        assert roster.structures[structure.id] == (structure.kind, structure.coord.name)


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


def test_harm_done_by_a_non_visible_spell_is_shown_without_naming_it() -> None:
    content = load_content()
    hidden = next(s.id for s in content.spells.values() if not s.visible)
    events = (
        Event.make("damaged", amount=1, group=3, minion=8, source=hidden),
        Event.make("damaged", amount=2, group=3, minion=8, source="fireball"),
    )
    public = public_report(report(*events), content)
    assert [e.get("source") for e in public.events] == [None, "fireball"]
    lines = LogWriter(content).lines(public)
    assert lines == ["A minion takes 1 damage", "A minion takes 2 damage (Fireball)"]


def test_reasons_read_as_words_not_codes() -> None:
    writer = LogWriter(load_content(), {"red": "Alice", "blue": "Bob"})
    lines = writer.lines(
        report(
            Event.make("spell_ended", host="group:3", reason="host_died", spell="fortitude", uid=9),
            Event.make("combat_ended", groups=(3, 4), reason="max_rounds", rounds=6),
            Event.make(
                "blocked", group=3, side="red", to="E5", reason="terrain:water", **{"from": "E4"}
            ),
            Event.make("initiative", side="blue", reason="structure_delta", **{"from": "red"}),
            Event.make("initiative", side="red", reason="Adriel's Timepiece", **{"from": "blue"}),
            Event.make("game_over", winner="red", reason="sanctum"),
        )
    )
    assert lines == [
        "Fortitude ended (what it was on is gone)",
        "  the fight ends after 6 round(s) (the last round is fought)",
        "Red (Alice): the group on E4 could not move to E5 (it cannot enter water)",
        "Initiative passes to Blue (Bob) (more towns gained than lost)",
        "Initiative passes to Red (Alice) (Adriel's Timepiece)",
        "Game over: Red (Alice) wins (a Sanctum taken)",
    ]


def test_a_fight_is_one_line_of_losses_and_the_strikes_stay_in_the_full_log() -> None:
    roster = Roster(
        minions={1: ("red", "swordsman"), 2: ("blue", "swordsman"), 3: ("blue", "archer")},
        groups={10: ("red", "G7"), 11: ("blue", "G6")},
    )
    events = (
        Event.make("combat", at="G7", against="G6", groups=(10, 11), sides=("red", "blue")),
        Event.make("strike", attacker=1, damage=2, hit=True, hp=0, mode="hand", soaked=0, victim=2),
        Event.make("died", at="G6", by=1, cause="killed", group=11, minion=2, side="blue"),
        Event.make("strike", attacker=1, damage=0, hit=True, hp=3, mode="hand", soaked=2, victim=3),
        Event.make("combat_ended", rounds=2, reason="max_rounds"),
    )
    brief = LogWriter(load_content(), roster=Roster(**vars(roster))).lines(
        report(*events), strikes=False
    )
    assert brief == ["Fight on G7 and G6: Blue loses a swordsman, Red none"]
    full = LogWriter(load_content(), roster=roster).lines(report(*events))
    assert (
        "  The Red swordsman hits the Blue archer, but its armour soaks the blow (3 hp left)"
        in (full)
    )


def test_a_house_attribute_keeps_its_cause_in_the_public_log() -> None:
    content = load_content()
    assert not content.spells["battle_scar"].visible
    public = public_report(
        report(Event.make("damaged", amount=1, group=11, minion=2, source="battle_scar")), content
    )
    assert LogWriter(content).lines(public) == ["A minion takes 1 damage (Battle Scar)"]
