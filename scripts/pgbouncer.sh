#!/usr/bin/env bash
# A PgBouncer in transaction pooling mode in front of the test PostgreSQL, for the pooler lane.
#
#   scripts/pgbouncer.sh start DIR   configure and start one in DIR (created, emptied first);
#                                    prints its URL on stdout: postgres://postgres@127.0.0.1:PORT/test
#   scripts/pgbouncer.sh stop DIR    stop the one started in DIR (no error when none runs)
#
# The upstream server is PGBOUNCER_UPSTREAM_HOST:PGBOUNCER_UPSTREAM_PORT (default 127.0.0.1:5432),
# database test, user postgres, trust auth. The port is PGBOUNCER_PORT, or a free one. PgBouncer
# refuses to run as root: as root it is started with `-u` as the postgres user (or nobody), and
# DIR is given to that user.
#
# max_prepared_statements=0 keeps PgBouncer 1.21 and later as older ones are (and as most poolers
# in production are): a named prepared statement is not carried from one server connection to
# the next. Debian 12 ships 1.18, which has no such setting and ignores nothing: the line is
# written only when the installed version knows it.
set -euo pipefail

command=${1:-}
dir=${2:-}
if [ -z "$command" ] || [ -z "$dir" ]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi

stop() {
  local pidfile="$dir/pgbouncer.pid"
  [ -f "$pidfile" ] || return 0
  local pid
  pid=$(cat "$pidfile")
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}

if [ "$command" = stop ]; then
  stop
  exit 0
fi
if [ "$command" != start ]; then
  echo "unknown command: $command (start or stop)" >&2
  exit 2
fi

if ! command -v pgbouncer >/dev/null 2>&1; then
  echo "pgbouncer is not installed (Debian: apt-get install -y pgbouncer)" >&2
  exit 1
fi

free_port() {
  node -e "const s=require('node:net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

port=${PGBOUNCER_PORT:-$(free_port)}
upstream_host=${PGBOUNCER_UPSTREAM_HOST:-127.0.0.1}
upstream_port=${PGBOUNCER_UPSTREAM_PORT:-5432}

rm -rf "$dir"
mkdir -p "$dir"
version=$(pgbouncer --version | awk 'NR == 1 { print $2 }')
prepared=""
if [ "$(printf '%s\n' "1.21.0" "$version" | sort -V | head -1)" = "1.21.0" ]; then
  prepared="max_prepared_statements = 0"
fi

cat >"$dir/userlist.txt" <<'EOF'
"postgres" ""
EOF
cat >"$dir/pgbouncer.ini" <<EOF
[databases]
test = host=$upstream_host port=$upstream_port dbname=test user=postgres

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
pool_mode = transaction
default_pool_size = 20
max_client_conn = 500
ignore_startup_parameters = extra_float_digits,options
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
$prepared
EOF

run_as=()
if [ "$(id -u)" = 0 ]; then
  user=postgres
  id "$user" >/dev/null 2>&1 || user=nobody
  chown -R "$user" "$dir"
  run_as=(-u "$user")
fi
pgbouncer -d "${run_as[@]}" "$dir/pgbouncer.ini"

url="postgres://postgres@127.0.0.1:$port/test"
for _ in $(seq 1 50); do
  if pg_isready -h 127.0.0.1 -p "$port" -q 2>/dev/null; then
    echo "$url"
    exit 0
  fi
  sleep 0.1
done
echo "pgbouncer did not answer on 127.0.0.1:$port; its log:" >&2
cat "$dir/pgbouncer.log" >&2 || true
stop
exit 1
