"""Discord adapters: slash commands, order-sheet views, embeds, the error handler, the poster."""

# Extensions loaded by MatchBot.setup_hook, in order. The sheet registers the dynamic items that
# every other posted component relies on, so it comes first; leagues register their
# announcements with the poster, so they come after it.
EXTENSIONS: tuple[str, ...] = (
    "cogs.sheet",
    "cogs.match",
    "cogs.orders",
    "cogs.deck",
    "cogs.spell",
    "cogs.rules",
    "cogs.tutorial",
    "cogs.admin",
    "cogs.poster",
    "cogs.leagues",
)
