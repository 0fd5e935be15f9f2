# shellcheck shell=bash
# Start a throwaway Redis server for the bus tests; sourced by scripts/test.
#
# Starts Debian's redis-server on a free port on 127.0.0.1 (no file written outside a
# temporary folder, nothing saved to disk), exports
#   BLINK_TEST_REDIS_URL=redis://127.0.0.1:PORT/0
# and stops it and removes the folder when the calling shell exits (after whatever the shell
# had to do on exit before, such as postgres.sh's cluster). Does nothing when
# BLINK_TEST_REDIS_URL is already set; warns and carries on when redis-server is not installed.
#
# Usage: source scripts/redis.sh    (then run pytest in the same shell)

_blink_redis_main() {
  if [ -n "${BLINK_TEST_REDIS_URL:-}" ]; then
    echo "redis.sh: using BLINK_TEST_REDIS_URL from the environment"
    return 0
  fi
  if ! command -v redis-server >/dev/null 2>&1; then
    echo "redis.sh: redis-server is not installed; the Redis tests will not run" >&2
    return 0
  fi
  _BLINK_REDIS_DIR="$(mktemp -d "${TMPDIR:-/tmp}/blink-redis.XXXXXX")"
  local port
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  redis-server --port "$port" --bind 127.0.0.1 --dir "$_BLINK_REDIS_DIR" --save "" \
    --appendonly no --daemonize yes --pidfile "$_BLINK_REDIS_DIR/redis.pid" \
    --logfile "$_BLINK_REDIS_DIR/redis.log" || {
    echo "redis.sh: redis-server did not start" >&2
    return 1
  }
  local i
  for i in $(seq 1 100); do
    if redis-cli -h 127.0.0.1 -p "$port" ping >/dev/null 2>&1; then
      break
    fi
    sleep 0.1
  done
  if ! redis-cli -h 127.0.0.1 -p "$port" ping >/dev/null 2>&1; then
    echo "redis.sh: redis-server does not answer:" >&2
    cat "$_BLINK_REDIS_DIR/redis.log" >&2
    return 1
  fi
  local before
  before="$(trap -p EXIT | sed -E "s/^trap -- '(.*)' EXIT$/\1/")"
  # shellcheck disable=SC2064
  trap "${before:+$before; }_blink_redis_stop" EXIT
  export BLINK_TEST_REDIS_URL="redis://127.0.0.1:$port/0"
  echo "redis.sh: Redis on port $port (BLINK_TEST_REDIS_URL exported)"
}

_blink_redis_stop() {
  if [ -n "${_BLINK_REDIS_DIR:-}" ] && [ -f "$_BLINK_REDIS_DIR/redis.pid" ]; then
    kill "$(cat "$_BLINK_REDIS_DIR/redis.pid")" 2>/dev/null || true
    local i
    for i in $(seq 1 50); do
      kill -0 "$(cat "$_BLINK_REDIS_DIR/redis.pid" 2>/dev/null)" 2>/dev/null || break
      sleep 0.1
    done
  fi
  if [ -n "${_BLINK_REDIS_DIR:-}" ]; then
    rm -rf "$_BLINK_REDIS_DIR"
  fi
  _BLINK_REDIS_DIR=""
}

_blink_redis_main
