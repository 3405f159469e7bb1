"""The layering of docs/architecture: every import of every module is checked against its layer.

Dependencies point inward (bot -> cogs -> service -> engine, service -> storage -> engine,
cogs -> render -> engine, ai -> engine, conformance -> engine); Discord only in cogs/ and bot.py,
SQL drivers only in storage/, Pillow only in render/, and the engine uses the standard library
alone, without clocks, event loops or the global random generator.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FIRST_PARTY = (
    "engine",
    "ai",
    "render",
    "storage",
    "service",
    "cogs",
    "sandbox",
    "conformance",
    "bot",
    "settings",
)
STDLIB = frozenset(sys.stdlib_module_names)


@dataclass(frozen=True)
class Layer:
    first_party: frozenset[str]
    third_party: frozenset[str]
    forbidden_stdlib: frozenset[str] = frozenset()


ENGINE_FORBIDDEN_STDLIB = frozenset(
    {
        "asyncio",
        "time",
        "datetime",
        "socket",
        "subprocess",
        "threading",
        "multiprocessing",
        "sqlite3",
        "secrets",
        "uuid",
    }
)

LAYERS: dict[str, Layer] = {
    "engine": Layer(frozenset({"engine"}), frozenset(), ENGINE_FORBIDDEN_STDLIB),
    "ai": Layer(frozenset({"ai", "engine"}), frozenset(), ENGINE_FORBIDDEN_STDLIB - {"time"}),
    # The rules conformance runner: it reads scenario files and prints, but stays deterministic.
    "conformance": Layer(
        frozenset({"conformance", "engine"}), frozenset(), ENGINE_FORBIDDEN_STDLIB
    ),
    "render": Layer(frozenset({"render", "engine"}), frozenset({"PIL"})),
    "storage": Layer(frozenset({"storage", "engine"}), frozenset({"aiosqlite", "asyncpg"})),
    "service": Layer(
        frozenset({"service", "storage", "engine", "ai"}),
        frozenset({"apscheduler", "openskill"}),
    ),
    "cogs": Layer(
        frozenset({"cogs", "service", "render", "engine", "ai", "settings"}),
        frozenset({"discord"}),
    ),
    "sandbox": Layer(frozenset({"sandbox"}), frozenset({"aiohttp", "multidict", "yarl"})),
    "settings": Layer(frozenset({"settings"}), frozenset({"dotenv"})),
    "bot": Layer(
        frozenset(FIRST_PARTY) - {"bot"},
        frozenset({"discord", "aiohttp"}),
    ),
}

# Module-level functions of `random` share one hidden global generator; the engine must draw from
# the random.Random it is given so that a turn replays exactly (rule G11).
GLOBAL_RANDOM_CALLS = frozenset(
    {
        "random",
        "randint",
        "randrange",
        "choice",
        "choices",
        "shuffle",
        "sample",
        "uniform",
        "seed",
        "getrandbits",
        "gauss",
    }
)


def _layer_of(path: Path, root: Path) -> str | None:
    rel = path.relative_to(root)
    top = rel.parts[0]
    if len(rel.parts) == 1:
        top = rel.stem
    return top if top in LAYERS else None


def _imported_modules(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def _global_random_uses(tree: ast.AST) -> list[tuple[int, str]]:
    uses: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "random"
            and node.attr in GLOBAL_RANDOM_CALLS
        ):
            uses.append((node.lineno, f"random.{node.attr}"))
        if isinstance(node, ast.ImportFrom) and node.module == "random":
            uses.extend(
                (node.lineno, f"from random import {a.name}")
                for a in node.names
                if a.name in GLOBAL_RANDOM_CALLS
            )
        if (
            isinstance(node, ast.Attribute)
            and node.attr in {"now", "utcnow", "today"}
            and isinstance(node.value, ast.Name)
            and node.value.id in {"datetime", "date"}
        ):
            uses.append((node.lineno, f"{node.value.id}.{node.attr}"))
    return uses


def layering_violations(root: Path) -> list[str]:
    """Every import that reaches the wrong way, as 'file:line: message'."""
    problems: list[str] = []
    paths = [p for name in LAYERS for p in (root / f"{name}.py", root / name) if p.exists()]
    for path in sorted(f for p in paths for f in ([p] if p.is_file() else p.rglob("*.py"))):
        rel = path.relative_to(root)
        layer_name = _layer_of(path, root)
        if layer_name is None:
            continue
        layer = LAYERS[layer_name]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for lineno, module in _imported_modules(tree):
            top = module.split(".")[0]
            where = f"{rel}:{lineno}"
            if top in FIRST_PARTY:
                if top not in layer.first_party and top != layer_name:
                    problems.append(f"{where}: {layer_name} must not import {module}")
            elif top in STDLIB:
                if top in layer.forbidden_stdlib:
                    problems.append(f"{where}: {layer_name} must not import {module}")
            elif top not in layer.third_party and top != "__future__":
                problems.append(f"{where}: {layer_name} must not import third-party {module}")
        if layer_name in {"engine", "ai", "conformance"}:
            problems.extend(
                f"{rel}:{lineno}: {layer_name} must not use the global {what}"
                for lineno, what in _global_random_uses(tree)
            )
    return problems


def test_every_layer_imports_only_inward() -> None:
    assert layering_violations(ROOT) == []


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_layering_check_flags_forbidden_imports(tmp_path: Path) -> None:
    _write(tmp_path, "engine/__init__.py", "")
    _write(tmp_path, "engine/turn.py", "import asyncio\nfrom discord import Embed\nimport time\n")
    _write(tmp_path, "engine/dice.py", "import random\nx = random.randint(1, 6)\n")
    _write(tmp_path, "render/board.py", "from storage.db import Database\nfrom PIL import Image\n")
    _write(tmp_path, "service/match.py", "import cogs.poster\nimport aiosqlite\n")
    _write(tmp_path, "ai/greedy.py", "import PIL\nfrom engine.turn import resolve_turn\n")
    _write(tmp_path, "storage/db.py", "import bot\n")
    _write(tmp_path, "conformance/run.py", "from service import matches\nimport discord\n")
    problems = layering_violations(tmp_path)
    expected = [
        "ai/greedy.py:1: ai must not import third-party PIL",
        "conformance/run.py:1: conformance must not import service",
        "conformance/run.py:2: conformance must not import third-party discord",
        "engine/dice.py:2: engine must not use the global random.randint",
        "engine/turn.py:1: engine must not import asyncio",
        "engine/turn.py:2: engine must not import third-party discord",
        "engine/turn.py:3: engine must not import time",
        "render/board.py:1: render must not import storage.db",
        "service/match.py:1: service must not import cogs.poster",
        "service/match.py:2: service must not import third-party aiosqlite",
        "storage/db.py:1: storage must not import bot",
    ]
    assert sorted(problems) == expected


def test_layering_check_accepts_inward_imports(tmp_path: Path) -> None:
    _write(tmp_path, "engine/turn.py", "import random\nrng = random.Random(4)\nimport tomllib\n")
    _write(tmp_path, "render/board.py", "from PIL import Image\nfrom engine.view import View\n")
    _write(tmp_path, "cogs/match.py", "import discord\nfrom service import matches\n")
    assert layering_violations(tmp_path) == []
