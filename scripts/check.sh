#!/usr/bin/env bash
# Every check the project has, in the order that fails fastest. Exits non-zero on the first
# failure. Used by `make test` and by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.venv/bin

echo "== ruff lint"
"$bin/ruff" check .
echo "== ruff format"
"$bin/ruff" format --check .
echo "== mypy"
"$bin/mypy"
echo "== PostgreSQL for the storage tests"
SANCTUM_TEST_POSTGRES_URL="$(bash scripts/postgres.sh)"
export SANCTUM_TEST_POSTGRES_URL
echo "== tests"
# Every sandbox checks its traffic against Discord's OpenAPI description and leaves what it saw
# in this directory, for the conformance report below.
SANDBOX_TRAFFIC_DIR="$(mktemp -d)"
export SANDBOX_TRAFFIC_DIR
trap 'rm -rf "$SANDBOX_TRAFFIC_DIR"' EXIT
# Two workers: the end-to-end tests spend much of their time waiting on sockets.
if [ "$#" -gt 0 ]; then
    "$bin/pytest" -q -p no:cacheprovider -n 2 "$@"
    exit 0
fi
"$bin/pytest" -q -p no:cacheprovider -n 2 -m "not slow"
# The long proofs (a bot killed fifty times, racing processes, fuzzing, every permission
# denied in turn) take minutes each and lean on timing: SANCTUM_SLOW_TESTS=1 runs them too.
if [ "${SANCTUM_SLOW_TESTS:-}" = "1" ]; then
    echo "== slow proofs"
    "$bin/pytest" -q -p no:cacheprovider -n 2 -m slow
fi
echo "== Discord API conformance of the suite's traffic"
"$bin/python" -m sandbox.conformance --report "$SANDBOX_TRAFFIC_DIR"
