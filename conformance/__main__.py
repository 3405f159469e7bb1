"""``python -m conformance PATH... [--coverage]`` runs every scenario file (folders are searched
for ``*.toml``), prints a readable diff for each failure and exits non-zero on any. With
``--coverage`` it lists every rule id of the specification with the scenarios and the tests
named after it, and flags the uncovered ones.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from conformance.coverage import REPO, coverage
from conformance.load import load_scenario
from conformance.model import Scenario, ScenarioError
from conformance.run import run_scenario
from engine.content import ContentError


def find_files(paths: Sequence[str]) -> list[Path]:
    files: list[Path] = []
    for p in paths:
        path = Path(p)
        files += sorted(path.rglob("*.toml")) if path.is_dir() else [path]
    return files


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance", description=__doc__)
    parser.add_argument("paths", nargs="+", help="scenario files or folders")
    parser.add_argument("--coverage", action="store_true", help="list rule ids and their cover")
    args = parser.parse_args(argv)
    files = find_files(args.paths)
    loaded: list[Scenario] = []
    failed = 0
    for path in files:
        try:
            scenario = load_scenario(path)
            failures = run_scenario(scenario)
        except (ScenarioError, ContentError, ValueError, TypeError, KeyError) as exc:
            print(f"ERROR {path}: {type(exc).__name__}: {exc}")
            failed += 1
            continue
        loaded.append(scenario)
        if failures:
            failed += 1
            print(f"FAIL  {path}: {scenario.name}")
            for f in failures:
                print(f"  after turn {f.turn}:")
                for line in f.lines:
                    print(f"    {line}")
        else:
            print(f"ok    {path}: {scenario.name}")
    print(f"{len(files) - failed} passed, {failed} failed")
    if args.coverage:
        lines, uncovered = coverage(loaded, REPO / "tests")
        print("\nRule coverage:")
        print("\n".join(lines))
        print(f"\n{len(uncovered)} uncovered: {', '.join(uncovered) or 'none'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
