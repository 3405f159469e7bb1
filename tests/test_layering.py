"""The layering of the project: every import of every module is checked against its layer.

Dependencies point inward (bot -> cogs -> service -> engine, service -> storage -> engine,
cogs -> render -> engine, ai -> engine, conformance -> engine); Discord only in cogs/ and bot.py,
SQL drivers only in storage/, Pillow only in render/, and the engine uses the standard library
alone, without clocks, event loops or the global random generator.

Inside the engine, modules sit in ordered layers (:data:`ENGINE_LAYERS`): a module imports only
from its own layer or a lower one (``TYPE_CHECKING`` imports included, so the type checker's graph
is layered too, save the few type-only names :data:`TYPE_ONLY_UPWARD` lists with the reason),
and imports sit in the module header, where a reader looks for them, unless
:data:`FUNCTION_IMPORTS` names them with the reason.
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
    # jsonschema and referencing check the sandbox's traffic against Discord's API description
    # in test mode only (a dev dependency, imported where the contract is switched on);
    # schemathesis, hypothesis and requests only in the fuzzer (`python -m sandbox.fuzz`).
    "sandbox": Layer(
        frozenset({"sandbox"}),
        frozenset(
            {
                "aiohttp",
                "multidict",
                "yarl",
                "jsonschema",
                "referencing",
                "schemathesis",
                "hypothesis",
                "requests",
            }
        ),
    ),
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


# -------------------------------------------------------------------------- inside the engine

# Lowest first. values: records and the vocabulary words; content: the catalogue and the spell
# schema; reading: questions about a position (indexed views, aims, requirement checks, the
# spell modifiers); world: the turn's mutable World and the core's fast questions to it; phases:
# the rules that change a World; entry: what callers outside the engine use.
ENGINE_LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    (
        "values",
        frozenset(
            {
                "engine",
                "engine.coords",
                "engine.state",
                "engine.orders",
                "engine.report",
                "engine.rng",
                "engine.spells",
                "engine.spells.vocab",
                "engine.spells.params",
                "engine.tables",
                "engine.squares",
            }
        ),
    ),
    (
        "content",
        frozenset(
            {
                "engine.spells.primitives",
                "engine.spells.primitives.base",
                "engine.spells.primitives.minions",
                "engine.spells.primitives.board",
                "engine.spells.primitives.players",
                "engine.spells.primitives.spells",
                "engine.spells.primitives.continuous",
                "engine.spells.requirements",
                "engine.spells.schema",
                "engine.spells.catalogue",
                "engine.spells.index",
                "engine.content",
            }
        ),
    ),
    (
        "reading",
        frozenset(
            {
                "engine.mana",
                "engine.position",
                "engine.spells.aim",
                "engine.spells.checks",
                "engine.spells.modifiers",
                "engine.spells.targeting",
            }
        ),
    ),
    (
        "world",
        frozenset(
            {
                "engine.store",
                "engine.spells.presence",
                "engine.world",
                "engine.broadcast",
                "engine.queries",
            }
        ),
    ),
    (
        "phases",
        frozenset(
            {
                "engine.terrain",
                "engine.training",
                "engine.movement",
                "engine.combat",
                "engine.start",
                "engine.validate",
                "engine.spells.duel",
                "engine.spells.hosts",
                "engine.spells.effects",
                "engine.spells.events",
                "engine.spells.hooks",
                "engine.spells.phase",
            }
        ),
    ),
    (
        "entry",
        frozenset(
            {
                "engine.turn",
                "engine.legal",
                "engine.view",
                "engine.notation",
                "engine.setup",
            }
        ),
    ),
)

# (file, imported module) -> why the import sits inside a function. Empty: every engine import
# sits in its module's header.
FUNCTION_IMPORTS: dict[tuple[str, str], str] = {}

# (module, imported module) -> why a module names a higher layer's type, under TYPE_CHECKING only.
_CONTEXT = (
    "a primitive's behaviour is written against the EffectContext it is handed when its spell "
    "executes; at import time the vocabulary the schema validates with needs nothing above content"
)
TYPE_ONLY_UPWARD: dict[tuple[str, str], str] = {
    (f"engine.spells.primitives.{family}", "engine.spells.effects"): _CONTEXT
    for family in ("base", "minions", "board", "players", "spells")
}


def _engine_layer_index() -> dict[str, int]:
    index: dict[str, int] = {}
    for rank, (_, modules) in enumerate(ENGINE_LAYERS):
        for module in modules:
            assert module not in index, f"{module} is in two layers"
            index[module] = rank
    return index


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@dataclass(frozen=True)
class _Import:
    line: int
    module: str
    in_function: bool
    type_only: bool = False


def _imports(tree: ast.AST, known: set[str]) -> list[_Import]:
    """Every import with whether it sits inside a function; ``from engine.spells import
    modifiers`` counts as an import of the module ``engine.spells.modifiers``."""
    found: list[_Import] = []

    def visit(node: ast.AST, in_function: bool, typing: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(
                child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
            )
            only = typing or (
                isinstance(child, ast.If)
                and isinstance(child.test, ast.Name)
                and child.test.id == "TYPE_CHECKING"
            )
            if isinstance(child, ast.Import):
                found.extend(_Import(child.lineno, a.name, inner, typing) for a in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module:
                for alias in child.names:
                    sub = f"{child.module}.{alias.name}"
                    target = sub if sub in known else child.module
                    found.append(_Import(child.lineno, target, inner, typing))
            visit(child, inner, only)

    visit(tree, False, False)
    return found


def engine_contract_violations(root: Path) -> list[str]:
    """Engine imports that reach a higher layer, engine modules no layer names, and imports
    inside functions that :data:`FUNCTION_IMPORTS` does not list, as 'file:line: message'."""
    layer_of = _engine_layer_index()
    names = [name for name, _ in ENGINE_LAYERS]
    paths = sorted((root / "engine").rglob("*.py"))
    known = {_module_name(p, root) for p in paths}
    problems = [f"{m}: no engine layer names it" for m in sorted(known - set(layer_of))]
    for path in paths:
        rel = path.relative_to(root).as_posix()
        module = _module_name(path, root)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for imp in _imports(tree, known):
            where = f"{rel}:{imp.line}"
            if imp.in_function and (rel, imp.module) not in FUNCTION_IMPORTS:
                problems.append(f"{where}: {imp.module} is imported inside a function")
            if module in layer_of and imp.module in layer_of:
                mine, theirs = layer_of[module], layer_of[imp.module]
                allowed = imp.type_only and (module, imp.module) in TYPE_ONLY_UPWARD
                if theirs > mine and not allowed:
                    problems.append(
                        f"{where}: {module} ({names[mine]}) must not import "
                        f"{imp.module} ({names[theirs]})"
                    )
    return problems


def test_engine_modules_import_only_their_own_layer_or_lower() -> None:
    assert [p for p in engine_contract_violations(ROOT) if "inside a function" not in p] == []


def test_engine_imports_sit_in_module_headers_unless_listed() -> None:
    assert [p for p in engine_contract_violations(ROOT) if "inside a function" in p] == []


def test_every_layered_engine_module_exists() -> None:
    paths = (ROOT / "engine").rglob("*.py")
    assert set(_engine_layer_index()) == {_module_name(p, ROOT) for p in paths}


def test_every_listed_function_import_still_exists() -> None:
    layer_of = _engine_layer_index()
    known = set(layer_of)
    present = set()
    for rel, module in FUNCTION_IMPORTS:
        tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
        if any(i.in_function and i.module == module for i in _imports(tree, known)):
            present.add((rel, module))
    assert present == set(FUNCTION_IMPORTS)


def test_every_listed_type_only_import_still_exists() -> None:
    known = set(_engine_layer_index())
    present = set()
    for module, imported in TYPE_ONLY_UPWARD:
        path = ROOT / (module.replace(".", "/") + ".py")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(i.type_only and i.module == imported for i in _imports(tree, known)):
            present.add((module, imported))
    assert present == set(TYPE_ONLY_UPWARD)


def test_a_listed_type_only_import_may_not_run(tmp_path: Path) -> None:
    _write(tmp_path, "engine/__init__.py", "")
    _write(tmp_path, "engine/spells/__init__.py", "")
    _write(
        tmp_path,
        "engine/spells/primitives/board.py",
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from engine.spells.effects import EffectContext\n"
        "from engine.spells.effects import EffectContext\n",
    )
    _write(tmp_path, "engine/spells/effects.py", "")
    problems = [p for p in engine_contract_violations(tmp_path) if "must not import" in p]
    assert problems == [
        "engine/spells/primitives/board.py:4: engine.spells.primitives.board (content) must not "
        "import engine.spells.effects (phases)"
    ]


def test_engine_contract_flags_upward_and_deferred_imports(tmp_path: Path) -> None:
    _write(tmp_path, "engine/__init__.py", "")
    _write(tmp_path, "engine/state.py", "from engine.world import World\n")
    _write(tmp_path, "engine/world.py", "from engine.state import GameState\n")
    _write(tmp_path, "engine/queries.py", "def f():\n    from engine.state import Group\n")
    _write(tmp_path, "engine/turn.py", "def f():\n    import json\n")
    _write(tmp_path, "engine/extra.py", "")
    assert sorted(engine_contract_violations(tmp_path)) == [
        "engine.extra: no engine layer names it",
        "engine/queries.py:2: engine.state is imported inside a function",
        "engine/state.py:1: engine.state (values) must not import engine.world (world)",
        "engine/turn.py:2: json is imported inside a function",
    ]


# ------------------------------------------------------------ no hidden state inside the engine

_CONTAINER_CALLS = frozenset(
    {"dict", "list", "set", "defaultdict", "Counter", "deque", "bytearray"}
)
_MUTATING_METHODS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "add",
        "update",
        "setdefault",
        "pop",
        "popitem",
        "clear",
        "remove",
        "discard",
        "sort",
        "reverse",
    }
)


def _is_container(value: ast.expr | None) -> bool:
    if isinstance(value, ast.Dict | ast.List | ast.Set | ast.DictComp | ast.ListComp | ast.SetComp):
        return True
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in _CONTAINER_CALLS
    )


def _module_containers(tree: ast.Module) -> dict[str, int]:
    """Names bound at module level to a mutable container, with their line."""
    found: dict[str, int] = {}
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign) and _is_container(node.value):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign) and _is_container(node.value):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Name):
                found[target.id] = node.lineno
    return found


def _mutated_name(node: ast.AST) -> str | None:
    """The name a statement or call mutates in place (``x[k] = v``, ``del x[k]``, ``x += ...``,
    ``x.append(...)``), if any."""
    target: ast.expr | None = None
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
        target = node.value
    elif isinstance(node, ast.AugAssign):
        target = node.target
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _MUTATING_METHODS
    ):
        target = node.func.value
    return target.id if isinstance(target, ast.Name) else None


def module_state_violations(root: Path) -> list[str]:
    """Module-level containers of the engine that some code changes in place (caches and other
    state that outlives a call), and ``global`` statements, as 'file:line: message'.

    A module-level table that nothing mutates is a constant, whatever its type."""
    problems: list[str] = []
    for path in sorted((root / "engine").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        containers = _module_containers(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Global):
                problems.append(f"{rel}:{node.lineno}: global {', '.join(node.names)}")
            name = _mutated_name(node)
            if name in containers and isinstance(node, ast.expr | ast.stmt):
                problems.append(
                    f"{rel}:{node.lineno}: module-level {name} (line {containers[name]}) "
                    "is changed in place"
                )
    return sorted(problems, key=lambda p: (p.split(":")[0], int(p.split(":")[1])))


def test_engine_keeps_no_module_level_state() -> None:
    assert module_state_violations(ROOT) == []


def test_module_state_check_flags_caches(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "engine/cache.py",
        "_seen: dict[int, str] = {}\n"
        "LAST = []\n"
        "TABLE = {'a': 1}\n"
        "COUNT = 0\n"
        "def f(k):\n"
        "    _seen[k] = 'x'\n"
        "    LAST.append(k)\n"
        "    global COUNT\n"
        "    return TABLE[k]\n",
    )
    assert module_state_violations(tmp_path) == [
        "engine/cache.py:6: module-level _seen (line 1) is changed in place",
        "engine/cache.py:7: module-level LAST (line 2) is changed in place",
        "engine/cache.py:8: global COUNT",
    ]


# The loader of the shipped catalogue: nothing else in the engine may reach for the shipped
# catalogue instead of the content it is handed.
CATALOGUE_LOADERS = frozenset({"engine/content.py"})


def default_catalogue_uses(root: Path) -> list[str]:
    """Uses of ``load_content`` inside the engine outside :data:`CATALOGUE_LOADERS`."""
    found: list[str] = []
    for path in sorted((root / "engine").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel in CATALOGUE_LOADERS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        found.extend(
            f"{rel}:{node.lineno}: load_content"
            for node in ast.walk(tree)
            if isinstance(node, ast.Name | ast.alias)
            and (node.id if isinstance(node, ast.Name) else node.name) == "load_content"
        )
    return found


def test_the_engine_never_falls_back_to_the_shipped_catalogue() -> None:
    assert default_catalogue_uses(ROOT) == []


def test_default_catalogue_check_flags_a_fallback(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "engine/legal.py",
        "from engine.content import load_content\ndef f(c=None):\n    return c or load_content()\n",
    )
    assert default_catalogue_uses(tmp_path) == [
        "engine/legal.py:1: load_content",
        "engine/legal.py:3: load_content",
    ]
