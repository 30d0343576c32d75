#!/bin/sh
# A throwaway PostgreSQL server for the store's tests and for trying a team's store on one
# machine: Debian's postgresql package, on a Unix socket in DIR only (no TCP port), with a
# database "quartz", a role "writer" who owns it and a role "reader" who may only read; and
# in front of it a connection pooler, PgBouncer in session mode, on a socket in DIR/pooler
# (a connection to the server forks a backend, 16-18 ms here; to the pooler ~1 ms).
#
#   scripts/pg-server.sh start DIR [fresh]  starts both (made if new, or anew with "fresh");
#                                           prints the writer's URI, postgresql://writer@%2F.../quartz,
#                                           then the same through the pooler
#   scripts/pg-server.sh database DIR NAME  adds an empty database NAME alike; prints its URIs
#   scripts/pg-server.sh stop DIR           stops both (fast: open connections are ended)
#
# As root the server runs as the postgres user (initdb refuses root); DIR is made theirs.
set -eu
command=${1:-}
dir=${2:-}
if [ -z "$command" ] || [ -z "$dir" ]; then
  echo "usage: pg-server.sh start|stop DIR, or database DIR NAME" >&2
  exit 2
fi
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ] || ! command -v pgbouncer >/dev/null; then
  echo "pg-server.sh: PostgreSQL or PgBouncer is not installed (scripts/install-deps.sh installs them)" >&2
  exit 1
fi
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
# The writer's URIs of database $1: straight to the server, then through the pooler.
print_uris() {
  socket=$(printf %s "$dir" | sed 's|/|%2F|g')
  printf 'postgresql://writer@%s/%s\npostgresql://writer@%s%%2Fpooler:6432/%s\n' \
    "$socket" "$1" "$socket" "$1"
}
stop_pooler() {
  if [ -f "$dir/pooler/pgbouncer.pid" ]; then
    kill "$(cat "$dir/pooler/pgbouncer.pid")" 2>/dev/null || true
    rm -f "$dir/pooler/pgbouncer.pid"
  fi
}
# PgBouncer for every database of the server, each client's server connection its own
# until it leaves, then reset (DISCARD ALL) for the next: the store's prepared statements
# live in a session.
start_pooler() {
  stop_pooler
  mkdir -p "$dir/pooler"
  printf '"writer" ""\n"reader" ""\n"postgres" ""\n' >"$dir/pooler/users.txt"
  cat >"$dir/pooler/pgbouncer.ini" <<INI
[databases]
* = host=$dir port=5432
[pgbouncer]
listen_addr =
listen_port = 6432
unix_socket_dir = $dir/pooler
auth_type = trust
auth_file = $dir/pooler/users.txt
pool_mode = session
server_reset_query = DISCARD ALL
logfile = $dir/pooler/pgbouncer.log
pidfile = $dir/pooler/pgbouncer.pid
INI
  if [ "$(id -u)" = 0 ]; then chown -R postgres "$dir/pooler"; fi
  as_owner pgbouncer -q -d "$dir/pooler/pgbouncer.ini" ||
    { cat "$dir/pooler/pgbouncer.log" >&2; exit 1; }
}
# Creates database $1, owned by the writer, whose new tables the reader may read.
add_database() {
  as_owner "$bin/psql" -q -h "$dir" -U postgres -d postgres -v ON_ERROR_STOP=1 \
    -c "CREATE DATABASE $1 OWNER writer" >/dev/null
  as_owner "$bin/psql" -q -h "$dir" -U postgres -d "$1" -v ON_ERROR_STOP=1 >/dev/null <<SQL
GRANT USAGE ON SCHEMA public TO reader;
ALTER DEFAULT PRIVILEGES FOR ROLE writer IN SCHEMA public GRANT SELECT ON TABLES TO reader;
SQL
  print_uris "$1"
}
case "$command" in
start)
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  # A server left running (an interrupted test run) goes first.
  if [ -f "$dir/data/postmaster.pid" ]; then
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  if [ "$(id -u)" = 0 ] && ! runuser -u postgres -- test -x "$dir"; then
    echo "pg-server.sh: the postgres user cannot reach $dir (a directory above it is private)" >&2
    exit 1
  fi
  [ "${3:-}" = fresh ] && rm -rf "$dir/data"
  new=
  if [ ! -d "$dir/data" ]; then
    new=yes
    if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
    as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust --no-sync -E UTF8 \
      >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
  fi
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
    -o "-k $dir -c listen_addresses= -c fsync=off" start >/dev/null ||
    { cat "$dir/server.log" >&2; exit 1; }
  start_pooler
  if [ -n "$new" ]; then
    as_owner "$bin/psql" -q -h "$dir" -U postgres -d postgres -v ON_ERROR_STOP=1 \
      -c "CREATE ROLE writer LOGIN" -c "CREATE ROLE reader LOGIN" >/dev/null
    add_database quartz
  else
    print_uris quartz
  fi
  ;;
database)
  name=${3:-}
  [ -n "$name" ] || { echo "usage: pg-server.sh database DIR NAME" >&2; exit 2; }
  dir=$(cd "$dir" && pwd)
  add_database "$name"
  ;;
stop)
  stop_pooler
  [ -d "$dir/data" ] && as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
  ;;
*)
  echo "pg-server.sh: unknown command $command" >&2
  exit 2
  ;;
esac
