#!/usr/bin/env bash
# The pooler lane: Tidemark through PgBouncer in transaction pooling mode, in front of the test
# PostgreSQL (TIDEMARK_TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test).
# Installs PgBouncer from Debian's packages when it is missing (as root), starts one in a
# temporary folder (scripts/pgbouncer.sh), runs test/pooler/ against it with a bounded time,
# and stops it on the way out, pass or fail. Not part of `npm test`, which stays Node-only.
set -euo pipefail
cd "$(dirname "$0")/.."

export TIDEMARK_TEST_DATABASE_URL="${TIDEMARK_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"

if ! command -v pgbouncer >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then
    echo "pgbouncer is missing; install it (Debian: apt-get install -y pgbouncer) or run this as root" >&2
    exit 1
  fi
  timeout 300 bash -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer >/dev/null'
  # The package starts no server here (no systemd in CI); stop one if it did.
  if command -v service >/dev/null 2>&1; then service pgbouncer stop >/dev/null 2>&1 || true; fi
fi
echo "pooler lane: $(pgbouncer --version | head -1)"

upstream=${TIDEMARK_TEST_DATABASE_URL#*://}
upstream=${upstream#*@}
upstream=${upstream%%/*}
export PGBOUNCER_UPSTREAM_HOST=${upstream%%:*}
export PGBOUNCER_UPSTREAM_PORT=${upstream##*:}
[ "$PGBOUNCER_UPSTREAM_PORT" = "$upstream" ] && PGBOUNCER_UPSTREAM_PORT=5432

dir=$(mktemp -d /tmp/tidemark-pgbouncer.XXXXXX)
cleanup() {
  scripts/pgbouncer.sh stop "$dir" || true
  rm -rf "$dir"
}
trap cleanup EXIT

url=$(scripts/pgbouncer.sh start "$dir")
echo "pooler lane: PgBouncer (pool_mode=transaction) at $url"
TIDEMARK_TEST_PGBOUNCER_URL="$url" TIDEMARK_TEST_DRIVERS=pg \
  timeout --kill-after=10 180 node scripts/run-tests.mjs test/pooler
