"""Instruction counts of single calls with callgrind: a figure a busy machine leaves alone.

A benchmark given `--instructions` calls `report(module, labels)`: it reruns the module under
callgrind with `--measure-instructions`, in which mode the module builds its fixtures, warms each
up with one untimed call and then makes the measured call through `measured(call)`.

Python offers no way to switch callgrind's collection on and off from inside the program, so the
measured call goes through `sys.call_tracing`, a C function of the interpreter that nothing else
in the project calls: callgrind collects only while inside it (`--toggle-collect`) and writes one
profile as it returns (`--dump-after`), which holds exactly that call. `PYTHONHASHSEED=0`, a fixed
environment and a collection just before the measured call keep the count from moving with
what ran before (set and dict orders stay the same, and so do the cyclic collector's runs inside
the call): bench.engine's turns repeat to the instruction, bench.spells' to 0.2 %.
"""

from __future__ import annotations

import gc
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parent.parent
MARKER = "sys_call_tracing"
FLAG = "--measure-instructions"

T = TypeVar("T")


def measured(call: Callable[[], T]) -> T:
    """Run `call` where callgrind counts it (anywhere else it is an ordinary call)."""
    # The cyclic collector runs after a count of allocations: starting that count from zero
    # makes the collections inside the call the same whatever the program did before.
    gc.collect()
    result: T = sys.call_tracing(call, ())
    return result


def counts(module: str, runs: int) -> list[int] | None:
    """Instructions of each `measured` call made by `python -m MODULE --measure-instructions`,
    in order; None when valgrind is not installed."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        command = [
            valgrind,
            "--tool=callgrind",
            "--collect-atstart=no",
            f"--toggle-collect={MARKER}",
            f"--dump-after={MARKER}",
            f"--callgrind-out-file={out}",
            sys.executable,
            "-m",
            module,
            FLAG,
        ]
        # Nothing of the caller's environment (its size alone moves the allocator) but PATH.
        env = {"PYTHONHASHSEED": "0", "PATH": os.environ.get("PATH", "")}
        subprocess.run(command, cwd=ROOT, env=env, check=True, stderr=subprocess.DEVNULL)
        found = []
        for part in range(1, runs + 1):
            dump = Path(f"{out}.{part}")
            if not dump.exists():
                raise RuntimeError(
                    f"callgrind wrote {part - 1} of {runs} profiles: is {MARKER} in the symbol "
                    f"table of {sys.executable} (an interpreter not stripped)?"
                )
            found.append(_total(dump))
    return found


def _total(dump: Path) -> int:
    for line in dump.read_text().splitlines():
        if line.startswith("summary:"):
            return int(line.split()[1])
    raise RuntimeError(f"no summary line in {dump}")


def report(module: str, labels: Sequence[str], unit: str = "turn") -> None:
    """Print one line per label, such as `late game: 20.2 M instructions per turn`."""
    found = counts(module, len(labels))
    if found is None:
        print("valgrind is not installed: no instruction counts (apt-get install valgrind)")
        return
    for label, total in zip(labels, found, strict=True):
        print(f"{label}: {total / 1e6:.1f} M instructions per {unit}")
