"""Discord adapters: slash commands, order-sheet views, embeds, the error handler, the poster."""

# Extensions loaded by MatchBot.setup_hook, in order.
EXTENSIONS: tuple[str, ...] = ()
