# shellcheck shell=bash
# Start a throwaway PostgreSQL server for the database tests; sourced by scripts/test.
#
# Creates a cluster in a temporary folder (as the "postgres" user when run as root), starts it
# on a free port on 127.0.0.1, creates the database "blink_test", exports
#   BLINK_TEST_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:PORT/blink_test
# and stops and removes everything when the calling shell exits. Does nothing when
# BLINK_TEST_DATABASE_URL is already set; warns and carries on when PostgreSQL is not installed.
#
# Usage: source scripts/postgres.sh    (then run pytest in the same shell)

_blink_pg_main() {
  if [ -n "${BLINK_TEST_DATABASE_URL:-}" ]; then
    echo "postgres.sh: using BLINK_TEST_DATABASE_URL from the environment"
    return 0
  fi
  local bindir=""
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V); do
    bindir="$d"
  done
  if [ -z "$bindir" ] && command -v initdb >/dev/null 2>&1; then
    bindir="$(dirname "$(command -v initdb)")"
  fi
  if [ -z "$bindir" ]; then
    echo "postgres.sh: PostgreSQL is not installed; the PostgreSQL tests will not run" >&2
    return 0
  fi
  _BLINK_PG_BIN="$bindir"
  # The server drops a vanished client's session (and its advisory locks: a cluster node's
  # room leases) within seconds, as blink.server.pg_liveness.SERVER_SETTINGS says.
  _BLINK_PG_KEEPALIVES="-c tcp_keepalives_idle=2 -c tcp_keepalives_interval=1 -c tcp_keepalives_count=3 -c tcp_user_timeout=5000"
  _BLINK_PG_DIR="$(mktemp -d "${TMPDIR:-/tmp}/blink-pg.XXXXXX")"
  local port
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  _BLINK_PG_RUN=()
  if [ "$(id -u)" = 0 ]; then
    if ! id postgres >/dev/null 2>&1; then
      echo "postgres.sh: running as root but there is no postgres user" >&2
      return 0
    fi
    chown -R postgres: "$_BLINK_PG_DIR"
    if command -v runuser >/dev/null 2>&1; then
      _BLINK_PG_RUN=(runuser -u postgres --)
    else
      _BLINK_PG_RUN=(su postgres -s /bin/sh -c)
    fi
  fi
  _blink_pg() {
    if [ "${#_BLINK_PG_RUN[@]}" -eq 3 ]; then  # su ... -c "command"
      "${_BLINK_PG_RUN[@]}" "$(printf '%q ' "$@")"
    else
      "${_BLINK_PG_RUN[@]}" "$@"
    fi
  }
  _blink_pg "$_BLINK_PG_BIN/initdb" -D "$_BLINK_PG_DIR/data" -U postgres --auth=trust \
    -E UTF8 --no-locale >"$_BLINK_PG_DIR/initdb.log" 2>&1 || {
    echo "postgres.sh: initdb failed:" >&2
    cat "$_BLINK_PG_DIR/initdb.log" >&2
    return 1
  }
  _blink_pg "$_BLINK_PG_BIN/pg_ctl" -D "$_BLINK_PG_DIR/data" -l "$_BLINK_PG_DIR/server.log" -w \
    -o "-p $port -k $_BLINK_PG_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200 $_BLINK_PG_KEEPALIVES" \
    start >/dev/null || {
    echo "postgres.sh: the server did not start:" >&2
    cat "$_BLINK_PG_DIR/server.log" >&2
    return 1
  }
  trap _blink_pg_stop EXIT
  "$_BLINK_PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U postgres blink_test
  export BLINK_TEST_DATABASE_URL="postgresql+psycopg://postgres@127.0.0.1:$port/blink_test"
  # How a test stops and starts this cluster (append "stop" or "start"): the storage tests
  # take the database away under a running server and bring it back.
  BLINK_TEST_PG_CTL="$(printf '%q ' "${_BLINK_PG_RUN[@]}" "$_BLINK_PG_BIN/pg_ctl" -D "$_BLINK_PG_DIR/data" \
    -l "$_BLINK_PG_DIR/server.log" -w -m fast \
    -o "-p $port -k $_BLINK_PG_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200 $_BLINK_PG_KEEPALIVES")"
  export BLINK_TEST_PG_CTL
  echo "postgres.sh: PostgreSQL on port $port (BLINK_TEST_DATABASE_URL exported)"
}

_blink_pg_stop() {
  if [ -n "${_BLINK_PG_DIR:-}" ] && [ -d "$_BLINK_PG_DIR/data" ]; then
    _blink_pg "$_BLINK_PG_BIN/pg_ctl" -D "$_BLINK_PG_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  if [ -n "${_BLINK_PG_DIR:-}" ]; then
    rm -rf "$_BLINK_PG_DIR"
  fi
  _BLINK_PG_DIR=""
}

_blink_pg_main
