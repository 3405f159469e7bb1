"""The only code that speaks SQL: SQLite (default) and PostgreSQL behind one interface."""
