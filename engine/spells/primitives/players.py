"""Primitives that act on the players: mana, cards and initiative."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.spells.params import Key, Params
from engine.spells.primitives.base import MANA_CHOICES, Effect, Primitive, mana_words
from engine.spells.vocab import HOUSES, MANA_TYPES
from engine.state import NEUTRAL, Mana, Side, evolve

if TYPE_CHECKING:
    from engine.spells.effects import EffectContext


def _mana_type(ctx: EffectContext, side: Side, name: str) -> str:
    primary, secondary = HOUSES[ctx.world.player(side).house]
    return {"primary": primary, "secondary": secondary}.get(name, name)


def _gain_mana(ctx: EffectContext, effect: Effect) -> None:
    p = effect.params
    side = ctx.caster
    if p.text("to", "caster") == "host_owner" and ctx.aim is not None:
        # Whoever holds the host now (a captured town's new owner), if a side does.
        owner = ctx.aim.owner
        if owner is None or owner == NEUTRAL:
            return
        side = Side(owner)
    kind = _mana_type(ctx, side, p.text("mana", "primary"))
    ctx.world.gain(side, Mana.single(kind, p.num("amount")))


def _gain_words(params: Params) -> str:
    who = "The caster" if params.text("to", "caster") == "caster" else "Its host's owner"
    return f"{who} gains {params.num('amount')} {mana_words(params)}."


def _drain_mana(ctx: EffectContext, effect: Effect) -> None:
    p = effect.params
    side = ctx.caster if p.text("who") == "caster" else ctx.caster.other
    amount = p.num("amount")
    mana = p.text("mana")
    loss = Mana(*(amount for _ in MANA_TYPES)) if mana == "all" else Mana.single(mana, amount)
    ctx.world.gain(side, Mana() - loss)


def _draw(ctx: EffectContext, effect: Effect) -> None:
    world = ctx.world
    player = world.player(ctx.caster)
    count = min(effect.params.num("count", 1), len(player.deck))
    if count:
        drawn = player.deck[:count]
        world.update_player(evolve(player, deck=player.deck[count:], hand=player.hand + drawn))
        world.spell_drawn[ctx.caster].update(card.uid for card in drawn)
        world.emit("drew", side=str(ctx.caster), count=count)


def _discard(ctx: EffectContext, effect: Effect) -> None:
    world = ctx.world
    side = ctx.caster if effect.params.text("who", "enemy") == "caster" else ctx.caster.other
    for _ in range(effect.params.num("count", 1)):
        hand = world.player(side).hand
        if not hand:
            return
        card = world.rng.choice(hand)
        world.take_card(side, card.uid)
        world.put_card(side, card, "discard")
        world.emit("discarded", side=str(side), card=card.uid, spell=card.spell_id)


def _swap_initiative(ctx: EffectContext, effect: Effect) -> None:
    world = ctx.world
    if ctx.initiative_lock() is not None:
        world.emit("spell_effect", spell=ctx.spell.id, text="Initiative is held fast (I6).")
        return
    world.set_initiative(world.initiative.other, ctx.spell.name)
    world.emit("initiative_swapped", side=str(world.initiative))


def _seize_initiative(ctx: EffectContext, effect: Effect) -> None:
    ctx.world.set_initiative(ctx.caster, ctx.spell.name)


PRIMITIVES = (
    Primitive(
        "gain_mana",
        (
            Key("mana", "str", default="primary", choices=MANA_CHOICES),
            Key("amount", "int", required=True, minimum=1),
            Key("to", "str", default="caster", choices=("caster", "host_owner")),
        ),
        _gain_words,
        _gain_mana,
    ),
    Primitive(
        "drain_mana",
        (
            Key("mana", "str", required=True, choices=(*MANA_TYPES, "all")),
            Key("amount", "int", required=True, minimum=1),
            Key("who", "str", default="enemy", choices=("enemy", "caster")),
        ),
        lambda p: (
            f"The {p.text('who')} loses up to {p.num('amount')} "
            + ("of every mana type." if p.text("mana") == "all" else f"{mana_words(p)}.")
        ),
        _drain_mana,
    ),
    Primitive(
        "draw",
        (Key("count", "int", default=1, minimum=1),),
        lambda p: f"The caster draws {p.num('count')} spell(s).",
        _draw,
    ),
    Primitive(
        "discard",
        (
            Key("count", "int", default=1, minimum=1),
            Key("who", "str", default="enemy", choices=("enemy", "caster")),
        ),
        lambda p: (
            f"{'The caster' if p.text('who') == 'caster' else 'The enemy'} discards "
            f"{p.num('count')} spell(s) from hand at random."
        ),
        _discard,
    ),
    Primitive(
        "swap_initiative",
        (),
        lambda p: "Swaps initiative the instant it executes.",
        _swap_initiative,
    ),
    Primitive("seize_initiative", (), lambda p: "The caster takes initiative.", _seize_initiative),
)
