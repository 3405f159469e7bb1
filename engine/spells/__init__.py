"""The spell system: spell data, targeting, the spell execution phase, effects and modifiers.

See ``engine/spells/README.md`` for what the core calls and the spell file format, and
``docs/spells.md`` for the design decisions and the event order.
"""
