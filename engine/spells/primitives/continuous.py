"""Continuous primitives: they act only while their spell is active, read where ``reads`` says
(functions of :mod:`engine.spells.modifiers`, fronted by :mod:`engine.queries`, unless another
module is named)."""

from __future__ import annotations

from engine.spells.params import Key, Params
from engine.spells.primitives.base import FILTER_KEYS, Primitive, filter_words, signed
from engine.spells.vocab import ABILITIES, STATS

_STAT_READS = ("modifiers.effective_stats", "modifiers.effective_minion", "modifiers.moves")


def _modify_words(p: Params) -> str:
    op = p.text("op", "add")
    stat = p.text("stat").replace("_", " ")
    who = p.text("who", "all")
    scope = "affected minions" if who == "all" else f"{who} minions"
    if op == "add":
        return f"While active: {stat} {signed(p.num('amount'))} for {scope}."
    if op == "set":
        return f"While active: {stat} becomes {p.num('amount')} for {scope}."
    if op == "max":
        return f"While active: {stat} is at most {p.num('amount')} for {scope}."
    return f"While active: {stat} is at least {p.num('amount')} for {scope}."


PRIMITIVES = (
    Primitive(
        "modify",
        (
            Key("stat", "str", required=True, choices=STATS),
            Key("amount", "int", required=True),
            Key("op", "str", default="add", choices=("set", "add", "max", "min")),
            Key("who", "str", default="all", choices=("all", "friendly", "enemy")),
        ),
        _modify_words,
        reads=_STAT_READS,
    ),
    Primitive(
        "aura_modify",
        (
            Key("stat", "str", required=True, choices=STATS),
            Key("amount", "int", required=True),
            Key("op", "str", default="add", choices=("set", "add", "max", "min")),
            Key("who", "str", default="enemy", choices=("all", "friendly", "enemy")),
            Key("radius", "int", default=1, minimum=0),
        ),
        lambda p: (
            _modify_words(p).replace("While active:", "While active, around it:")[:-1]
            + f" within {p.num('radius')} square(s) of the host."
        ),
        reads=_STAT_READS,
    ),
    Primitive(
        "grant",
        (Key("ability", "str", required=True, choices=ABILITIES),),
        lambda p: f"While active: affected minions have {p.text('ability').replace('_', ' ')}.",
        reads=("modifiers.abilities", "modifiers.walks"),
    ),
    Primitive(
        "hold",
        (),
        lambda p: "While active: the host group cannot move.",
        reads=("modifiers.can_move",),
    ),
    Primitive(
        "forbid_join",
        (),
        lambda p: (
            "While active: the host group cannot join or be joined, and nobody trains "
            "on its square."
        ),
        reads=("modifiers.can_join", "modifiers.training_blocked"),
    ),
    Primitive(
        "ward",
        (*FILTER_KEYS, Key("uses", "int", default=0, minimum=0)),
        lambda p: (
            f"While active: {filter_words(p)} spells executing against the host "
            "squander" + (f" (the ward ends after {p.num('uses')})." if p.num("uses") else ".")
        ),
        reads=("phase.execute_cast",),
    ),
    Primitive(
        "aura_ward",
        (
            Key("most", "int", default=0, minimum=0),
            Key("who", "str", default="all", choices=("all", "friendly", "enemy")),
        ),
        lambda p: (
            "While active: "
            + (
                f"at most {p.num('most')} of the auras enemy minions carry (the oldest) reach"
                if p.num("most")
                else "no aura carried by an enemy minion reaches"
            )
            + (
                " the host's members."
                if p.text("who", "all") == "all"
                else f" {p.text('who')} minions under it."
            )
        ),
        reads=_STAT_READS,
    ),
    Primitive(
        "lock_initiative",
        (),
        lambda p: "While active: its owner holds initiative, whatever else happens.",
        reads=("modifiers.initiative_lock",),
    ),
    Primitive(
        "bind",
        (Key("spell", "str", required=True),),
        lambda p: f"Carries the bound spell '{p.text('spell')}': once per turn, free of mana.",
        reads=("modifiers.bound_spells",),
    ),
    Primitive(
        "sustain",
        (),
        lambda p: "The host structure stands only while this spell lasts.",
        reads=("effects.end_spell",),
    ),
    Primitive(
        "deny_production",
        (),
        lambda p: (
            "While active: the host structure produces no mana for its owner; on the "
            "globe, no enemy structure does unless it holds at least as many recruits as "
            "there are copies of this spell."
        ),
        reads=("modifiers.produces_mana",),
    ),
)
