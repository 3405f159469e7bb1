"""The application layer between Discord and the engine: matches, deadlines, leagues."""
