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
# Two workers: the end-to-end tests spend much of their time waiting on sockets.
"$bin/pytest" -q -p no:cacheprovider -n 2 "$@"
