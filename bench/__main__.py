"""Run every benchmark at a size that finishes in a few minutes in total (`make bench`).

    .venv/bin/python -m bench [NAME ...]

Each benchmark runs as its own process (`python -m bench.NAME ARGS`), so one that crashes does
not hide the figures of the others; the exit status is 1 when any of them failed. The sizes
here are for a quick look on a shared machine; run a module on its own, with its defaults, for
the figures its docstring describes.
"""

from __future__ import annotations

import pkgutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Module name -> arguments for the quick run. Every benchmark module must be listed here (main
# refuses to run otherwise), so a new benchmark is not silently left out of `make bench`.
QUICK: dict[str, tuple[str, ...]] = {
    "engine": ("--repeat", "50", "--instructions"),
    "spells": ("--repeat", "9", "--instructions"),
    "render": (),
    "league_pairing": ("--players", "8,16", "--seeds", "2"),
    "ai": ("--games", "6", "--strong-games", "2", "--max-turns", "30", "--workers", "1"),
    "service": ("--matches", "200", "--workers", "2"),
    "bot": ("--matches", "20", "--turns", "2"),
    "anchor": ("--rounds", "10"),
    "balance": ("--games", "4", "--level", "greedy", "--budget", "4", "--no-progress"),
    "expert": ("--repeat", "1"),
}


def modules() -> list[str]:
    """The benchmark modules of this package (helpers start with an underscore)."""
    found = pkgutil.iter_modules([str(Path(__file__).parent)])
    return sorted(m.name for m in found if not m.name.startswith("_"))


def main(argv: list[str] | None = None) -> int:
    missing = sorted(set(modules()) - set(QUICK))
    if missing:
        print(f"no quick arguments for: {', '.join(missing)} (add them to QUICK in {__file__})")
        return 2
    names = (argv if argv is not None else sys.argv[1:]) or list(QUICK)
    unknown = sorted(set(names) - set(QUICK))
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(QUICK)}")
        return 2
    failed = []
    for name in names:
        command = [sys.executable, "-m", f"bench.{name}", *QUICK[name]]
        print(f"== python -m bench.{name} {' '.join(QUICK[name])}", flush=True)
        started = time.perf_counter()
        code = subprocess.run(command, cwd=ROOT, check=False).returncode
        print(f"== bench.{name}: exit {code}, {time.perf_counter() - started:.0f} s\n", flush=True)
        if code != 0:
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
