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
"$bin/pytest" -q -p no:cacheprovider -n 2 "$@"
if [ "$#" -eq 0 ]; then
    echo "== Discord API conformance of the suite's traffic"
    "$bin/python" -m sandbox.conformance --report "$SANDBOX_TRAFFIC_DIR"
fi
