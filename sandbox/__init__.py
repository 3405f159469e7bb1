"""A local Discord-compatible server and scripted players for tests and the demo."""
