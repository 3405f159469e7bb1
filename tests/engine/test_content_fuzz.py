"""Fuzzing the content loaders: whatever a data file holds, loading it either succeeds or
raises the loader's own error (a TableError naming file, entry and key), never anything else.

Each example changes one shipped file of a copy of ``data/``: one value somewhere in its tree
replaced, removed or added (structured), or its text cut, spliced or replaced (textual).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.content import DATA_DIR, load_content
from engine.tables import TableError

FILES = (
    "units.toml",
    "nations.toml",
    "houses.toml",
    "realms.toml",
    "spells/war.toml",
    "spells/life.toml",
    "boards/classic.txt",
)
# More with SANCTUM_FUZZ_EXAMPLES=N (each example loads the whole catalogue).
FUZZ = settings(
    max_examples=int(os.environ.get("SANCTUM_FUZZ_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["plains", "war", "swordsman", "hand", "dies", "", "classic", "fire"]),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=8,
)


def _toml_value(value: Any) -> str:
    """``value`` as a TOML inline value (None, which TOML lacks, becomes an empty table)."""
    if value is None:
        return "{}"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"


def toml_text(doc: dict[str, Any]) -> str:
    return "".join(f"{json.dumps(k)} = {_toml_value(v)}\n" for k, v in doc.items())


def _mutate(node: Any, path: list[int], value: Any, action: str) -> Any:
    """``node`` with one place changed: the place is found by walking ``path`` (each number
    picks a child, modulo their count) until a leaf or the end of the path."""
    children = list(node.items()) if isinstance(node, dict) else None
    if isinstance(node, list):
        children = list(enumerate(node))
    if not children or not path:
        return value
    key, child = children[path[0] % len(children)]
    deeper = path[1:] and isinstance(child, dict | list) and child
    if isinstance(node, dict):
        out = dict(node)
        if deeper:
            out[key] = _mutate(child, path[1:], value, action)
        elif action == "remove":
            del out[key]
        elif action == "add":
            out[f"{key}_extra"] = value
        else:
            out[key] = value
        return out
    items = list(node)
    if deeper:
        items[key] = _mutate(child, path[1:], value, action)
    elif action == "remove":
        del items[key]
    else:
        items[key] = value
    return items


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("fuzz") / "data"
    shutil.copytree(DATA_DIR, folder)
    yield folder


def _loads_or_refuses(data: Path, name: str, text: str) -> None:
    target = data / name
    original = target.read_bytes()
    target.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        load_content(data)
    except TableError as error:
        assert error.file, error
    finally:
        target.write_bytes(original)


@FUZZ
@given(
    name=st.sampled_from([f for f in FILES if f.endswith(".toml")]),
    path=st.lists(st.integers(min_value=0, max_value=10_000), max_size=6),
    value=values,
    action=st.sampled_from(["replace", "remove", "add"]),
)
def test_a_changed_value_loads_or_is_refused_by_name(
    data: Path, name: str, path: list[int], value: Any, action: str
) -> None:
    doc = tomllib.loads((DATA_DIR / name).read_text(encoding="utf-8"))
    changed = _mutate(doc, path, value, action)
    _loads_or_refuses(
        data, name, toml_text(changed if isinstance(changed, dict) else {"x": changed})
    )


@FUZZ
@given(
    name=st.sampled_from(FILES),
    start=st.integers(min_value=0, max_value=100_000),
    length=st.integers(min_value=0, max_value=200),
    insert=st.text(max_size=40) | st.sampled_from(["[", "]", "=", "\n", '"', "{", "S", "#"]),
)
def test_a_changed_text_loads_or_is_refused_by_name(
    data: Path, name: str, start: int, length: int, insert: str
) -> None:
    text = (DATA_DIR / name).read_text(encoding="utf-8")
    at = start % (len(text) + 1)
    _loads_or_refuses(data, name, text[:at] + insert + text[at + length :])


@pytest.mark.parametrize(
    ("key", "text"),
    [
        ("terrain", 'terrain = "plains"\n'),
        # Sound terrain, so that only the realm key is wrong.
        ("realm", 'realm = "plains"\n[terrain.plains]\nname = "Plains"\n'),
    ],
)
def test_a_top_level_terrain_or_realm_that_is_not_a_table_is_refused_by_name(
    data: Path, key: str, text: str
) -> None:
    target = data / "realms.toml"
    original = target.read_bytes()
    target.write_text(text, encoding="utf-8")
    try:
        with pytest.raises(TableError, match=f"realms.toml key '{key}': must be a table"):
            load_content(data)
    finally:
        target.write_bytes(original)
