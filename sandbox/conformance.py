"""`python -m sandbox.conformance`: the end-to-end suite's traffic, checked against Discord's API.

Without arguments it runs the end-to-end tests (tests/cogs, tests/sandbox and the bot's entry
test) with every sandbox validating its traffic against Discord's OpenAPI description, then adds
up what the sandboxes saw: the routes exercised, the requests and responses validated, the
violations, and the routes the sandbox serves that no test exercised. With `--report DIR` it only
adds up a directory that an earlier run filled (`SANDBOX_TRAFFIC_DIR=DIR`, as `make test` does).
It exits non-zero on a violation, a failed test or a route left unexercised.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from sandbox.contract import CONTRACT_ENV, TRAFFIC_DIR_ENV, spec_route

E2E_TESTS = ("tests/cogs", "tests/sandbox", "tests/test_bot_entry.py")


def served_routes() -> dict[str, str | None]:
    """Every ``METHOD /template`` the sandbox serves -> the spec route it answers for."""
    from sandbox.server import Sandbox

    out: dict[str, str | None] = {}
    for key in Sandbox(contract=False).served_routes():
        method, template = key.split(" ", 1)
        sample = "/".join("1" if p.startswith("{") else p for p in template.split("/"))
        out[key] = spec_route(method, sample)
    return out


def _exercised(key: str, spec: str | None, routes: Counter[str]) -> bool:
    if spec is None:
        return False
    if spec in routes:
        return True
    # One sandbox route answers both a message id and Discord's separate `@original` path.
    method, template = key.split(" ", 1)
    if "/webhooks/" in template and template.endswith("{message_id}"):
        original = template.replace("{message_id}", "@original")
        sample = "/".join("1" if p.startswith("{") else p for p in original.split("/"))
        return spec_route(method, sample) in routes
    return False


def report(directory: Path) -> int:
    routes: Counter[str] = Counter()
    violations: Counter[str] = Counter()
    examples: dict[str, str] = {}
    requests = responses = sandboxes = 0
    seconds = 0.0
    for file in sorted(directory.glob("*.json")):
        data = json.loads(file.read_text(encoding="utf-8"))
        sandboxes += 1
        requests += data["requests"]
        responses += data["responses"]
        seconds += data["seconds"]
        routes.update(data["routes"])
        for item in data["violations"]:
            violations[item["key"]] += 1
            examples.setdefault(item["key"], item["example"])
    served = served_routes()
    print(f"Discord API conformance of {sandboxes} sandboxes' traffic")
    print(f"routes exercised: {len(routes)}")
    for route, count in sorted(routes.items()):
        print(f"  {count:7d}  {route}")
    unexercised = sorted(k for k, spec in served.items() if not _exercised(k, spec, routes))
    print(f"routes the sandbox serves: {len(served)}, not exercised: {len(unexercised)}")
    for key in unexercised:
        print(f"  {key}" + ("  (not in Discord's API)" if served[key] is None else ""))
    print(f"requests validated: {requests}")
    print(f"responses validated: {responses}")
    each = 1000 * seconds / max(requests, 1)
    print(f"time spent validating: {seconds:.1f} s ({each:.1f} ms a request)")
    print(f"violations: {sum(violations.values())}")
    for key, count in violations.most_common():
        print(f"  {count:5d}x {examples[key]}")
    return 1 if violations or unexercised or sandboxes == 0 else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sandbox.conformance", description=__doc__)
    parser.add_argument("--report", type=Path, help="only add up this traffic directory")
    args, pytest_args = parser.parse_known_args(argv)
    if args.report is not None:
        return report(args.report)
    with tempfile.TemporaryDirectory(prefix="sandbox-traffic-") as tmp:
        env = {**os.environ, CONTRACT_ENV: "1", TRAFFIC_DIR_ENV: tmp}
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        # Test paths given on the command line replace the end-to-end suite.
        names_tests = any(Path(a.split("::")[0]).exists() for a in pytest_args)
        chosen = pytest_args if names_tests else [*pytest_args, *E2E_TESTS]
        tests = subprocess.run([*command, *chosen], env=env, check=False)
        status = report(Path(tmp))
    return status or tests.returncode


if __name__ == "__main__":
    sys.exit(main())
