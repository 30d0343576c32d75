#!/bin/sh
# A throwaway PostgreSQL server for the store's tests and for trying a team's store on one
# machine: Debian's postgresql package, on a Unix socket in DIR only (no TCP port), with a
# database "quartz", a role "writer" who owns it and a role "reader" who may only read.
#
#   scripts/pg-server.sh start DIR [fresh]  starts it (made if new, or anew with "fresh") and
#                                           prints the writer's URI, postgresql://writer@%2F.../quartz
#   scripts/pg-server.sh database DIR NAME  adds an empty database NAME alike; prints its URI
#   scripts/pg-server.sh stop DIR           stops it (fast: open connections are ended)
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
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "pg-server.sh: PostgreSQL is not installed (scripts/install-deps.sh installs it)" >&2
  exit 1
fi
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
# Creates database $1, owned by the writer, whose new tables the reader may read.
add_database() {
  as_owner "$bin/psql" -q -h "$dir" -U postgres -d postgres -v ON_ERROR_STOP=1 \
    -c "CREATE DATABASE $1 OWNER writer" >/dev/null
  as_owner "$bin/psql" -q -h "$dir" -U postgres -d "$1" -v ON_ERROR_STOP=1 >/dev/null <<SQL
GRANT USAGE ON SCHEMA public TO reader;
ALTER DEFAULT PRIVILEGES FOR ROLE writer IN SCHEMA public GRANT SELECT ON TABLES TO reader;
SQL
  printf 'postgresql://writer@%s/%s\n' "$(printf %s "$dir" | sed 's|/|%2F|g')" "$1"
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
  if [ -n "$new" ]; then
    as_owner "$bin/psql" -q -h "$dir" -U postgres -d postgres -v ON_ERROR_STOP=1 \
      -c "CREATE ROLE writer LOGIN" -c "CREATE ROLE reader LOGIN" >/dev/null
    add_database quartz
  else
    printf 'postgresql://writer@%s/quartz\n' "$(printf %s "$dir" | sed 's|/|%2F|g')"
  fi
  ;;
database)
  name=${3:-}
  [ -n "$name" ] || { echo "usage: pg-server.sh database DIR NAME" >&2; exit 2; }
  dir=$(cd "$dir" && pwd)
  add_database "$name"
  ;;
stop)
  [ -d "$dir/data" ] && as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
  ;;
*)
  echo "pg-server.sh: unknown command $command" >&2
  exit 2
  ;;
esac
