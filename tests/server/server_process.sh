# Sourced by the server's test scripts: a scratch directory, a blobtune-server child on a free
# loopback port, and cleanup on exit.
#
#   source "$(dirname "${BASH_SOURCE[0]}")/server_process.sh"
#   make_work_dir overload
#   start_server "$bin_dir" --data-dir "$work/data" ...   # sets server_pid and port
#   stop_server                                           # SIGTERM; sets server_status
#   field ok_per_s < load.json                            # a number from blobtune-load --json

make_work_dir() {
  work=$(mktemp -d "/tmp/blobtune-$1-XXXXXX")
  server_pid=""
  trap 'if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then kill -KILL "$server_pid"; fi; rm -rf "$work"' EXIT
}

start_server() {
  local bin_dir=$1
  shift
  "$bin_dir/blobtune-server" --listen 127.0.0.1:0 "$@" > "$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 100); do
    grep -q "listening on" "$work/server.log" && break
    sleep 0.1
  done
  port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/server.log")
  [ -n "$port" ] || { echo "the server did not start:"; cat "$work/server.log"; exit 1; }
}

stop_server() {
  kill -TERM "$server_pid"
  server_status=0
  wait "$server_pid" || server_status=$?
  server_pid=""
}

field() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p"; }
