#!/usr/bin/env bash
# Start the PostgreSQL server used by the tests and benchmarks, then print its URL.
#
# Idempotent: installs Debian's postgresql when missing, creates a cluster under var/pg on the
# first run, starts it when it is not running, creates the test database when it is missing.
# The server listens on 127.0.0.1 only. Everything but the URL goes to stderr, so
#   export SANCTUM_TEST_POSTGRES_URL="$(bash scripts/postgres.sh)"
# works. Runs as root (the server itself runs as the `postgres` user) or as `postgres`.
set -euo pipefail
cd "$(dirname "$0")/.."

port="${SANCTUM_PG_PORT:-54329}"
dbname="${SANCTUM_PG_DATABASE:-sanctum_test}"
root="$(pwd)/var/pg"
data="$root/data"
sockets="$root/run"
log="$root/server.log"

say() { echo "postgres.sh: $*" >&2; }

pg_bindir() {
    local dir
    dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
    [ -n "$dir" ] && [ -x "$dir/pg_ctl" ] && echo "$dir"
}

bindir="$(pg_bindir || true)"
if [ -z "$bindir" ]; then
    say "installing Debian's postgresql"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update >&2
    apt-get install -y postgresql >&2
    bindir="$(pg_bindir)"
fi

as_postgres() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

mkdir -p "$root"
chmod 755 "$(pwd)/var" "$root"
if [ "$(id -u)" -eq 0 ]; then
    chown postgres:postgres "$root"
fi
as_postgres mkdir -p "$data" "$sockets"

if [ ! -f "$data/PG_VERSION" ]; then
    say "creating a cluster in $data"
    as_postgres "$bindir/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 \
        --locale=C.UTF-8 >&2
    # Tests only: trust on loopback, never on another address.
    cat >"$data/pg_hba.conf" <<'EOF'
local   all all                 trust
host    all all 127.0.0.1/32    trust
EOF
    chown postgres:postgres "$data/pg_hba.conf" 2>/dev/null || true
fi

if ! as_postgres "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    say "starting on 127.0.0.1:$port"
    as_postgres "$bindir/pg_ctl" -D "$data" -l "$log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$sockets -c max_connections=200" \
        start >&2
fi

for _ in $(seq 1 60); do
    if "$bindir/pg_isready" -q -h 127.0.0.1 -p "$port"; then
        break
    fi
    sleep 0.5
done

psql_cmd=("$bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -qtA)
if [ "$("${psql_cmd[@]}" -c "SELECT 1 FROM pg_database WHERE datname = '$dbname'")" != "1" ]; then
    say "creating database $dbname"
    "${psql_cmd[@]}" -c "CREATE DATABASE $dbname" >&2
fi

echo "postgresql://postgres@127.0.0.1:$port/$dbname"
