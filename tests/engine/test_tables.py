"""engine.tables: typed reads of one TOML table, with errors that name the file, entry and key."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine.tables import Table, TableError


def _table(raw: object) -> Table:
    return Table("units.toml", "archer", raw)


def test_a_failure_names_the_file_the_entry_and_the_key() -> None:
    with pytest.raises(TableError, match=r"^units.toml: \[archer\] key 'hp': is required$"):
        _table({}).integer("hp")
    error = _table({}).fail("hp", "bad")
    assert isinstance(error, TableError)
    assert (error.file, error.entry, error.key, error.message) == (
        "units.toml",
        "archer",
        "hp",
        "bad",
    )


def test_a_table_that_is_not_one_fails_on_its_own_name() -> None:
    with pytest.raises(TableError, match=r"^units.toml: \[archer\]: must be a table$"):
        _table(3)


def test_unknown_keys_list_the_accepted_ones() -> None:
    with pytest.raises(TableError, match=r"key 'colour': unknown key \(accepted: hp, armor\)"):
        _table({"hp": 1, "colour": 2}).known(("hp", "armor"))
    _table({"do": "x"}).known((), also=("do",))
    with pytest.raises(TableError, match=r"unknown key \(accepted: none\)"):
        _table({"x": 1}).known((), also=("do",))


def test_typed_reads_check_type_default_choices_and_minimum() -> None:
    t = _table({"kind": "recruit", "hp": 0, "ranged": True, "walks": ["flight"], "one": "a"})
    assert t.text("kind", choices=("recruit", "monster")) == "recruit"
    assert t.text("name", "Archer") == "Archer"
    assert t.integer("hp", minimum=None) == 0
    assert t.integer("armor", 2) == 2
    assert t.flag("ranged") is True
    assert t.flag("hidden") is False
    assert t.texts("walks", ("flight",)) == ("flight",)
    assert t.texts("traits") == ()
    assert t.texts("one", or_one=True) == ("a",)
    reads: list[tuple[Callable[[], object], str]] = [
        (lambda: t.text("kind", choices=("monster",)), "must be one of monster; got 'recruit'"),
        (lambda: t.text("hp"), "must be a string, not 0"),
        (lambda: t.integer("hp", minimum=1), "must be at least 1, not 0"),
        (lambda: t.integer("ranged"), "must be an integer, not True"),
        (lambda: t.flag("hp"), "must be true or false, not 0"),
        (lambda: t.texts("one"), "must be a list of strings, not 'a'"),
        (lambda: t.texts("hp", or_one=True), "must be a string or a list of strings, not 0"),
        (lambda: t.texts("walks", ("swampwalk",)), "entries must be among swampwalk; got 'flight'"),
    ]
    for read, message in reads:
        with pytest.raises(TableError) as caught:
            read()
        assert caught.value.message == message


def test_nested_tables_are_named_by_their_path() -> None:
    root = Table("s.toml", "spell", {"requires": {"targeting": 3}, "list": [{"a": 1}]})
    requires = root.table("requires")
    assert requires.key_path("targeting") == "requires.targeting"
    with pytest.raises(TableError, match=r"key 'requires.targeting': must be a table, not 3"):
        requires.table("targeting")
    item = root.item("list[0]", root.get("list")[0])
    assert item.key_path("a") == "list[0].a"
    assert item.key_path(None) == "list[0]"
    assert root.table("absent").raw == {}


def test_each_reader_keeps_its_own_error_class() -> None:
    class CustomError(ValueError):
        def __init__(self, file: str, entry: str | None, key: str | None, message: str) -> None:
            super().__init__(f"{file}/{entry}/{key}/{message}")

    with pytest.raises(CustomError, match=r"^f/e/k/is required$"):
        Table("f", "e", {}, CustomError).text("k")
